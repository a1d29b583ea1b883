//! Turning declared tools into rmcp routes, and running one call: parse, check existence, run,
//! encode the result.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::Instrument as _;

use rmcp::ErrorData;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, InputRequiredResult, JsonObject,
    ToolAnnotations,
};
use serde_json::Value;

use crate::arg::json_type;
use crate::confirm::{Step, decide};
use crate::context::Retry;
use crate::layer::{Answer, Layers, Next, ToolCall};
use crate::outcome::Observer;
use crate::policy::RateLimit;
use crate::policy::rate_limit::{Buckets, RateLimits};
use crate::policy::result_size::ResultSize;
use crate::policy::timeout::Timeouts;
use crate::schema::{OutputSchemaError, input_schema, output_schema};
use crate::trace::{Transport, call_span};
use crate::{
    CallOutcome, CallRecord, Confirmations, Context, Labels, Layer, Run, Tool, ToolError, ToolSpec,
    Violations,
};

/// The rmcp description of tool `T`: name, title, description, both schemas and all four hints.
pub fn definition<T: Tool>() -> Result<rmcp::model::Tool, OutputSchemaError> {
    let spec = T::SPEC;
    let hints = spec.hints;
    let annotations = ToolAnnotations::from_raw(
        Some(spec.title.to_owned()),
        Some(hints.read_only),
        Some(hints.destructive),
        Some(hints.idempotent),
        Some(hints.open_world),
    );
    Ok(
        rmcp::model::Tool::new(spec.name, spec.description, Arc::new(input_schema(spec)))
            .with_title(spec.title)
            .with_raw_output_schema(Arc::new(output_schema::<T::Output>()?))
            .with_annotations(annotations),
    )
}

/// Runs one call of tool `T` on `state` and encodes the outcome as a tool result. Every failure
/// is an `isError` result; nothing here is a protocol error. The tool runs with a
/// [`Context::detached`] context: no caller, no progress, never cancelled.
///
/// A `Validation Failed` message names the arguments by their wire names; a [`Toolbox`] names
/// them in the style its [`labels`](Toolbox::labels) choose.
pub async fn call<S, T>(state: &S, arguments: Option<&JsonObject>) -> CallToolResult
where
    S: Sync,
    T: Run<S>,
{
    call_with::<S, T>(state, arguments, Context::detached()).await
}

/// [`call`], in `context`: with a caller, say, or cancelled by a token of the test's. A tool
/// declared `confirm` runs as for a client that cannot be asked, under
/// [`ConfirmPolicy::Ask`](crate::ConfirmPolicy::Ask).
pub async fn call_with<S, T>(
    state: &S,
    arguments: Option<&JsonObject>,
    context: Context,
) -> CallToolResult
where
    S: Sync,
    T: Run<S>,
{
    let response = call_routed::<S, T>(state, arguments, context, &Routing::default()).await;
    match response {
        CallToolResponse::Complete(result) => result,
        // Only a client that can ask its user is asked, and a detached context has no client.
        _ => {
            let error = ToolError::unexpected("a call without a client asked for input");
            encode::<()>(T::SPEC, Err(error), Labels::WireNames).0
        }
    }
}

/// What every route of a [`Toolbox`] shares: its settings, chosen by the time it is built.
#[derive(Default)]
struct Routing {
    labels: Labels,
    confirmations: Confirmations,
    observer: Option<Observer>,
    /// Every layer a call meets, outermost first: the policies' and the server's own.
    layers: Layers,
    /// How long a call with a progress token may go without progress before the toolkit
    /// sends some.
    heartbeat: Option<Duration>,
}

