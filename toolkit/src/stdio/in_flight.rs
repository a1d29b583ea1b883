//! The requests read from stdin and not yet answered on stdout. Counting them is how the stdio
//! transport bounds what it holds whatever the client does (reading waits while
//! [`MAX_IN_FLIGHT`] are in flight, so a client that reads no answers stops being read), and how
//! it knows when every request read has its answer.
//!
//! rmcp itself would read on and spawn a task per request however many answers wait to be
//! written, and it drops the answer to a request the client cancels, which would leave that
//! request counted forever; so cancellations are handled here instead: each request carries a
//! token of its own to its call (a `toolkit::Cancellation`), which the client's
//! `notifications/cancelled` cancels, so the toolkit stops the call; and the answer the call
//! still gives is not written, as MCP asks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::model::RequestId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// Requests read ahead of their answers, at most. A client that keeps more in flight waits for
/// an answer before its next request is read. The memory the server holds for answers is
/// bounded by this many answers.
pub const MAX_IN_FLIGHT: usize = 16;

/// The requests in flight; clones share them.
#[derive(Clone)]
pub(super) struct InFlight {
    slots: Arc<Semaphore>,
    requests: Arc<Mutex<HashMap<RequestId, Request>>>,
}

struct Request {
    /// Freed when the answer is on stdout (or dropped, for a cancelled request).
    _slot: OwnedSemaphorePermit,
    /// Cancelled when the client cancels the request: its call stops.
    token: CancellationToken,
}

/// Why a request could not be counted in.
pub(super) enum NotStarted {
    /// A request with the same id is in flight.
    DuplicateId,
    /// Answers can no longer be written.
    Closed,
}

/// An answer taken out of the count; its slot is freed when this is dropped.
pub(super) struct Answered {
    request: Request,
}

impl Answered {
    /// Whether the client cancelled the request, so that its answer is not to be written.
    pub(super) fn was_cancelled(&self) -> bool {
        self.request.token.is_cancelled()
    }
}

impl InFlight {
    pub(super) fn new() -> InFlight {
        InFlight {
            slots: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            requests: Arc::default(),
        }
    }

    /// Waits for a free slot, then counts the request `id` in; the token is cancelled when the
    /// client cancels the request, or the server stops waiting for its answer.
    pub(super) async fn start(&self, id: RequestId) -> Result<CancellationToken, NotStarted> {
        if self.requests().contains_key(&id) {
            return Err(NotStarted::DuplicateId);
        }
        let slot = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|_| NotStarted::Closed)?;
        let token = CancellationToken::new();
        let request = Request {
            _slot: slot,
            token: token.clone(),
        };
        self.requests().insert(id, request);
        Ok(token)
    }

    /// The client cancelled request `id`: its call stops, and its answer will not be written.
    pub(super) fn cancel(&self, id: &RequestId) {
        if let Some(request) = self.requests().get(id) {
            request.token.cancel();
        }
    }

    /// The server stops waiting for answers (a signal, then the drain's deadline): every call
    /// still running stops.
    pub(super) fn cancel_all(&self) {
        for request in self.requests().values() {
            request.token.cancel();
        }
    }

    /// Takes request `id` out of the count as its answer arrives; `None` for an id not in
    /// flight.
    pub(super) fn answer(&self, id: &RequestId) -> Option<Answered> {
        let request = self.requests().remove(id)?;
        Some(Answered { request })
    }

    /// How many requests are in flight.
    pub(super) fn count(&self) -> usize {
        self.requests().len()
    }

    /// Waits until every request counted in has been answered, or answers can no longer be
    /// written.
    pub(super) async fn all_answered(&self) {
        // Holding every slot means no request holds one. MAX_IN_FLIGHT is small, so it fits.
        let _all = self.slots.acquire_many(MAX_IN_FLIGHT as u32).await;
    }

    /// Answers can no longer be written (stdout is gone, or rmcp stopped): whoever waits for a
    /// slot or for the last answer stops waiting.
    pub(super) fn close(&self) {
        self.slots.close();
    }

    // The lock is held only to look up, insert or remove, none of which can panic; a poisoned
    // lock would still hold a consistent map.
    fn requests(&self) -> MutexGuard<'_, HashMap<RequestId, Request>> {
        self.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request whose id is still in flight is refused, however quickly the first would be
    /// answered; once it is answered, the id may be used again.
    #[tokio::test]
    async fn an_id_in_flight_is_not_counted_in_twice() {
        let in_flight = InFlight::new();
        let id = RequestId::Number(7);
        assert!(in_flight.start(id.clone()).await.is_ok());
        assert!(matches!(
            in_flight.start(id.clone()).await,
            Err(NotStarted::DuplicateId)
        ));
        assert_eq!(in_flight.count(), 1);
        assert!(in_flight.answer(&id).is_some());
        assert!(in_flight.start(id).await.is_ok());
    }
}
