//! Safe retries: a tool declared `#[tool(idempotency_key)]` takes an optional `idempotencyKey`,
//! and a call that repeats a key its caller used before, with the same arguments, gets the first
//! call's result without the tool running again. The results are kept in an
//! [`IdempotencyStore`]: in memory by default ([`MemoryStore`]), or in the server's own database,
//! where a tool can keep the result in the same transaction as its change (see [`KeyedCall`]).
//!
//! A call with a key, in this layer:
//!
//! 1. waits while an earlier call with the same caller, tool and key runs in this process
//!    (bounded by the tool's time limit);
//! 2. finds the key's record: the same arguments get the kept result, other arguments
//!    `Conflict`;
//! 3. otherwise runs, and keeps a successful result under the key (unless the tool kept it
//!    itself). A tool that finds, in its own transaction, the key kept by a call that ran
//!    meanwhile (on another replica) answers [`KeyedCall::taken`], and the layer then answers
//!    as step 2 does.
//!
//! Only successes are kept: a call that failed changed nothing, and a retry runs again.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::layer::Answer;
use crate::{CallOutcome, Layer, Next, ToolCall, ToolError};

/// The argument a tool declared `idempotency_key` takes.
pub const KEY_ARGUMENT: &str = "idempotencyKey";

/// How long a kept result is kept, by default: a day, longer than any client retries a call.
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(24 * 60 * 60);

/// The most records a [`MemoryStore`] keeps, by default.
pub const MEMORY_STORE_CAPACITY: usize = 100_000;

/// What a call answers whose key was used for a call with other arguments.
pub(crate) const CONFLICT: &str =
    "Conflict: this idempotencyKey was used for a different call; use a new key for a new call.";

/// An error of an [`IdempotencyStore`].
pub type StoreError = Box<dyn std::error::Error + Send + Sync>;

/// One call made with an idempotency key: who made it, of which tool, with which key and which
/// arguments. A store keeps its result under (caller, tool, key); the fingerprint tells a retry
/// from another call with the same key. A tool reads it from
/// [`Context::idempotency`](crate::Context::idempotency) to keep the result in its own
/// transaction.
#[derive(Debug)]
pub struct KeyedCall {
    caller: String,
    tool: &'static str,
    key: String,
    fingerprint: String,
    expires_at: SystemTime,
    /// Whether the tool kept the result itself.
    kept: AtomicBool,
}

impl KeyedCall {
    /// The call of `tool` by `caller` with `key` and `arguments` (the key among them), whose
    /// result expires `expiry` from now.
    pub(crate) fn new(
        caller: &str,
        tool: &'static str,
        key: &str,
        arguments: &JsonObject,
        expiry: Duration,
    ) -> KeyedCall {
        KeyedCall {
            caller: caller.to_owned(),
            tool,
            key: key.to_owned(),
            fingerprint: fingerprint(arguments),
            expires_at: SystemTime::now() + expiry,
            kept: AtomicBool::new(false),
        }
    }

    /// Who made the call: the subject of the caller's token, or empty where the transport knows
    /// no caller (stdio, which has one client).
    pub fn caller(&self) -> &str {
        &self.caller
    }

    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The key the client sent.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The SHA-256 of the call's arguments but the key, as 64 hex digits: two calls have the
    /// same one when they send the same arguments, whatever their order.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// When the kept result expires: after it, the key may be used again.
    pub fn expires_at(&self) -> SystemTime {
        self.expires_at
    }

    /// The result a store keeps for a call that returned `output`: its JSON text, which a
    /// retry gets back as the result's `structuredContent` and text.
    pub fn result_of<O: serde::Serialize>(output: &O) -> Result<String, serde_json::Error> {
        serde_json::to_string(&serde_json::to_value(output)?)
    }

    /// Tells the toolkit that the tool kept the result itself (in the transaction of its
    /// change), so that it does not keep it again.
    pub fn mark_kept(&self) {
        self.kept.store(true, Ordering::Relaxed);
    }

    /// What a tool answers when it finds, in its own transaction, the key already kept by
    /// another call: the toolkit then answers with that call's result, or `Conflict` if its
    /// arguments were other.
    pub fn taken(&self) -> ToolError {
        ToolError::Conflict(CONFLICT.to_owned())
    }

    /// Whether the tool kept the result itself.
    fn was_kept(&self) -> bool {
        self.kept.load(Ordering::Relaxed)
    }
}

/// What a store keeps of a call made with a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptResult {
    /// The call's [`KeyedCall::fingerprint`].
    pub fingerprint: String,
    /// The result's JSON text ([`KeyedCall::result_of`]).
    pub result: String,
}