async fn call_routed<S, T>(
    state: &S,
    arguments: Option<&JsonObject>,
    context: Context,
    routing: &Routing,
) -> CallToolResponse
where
    S: Sync,
    T: Run<S>,
{
    let started = Instant::now();
    let labels = routing.labels;
    let answered = async {
        let tool = match crate::parse::<T>(arguments) {
            Ok(tool) => tool,
            Err(error) => return answer::<T::Output>(T::SPEC, Err(error), labels),
        };
        let empty = JsonObject::new();
        let arguments = arguments.unwrap_or(&empty);
        let call = ToolCall {
            spec: T::SPEC,
            arguments,
            context: &context,
            labels,
        };
        let ran = run::<S, T>(tool, state, arguments, &context, &routing.confirmations);
        let next = Next {
            layers: &routing.layers,
            call: &call,
            tool: Box::pin(async move { answer(T::SPEC, ran.await, labels) }),
        };
        next.run().await
    };
    // A cancelled call is dropped where it waits: whatever it holds is dropped with it.
    let answer = tokio::select! {
        biased;
        () = context.cancelled() => answer::<()>(T::SPEC, Err(ToolError::Cancelled), labels),
        answer = answered => answer,
        () = context.heartbeat(routing.heartbeat) => unreachable!("a heartbeat beats on"),
    };
    let Answer { response, outcome } = answer;
    if outcome.is_error() {
        crate::trace::failed(&tracing::Span::current(), "tool_error");
    }
    let duration = started.elapsed();
    tracing::debug!(tool = T::SPEC.name, %outcome, elapsed = ?duration, "tool call");
    if let Some(observer) = &routing.observer {
        observer(&CallRecord {
            tool: T::SPEC.name,
            outcome,
            duration,
            caller: context.caller(),
        });
    }
    response
}

/// How a call that did not fail ended.
pub(crate) enum Ran<O> {
    /// The tool ran.
    Done(O),
    /// The user is to confirm the call first: the client retries with the answer.
    Asking(InputRequiredResult),
}

/// What a client gets for how a call ran.
pub(crate) fn answer<O: serde::Serialize>(
    spec: &'static ToolSpec,
    ran: Result<Ran<O>, ToolError>,
    labels: Labels,
) -> Answer {
    let (response, outcome) = match ran {
        Ok(Ran::Asking(input_required)) => (input_required.into(), CallOutcome::AskedUser),
        Ok(Ran::Done(output)) => {
            let (result, outcome) = encode(spec, Ok(output), labels);
            (result.into(), outcome)
        }
        Err(error) => {
            let (result, outcome) = encode::<O>(spec, Err(error), labels);
            (result.into(), outcome)
        }
    };
    Answer { response, outcome }
}

/// Runs a call whose arguments have been read into `tool`: its own checks, the existence of
/// the ids it names, the user's confirmation, and the tool.
async fn run<S, T>(
    tool: T,
    state: &S,
    arguments: &JsonObject,
    context: &Context,
    confirmations: &Confirmations,
) -> Result<Ran<T::Output>, ToolError>
where
    S: Sync,
    T: Run<S>,
{
    tool.check(state, context).await?;
    let ids = tool.reference_ids();
    if !T::CHECKS_EXISTENCE {
        T::check_references(ids, state).await?;
    }
    // Made here and awaited only if the user is asked.
    let question = crate::__private::Confirms::confirmation(&tool, state, context);
    match decide::<S, T>(
        question,
        ids.as_ref(),
        context,
        Some(arguments),
        confirmations,
    )
    .await
    {
        Ok(Step::Run) => match tool.run(state, context).await {
            // Also reached when checked first: an id that named something has gone since.
            Err(ToolError::Missing) => {}
            outcome => return outcome.map(Ran::Done),
        },
        Ok(Step::Ask(input_required)) => return Ok(Ran::Asking(input_required)),
        Err(ToolError::Missing) => {}
        Err(error) => return Err(error),
    }
    T::check_references(ids, state).await?;
    Err(ToolError::unexpected(
        "the tool found an id missing, but every id names something",
    ))
}

/// The result a client gets for `outcome` of a call of the tool `spec`, and how the call ended.
fn encode<O: serde::Serialize>(
    spec: &'static ToolSpec,
    outcome: Result<O, ToolError>,
    labels: Labels,
) -> (CallToolResult, CallOutcome) {
    let error = match outcome.map(structured) {
        Ok(Ok(result)) => return (result, CallOutcome::Ok),
        Ok(Err(cause)) => ToolError::from(cause),
        Err(ToolError::Invalid(violations)) => ToolError::Invalid(violations.labelled(labels)),
        Err(error) => error,
    };
    let outcome = CallOutcome::of_error(&error);
    // A retry cannot repeat a change of a tool that makes none, or makes it once.
    let retry_safe = spec.hints.read_only || spec.hints.idempotent;
    (error_result(spec.name, error, retry_safe), outcome)
}

