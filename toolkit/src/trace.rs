//! Which trace a tool call belongs to, so that its log lines can be told apart and followed
//! from the client through any replica: the trace id of the W3C `traceparent` the client sent
//! in the request's `_meta` (where the 2026-07-28 revision of MCP carries trace context) or,
//! over HTTP, in the request's header of that name, or, without one, a request id of the
//! server's own. And the span each call runs in, named and
//! attributed after OpenTelemetry's conventions for MCP, parented to the client's trace where
//! the feature `opentelemetry` is on.

use rmcp::RoleServer;
use rmcp::model::{Extensions, MetaObject};
use rmcp::service::RequestContext;

/// The trace context a request carries: the `traceparent` and `tracestate` of its `_meta`, or,
/// over HTTP, of its headers (the same context, sent the HTTP way); the `_meta` wins.
#[derive(Debug, Default)]
pub(crate) struct TraceContext {
    traceparent: Option<String>,
    #[cfg_attr(not(feature = "opentelemetry"), allow(dead_code))]
    tracestate: Option<String>,
}

impl TraceContext {
    /// The trace context of a request with this `_meta` and these extensions (where HTTP's
    /// service puts the HTTP request's parts).
    pub(crate) fn of(meta: &MetaObject, extensions: &Extensions) -> TraceContext {
        if let Some(traceparent) = meta.get_traceparent() {
            return TraceContext {
                traceparent: Some(traceparent.to_owned()),
                tracestate: meta.get_tracestate().map(str::to_owned),
            };
        }
        let Some(parts) = crate::context::find::<http::request::Parts>(extensions) else {
            return TraceContext::default();
        };
        let header = |name: &str| {
            let value = parts.headers.get(name)?.to_str().ok()?;
            Some(value.to_owned())
        };
        TraceContext {
            traceparent: header(TRACEPARENT),
            tracestate: header(TRACESTATE),
        }
    }

    /// The id a call's log lines carry: the client's trace id, or a new request id.
    pub(crate) fn call_id(&self) -> String {
        match self.traceparent.as_deref().and_then(parse) {
            Some(parent) => parent.trace_id.to_owned(),
            // A simple uuid is 32 hex digits: half of one is plenty for telling calls apart.
            None => uuid::Uuid::new_v4().simple().to_string()[..16].to_owned(),
        }
    }
}

/// The W3C Trace Context headers, and the `_meta` keys MCP carries them under.
const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";

/// How a call reached the server, as OpenTelemetry's `network.transport` names it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Transport {
    /// Over HTTP.
    Tcp,
    /// Over stdio, or any stream that is not a socket.
    Pipe,
}

impl Transport {
    /// The transport of a request with these extensions: HTTP's service puts the HTTP
    /// request's parts among them.
    pub(crate) fn of(extensions: &rmcp::model::Extensions) -> Transport {
        match crate::context::find::<http::request::Parts>(extensions) {
            Some(_) => Transport::Tcp,
            None => Transport::Pipe,
        }
    }
}

/// The span of one `tools/call` of `tool`, named and attributed as OpenTelemetry's conventions
/// for MCP have it: `tools/call {tool}`, a server span, with the method, the operation
/// (`execute_tool`), the tool, the request's id and protocol version and the transport. A call
/// of a tool the server does not have (`None`) is named `tools/call` alone: the name a client
/// made up is no name to group spans by.
/// `error.type` and `otel.status_code` are filled in when the call ends in an error
/// ([`failed`]); `trace_id` is what every log line of the call carries.
pub(crate) fn call_span(
    tool: Option<&str>,
    request: &RequestContext<RoleServer>,
    trace: &TraceContext,
    trace_id: &str,
) -> tracing::Span {
    let protocol = request.protocol_version();
    let transport = match Transport::of(&request.extensions) {
        Transport::Tcp => "tcp",
        Transport::Pipe => "pipe",
    };
    let span = tracing::info_span!(
        "tools/call",
        otel.name = %format!("tools/call {}", tool.unwrap_or_default()).trim_end(),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = "tools/call",
        mcp.protocol.version = protocol.as_ref().map(|version| version.as_str()),
        jsonrpc.request.id = %request.id,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = tool,
        network.transport = transport,
        error.type = tracing::field::Empty,
        trace_id = %trace_id,
    );
    #[cfg(feature = "opentelemetry")]
    remote_parent(&span, trace);
    #[cfg(not(feature = "opentelemetry"))]
    let _ = trace;
    span
}

