//! What a tool's `run` and `check` see of their call beyond the arguments and the state: who is
//! calling, a way to report progress, and whether the client has given up.
//!
//! The toolkit builds one [`Context`] per call from rmcp's request context. A transport tells
//! it more by putting values in the request's extensions: the HTTP server a [`Caller`], a
//! transport that reads `notifications/cancelled` itself a [`Cancellation`].

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::RoleServer;

use rmcp::model::{
    ClientCapabilities, Extensions, InputResponses, ProgressNotificationParam, ProgressToken,
    ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext};
use tokio_util::sync::CancellationToken;

use crate::policy::idempotency::KeyedCall;
use crate::policy::timeout::UserTime;
use crate::trace::TraceContext;

/// The least time between two progress notifications of one call. A tool may report as often
/// as it likes; the notifications in between are left out, except the one that reports the
/// work done.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// Who is calling: what the HTTP server read from the caller's token. Over stdio there is no
/// token, and so no caller: the user who started the server is the only one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Caller {
    /// Who the token stands for: a JWT's `sub`, or a name the server gives a static token.
    pub subject: String,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// The OAuth client the token was issued to (a JWT's `client_id` or `azp`), if it says.
    pub client_id: Option<String>,
}

impl Caller {
    /// A caller with these scopes and no client id.
    pub fn new(subject: impl Into<String>, scopes: Vec<String>) -> Caller {
        Caller {
            subject: subject.into(),
            scopes,
            client_id: None,
        }
    }

    /// The same caller, naming the client its token was issued to.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Caller {
        self.client_id = Some(client_id.into());
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
}

/// Cancels a call from outside rmcp: a transport that handles `notifications/cancelled` itself
/// (or stops its calls at shutdown) puts one in the request's extensions and cancels its token;
/// the call's [`Context::cancelled`] then completes, as it does for rmcp's own cancellation.
#[derive(Debug, Clone)]
pub struct Cancellation(pub CancellationToken);

/// One call's context: the caller, progress, cancellation, and whatever the transport put in
/// the request's extensions. See the module's documentation.
pub struct Context {
    trace_id: String,
    /// rmcp's: the client disconnected (HTTP), or the server stopped serving.
    cancelled: CancellationToken,
    /// The transport's own, if it gave one.
    also_cancelled: Option<CancellationToken>,
    progress: Option<Progress>,
    extensions: Extensions,
    /// What the client is and can do, to ask the user to confirm (see `confirm.rs`).
    pub(crate) client: Option<Client>,
    /// What a call retried after `input_required` brought back.
    pub(crate) retry: Retry,
    /// The time spent waiting for the user, which the call's time limit does not count.
    pub(crate) user_time: UserTime,
    /// The call's idempotency key, for a tool that takes one and a call that sent one.
    pub(crate) idempotency: Option<KeyedCall>,
}

/// The client of a call rmcp serves: the way to it, the protocol version the call speaks and
/// the capabilities it declared.
pub(crate) struct Client {
    pub(crate) peer: Peer<RoleServer>,
    pub(crate) protocol: Option<ProtocolVersion>,
    pub(crate) capabilities: Option<ClientCapabilities>,
}

/// The `requestState` and `inputResponses` of a retried call.
#[derive(Default)]
pub(crate) struct Retry {
    pub(crate) request_state: Option<String>,
    pub(crate) input_responses: Option<InputResponses>,
}

impl Retry {
    pub(crate) fn is_retry(&self) -> bool {
        self.request_state.is_some() || self.input_responses.is_some()
    }
}

/// Where progress goes, and what was last sent there.
struct Progress {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    last: Mutex<Option<Sent>>,
}

#[derive(Clone, Copy)]
struct Sent {
    at: Instant,
    /// The progress sent: the tool's own, or a heartbeat's a little past it.
    done: f64,
    total: Option<f64>,
    /// Heartbeats sent since the tool's own last report.
    beats: u32,
}

