//! A call a [`TestClient`](super::TestClient) has started and not yet been answered: the
//! progress it reports as it comes, its cancellation, and its answer.

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RunningService, ServiceError};
use tokio::task::JoinHandle;

use super::user::User;
use super::wire::Wire;
use super::{CallResult, Progress};

/// A call under way, from [`TestClient::start`](super::TestClient::start). Dropping it
/// cancels the call if it has no answer yet.
///
/// ```
/// # use serde_json::json;
/// # use toolkit::testing::TestClient;
/// # use toolkit::{Context, Run, Server, Tool, ToolError};
/// # #[derive(serde::Serialize, schemars::JsonSchema)]
/// # pub struct Waited {}
/// /// Waits until it is cancelled, saying so once.
/// #[derive(Tool)]
/// #[tool(name = "wait", title = "Wait", output = Waited,
///        read_only, destructive = false, idempotent, open_world = false)]
/// pub struct Wait {}
///
/// impl Run<()> for Wait {
///     async fn run(self, _: &(), context: &Context) -> Result<Waited, ToolError> {
///         context.progress(0, None, "waiting").await;
///         context.cancelled().await;
///         Err(ToolError::Cancelled)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let handler = Server::new("waiter", "1.0.0").tool::<Wait>().build(()).unwrap();
/// let client = TestClient::connect(&handler).await;
///
/// let mut waiting = client.start("wait", json!({}));
/// let first = waiting.next_progress().await.expect("the tool reports progress");
/// assert_eq!(first.message.as_deref(), Some("waiting"));
/// waiting.cancel().await;
/// assert_eq!(waiting.next_progress().await, None);
/// # }
/// ```
pub struct PendingCall {
    tool: String,
    /// The call's number on the wire.
    call: u64,
    wire: Wire,
    /// The task that makes the call and waits for its answer; `None` once it has been taken.
    task: Option<JoinHandle<Result<CallToolResult, ServiceError>>>,
    /// How many of the call's progress reports [`next_progress`](Self::next_progress) returned.
    read: usize,
    cancelled: bool,
}

impl PendingCall {
    /// Sends `params` as call `call` and answers the tool's questions as `service`'s user.
    pub(super) fn start(
        service: Arc<RunningService<RoleClient, User>>,
        wire: Wire,
        call: u64,
        params: CallToolRequestParams,
    ) -> PendingCall {
        let tool = params.name.to_string();
        let answered = wire.clone();
        let task = tokio::spawn(async move {
            let result = service.call_tool(params).await;
            answered.answered(call);
            result
        });
        PendingCall {
            tool,
            call,
            wire,
            task: Some(task),
            read: 0,
            cancelled: false,
        }
    }

    /// The next progress report the call sends, once it arrives; `None` when the call has
    /// been answered or cancelled and every report it sent before was returned.
    pub async fn next_progress(&mut self) -> Option<Progress> {
        loop {
            let change = self.wire.next_change();
            if let Some(next) = self.wire.progress_at(self.call, self.read) {
                self.read += 1;
                return Some(next);
            }
            if self.cancelled || self.wire.is_answered(self.call) {
                return None;
            }
            change.await;
        }
    }

    /// Every progress report the call has sent so far, in order; after a cancellation, those
    /// the tool went on sending too.
    pub fn progress(&self) -> Vec<Progress> {
        self.wire.progress(self.call)
    }

    /// Cancels the call: the client stops waiting and sends `notifications/cancelled`, as a
    /// real client does when its user gives up. The call has no answer after this.
    pub async fn cancel(&mut self) {
        self.cancelled = true;
        if let Some(task) = self.task.take() {
            // Dropping rmcp's call, as aborting does, is what sends the cancellation.
            task.abort();
            if let Err(error) = task.await
                && error.is_panic()
            {
                std::panic::resume_unwind(error.into_panic());
            }
        }
    }

    /// Waits for the call's answer.
    ///
    /// # Panics
    ///
    /// If the call was cancelled, or fails as a protocol error rather than a tool result:
    /// [`try_answer`](Self::try_answer) returns that error.
    pub async fn answer(self) -> CallResult {
        let tool = self.tool.clone();
        (self.try_answer().await)
            .unwrap_or_else(|error| panic!("tools/call of {tool} answers a result: {error}"))
    }

    /// [`answer`](Self::answer), with a protocol error returned rather than panicking on.
    ///
    /// # Panics
    ///
    /// If the call was cancelled: it has no answer.
    pub async fn try_answer(mut self) -> Result<CallResult, ServiceError> {
        let Some(task) = self.task.take() else {
            panic!("{} was cancelled: it has no answer", self.tool);
        };
        let result = match task.await {
            Ok(result) => result?,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => panic!("{} was stopped before its answer: {error}", self.tool),
        };
        Ok(CallResult::new(result, self.wire.forget(self.call)))
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
        self.wire.forget(self.call);
    }
}
