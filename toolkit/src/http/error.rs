//! Why the HTTP transport would not start: its settings, or its address.

use std::fmt;
use std::net::SocketAddr;

/// Why [`bind`](super::bind) refused to serve. Each names what to change.
#[derive(Debug)]
#[non_exhaustive]
pub enum HttpError {
    /// Authentication is off on an address other hosts can reach.
    Unauthenticated(SocketAddr),
    /// Authentication is on, but these tools declare no scope, so any valid token could call
    /// them.
    Unscoped(Vec<String>),
    /// The public URL is not an http or https URL with a host.
    PublicUrl(String),
    /// The address could not be listened on (taken, say).
    Listen {
        /// The address.
        address: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::Unauthenticated(address) => write!(
                f,
                "refusing to serve {address} without authentication: anyone who can reach it \
                 could call every tool. Authenticate callers (HttpSettings::authenticate), \
                 listen on a loopback address (127.0.0.1:{port}), or, if something in front of \
                 the server checks every caller, say so (HttpSettings::insecure_no_auth)",
                port = address.port()
            ),
            HttpError::Unscoped(tools) => write!(
                f,
                "authentication is on, but these tools declare no scope, so any valid token \
                 could call them: {}; give each one `scope = \"…\"` in its #[tool(...)]",
                tools.join(", ")
            ),
            HttpError::PublicUrl(url) => {
                write!(f, "the public URL must be an http or https URL, not {url}")
            }
            HttpError::Listen { address, error } => {
                write!(f, "cannot listen on {address}: {error}")
            }
        }
    }
}

impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HttpError::Listen { error, .. } => Some(error),
            _ => None,
        }
    }
}
