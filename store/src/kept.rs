//! Results kept under a call's idempotency key: what a retry of `reviews_write` gets back
//! instead of writing again. A write keeps its result in the same transaction as the review, so
//! that a server dying between its commit and its answer loses neither; a key is kept until it
//! expires, and one use of it at a time holds it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::ReviewRow;

/// A call made with an idempotency key: who made it, of which tool, with which key and a
/// fingerprint of its arguments, and when what is kept for it expires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallKey {
    pub caller: String,
    pub tool: String,
    pub key: String,
    pub fingerprint: String,
    pub expires_at: SystemTime,
}

/// What is kept under a call key: the fingerprint of the call that kept it, and its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptCall {
    pub fingerprint: String,
    pub result: String,
}

/// A write's result to keep under `key`, in the transaction of the write: `result` makes it
/// from the row written. The store keeps the text as it is.
pub struct Keep {
    pub key: CallKey,
    pub result: Box<dyn FnOnce(&ReviewRow) -> String + Send>,
}

impl std::fmt::Debug for Keep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keep")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Expired records a write deletes, at most: the table stays small without a sweeper, and no
/// one write does much of that work.
pub(crate) const EXPIRED_PER_WRITE: i64 = 100;

/// `time` in milliseconds since the Unix epoch, as the table holds it; a time before it is 0.
pub(crate) fn millis(time: SystemTime) -> i64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// Now, as the table holds times.
pub(crate) fn now() -> i64 {
    millis(SystemTime::now())
}