/// The error result a client gets for `error` of a call of `tool`: the text a model reads, and
/// the envelope a program reads in `_meta` ([`ERROR_META_KEY`](crate::ERROR_META_KEY)). An
/// unexpected failure's cause goes to the log, under the reference the client gets.
fn error_result(tool: &str, error: ToolError, retry_safe: bool) -> CallToolResult {
    let reference = matches!(error, ToolError::Unexpected(_)).then(new_reference);
    let envelope = error.envelope(retry_safe, reference.as_deref());
    let text = match (error, &reference) {
        (ToolError::Unexpected(cause), Some(reference)) => {
            tracing::error!(tool, reference, cause = %cause, "tool call failed");
            format!("Error: Something unexpected happened. Reference: {reference}.")
        }
        (known, _) => known.to_string(),
    };
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    let mut meta = JsonObject::new();
    meta.insert(crate::ERROR_META_KEY.to_owned(), envelope);
    result.meta = Some(rmcp::model::MetaObject(meta));
    result
}

/// A successful result: `output` as `structuredContent`, and the same JSON as its text. The text
/// is written from the `Value`, so that the two agree wherever the `Value` differs from
/// `output`'s own serialisation (an `f32` is held as an `f64`); writing it straight into bytes
/// is cheaper than the `Display` that `CallToolResult::structured` uses.
fn structured<O: serde::Serialize>(output: O) -> Result<CallToolResult, serde_json::Error> {
    let value = serde_json::to_value(output)?;
    let text = serde_json::to_string(&value)?;
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// A short random reference that ties the client's error to the log line with its cause.
fn new_reference() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    id[..8].to_owned()
}

/// The answer to a `tools/call` whose `params` rmcp cannot read as a call. rmcp hands such a
/// request to `ServerHandler::on_custom_request`, whose default answers "method not found";
/// a server should answer it with this instead. `arguments` that are not an object are the
/// caller's argument mistake, so they get a tool result with `isError` and `Validation Failed`,
/// like every other argument mistake, naming `arguments` in the server's `labels` style; a
/// missing or unknown tool name is the protocol's Invalid params (-32602), as for a call rmcp
/// can read.
///
/// ```
/// # use toolkit::Toolbox;
/// # struct Server;
/// let router = Toolbox::<Server>::new().build().unwrap();
/// let params = serde_json::json!({ "arguments": {} });
/// let answer = toolkit::unreadable_call(&router, Some(&params), toolkit::Labels::WireNames);
/// assert_eq!(answer.unwrap_err().code.0, -32602);
/// ```
pub fn unreadable_call<S>(
    router: &ToolRouter<S>,
    params: Option<&Value>,
    labels: Labels,
) -> Result<CallToolResult, ErrorData>
where
    S: Send + Sync + 'static,
{
    let Some(name) = params.and_then(|params| params.get("name")?.as_str()) else {
        return Err(ErrorData::invalid_params(
            "Invalid params: a tools/call names its tool with a string, params.name",
            None,
        ));
    };
    if !router.has_route(name) {
        return Err(ErrorData::invalid_params("tool not found", None));
    }
    match params.and_then(|params| params.get("arguments")) {
        Some(arguments) if !arguments.is_object() && !arguments.is_null() => {
            let mut violations = Violations::default();
            violations.push_broken(
                "arguments",
                true,
                "type",
                format!(
                    "Must be an object of named arguments, not {}.",
                    json_type(arguments)
                ),
            );
            let error = ToolError::Invalid(violations.labelled(labels));
            Ok(error_result(name, error, false))
        }
        // rmcp could not read the call for another reason (its `_meta`, say). The message does
        // not echo what was sent: protocol errors are logged.
        _ => Err(ErrorData::invalid_params(
            "Invalid params: a tools/call's params are {\"name\": string, \"arguments\": \
             object}, with an optional \"_meta\" object",
            None,
        )),
    }
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The rmcp route of tool `T`, naming arguments by their wire names in a `Validation Failed`
/// message; a [`Toolbox`] makes routes in the style its [`labels`](Toolbox::labels) choose.
pub fn route<S, T>() -> Result<ToolRoute<S>, OutputSchemaError>
where
    S: Send + Sync + 'static,
    T: Run<S>,
{
    routed::<S, T>(Arc::new(Routing::default()))
}

fn routed<S, T>(routing: Arc<Routing>) -> Result<ToolRoute<S>, OutputSchemaError>
where
    S: Send + Sync + 'static,
    T: Run<S>,
{
    // Written in the call, so that the closure is inferred for every lifetime of the context.
    Ok(ToolRoute::new_dyn(definition::<T>()?, move |context| {
        dispatch::<S, T>(context, routing.clone())
    }))
}

/// The route's handler, a named function so its future borrows the call context for exactly
/// the context's lifetime.
fn dispatch<'a, S, T>(
    context: ToolCallContext<'a, S>,
    routing: Arc<Routing>,
) -> BoxFuture<'a, Result<CallToolResponse, ErrorData>>
where
    S: Send + Sync + 'static,
    T: Run<S>,
{
    let mut context = context;
    let transport = Transport::of(&context.request_context.extensions);
    let mut call = Context::of_request(&mut context.request_context, T::SPEC.confirm);
    call.retry = Retry {
        request_state: context.request_state.take(),
        input_responses: context.input_responses.take(),
    };
    // Every log line of the call carries the client's trace id, or a request id.
    let span = call_span(
        Some(T::SPEC.name),
        &context.request_context,
        call.trace_id(),
        transport,
    );
    Box::pin(
        async move {
            let arguments = context.arguments.as_ref();
            Ok(call_routed::<S, T>(context.service, arguments, call, &routing).await)
        }
        .instrument(span),
    )
}