/// Where the results of calls made with an idempotency key are kept, by (caller, tool, key),
/// until they expire. [`MemoryStore`] keeps them in the process; a server with replicas keeps
/// them in the database they share.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// The result kept for `call`'s caller, tool and key, unless it has expired.
    fn find(
        &self,
        call: &KeyedCall,
    ) -> impl Future<Output = Result<Option<KeptResult>, StoreError>> + Send;

    /// Keeps `result` for `call` until `call.expires_at()`; false, keeping nothing, when a
    /// result that has not expired is kept for its caller, tool and key already.
    fn keep(
        &self,
        call: &KeyedCall,
        result: &str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;
}

/// A store shared behind an `Arc`: the same store a tool writes to in its own transactions.
impl<S: IdempotencyStore> IdempotencyStore for Arc<S> {
    fn find(
        &self,
        call: &KeyedCall,
    ) -> impl Future<Output = Result<Option<KeptResult>, StoreError>> + Send {
        S::find(self, call)
    }

    fn keep(
        &self,
        call: &KeyedCall,
        result: &str,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        S::keep(self, call, result)
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// An [`IdempotencyStore`] behind a pointer: what a toolbox keeps.
pub(crate) trait DynStore: Send + Sync {
    fn find_boxed<'a>(
        &'a self,
        call: &'a KeyedCall,
    ) -> BoxFuture<'a, Result<Option<KeptResult>, StoreError>>;

    fn keep_boxed<'a>(
        &'a self,
        call: &'a KeyedCall,
        result: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

impl<S: IdempotencyStore> DynStore for S {
    fn find_boxed<'a>(
        &'a self,
        call: &'a KeyedCall,
    ) -> BoxFuture<'a, Result<Option<KeptResult>, StoreError>> {
        Box::pin(self.find(call))
    }

    fn keep_boxed<'a>(
        &'a self,
        call: &'a KeyedCall,
        result: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.keep(call, result))
    }
}

/// Results kept in the process, lost when it stops: enough for one server on stdio or one
/// replica. It holds at most a set number of records; past it, expired records go first, then
/// those that expire soonest.
#[derive(Debug)]
pub struct MemoryStore {
    records: Mutex<HashMap<Slot, Record>>,
    capacity: usize,
}

/// Where a result is kept: caller, tool and key.
type Slot = (String, &'static str, String);

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

    fn slot(call: &KeyedCall) -> Slot {
        (call.caller.clone(), call.tool, call.key.clone())
    }
}

impl IdempotencyStore for MemoryStore {
    async fn find(&self, call: &KeyedCall) -> Result<Option<KeptResult>, StoreError> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let record = records.get(&MemoryStore::slot(call));
        let now = SystemTime::now();
        Ok(record
            .filter(|record| record.expires_at > now)
            .map(|record| record.kept.clone()))
    }

    async fn keep(&self, call: &KeyedCall, result: &str) -> Result<bool, StoreError> {
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let now = SystemTime::now();
        let slot = MemoryStore::slot(call);
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
            fingerprint: call.fingerprint.clone(),
            result: result.to_owned(),
        };
        let expires_at = call.expires_at;
        records.insert(slot, Record { kept, expires_at });
        Ok(true)
    }
}

/// The layer: see the [module](self)'s documentation.
pub(crate) struct Idempotency {
    pub(crate) store: Arc<dyn DynStore>,
    /// The time limit of a tool that declares none, which bounds the wait for an earlier call.
    pub(crate) default_timeout: Option<Duration>,
    /// The calls with a key under way in this process, one at a time per key.
    pub(crate) running: Running,
}

impl Layer for Idempotency {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        let Some(keyed) = call.context().idempotency() else {
            return Ok(next.run().await);
        };
        let turn = self.running.turn(MemoryStore::slot(keyed));
        let _turn = match call.spec().timeout.or(self.default_timeout) {
            None => turn.await,
            Some(limit) => match tokio::time::timeout(limit, turn).await {
                Ok(turn) => turn,
                Err(_) => {
                    let tool = call.tool();
                    return Err(ToolError::TimedOut { tool, after: limit });
                }
            },
        };
        if let Some(answer) = self.kept_answer(keyed).await? {
            return Ok(answer);
        }
        let answer = next.run().await;
        match answer.outcome {
            CallOutcome::Ok if !keyed.was_kept() => self.keep(keyed, &answer).await,
            // The tool found the key taken in its transaction: by a call that ran meanwhile.
            CallOutcome::Conflict => {
                if let Some(kept) = self.kept_answer(keyed).await? {
                    return Ok(kept);
                }
            }
            _ => {}
        }
        Ok(answer)
    }
}

impl Idempotency {
    /// The answer for a key already used: the kept result for the same arguments, `Conflict`
    /// for others; `None` for a key not used yet.
    async fn kept_answer(&self, keyed: &KeyedCall) -> Result<Option<Answer>, ToolError> {
        let Some(kept) = self
            .store
            .find_boxed(keyed)
            .await
            .map_err(ToolError::Unexpected)?
        else {
            return Ok(None);
        };
        if kept.fingerprint != keyed.fingerprint {
            return Err(ToolError::Conflict(CONFLICT.to_owned()));
        }
        let structured: Value = serde_json::from_str(&kept.result)?;
        let mut result = CallToolResult::success(vec![ContentBlock::text(kept.result)]);
        result.structured_content = Some(structured);
        Ok(Some(Answer {
            response: result.into(),
            outcome: CallOutcome::Ok,
        }))
    }

