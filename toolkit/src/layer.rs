//! Code that runs around every call of a server's tools: a [`Layer`] sees the call (the tool's
//! spec, the caller, the validated arguments), may refuse it with a [`ToolError`], or lets it go
//! on with [`Next::run`] and sees how it ended. The toolkit's own call policies (rate limits,
//! timeouts, the result's size) are layers too; a server adds its own with
//! [`Toolbox::layer`](crate::Toolbox::layer).
//!
//! A call meets the layers in this order, each around the ones after it:
//!
//! 1. the rate limit ([`RateLimit`](crate::RateLimit)), so that a call over it costs nothing
//!    else;
//! 2. the server's own layers, in the order they were added;
//! 3. the idempotency key ([`idempotency`](crate::idempotency)), of a tool that takes one: a
//!    retry gets the kept result here;
//! 4. the time limit ([`Toolbox::timeout`](crate::Toolbox::timeout)), around the call's own
//!    work;
//! 5. the cap on the result's size ([`Toolbox::max_result_bytes`](crate::Toolbox::max_result_bytes));
//! 6. the tool: its `check`, the existence of the ids it names, the user's confirmation, and
//!    its `run`.
//!
//! A call whose arguments break a declared rule is answered before any layer sees it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, JsonObject, ResourceContents};

use crate::{CallOutcome, Caller, Context, Labels, ToolError, ToolSpec};

/// Code that runs around every call: see the [module](self)'s documentation. It is written as
/// an `async fn`:
///
/// ```
/// use toolkit::{Answer, Layer, Next, ToolCall, ToolError};
///
/// /// Lets only `alice` call `reviews_delete`.
/// struct OnlyAliceDeletes;
///
/// impl Layer for OnlyAliceDeletes {
///     async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
///         let caller = call.caller().map(|caller| caller.subject.as_str());
///         if call.tool() == "reviews_delete" && caller != Some("alice") {
///             return Err(ToolError::refused("Forbidden: only alice may delete reviews."));
///         }
///         Ok(next.run().await)
///     }
/// }
/// ```
pub trait Layer: Send + Sync + 'static {
    /// Runs around one call: `next.run()` lets it go on and gives back its answer; an `Err`
    /// answers the call with that tool error instead.
    fn around(
        &self,
        call: &ToolCall<'_>,
        next: Next<'_>,
    ) -> impl Future<Output = Result<Answer, ToolError>> + Send;
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A [`Layer`] behind a pointer: what a toolbox keeps of each.
pub(crate) trait DynLayer: Send + Sync {
    fn around_boxed<'a>(
        &'a self,
        call: &'a ToolCall<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<Answer, ToolError>>;
}

impl<L: Layer> DynLayer for L {
    fn around_boxed<'a>(
        &'a self,
        call: &'a ToolCall<'a>,
        next: Next<'a>,
    ) -> BoxFuture<'a, Result<Answer, ToolError>> {
        Box::pin(self.around(call, next))
    }
}

/// The layers of a toolbox, outermost first.
pub(crate) type Layers = Vec<Arc<dyn DynLayer>>;

/// One call, as a [`Layer`] sees it: its arguments have been read and every declared rule
/// holds.
pub struct ToolCall<'a> {
    pub(crate) spec: &'static ToolSpec,
    pub(crate) arguments: &'a JsonObject,
    pub(crate) context: &'a Context,
    pub(crate) labels: Labels,
}

impl<'a> ToolCall<'a> {
    /// The tool's name.
    pub fn tool(&self) -> &'static str {
        self.spec.name
    }

    /// What the tool declares: its hints, scope, time limit and rate limit, its arguments.
    pub fn spec(&self) -> &'static ToolSpec {
        self.spec
    }

    /// Who is calling, where the transport knows (over HTTP, from the token).
    pub fn caller(&self) -> Option<&'a Caller> {
        self.context.caller()
    }

    /// The call's arguments as the client sent them; every declared rule holds for them.
    pub fn arguments(&self) -> &'a JsonObject {
        self.arguments
    }

    /// The call's context: its trace id, progress and cancellation, and what the transport
    /// put in the request's extensions.
    pub fn context(&self) -> &'a Context {
        self.context
    }

    /// The answer a client gets for `error`.
    pub(crate) fn answer(&self, error: ToolError) -> Answer {
        crate::route::answer::<()>(self.spec, Err(error), self.labels)
    }
}

/// The rest of a call after a [`Layer`]: the layers inside it, then the tool.
pub struct Next<'a> {
    pub(crate) layers: &'a [Arc<dyn DynLayer>],
    pub(crate) call: &'a ToolCall<'a>,
    pub(crate) tool: BoxFuture<'a, Answer>,
}

impl<'a> Next<'a> {
    /// Lets the call go on, through the layers inside this one to the tool, and gives back its
    /// answer.
    pub async fn run(self) -> Answer {
        let Some((layer, inner)) = self.layers.split_first() else {
            return self.tool.await;
        };
        let next = Next {
            layers: inner,
            call: self.call,
            tool: self.tool,
        };
        match layer.around_boxed(self.call, next).await {
            Ok(answer) => answer,
            Err(error) => self.call.answer(error),
        }
    }
}

/// How a call was answered, as a [`Layer`] gets it back from [`Next::run`].
#[derive(Debug)]
pub struct Answer {
    pub(crate) response: CallToolResponse,
    pub(crate) outcome: CallOutcome,
}

impl Answer {
    /// How the call ended.
    pub fn outcome(&self) -> CallOutcome {
        self.outcome
    }

    /// The result the client gets: `None` when the call asks the user to confirm it first
    /// (the client retries it with the answer).
    pub fn result(&self) -> Option<&CallToolResult> {
        match &self.response {
            CallToolResponse::Complete(result) => Some(result),
            _ => None,
        }
    }

    /// The result's size in bytes: its text, or the data it carries (an image's, say); for a
    /// result of structured content alone, that content's JSON. A result's text is the JSON of
    /// its structured content, so the two are counted once. Asking the user has no size.
    pub fn size(&self) -> usize {
        let Some(result) = self.result() else {
            return 0;
        };
        let content: usize = result.content.iter().map(block_size).sum();
        match (&result.structured_content, content) {
            // A `Value` always serialises.
            (Some(structured), 0) => serde_json::to_vec(structured).map_or(0, |json| json.len()),
            _ => content,
        }
    }
}

/// The bytes of one content block a client reads.
fn block_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(text) => text.text.len(),
        ContentBlock::Image(image) => image.data.len(),
        ContentBlock::Audio(audio) => audio.data.len(),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => text.len(),
            ResourceContents::BlobResourceContents { blob, .. } => blob.len(),
            _ => 0,
        },
        // A link names a resource without carrying it.
        _ => 0,
    }
}