/// Assembles every tool of a server into one rmcp [`ToolRouter`], refusing two tools with one
/// name, output types that cannot be published, and declared defaults or examples that their
/// arguments would refuse.
///
/// ```
/// # use toolkit::Toolbox;
/// # struct Server;
/// let router = Toolbox::<Server>::new().build().unwrap();
/// assert!(router.list_all().is_empty());
/// ```
pub struct Toolbox<S> {
    pub(crate) routes: Vec<PendingRoute<S>>,
    pub(crate) specs: Vec<&'static ToolSpec>,
    pub(crate) problems: Vec<String>,
    routing: Routing,
    policies: Policies,
    /// The server's own layers, in the order added.
    layers: Layers,
}

/// The call policies chosen for a toolbox's tools, beyond what each declares.
struct Policies {
    timeout: Option<Duration>,
    rate_limit: Option<RateLimit>,
    /// Rate limits chosen for tools by name, in place of what they declare.
    rate_limits: Vec<(&'static str, Option<RateLimit>)>,
    max_result_bytes: usize,
}

impl Default for Policies {
    fn default() -> Self {
        Policies {
            timeout: None,
            rate_limit: None,
            rate_limits: Vec::new(),
            max_result_bytes: crate::policy::MAX_RESULT_BYTES,
        }
    }
}

/// A tool's route, made when the toolbox is built, with the settings chosen by then.
pub(crate) struct PendingRoute<S> {
    pub(crate) name: &'static str,
    definition: rmcp::model::Tool,
    make: fn(Arc<Routing>) -> Result<ToolRoute<S>, OutputSchemaError>,
}

impl<S: Send + Sync + 'static> Default for Toolbox<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Send + Sync + 'static> Toolbox<S> {
    /// An empty toolbox.
    pub fn new() -> Self {
        Toolbox {
            routes: Vec::new(),
            specs: Vec::new(),
            problems: Vec::new(),
            routing: Routing {
                heartbeat: Some(crate::policy::HEARTBEAT_INTERVAL),
                ..Routing::default()
            },
            policies: Policies::default(),
            layers: Layers::new(),
        }
    }

