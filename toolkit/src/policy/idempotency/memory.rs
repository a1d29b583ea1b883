//! [`MemoryStore`]: results kept in the process, bounded.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

use super::{
    IdempotencyStore, KeptResult, KeyedCall, MEMORY_STORE_CAPACITY, Slot, StoreError, slot,
};

/// Results kept in the process, lost when it stops: enough for one server on stdio or one
/// replica. It holds at most a set number of records; past it, expired records go first, then
/// those that expire soonest.
#[derive(Debug)]
pub struct MemoryStore {
    records: Mutex<HashMap<Slot, Record>>,
    capacity: usize,
}

#[derive(Debug)]
struct Record {
    kept: KeptResult,
    expires_at: SystemTime,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_capacity(MEMORY_STORE_CAPACITY)
    }
}

impl MemoryStore {
    /// A store that holds at most `capacity` records (at least one).
    pub fn with_capacity(capacity: usize) -> MemoryStore {
        MemoryStore {
            records: Mutex::new(HashMap::new()),
            capacity: capacity.max(1),
        }
    }
}

impl IdempotencyStore for MemoryStore {
    async fn find(&self, call: &KeyedCall) -> Result<Option<KeptResult>, StoreError> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let record = records.get(&slot(call));
        let now = SystemTime::now();
        Ok(record
            .filter(|record| record.expires_at > now)
            .map(|record| record.kept.clone()))
    }

    async fn keep(&self, call: &KeyedCall, result: &str) -> Result<bool, StoreError> {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let now = SystemTime::now();
        let slot = slot(call);
        if records
            .get(&slot)
            .is_some_and(|record| record.expires_at > now)
        {
            return Ok(false);
        }
        if records.len() >= self.capacity {
            records.retain(|_, record| record.expires_at > now);
        }
        if records.len() >= self.capacity {
            let soonest = records
                .iter()
                .min_by_key(|(_, record)| record.expires_at)
                .map(|(slot, _)| slot.clone());
            if let Some(soonest) = soonest {
                records.remove(&soonest);
            }
        }
        let kept = KeptResult {
            fingerprint: call.fingerprint().to_owned(),
            result: result.to_owned(),
        };
        let expires_at = call.expires_at();
        records.insert(slot, Record { kept, expires_at });
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::idempotency::{DEFAULT_EXPIRY, arguments};

    fn call(key: &str, sent: Value, expiry: Duration) -> KeyedCall {
        KeyedCall::new("ada", "write", key, &arguments(sent), expiry)
    }

    #[tokio::test]
    async fn a_memory_store_keeps_one_result_per_key_until_it_expires() {
        let store = MemoryStore::default();
        let first = call("k", json!({ "a": 1 }), DEFAULT_EXPIRY);
        assert_eq!(store.find(&first).await.unwrap(), None);
        assert!(store.keep(&first, "{\"id\":1}").await.unwrap());
        let retry = call("k", json!({ "a": 1 }), DEFAULT_EXPIRY);
        let kept = store.find(&retry).await.unwrap().unwrap();
        assert_eq!(
            (kept.fingerprint.as_str(), kept.result.as_str()),
            (first.fingerprint(), "{\"id\":1}")
        );
        assert!(!store.keep(&retry, "{\"id\":2}").await.unwrap());

        let other_caller = KeyedCall::new(
            "bob",
            "write",
            "k",
            &arguments(json!({ "a": 1 })),
            DEFAULT_EXPIRY,
        );
        assert_eq!(store.find(&other_caller).await.unwrap(), None);

        let expired = call("old", json!({}), Duration::ZERO);
        assert!(store.keep(&expired, "{}").await.unwrap());
        assert_eq!(store.find(&expired).await.unwrap(), None);
        assert!(
            store.keep(&expired, "{}").await.unwrap(),
            "an expired key is free again"
        );
    }

    #[tokio::test]
    async fn a_full_memory_store_drops_what_expires_soonest() {
        let store = MemoryStore::with_capacity(2);
        let soon = call("soon", json!({}), Duration::from_secs(60));
        let later = call("later", json!({}), Duration::from_secs(600));
        let last = call("last", json!({}), Duration::from_secs(600));
        for keyed in [&soon, &later, &last] {
            assert!(store.keep(keyed, "{}").await.unwrap());
        }
        assert_eq!(store.find(&soon).await.unwrap(), None);
        assert!(store.find(&later).await.unwrap().is_some());
        assert!(store.find(&last).await.unwrap().is_some());
    }
}