    /// Keeps a successful answer's result. The change is made whatever happens here, so a
    /// store that fails is logged and the answer still goes back.
    async fn keep(&self, keyed: &KeyedCall, answer: &Answer) {
        let Some(structured) = answer.result().and_then(|r| r.structured_content.as_ref()) else {
            return;
        };
        let kept = match serde_json::to_string(structured) {
            Ok(text) => self.store.keep_boxed(keyed, &text).await,
            Err(error) => Err(error.into()),
        };
        match kept {
            Ok(true) => {}
            Ok(false) => tracing::warn!(
                tool = keyed.tool,
                "a call with an idempotency key ran while another with the same key did"
            ),
            Err(error) => tracing::error!(
                tool = keyed.tool,
                %error,
                "the result of a call with an idempotency key could not be kept"
            ),
        }
    }
}

/// The calls with a key under way in this process: a later call with the same caller, tool and
/// key waits for its turn.
#[derive(Default)]
pub(crate) struct Running {
    slots: Mutex<HashMap<Slot, Arc<tokio::sync::Mutex<()>>>>,
}

impl Running {
    /// Waits until no earlier call with `slot` runs; the turn lasts until the guard is dropped.
    async fn turn(&self, slot: Slot) -> Turn<'_> {
        let lock = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            slots.entry(slot.clone()).or_default().clone()
        };
        let guard = lock.clone().lock_owned().await;
        Turn {
            running: self,
            slot,
            lock,
            _guard: guard,
        }
    }
}

/// A call's turn with its key.
struct Turn<'a> {
    running: &'a Running,
    slot: Slot,
    lock: Arc<tokio::sync::Mutex<()>>,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut slots = (self.running.slots.lock()).unwrap_or_else(PoisonError::into_inner);
        // The map's, this turn's and its guard's: no other call waits for the key.
        if Arc::strong_count(&self.lock) <= 3 {
            slots.remove(&self.slot);
        }
    }
}

/// The SHA-256, in hex, of `arguments` without the key, written as canonical JSON: object
/// keys in order, and a whole number written as an integer however it was sent.
fn fingerprint(arguments: &JsonObject) -> String {
    let mut canonical = String::new();
    let without_key = arguments.iter().filter(|(name, _)| *name != KEY_ARGUMENT);
    write_object(without_key, &mut canonical);
    let digest = Sha256::digest(canonical.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        // Writing to a `String` cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn write_object<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut String) {
    let mut entries: Vec<_> = entries.collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (index, (name, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_canonical(&Value::String(name.clone()), out);
        out.push(':');
        write_canonical(value, out);
    }
    out.push('}');
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(object) => write_object(object.iter(), out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(number) => match number.as_f64() {
            // 2.0 and 2 are the same number; below 2^53 a float is exact.
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 9e15 => {
                let _ = write!(out, "{}", float as i64);
            }
            _ => {
                let _ = write!(out, "{number}");
            }
        },
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(object) => object,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn the_fingerprint_ignores_the_key_the_order_and_how_a_number_is_written() {
        let sent = fingerprint(&object(json!({ "a": 1, "b": [2.0, { "y": 1, "x": 2 }] })));
        let again =
            object(json!({ "idempotencyKey": "k1", "b": [2, { "x": 2, "y": 1 }], "a": 1.0 }));
        assert_eq!(fingerprint(&again), sent);
        assert_eq!(sent.len(), 64);
        assert_ne!(
            fingerprint(&object(json!({ "a": 2, "b": [2, {"x": 2, "y": 1}] }))),
            sent
        );
        assert_ne!(
            fingerprint(&object(json!({ "a": "1" }))),
            fingerprint(&object(json!({ "a": 1 })))
        );
    }

    fn call(key: &str, arguments: Value, expiry: Duration) -> KeyedCall {
        KeyedCall::new("ada", "write", key, &object(arguments), expiry)
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
            &object(json!({ "a": 1 })),
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

    #[tokio::test]
    async fn calls_with_one_key_take_turns_and_leave_nothing_behind() {
        let running = Running::default();
        let slot = || ("ada".to_owned(), "write", "k".to_owned());
        let first = running.turn(slot()).await;
        let second = running.turn(slot());
        tokio::pin!(second);
        let waited = tokio::time::timeout(Duration::from_millis(50), &mut second).await;
        assert!(waited.is_err(), "the second waits for the first");
        drop(first);
        let second = second.await;
        drop(second);
        assert!(running.slots.lock().unwrap().is_empty());
    }
}
