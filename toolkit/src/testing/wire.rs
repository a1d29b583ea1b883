//! What a [`TestClient`](super::TestClient) sends and receives, watched message by message as
//! its transport moves them: which progress token each call went out with, and the progress
//! notifications sent under it. rmcp picks a call's progress token itself and hands each
//! notification to a task of its own, which may run after the call's answer is in; watching the
//! transport instead keeps them in the order sent, all in before the answer that follows them.
//! A call is known on the wire by a number of the client's own in its request's `_meta`
//! ([`CALL_KEY`]), which every round of a call that asks the user carries.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest,
    RequestMetaObject, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::sync::Notify;

use super::Progress;

/// The `_meta` key of a call's number.
const CALL_KEY: &str = "toolkit/testCall";

/// What the pipe has carried so far.
#[derive(Clone, Default)]
pub(super) struct Wire {
    state: Arc<Mutex<State>>,
    /// Woken by each progress notification read, and by each call answered.
    changed: Arc<Notify>,
}

#[derive(Default)]
struct State {
    /// The last call number handed out.
    last_call: u64,
    /// The call each progress token went out with.
    calls: HashMap<String, u64>,
    /// The progress notifications read for each call not yet ended, in the order sent.
    progress: HashMap<u64, Vec<Progress>>,
    /// The calls that have their answer and are not yet forgotten.
    answered: HashSet<u64>,
}

impl Wire {
    /// `transport`, whose every message is looked at first.
    pub(super) fn watch<T>(&self, transport: T) -> Watched<T> {
        Watched {
            inner: transport,
            wire: self.clone(),
        }
    }

    /// The `_meta` of a new call, with a number no call of this client has had.
    pub(super) fn new_call(&self) -> (u64, RequestMetaObject) {
        let mut state = self.lock();
        state.last_call += 1;
        let mut meta = RequestMetaObject::new();
        meta.0
            .insert(CALL_KEY.to_owned(), Value::from(state.last_call));
        (state.last_call, meta)
    }

    /// The progress notifications of call `call` read so far, in the order sent.
    pub(super) fn progress(&self, call: u64) -> Vec<Progress> {
        (self.lock().progress.get(&call).cloned()).unwrap_or_default()
    }

    /// The `index`th progress notification of call `call`, if it has been read.
    pub(super) fn progress_at(&self, call: u64, index: usize) -> Option<Progress> {
        (self.lock().progress.get(&call)).and_then(|sent| sent.get(index).cloned())
    }

    /// Notes that call `call` has its answer: no more progress comes under its tokens.
    pub(super) fn answered(&self, call: u64) {
        {
            let mut state = self.lock();
            state.calls.retain(|_, of| *of != call);
            state.answered.insert(call);
        }
        self.changed.notify_waiters();
    }

    /// Whether call `call` has its answer.
    pub(super) fn is_answered(&self, call: u64) -> bool {
        self.lock().answered.contains(&call)
    }

    /// Forgets call `call`, returning the progress notifications it sent.
    pub(super) fn forget(&self, call: u64) -> Vec<Progress> {
        let mut state = self.lock();
        state.calls.retain(|_, of| *of != call);
        state.answered.remove(&call);
        state.progress.remove(&call).unwrap_or_default()
    }

    /// A future that completes on the next change: a progress notification read, or a call
    /// answered. It sees a change made after this returns, even one made before it is polled.
    pub(super) fn next_change(&self) -> tokio::sync::futures::OwnedNotified {
        Arc::clone(&self.changed).notified_owned()
    }

    /// Notes one message sent: the progress token of a call.
    fn sent(&self, message: &ClientJsonRpcMessage) {
        let JsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CallToolRequest(_),
            ..
        }) = message
        else {
            return;
        };
        // The token is read as written: rmcp may set it anywhere on the way to the text.
        let Ok(message) = serde_json::to_value(message) else {
            return;
        };
        let meta = &message["params"]["_meta"];
        if let (Some(call), Some(token)) = (meta[CALL_KEY].as_u64(), meta.get("progressToken")) {
            self.lock().calls.insert(token.to_string(), call);
        }
    }

    /// Notes one message received, if it is a progress notification of a call. Matched by
    /// type, so that the results that pass, however large, are not written out to be looked at.
    fn received(&self, message: &ServerJsonRpcMessage) {
        let JsonRpcMessage::Notification(JsonRpcNotification {
            notification: ServerNotification::ProgressNotification(notification),
            ..
        }) = message
        else {
            return;
        };
        let params = &notification.params;
        // The token as the request's `_meta` carried it, in JSON: the key `sent` noted.
        let Ok(token) = serde_json::to_string(&params.progress_token) else {
            return;
        };
        let progress = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message.clone(),
        };
        {
            let mut state = self.lock();
            let Some(&call) = state.calls.get(&token) else {
                return;
            };
            state.progress.entry(call).or_default().push(progress);
        }
        self.changed.notify_waiters();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has failed already; what the pipe
        // carried before still stands.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A client transport whose every message is shown to a [`Wire`] as it passes.
pub(super) struct Watched<T> {
    inner: T,
    wire: Wire,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.wire.sent(&message);
        self.inner.send(message)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.inner.receive().await?;
        self.wire.received(&message);
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