    /// How `Validation Failed` messages name the tools' own arguments: by their wire names
    /// (the default), or capitalised. Places inside an argument and undeclared names are
    /// always shown as sent.
    ///
    /// ```
    /// # use toolkit::{Labels, Tool};
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Counts.
    /// #[derive(Tool)]
    /// #[tool(name = "count", title = "Count", output = Out,
    ///        read_only, destructive = false, idempotent, open_world = false)]
    /// pub struct Count {
    ///     #[arg(min = 1)]
    ///     max_length: u32,
    /// }
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Count {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// let router = toolkit::Toolbox::<Server>::new()
    ///     .labels(Labels::Capitalised)
    ///     .tool::<Count>()
    ///     .build()
    ///     .unwrap();
    /// # let _ = router;
    /// ```
    pub fn labels(mut self, labels: Labels) -> Self {
        self.routing.labels = labels;
        self
    }

    /// How tools declared `confirm` ask the user: the policy for clients that cannot be asked,
    /// the keys that seal confirmations, and where audit events go. By default
    /// [`Confirmations::default`]: ask where the client can, with a key of this process's own.
    pub fn confirmations(mut self, confirmations: Confirmations) -> Self {
        self.routing.confirmations = confirmations;
        self
    }

    /// Hands every call of these tools, once it has ended, to `observer`: the tool, how it
    /// ended, how long it took and who called. What a server counts in its metrics, say. It
    /// runs on the call's task before the answer goes back, so it should be quick. A second
    /// observer replaces the first.
    ///
    /// ```
    /// # use std::sync::{Arc, Mutex};
    /// # use toolkit::{CallOutcome, Tool};
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Counts.
    /// #[derive(Tool)]
    /// #[tool(name = "count", title = "Count", output = Out,
    ///        read_only, destructive = false, idempotent, open_world = false)]
    /// pub struct Count {
    ///     #[arg(min = 1)]
    ///     to: u32,
    /// }
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Count {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let record = seen.clone();
    /// let router = toolkit::Toolbox::<Server>::new()
    ///     .tool::<Count>()
    ///     .on_call(move |call| record.lock().unwrap().push((call.tool, call.outcome)))
    ///     .build()
    ///     .unwrap();
    /// # let _ = router;
    /// ```
    pub fn on_call(mut self, observer: impl Fn(&CallRecord<'_>) + Send + Sync + 'static) -> Self {
        self.routing.observer = Some(Arc::new(observer));
        self
    }

    /// Runs `layer` around every call of these tools, inside the layers added before it: see
    /// [`Layer`] for what it sees and may do, and the order a call meets the layers in.
    pub fn layer(mut self, layer: impl Layer) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// How long a call of a tool that declares no `timeout` may run: past it, the call is
    /// stopped as a cancelled call is and answered `Timed Out: … did not finish within 30 s, and
    /// changed nothing. Call it again.` Time spent waiting for the user to confirm a call is
    /// not counted. By default, none: a call runs until it ends or is cancelled.
    pub fn timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.policies.timeout = timeout.into();
        self
    }

    /// How often one caller may call each tool that declares no `rate_limit`, counted per tool:
    /// see [`RateLimit`]. By default, as often as it likes.
    pub fn rate_limit(mut self, limit: impl Into<Option<RateLimit>>) -> Self {
        self.policies.rate_limit = limit.into();
        self
    }

    /// How often one caller may call the tool named `tool`, in place of its declared
    /// `rate_limit` and of the default (`None`: as often as it likes): what an operator
    /// chooses from the command line. A name no tool added so far has is a problem
    /// [`build`](Self::build) reports.
    pub fn rate_limit_for(mut self, tool: &str, limit: impl Into<Option<RateLimit>>) -> Self {
        match self.specs.iter().find(|spec| spec.name == tool) {
            Some(spec) => self.policies.rate_limits.push((spec.name, limit.into())),
            None => {
                let names = self.specs.iter().map(|spec| spec.name);
                self.problems
                    .push(crate::selection::unknown_tool(tool, names));
            }
        }
        self
    }

    /// The most bytes a successful result may have ([`Answer::size`]): a larger one is
    /// answered `Result Too Large`, which asks the model for less (or, for a tool that changes
    /// something, says the change is kept). By default
    /// [`MAX_RESULT_BYTES`](crate::policy::MAX_RESULT_BYTES), a megabyte.
    pub fn max_result_bytes(mut self, bytes: usize) -> Self {
        self.policies.max_result_bytes = bytes;
        self
    }

    /// How long a call that carries a `progressToken` may go without a progress notification
    /// before the toolkit sends one of its own, so that a client that gives up on a silent
    /// call keeps waiting for a slow one (`None`: never). By default
    /// [`HEARTBEAT_INTERVAL`](crate::policy::HEARTBEAT_INTERVAL), five seconds.
    pub fn heartbeat(mut self, every: impl Into<Option<Duration>>) -> Self {
        self.routing.heartbeat = every.into().filter(|every| !every.is_zero());
        self
    }

    /// Adds tool `T`, reading each default and example declared in its arguments as a call
    /// would: one its argument refuses (what the compiler could not check, a URL say) is a
    /// problem [`build`](Self::build) reports, naming the tool and the argument.
    pub fn tool<T: Run<S>>(mut self) -> Self {
        let name = T::SPEC.name;
        if self.routes.iter().any(|route| route.name == name) {
            self.problems.push(format!(
                "two tools are named `{name}`; tool names must be unique"
            ));
        }
        self.specs.push(T::SPEC);
        self.problems.extend(T::SPEC.refused_literals());
        match definition::<T>() {
            Ok(definition) => self.routes.push(PendingRoute {
                name,
                definition,
                make: routed::<S, T>,
            }),
            Err(error) => self.problems.push(format!(
                "the output type of `{name}` ({}) cannot be an MCP output schema: {error}",
                std::any::type_name::<T::Output>()
            )),
        }
        self
    }

    /// The spec of every tool added so far, to look up by name: what a layer in front of rmcp
    /// (an HTTP server checking tokens) reads to learn the scope a call needs before it runs.
    ///
    /// ```
    /// # use toolkit::Tool;
    /// # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
    /// /// Writes a thing.
    /// #[derive(Tool)]
    /// #[tool(name = "write", title = "Write", output = Out, scope = "things.write",
    ///        read_only = false, destructive, idempotent = false, open_world = false)]
    /// pub struct Write {}
    /// # struct Server;
    /// # impl toolkit::Run<Server> for Write {
    /// #     async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, toolkit::ToolError> { Ok(Out {}) }
    /// # }
    ///
    /// let specs = toolkit::Toolbox::<Server>::new().tool::<Write>().specs();
    /// assert_eq!(specs.get("write").and_then(|spec| spec.scope), Some("things.write"));
    /// assert!(specs.get("read").is_none());
    /// assert_eq!(specs.scopes(), ["things.write"]);
    /// ```
    pub fn specs(&self) -> ToolSpecs {
        ToolSpecs {
            specs: self.specs.clone(),
        }
    }

    /// Every problem found while adding and selecting tools, which [`build`](Self::build)
    /// would report.
    pub fn check(&self) -> Result<(), ToolboxError> {
        if self.problems.is_empty() {
            return Ok(());
        }
        Err(ToolboxError {
            problems: self.problems.clone(),
        })
    }

    /// What `tools/list` will list: each tool's definition, in name order.
    pub fn definitions(&self) -> Vec<rmcp::model::Tool> {
        let mut tools: Vec<_> = self
            .routes
            .iter()
            .map(|route| route.definition.clone())
            .collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    /// The label style chosen.
    pub(crate) fn chosen_labels(&self) -> Labels {
        self.routing.labels
    }

    /// The router, or every problem found while adding tools.
    pub fn build(mut self) -> Result<ToolRouter<S>, ToolboxError> {
        self.check()?;
        self.routing.layers = self.policies.layers(&self.specs, self.layers);
        let routing = Arc::new(self.routing);
        let mut router = ToolRouter::new();
        for pending in self.routes {
            // Each definition was made once already, when the tool was added.
            match (pending.make)(routing.clone()) {
                Ok(route) => router = router.with_route(route),
                Err(error) => {
                    return Err(ToolboxError {
                        problems: vec![format!("the output type of `{}`: {error}", pending.name)],
                    });
                }
            }
        }
        Ok(router)
    }
}

impl Policies {
    /// Every layer a call of `specs` meets, outermost first (see [`Layer`]): the rate limit,
    /// the server's own `layers`, the time limit and the cap on a result's size. A policy no
    /// tool has is left out.
    fn layers(&self, specs: &[&'static ToolSpec], layers: Layers) -> Layers {
        let mut all: Layers = Vec::new();
        let limited: HashMap<&'static str, Buckets> = specs
            .iter()
            .filter_map(|spec| {
                let chosen = self
                    .rate_limits
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == spec.name);
                let limit = match chosen {
                    Some((_, chosen)) => *chosen,
                    None => spec.rate_limit.or(self.rate_limit),
                };
                Some((spec.name, Buckets::new(limit?)))
            })
            .collect();
        if !limited.is_empty() {
            all.push(Arc::new(RateLimits { tools: limited }));
        }
        all.extend(layers);
        if self.timeout.is_some() || specs.iter().any(|spec| spec.timeout.is_some()) {
            all.push(Arc::new(Timeouts {
                default: self.timeout,
            }));
        }
        all.push(Arc::new(ResultSize {
            limit: self.max_result_bytes,
        }));
        all
    }
}

/// The specs of a [`Toolbox`]'s tools, looked up by tool name.
#[derive(Debug, Clone, Default)]
pub struct ToolSpecs {
    specs: Vec<&'static ToolSpec>,
}

impl ToolSpecs {
    /// The spec of the tool named `name`, if the toolbox has one.
    pub fn get(&self, name: &str) -> Option<&'static ToolSpec> {
        self.specs.iter().copied().find(|spec| spec.name == name)
    }

    /// Every spec, in the order the tools were added.
    pub fn iter(&self) -> impl Iterator<Item = &'static ToolSpec> + '_ {
        self.specs.iter().copied()
    }

    /// Every scope some tool needs, each once, in the order the tools were added.
    pub fn scopes(&self) -> Vec<&'static str> {
        let mut scopes: Vec<&'static str> = Vec::new();
        for scope in self.specs.iter().filter_map(|spec| spec.scope) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
    }
}

/// The problems that stop a [`Toolbox`] from building, reported at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolboxError {
    /// One sentence per problem.
    pub problems: Vec<String>,
}

impl fmt::Display for ToolboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("; "))
    }
}