/// The most heartbeats sent on top of one report of the tool's own: each adds
/// `1 / MAX_BEATS` to its progress, which so never reaches the next whole count the tool
/// may report (MCP asks that progress grow with every notification).
const MAX_BEATS: u32 = 1024;

impl Progress {
    /// The heartbeat due for a call that started at `started`, if `every` has passed since
    /// the last notification, noted as sent: `Err` with when the next is due if it has not;
    /// `Ok(None)` when the heartbeats have run out of room below the tool's next count (the
    /// next is then due `every` later, and stays silent).
    fn beat(&self, started: Instant, every: Duration) -> Result<Option<Sent>, Instant> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        let due = last.map_or(started, |sent| sent.at) + every;
        if now < due {
            return Err(due);
        }
        let beat = match *last {
            None => Sent {
                at: now,
                done: 0.0,
                total: None,
                beats: 1,
            },
            Some(sent) if sent.beats + 1 < MAX_BEATS => Sent {
                at: now,
                done: sent.done + 1.0 / f64::from(MAX_BEATS),
                total: sent.total,
                beats: sent.beats + 1,
            },
            Some(sent) => {
                *last = Some(Sent { at: now, ..sent });
                return Ok(None);
            }
        };
        *last = Some(beat);
        Ok(Some(beat))
    }
}

impl Context {
    /// The context of a call rmcp is serving. What the client is and can do is read only for
    /// a tool that may ask its user (`confirming`): the other calls need not copy it.
    pub(crate) fn of_request(
        request: &mut RequestContext<RoleServer>,
        trace: &TraceContext,
        confirming: bool,
    ) -> Context {
        let progress = request.meta.get_progress_token().map(|token| Progress {
            peer: request.peer.clone(),
            token,
            last: Mutex::new(None),
        });
        let extensions = std::mem::take(&mut request.extensions);
        let also_cancelled = find::<Cancellation>(&extensions).map(|found| found.0.clone());
        let client = confirming.then(|| Client {
            peer: request.peer.clone(),
            protocol: request.protocol_version(),
            capabilities: request.client_capabilities(),
        });
        Context {
            trace_id: trace.call_id(),
            cancelled: request.ct.clone(),
            also_cancelled,
            progress,
            extensions,
            client,
            retry: Retry::default(),
            user_time: UserTime::default(),
            idempotency: None,
        }
    }

    /// A context that belongs to no request: no caller, no progress, never cancelled. What
    /// [`call`](crate::call) runs a tool with.
    pub fn detached() -> Context {
        Context {
            trace_id: TraceContext::default().call_id(),
            cancelled: CancellationToken::new(),
            also_cancelled: None,
            progress: None,
            extensions: Extensions::new(),
            client: None,
            retry: Retry::default(),
            user_time: UserTime::default(),
            idempotency: None,
        }
    }

    /// The same context, cancelled when `token` is.
    pub fn cancelled_by(mut self, token: CancellationToken) -> Context {
        self.also_cancelled = Some(token);
        self
    }

    /// The same context, with `value` among its extensions (a [`Caller`], say).
    pub fn with<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Context {
        self.extensions.insert(value);
        self
    }

    /// The id the call's log lines carry: the client's trace id, or a request id of the
    /// server's own.
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// Who is calling, when the transport knows (over HTTP, from the token).
    pub fn caller(&self) -> Option<&Caller> {
        self.get::<Caller>()
    }

    /// The call's idempotency key, with who made the call and a fingerprint of its arguments:
    /// for a tool declared `#[tool(idempotency_key)]` called with an `idempotencyKey`. A tool
    /// that writes to a database of its own keeps its result there, in the transaction of its
    /// change (see [`KeyedCall`]).
    pub fn idempotency(&self) -> Option<&KeyedCall> {
        self.idempotency.as_ref()
    }

