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
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use crate::layer::Answer;
use crate::{CallOutcome, Layer, Next, ToolCall, ToolError};

mod fingerprint;
mod memory;

use fingerprint::fingerprint;
pub use memory::MemoryStore;

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
            expires_at: expiry_from_now(expiry),
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

/// Where a result is kept: caller, tool and key.
type Slot = (String, &'static str, String);

/// The slot of `call`.
fn slot(call: &KeyedCall) -> Slot {
    (call.caller.clone(), call.tool, call.key.clone())
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
        let turn = self.running.turn(slot(keyed));
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

/// When a result kept now for `expiry` expires; an expiry past what the clock can count keeps
/// it a century, rather than failing every keyed call.
fn expiry_from_now(expiry: Duration) -> SystemTime {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);
    let now = SystemTime::now();
    now.checked_add(expiry)
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

/// The calls with a key under way in this process: a later call with the same caller, tool and
/// key waits for its turn.
#[derive(Default)]
pub(crate) struct Running {
    slots: Mutex<HashMap<Slot, Waiting>>,
}

/// The calls with one slot, running or waiting to run, and the lock they take turns on.
struct Waiting {
    lock: Arc<tokio::sync::Mutex<()>>,
    calls: usize,
}

impl Running {
    /// Waits until no earlier call with `slot` runs; the turn lasts until the guard is dropped.
    async fn turn(&self, slot: Slot) -> Turn<'_> {
        let lock = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let waiting = slots.entry(slot.clone()).or_insert_with(|| Waiting {
                lock: Arc::default(),
                calls: 0,
            });
            waiting.calls += 1;
            Arc::clone(&waiting.lock)
        };
        // The call is counted from here: one dropped while it waits (cancelled, say) leaves
        // its slot too, so the map holds only the slots of calls still under way.
        let mut turn = Turn {
            running: self,
            slot,
            _guard: None,
        };
        turn._guard = Some(lock.lock_owned().await);
        turn
    }
}

/// A call's turn with its key, or its wait for it.
struct Turn<'a> {
    running: &'a Running,
    slot: Slot,
    _guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut slots = (self.running.slots.lock()).unwrap_or_else(PoisonError::into_inner);
        if let Some(waiting) = slots.get_mut(&self.slot) {
            waiting.calls -= 1;
            if waiting.calls == 0 {
                slots.remove(&self.slot);
            }
        }
    }
}

/// The arguments object `value` is, for the tests of this module and its parts.
#[cfg(test)]
fn arguments(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => unreachable!("an object"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn an_expiry_past_the_clock_is_a_century() {
        let far = expiry_from_now(Duration::MAX);
        let century = SystemTime::now() + Duration::from_secs(99 * 365 * 24 * 60 * 60);
        assert!(far > century, "{far:?}");
    }

    #[tokio::test]
    async fn a_call_dropped_while_it_waits_leaves_nothing_behind() {
        let running = Running::default();
        let slot = || ("ada".to_owned(), "write", "k".to_owned());
        let first = running.turn(slot()).await;
        // Boxed, so that dropping it drops the future itself.
        let mut second = Box::pin(running.turn(slot()));
        let waited = tokio::time::timeout(Duration::from_millis(50), &mut second).await;
        assert!(waited.is_err(), "the second waits for the first");
        drop(first);
        // Cancelled before it polls again: it never takes its turn.
        drop(second);
        assert!(running.slots.lock().unwrap().is_empty());
    }
}