impl std::error::Error for ToolboxError {}

impl fmt::Display for OutputSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutputSchemaError::NotAnObject => "its schema must be a JSON object",
            OutputSchemaError::Reference => {
                "a recursive type needs a $ref, which clients may not resolve"
            }
        })
    }
}

impl std::error::Error for OutputSchemaError {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rmcp::model::CallToolResult;
    use serde::Serialize;
    use serde_json::Value;

    use super::structured;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Output {
        average_stars: f32,
        by_year: BTreeMap<u16, Vec<f32>>,
        title: &'static str,
        missing: Option<u8>,
    }

    /// A client may read either the text or `structuredContent`; both must say the same, even
    /// where a type's own serialisation and its `Value` differ (an `f32` becomes an `f64`).
    #[test]
    fn a_results_text_says_what_its_structured_content_says() {
        let output = Output {
            average_stars: 3.3,
            by_year: BTreeMap::from([(1999, vec![0.1, 4.7])]),
            title: "\"Quoted\" \\ and\nbroken",
            missing: None,
        };
        let result = structured(output).unwrap();
        let text = result.content[0].as_text().unwrap().text.clone();
        let value = result.structured_content.clone().unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
        assert_eq!(value["byYear"]["1999"][1], Value::from(4.7_f32));
        // The very result rmcp's own constructor makes of that value, text byte for byte.
        assert_eq!(result, CallToolResult::structured(value));
    }
}