    /// A value the transport put in the request's extensions (or in its HTTP request's).
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        find(&self.extensions)
    }

    /// Reports progress to the client: `done` of `total` (if known), and what is being done.
    /// Sent only when the request carried a `progressToken`, at most once per
    /// [`PROGRESS_INTERVAL`] (the report that reaches `total` is always sent), and only when
    /// `done` has grown since the last report sent, as MCP asks. A failure to send is logged and
    /// otherwise ignored: progress is a courtesy, not part of the answer.
    pub async fn progress(&self, done: u64, total: Option<u64>, message: impl Into<String>) {
        let Some(progress) = &self.progress else {
            return;
        };
        // Counts are reported as JSON numbers, so beyond 2^53 they lose precision, not order.
        let (done, total) = (done as f64, total.map(|total| total as f64));
        let now = Instant::now();
        {
            let mut last = progress.last.lock().unwrap_or_else(PoisonError::into_inner);
            let finished = total.is_some_and(|total| done >= total);
            match *last {
                Some(sent) if done <= sent.done => return,
                Some(sent) if !finished && now - sent.at < PROGRESS_INTERVAL => return,
                _ => {}
            }
            *last = Some(Sent {
                at: now,
                done,
                total,
                beats: 0,
            });
        }
        let mut notification = ProgressNotificationParam::new(progress.token.clone(), done);
        notification.total = total;
        notification.message = Some(message.into());
        if let Err(error) = progress.peer.notify_progress(notification).await {
            tracing::debug!(%error, "a progress notification could not be sent");
        }
    }

    /// Sends a progress notification of the toolkit's own whenever the call has gone `every`
    /// without one, for as long as the call runs; never, without a progress token. Each
    /// reports a little more than the last (MCP asks that progress grow), the tool's last
    /// total, and how long the call has run.
    pub(crate) async fn heartbeat(&self, every: Option<Duration>) {
        let (Some(progress), Some(every)) = (&self.progress, every) else {
            return std::future::pending().await;
        };
        let started = Instant::now();
        loop {
            let beat = match progress.beat(started, every) {
                Err(due) => {
                    tokio::time::sleep_until(due.into()).await;
                    continue;
                }
                Ok(None) => continue,
                Ok(Some(beat)) => beat,
            };
            let mut notification =
                ProgressNotificationParam::new(progress.token.clone(), beat.done);
            notification.total = beat.total;
            notification.message = Some(format!(
                "Still working: {} so far.",
                policy_syntax::seconds(Duration::from_secs(started.elapsed().as_secs()))
            ));
            if let Err(error) = progress.peer.notify_progress(notification).await {
                tracing::debug!(%error, "a heartbeat could not be sent");
            }
        }
    }

    /// Completes when the call is cancelled: the client sent `notifications/cancelled`, or
    /// disconnected, or the server is shutting down. The toolkit already stops a cancelled
    /// `run` at its next `.await`; a tool needs this only to stop work that does not await
    /// (a loop over files, say), or to stop a wait of its own.
    pub async fn cancelled(&self) {
        match &self.also_cancelled {
            None => self.cancelled.cancelled().await,
            Some(also) => {
                tokio::select! {
                    () = self.cancelled.cancelled() => {}
                    () = also.cancelled() => {}
                }
            }
        }
    }

    /// Whether the call has been cancelled (see [`cancelled`](Self::cancelled)).
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.is_cancelled()
            || self
                .also_cancelled
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled)
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("trace_id", &self.trace_id)
            .field("caller", &self.caller())
            .field("progress", &self.progress.is_some())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// A `T` among `extensions`, or among those of the HTTP request they carry (where rmcp's HTTP
/// service puts the request's parts, with what middleware added to them).
pub(crate) fn find<T: Send + Sync + 'static>(extensions: &Extensions) -> Option<&T> {
    extensions.get::<T>().or_else(|| {
        extensions
            .get::<http::request::Parts>()?
            .extensions
            .get::<T>()
    })
}
