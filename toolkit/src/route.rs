//! Turning declared tools into rmcp routes, and running one call: parse, check existence, run,
//! encode the result. The toolbox that assembles the routes is `toolbox`.

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
use crate::policy::idempotency::{KEY_ARGUMENT, KeyedCall};
use crate::schema::{OutputSchemaError, input_schema, output_schema};
use crate::trace::{TraceContext, call_span};
use crate::{
    CallOutcome, CallRecord, Confirmations, Context, Labels, Run, Tool, ToolError, ToolSpec,
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
pub(crate) struct Routing {
    pub(crate) labels: Labels,
    pub(crate) confirmations: Confirmations,
    pub(crate) observer: Option<Observer>,
    /// Every layer a call meets, outermost first: the policies' and the server's own.
    pub(crate) layers: Layers,
    /// How long a call with a progress token may go without progress before the toolkit
    /// sends some.
    pub(crate) heartbeat: Option<Duration>,
    /// How long the result of a call with an idempotency key is kept; `None` where no layer
    /// keeps them.
    pub(crate) idempotency_expiry: Option<Duration>,
}

async fn call_routed<S, T>(
    state: &S,
    arguments: Option<&JsonObject>,
    mut context: Context,
    routing: &Routing,
) -> CallToolResponse
where
    S: Sync,
    T: Run<S>,
{
    if let (true, Some(expiry), Some(arguments)) = (
        T::SPEC.idempotency_key,
        routing.idempotency_expiry,
        arguments,
    ) {
        context.idempotency = keyed_call(T::SPEC.name, arguments, &context, expiry);
    }
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

/// The call of `tool` with `arguments` as made with its idempotency key, if it sent one (a key
/// that breaks its rules is refused before any layer runs).
fn keyed_call(
    tool: &'static str,
    arguments: &JsonObject,
    context: &Context,
    expiry: Duration,
) -> Option<KeyedCall> {
    let key = arguments.get(KEY_ARGUMENT)?.as_str()?;
    let caller = context
        .caller()
        .map_or("", |caller| caller.subject.as_str());
    Some(KeyedCall::new(caller, tool, key, arguments, expiry))
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

pub(crate) fn routed<S, T>(routing: Arc<Routing>) -> Result<ToolRoute<S>, OutputSchemaError>
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
    let request = &context.request_context;
    let trace = TraceContext::of(&request.meta, &request.extensions);
    let mut call = Context::of_request(&mut context.request_context, &trace, T::SPEC.confirm);
    call.retry = Retry {
        request_state: context.request_state.take(),
        input_responses: context.input_responses.take(),
    };
    // Every log line of the call carries the client's trace id, or a request id.
    let span = call_span(
        Some(T::SPEC.name),
        &context.request_context,
        &trace,
        call.trace_id(),
    );
    Box::pin(
        async move {
            let arguments = context.arguments.as_ref();
            Ok(call_routed::<S, T>(context.service, arguments, call, &routing).await)
        }
        .instrument(span),
    )
}

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
