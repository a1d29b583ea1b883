//! What a [`TestClient`](super::TestClient) writes and reads on its pipe, watched line by line
//! as the transport moves it: which progress token each call went out with, and the progress
//! notifications sent under it. rmcp picks a call's progress token itself and hands each
//! notification to a task of its own, which may run after the call's answer is in; reading them
//! off the wire instead keeps them in the order sent, all in before the answer that follows them.
//! A call is known on the wire by a number of the client's own in its request's `_meta`
//! ([`CALL_KEY`]), which every round of a call that asks the user carries.

use std::collections::{HashMap, HashSet};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use rmcp::model::RequestMetaObject;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
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
    /// `stream`, whose every line written and read is looked at first.
    pub(super) fn watch(
        &self,
        stream: DuplexStream,
    ) -> impl AsyncRead + AsyncWrite + Send + Unpin + 'static {
        let (reader, writer) = tokio::io::split(stream);
        let reader = Lines::new(reader, self.clone(), Wire::read);
        let writer = Lines::new(writer, self.clone(), Wire::written);
        tokio::io::join(reader, writer)
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

    /// Notes one message written: the progress token of a call.
    fn written(&self, line: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let meta = &message["params"]["_meta"];
        if let (Some(call), Some(token)) = (meta[CALL_KEY].as_u64(), meta.get("progressToken")) {
            self.lock().calls.insert(token.to_string(), call);
        }
    }

    /// Notes one message read, if it is a progress notification of a call.
    fn read(&self, line: &[u8]) {
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        if message["method"] != "notifications/progress" {
            return;
        }
        let params = &message["params"];
        let progress = Progress {
            progress: params["progress"].as_f64().unwrap_or_default(),
            total: params["total"].as_f64(),
            message: params["message"].as_str().map(str::to_owned),
        };
        {
            let mut state = self.lock();
            let Some(&call) = state.calls.get(&params["progressToken"].to_string()) else {
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

/// A reader or a writer that hands each complete line it moves to `seen`.
struct Lines<T> {
    inner: T,
    /// The part of the current line moved so far.
    line: Vec<u8>,
    wire: Wire,
    seen: fn(&Wire, &[u8]),
}

impl<T> Lines<T> {
    fn new(inner: T, wire: Wire, seen: fn(&Wire, &[u8])) -> Lines<T> {
        Lines {
            inner,
            line: Vec::new(),
            wire,
            seen,
        }
    }

    fn moved(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte == b'\n' {
                (self.seen)(&self.wire, &self.line);
                self.line.clear();
            } else {
                self.line.push(byte);
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Lines<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.moved(&buf.filled()[before..]);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Lines<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(written)) = polled {
            self.moved(&buf[..written]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
