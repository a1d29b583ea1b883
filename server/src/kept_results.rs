//! The movie server's [`IdempotencyStore`]: the results of calls made with an idempotency key
//! kept in its database (`kept_results`), so that every replica on one PostgreSQL database sees
//! the same keys, and `reviews_write` keeps its result in the transaction of its review.

use store::{CallKey, KeptCall, Store};
use toolkit::KeyedCall;
use toolkit::idempotency::{IdempotencyStore, KeptResult, StoreError};

/// The results kept in the store's database.
pub struct KeptResults(pub Store);

impl IdempotencyStore for KeptResults {
    async fn find(&self, call: &KeyedCall) -> Result<Option<KeptResult>, StoreError> {
        let kept = self.0.kept_call(&call_key(call)).await?;
        Ok(kept.map(
            |KeptCall {
                 fingerprint,
                 result,
             }| KeptResult {
                fingerprint,
                result,
            },
        ))
    }

    async fn keep(&self, call: &KeyedCall, result: &str) -> Result<bool, StoreError> {
        Ok(self.0.keep_call(&call_key(call), result).await?)
    }
}

/// The store's key of `call`.
pub fn call_key(call: &KeyedCall) -> CallKey {
    CallKey {
        caller: call.caller().to_owned(),
        tool: call.tool().to_owned(),
        key: call.key().to_owned(),
        fingerprint: call.fingerprint().to_owned(),
        expires_at: call.expires_at(),
    }
}