/// Marks `span` (a [`call_span`]) as ended in an error of kind `error`: `tool_error` for an
/// answer with `isError`, a JSON-RPC error's code for a protocol error.
pub(crate) fn failed(span: &tracing::Span, error: &str) {
    span.record("error.type", error);
    span.record("otel.status_code", "error");
}

/// Makes the client's span, as the `traceparent` and `tracestate` of `trace` name it, the
/// parent of `span`: what a subscriber with tracing-opentelemetry's layer exports it under.
/// Without a well-formed `traceparent` the span starts a trace of its own.
#[cfg(feature = "opentelemetry")]
fn remote_parent(span: &tracing::Span, trace: &TraceContext) {
    use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt as _, TraceFlags, TraceId};
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;

    let Some(parent) = trace.traceparent.as_deref().and_then(parse) else {
        return;
    };
    let (Ok(trace_id), Ok(span_id)) = (
        TraceId::from_hex(parent.trace_id),
        SpanId::from_hex(parent.parent_id),
    ) else {
        return;
    };
    let state = trace
        .tracestate
        .as_deref()
        .and_then(|state| state.parse().ok());
    let context = SpanContext::new(
        trace_id,
        span_id,
        TraceFlags::new(parent.flags),
        true,
        state.unwrap_or_default(),
    );
    let context = opentelemetry::Context::new().with_remote_span_context(context);
    // Refused only when no OpenTelemetry layer sees the span, which then has no parent to take.
    let _ = span.set_parent(context);
}

/// What a `traceparent` says: the trace, the client's span in it, and the trace's flags.
#[derive(Debug, PartialEq)]
struct Parent<'a> {
    /// 32 lowercase hex digits, not all zero.
    trace_id: &'a str,
    /// 16 lowercase hex digits, not all zero.
    parent_id: &'a str,
    flags: u8,
}

/// Reads a `traceparent` (`00-<trace id>-<parent id>-<flags>`). `None` for a value that is not
/// one, which W3C Trace Context says to ignore.
fn parse(traceparent: &str) -> Option<Parent<'_>> {
    let mut fields = traceparent.trim().split('-');
    let (version, trace_id, parent_id, flags) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let hex = |text: &str, length: usize| {
        text.len() == length && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let nonzero = |text: &str| text.bytes().any(|b| b != b'0');
    let well_formed = hex(version, 2)
        && version != "ff"
        // Version 00 has exactly four fields; a later version may add more.
        && (version != "00" || fields.next().is_none())
        && hex(trace_id, 32)
        && nonzero(trace_id)
        && hex(parent_id, 16)
        && nonzero(parent_id)
        && hex(flags, 2);
    let flags = u8::from_str_radix(flags, 16).ok()?;
    well_formed.then_some(Parent {
        trace_id,
        parent_id,
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_gives_its_trace_id() {
        let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        let parent = Parent {
            trace_id: trace,
            parent_id: "00f067aa0ba902b7",
            flags: 1,
        };
        let traceparent = format!("00-{trace}-00f067aa0ba902b7-01");
        assert_eq!(parse(&traceparent), Some(parent));
        let later = format!("01-{trace}-00f067aa0ba902b7-01-more");
        assert_eq!(parse(&later).map(|parent| parent.trace_id), Some(trace));
    }

    #[test]
    fn a_malformed_traceparent_is_ignored() {
        for traceparent in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert_eq!(parse(traceparent), None, "{traceparent:?}");
        }
    }

    #[test]
    fn without_a_trace_a_call_gets_a_request_id_of_its_own() {
        let trace = TraceContext::default();
        let (first, second) = (trace.call_id(), trace.call_id());
        assert_eq!(first.len(), 16);
        assert_ne!(first, second);
    }

    #[test]
    fn the_meta_names_the_trace_before_the_http_headers() {
        let in_meta = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let in_header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let (mut parts, ()) = http::Request::builder()
            .header(TRACEPARENT, in_header)
            .body(())
            .unwrap()
            .into_parts();
        parts
            .headers
            .insert(TRACESTATE, "vendor=1".parse().unwrap());
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        let from_headers = TraceContext::of(&MetaObject::default(), &extensions);
        assert_eq!(from_headers.call_id(), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(from_headers.tracestate.as_deref(), Some("vendor=1"));
        let mut meta = MetaObject::default();
        meta.0.insert(TRACEPARENT.to_owned(), in_meta.into());
        let from_meta = TraceContext::of(&meta, &extensions);
        assert_eq!(from_meta.call_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
    }
}
