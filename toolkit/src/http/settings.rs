//! How the HTTP transport serves: [`HttpSettings`], with the defaults a server on the open
//! network wants, and the checks [`bind`](super::bind) makes before anything is served.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use url::Url;

use super::MCP_PATH;
use super::connections::Limits;
use super::error::HttpError;
use super::observer::{HttpObserver, Unobserved};
use crate::ToolSpecs;
use crate::auth::{Authenticate, Authenticator};

/// Host names a client on this machine uses; always allowed.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How to serve MCP over HTTP: who may call (see [`authenticate`](Self::authenticate)), from
/// where, and the limits that keep one client from holding the server. The defaults suit a
/// server on the open network; each setter says its default.
///
/// ```
/// use std::time::Duration;
/// use toolkit::auth::StaticTokens;
/// use toolkit::http::HttpSettings;
///
/// let tokens = StaticTokens::parse("", "NOTEBOOK_TOKENS").unwrap();
/// let settings = HttpSettings::default()
///     .authenticate(tokens)
///     .allowed_origins(["http://localhost:6274"])
///     .request_timeout(Duration::from_secs(30));
/// ```
pub struct HttpSettings {
    pub(super) public_url: Option<Url>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    pub(super) max_body_bytes: usize,
    pub(super) body_read_timeout: Duration,
    pub(super) request_timeout: Duration,
    pub(super) max_requests_in_flight: usize,
    pub(super) shutdown_delay: Duration,
    pub(super) limits: Limits,
    pub(super) authenticator: Option<Authenticator>,
    pub(super) authorization_servers: Vec<String>,
    insecure_no_auth: bool,
    pub(super) observer: Arc<dyn HttpObserver>,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            public_url: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body_bytes: 1 << 20,
            body_read_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            max_requests_in_flight: 256,
            shutdown_delay: Duration::ZERO,
            limits: Limits {
                header_read_timeout: Duration::from_secs(10),
                shutdown_timeout: Duration::from_secs(30),
                max_connections: 512,
                max_connections_per_address: 128,
            },
            authenticator: None,
            authorization_servers: Vec::new(),
            insecure_no_auth: false,
            observer: Arc::new(Unobserved),
        }
    }
}

impl HttpSettings {
    /// Turns authentication on: every request to MCP needs a bearer token that `way` accepts
    /// (401 otherwise, with the challenge RFC 9728 describes), and a call needs the scope its
    /// tool declares (403 otherwise). Every tool must then declare a scope: [`bind`](super::bind)
    /// refuses to serve one that does not, since any valid token could call it.
    pub fn authenticate(mut self, way: impl Authenticate) -> Self {
        self.authenticator = Some(Box::new(way));
        self
    }

    /// The OAuth authorization servers clients get tokens from, named in the protected-resource
    /// metadata (RFC 9728). None by default: static tokens come from the operator.
    pub fn authorization_servers(
        mut self,
        servers: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.authorization_servers
            .extend(servers.into_iter().map(Into::into));
        self
    }

    /// Serve without authentication on an address other hosts can reach, which is otherwise
    /// refused: only for a server behind something that checks every caller itself.
    pub fn insecure_no_auth(mut self, insecure: bool) -> Self {
        self.insecure_no_auth = insecure;
        self
    }

    /// The URL clients reach MCP at, when it is not `http://ADDRESS/mcp` (behind a proxy, or on
    /// `0.0.0.0`). It names the server to OAuth: a JWT's audience must be exactly it.
    pub fn public_url(mut self, url: Url) -> Self {
        self.public_url = Some(url);
        self
    }

