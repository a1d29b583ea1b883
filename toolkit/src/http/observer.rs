//! What the HTTP transport tells an application about its traffic, for its metrics: requests
//! in flight and their answers, connections open, and callers refused.

use http::StatusCode;

/// Told of the HTTP transport's traffic as it happens; every method does nothing unless
/// implemented. Methods are called on the request's own task: keep them quick (count, don't
/// wait).
///
/// ```
/// use std::sync::atomic::{AtomicI64, Ordering};
/// use toolkit::http::{HttpObserver, StatusCode};
///
/// /// Counts the requests in flight.
/// #[derive(Default)]
/// struct InFlight(AtomicI64);
///
/// impl HttpObserver for InFlight {
///     fn request_started(&self) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
///     fn request_finished(&self, _status: Option<StatusCode>) {
///         self.0.fetch_sub(1, Ordering::Relaxed);
///     }
/// }
/// ```
pub trait HttpObserver: Send + Sync + 'static {
    /// A request arrived (on any path); [`request_finished`](Self::request_finished) follows.
    fn request_started(&self) {}

    /// A request ended: `status` is its answer's, or `None` when its connection went away
    /// before the answer was ready.
    fn request_finished(&self, status: Option<StatusCode>) {
        let _ = status;
    }

    /// A connection was accepted; [`connection_closed`](Self::connection_closed) follows.
    fn connection_opened(&self) {}

    /// A connection was closed.
    fn connection_closed(&self) {}

    /// A request to MCP was refused for its token; its answer (401 or 403) is told to
    /// [`request_finished`](Self::request_finished) as well.
    fn refused(&self, refusal: Refusal) {
        let _ = refusal;
    }
}

/// Why a request's token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// The request carries no bearer token (401).
    MissingToken,
    /// Its token stands for no one (401).
    InvalidToken,
    /// Its token lacks the scope the called tool declares (403).
    InsufficientScope,
}

/// The observer of a server that has none.
pub(crate) struct Unobserved;

impl HttpObserver for Unobserved {}
