//! What can stop a server: its tools could not be assembled, the transport failed, or rmcp
//! stopped with an error.

use std::fmt;

use crate::ToolboxError;

/// Why serving stopped with an error, or never started.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The tools could not be assembled (two with one name, say).
    Tools(ToolboxError),
    /// Reading or writing the transport failed.
    Io(std::io::Error),
    /// The HTTP transport would not start: its settings, or its address.
    #[cfg(feature = "http")]
    Http(crate::http::HttpError),
    /// rmcp could not start or went on no longer: the client's `initialize` was refused, or a
    /// task of the server's panicked.
    Protocol(Box<dyn std::error::Error + Send + Sync>),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Tools(error) => write!(f, "the tools cannot be served: {error}"),
            ServeError::Io(error) => write!(f, "the transport failed: {error}"),
            #[cfg(feature = "http")]
            ServeError::Http(error) => error.fmt(f),
            ServeError::Protocol(error) => write!(f, "serving MCP failed: {error}"),
        }
    }
}

impl std::error::Error for ServeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServeError::Tools(error) => Some(error),
            ServeError::Io(error) => Some(error),
            #[cfg(feature = "http")]
            ServeError::Http(error) => Some(error),
            ServeError::Protocol(error) => Some(&**error),
        }
    }
}

impl From<ToolboxError> for ServeError {
    fn from(error: ToolboxError) -> Self {
        ServeError::Tools(error)
    }
}

impl From<std::io::Error> for ServeError {
    fn from(error: std::io::Error) -> Self {
        ServeError::Io(error)
    }
}

#[cfg(feature = "http")]
impl From<crate::http::HttpError> for ServeError {
    fn from(error: crate::http::HttpError) -> Self {
        ServeError::Http(error)
    }
}