    /// `Host` header values to accept besides `localhost`, `127.0.0.1`, `::1` and the public
    /// URL's host (against DNS rebinding): `host` accepts any port, `host:port` only that one.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// `Origin` header values to accept from browser-based clients besides the public URL's
    /// origin, like `http://localhost:6274` (`:*` for any port). A request without an `Origin`
    /// (a native client) is always accepted.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// The largest request body accepted, in bytes; larger ones get 413. 1 MiB by default.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How long a client may take to send a request's line and headers; then its connection is
    /// closed, as is a kept-alive connection left idle as long. 10 s by default.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.limits.header_read_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body; past it the answer is 408. 10 s by
    /// default.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long one request may take, from its headers to its answer (reading its body
    /// included); past it the answer is 503. 60 s by default.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Once told to stop, how long requests in flight may take to finish; then the
    /// connections still open are closed. 30 s by default.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.limits.shutdown_timeout = timeout;
        self
    }

    /// Once told to stop, how long to go on serving with `/readyz` answering 503, so that a load
    /// balancer stops sending requests here before the server stops accepting them. None by
    /// default.
    pub fn shutdown_delay(mut self, delay: Duration) -> Self {
        self.shutdown_delay = delay;
        self
    }

    /// The most connections open at once. A new one past it takes the place of the connection
    /// idle longest; when every one has a request in flight, it gets 503. 512 by default.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.limits.max_connections = connections;
        self
    }

    /// The most connections open at once from one client address, so that one client cannot
    /// take them all; past it, that address's connection idle longest gives way. 128 by
    /// default; behind a reverse proxy every client has the proxy's address.
    pub fn max_connections_per_address(mut self, connections: usize) -> Self {
        self.limits.max_connections_per_address = connections;
        self
    }

    /// The most requests to MCP served at once; past it, a request is answered 503 with
    /// `Retry-After: 1` at once, on its connection, which stays open. It bounds the memory and
    /// the time a burst can take: a request beyond what the server can work through soon is
    /// better told to come back than queued. `/healthz` and `/readyz` are never refused. 256 by
    /// default.
    pub fn max_requests_in_flight(mut self, requests: usize) -> Self {
        self.max_requests_in_flight = requests;
        self
    }

    /// Tells `observer` of the requests, connections and refusals as they happen, for metrics.
    pub fn observe(mut self, observer: impl HttpObserver) -> Self {
        self.observer = Arc::new(observer);
        self
    }

    /// Checks these settings for serving `declared` (every tool of the server, served here or
    /// not) on `address`: authentication off only on a loopback address (unless
    /// [`insecure_no_auth`](Self::insecure_no_auth)), and on only with a scope on every tool.
    pub(super) fn check(&self, address: SocketAddr, declared: &ToolSpecs) -> Result<(), HttpError> {
        if self.authenticator.is_none() {
            if !address.ip().is_loopback() && !self.insecure_no_auth {
                return Err(HttpError::Unauthenticated(address));
            }
            tracing::warn!("authentication is off: every caller can use every tool");
            return Ok(());
        }
        let unscoped: Vec<String> = declared
            .iter()
            .filter(|spec| spec.scope.is_none())
            .map(|spec| spec.name.to_owned())
            .collect();
        if unscoped.is_empty() {
            Ok(())
        } else {
            Err(HttpError::Unscoped(unscoped))
        }
    }

    /// The URL clients reach MCP at: the one given, or `http://ADDRESS/mcp` for the address
    /// bound.
    pub(super) fn resolved_public_url(
        &self,
        address: SocketAddr,
        bound: SocketAddr,
    ) -> Result<Url, HttpError> {
        if let Some(url) = &self.public_url {
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(HttpError::PublicUrl(url.to_string()));
            }
            return Ok(url.clone());
        }
        if self.authenticator.is_some() && address.ip().is_unspecified() {
            tracing::warn!(
                "listening on {address} with authentication on but no public URL: clients will \
                 be told the resource is http://{bound}{MCP_PATH}"
            );
        }
        let default = format!("http://{bound}{MCP_PATH}");
        Url::parse(&default).map_err(|_| HttpError::PublicUrl(default))
    }

    /// The `Host` values accepted: loopback names, the public URL's host, and those named.
    pub(super) fn hosts(&self, public_url: &Url) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|&host| host.to_owned()).collect();
        hosts.extend(public_url.host_str().map(str::to_owned));
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts
    }

    /// The `Origin` values accepted (a request without one, as native clients send, is fine):
    /// the public URL's origin and those named.
    pub(super) fn origins(&self, public_url: &Url) -> Vec<String> {
        let mut origins = Vec::new();
        if let (Some(host), Some(port)) =
            (public_url.host_str(), public_url.port_or_known_default())
        {
            origins.push(format!("{}://{host}:{port}", public_url.scheme()));
        }
        origins.extend(self.allowed_origins.iter().cloned());
        origins
    }
}
