//! The span every `tools/call` runs in, seen by subscribers of the test's own through a real
//! client: its name and attributes after OpenTelemetry's conventions for MCP, `error.type` for a
//! tool error and for a protocol error, and (feature `opentelemetry`) its parent, the client's
//! span that the request's `_meta` names in its `traceparent`, as tracing-opentelemetry exports
//! it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use rmcp::model::{CallToolRequestParams, MetaObject, RequestMetaObject};
use serde_json::json;
use toolkit::testing::TestClient;
use toolkit::{Context, Run, Server, Tool, ToolError};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt as _};
use tracing_subscriber::registry::LookupSpan;

/// What `echo` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Echoed {
    /// What was sent.
    text: String,
}

/// Says back what it is sent.
#[derive(Tool)]
#[tool(name = "echo", title = "Echo", output = Echoed,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Echo {
    /// What to say back.
    #[arg(max_chars = 10)]
    text: String,
}

impl Run<()> for Echo {
    async fn run(self, _: &(), _: &Context) -> Result<Echoed, ToolError> {
        tracing::info!("echoing");
        Ok(Echoed { text: self.text })
    }
}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// A client of a server of `echo`.
async fn echo_client() -> TestClient {
    let handler = Server::new("echo", "1.0.0").tool::<Echo>().build(());
    TestClient::connect(&handler.expect("the tool assembles")).await
}

/// A call of `tool` with `arguments`, its `_meta` carrying the client's trace.
fn traced_call(tool: &'static str, text: &str) -> CallToolRequestParams {
    let mut meta = MetaObject::new();
    meta.set_traceparent(format!("00-{TRACE}-{PARENT}-01"));
    meta.set_tracestate("vendor=value");
    let mut params = CallToolRequestParams::new(tool);
    params.arguments = json!({ "text": text }).as_object().cloned();
    params.meta = Some(RequestMetaObject(meta));
    params
}

/// A span's name, and its fields as recorded.
type SpanFields = (String, BTreeMap<String, String>);

/// Every span's fields, in the order the spans were made.
#[derive(Clone, Default)]
struct Recorded(Arc<Mutex<Vec<SpanFields>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Recorded {
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: LayerContext<'_, S>) {
        let mut fields = BTreeMap::new();
        attributes.record(&mut Fields(&mut fields));
        let index = {
            let mut spans = self.0.lock().unwrap();
            spans.push((attributes.metadata().name().to_owned(), fields));
            spans.len() - 1
        };
        if let Some(span) = context.span(id) {
            span.extensions_mut().insert(index);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, context: LayerContext<'_, S>) {
        let Some(span) = context.span(id) else { return };
        let Some(index) = span.extensions().get::<usize>().copied() else {
            return;
        };
        values.record(&mut Fields(&mut self.0.lock().unwrap()[index].1));
    }
}

#[tokio::test]
async fn each_call_runs_in_a_span_named_and_attributed_after_opentelemetry() {
    let recorded = Recorded::default();
    let subscriber = tracing_subscriber::registry().with(recorded.clone());
    let _default = tracing::subscriber::set_default(subscriber);

    let client = echo_client().await;
    let ok = client.peer().call_tool(traced_call("echo", "hi")).await;
    assert_eq!(ok.unwrap().is_error, Some(false));
    let refused = client
        .peer()
        .call_tool(traced_call("echo", "far too long"))
        .await;
    assert_eq!(refused.unwrap().is_error, Some(true));
    let unknown = client.peer().call_tool(traced_call("shout", "hi")).await;
    assert!(unknown.is_err(), "an unknown tool is a protocol error");

    let spans = recorded.0.lock().unwrap().clone();
    let calls: Vec<&BTreeMap<String, String>> = spans
        .iter()
        .filter(|(name, _)| name == "tools/call")
        .map(|(_, fields)| fields)
        .collect();
    assert_eq!(calls.len(), 3, "{spans:?}");
    let field = |call: usize, name: &str| calls[call].get(name).map(String::as_str);
    for call in 0..2 {
        assert_eq!(field(call, "otel.name"), Some("tools/call echo"));
        assert_eq!(field(call, "otel.kind"), Some("server"));
        assert_eq!(field(call, "mcp.method.name"), Some("tools/call"));
        assert_eq!(field(call, "gen_ai.operation.name"), Some("execute_tool"));
        assert_eq!(field(call, "gen_ai.tool.name"), Some("echo"));
        assert_eq!(field(call, "network.transport"), Some("pipe"));
        assert_eq!(field(call, "trace_id"), Some(TRACE));
        assert!(field(call, "jsonrpc.request.id").is_some());
    }
    assert_eq!(field(0, "error.type"), None);
    assert_eq!(field(1, "error.type"), Some("tool_error"));
    assert_eq!(field(1, "otel.status_code"), Some("error"));
    assert_eq!(field(2, "otel.name"), Some("tools/call"));
    assert_eq!(field(2, "gen_ai.tool.name"), None);
    assert_eq!(field(2, "error.type"), Some("-32602"));
}

#[tokio::test]
async fn with_opentelemetry_a_calls_span_is_a_child_of_the_clients() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("spans-test"));
    let subscriber = tracing_subscriber::registry().with(layer);
    let _default = tracing::subscriber::set_default(subscriber);

    let client = echo_client().await;
    let refused = client
        .peer()
        .call_tool(traced_call("echo", "far too long"))
        .await;
    assert_eq!(refused.unwrap().is_error, Some(true));
    client.close().await;
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let call = spans
        .iter()
        .find(|span| span.name == "tools/call echo")
        .unwrap_or_else(|| panic!("no span of the call among {spans:#?}"));
    assert_eq!(call.span_kind, SpanKind::Server);
    assert_eq!(
        call.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(call.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert!(call.parent_span_is_remote);
    assert_eq!(call.span_context.trace_state().get("vendor"), Some("value"));
    assert!(
        matches!(call.status, Status::Error { .. }),
        "{:?}",
        call.status
    );
    let attribute = |key: &str| {
        call.attributes
            .iter()
            .find(|attribute| attribute.key.as_str() == key)
            .map(|attribute| attribute.value.to_string())
    };
    assert_eq!(attribute("mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attribute("gen_ai.tool.name").as_deref(), Some("echo"));
    assert_eq!(attribute("error.type").as_deref(), Some("tool_error"));
}
