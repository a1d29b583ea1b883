//! How text log lines show a span's fields: a tool call's span carries OpenTelemetry's
//! attributes (`gen_ai.tool.name`, `mcp.method.name`, …) for tracing backends, which would
//! repeat on every line a person reads; the text shows the span's `trace_id` alone, and an
//! event's fields as usual. JSON lines keep every field.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing::span::Record;
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::FormattedFields;
use tracing_subscriber::fmt::format::Writer;

/// The prefixes of the attribute names OpenTelemetry's conventions give a call's span.
const ATTRIBUTE_PREFIXES: [&str; 7] = [
    "otel.", "mcp.", "gen_ai.", "jsonrpc.", "network.", "error.", "rpc.",
];

/// Writes fields as `name=value`, space-separated, the message bare, leaving out
/// OpenTelemetry's attributes.
pub struct TextFields;

impl<'writer> FormatFields<'writer> for TextFields {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        write_fields(writer, fields)
    }

    /// Appends fields recorded later (a span's `error.type`, say), with a space only before
    /// what is shown.
    fn add_fields(
        &self,
        current: &'writer mut FormattedFields<Self>,
        fields: &Record<'_>,
    ) -> fmt::Result {
        let mut added = String::new();
        write_fields(Writer::new(&mut added), fields)?;
        if !added.is_empty() {
            if !current.fields.is_empty() {
                current.fields.push(' ');
            }
            current.fields.push_str(&added);
        }
        Ok(())
    }
}

fn write_fields<R: RecordFields>(writer: Writer<'_>, fields: R) -> fmt::Result {
    let mut visitor = Fields {
        writer,
        first: true,
        result: Ok(()),
    };
    fields.record(&mut visitor);
    visitor.result
}

struct Fields<'writer> {
    writer: Writer<'writer>,
    first: bool,
    result: fmt::Result,
}

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let name = field.name();
        if self.result.is_err() || ATTRIBUTE_PREFIXES.iter().any(|p| name.starts_with(p)) {
            return;
        }
        let separator = if self.first { "" } else { " " };
        self.first = false;
        self.result = match name {
            "message" => write!(self.writer, "{separator}{value:?}"),
            name => write!(self.writer, "{separator}{name}={value:?}"),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_calls_span_shows_its_trace_id_alone() {
        use tracing_subscriber::layer::SubscriberExt as _;

        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<u8>::new()));
        let sink = lines.clone();
        let writer = move || Sink(sink.clone());
        let subscriber = tracing_subscriber::registry().with(
            tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .without_time()
                .fmt_fields(TextFields),
        );
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(
                "tools/call",
                gen_ai.tool.name = "movies_search",
                error.type = tracing::field::Empty,
                trace_id = %"4bf9"
            );
            span.record("error.type", "tool_error");
            span.in_scope(|| tracing::info!(tool = "movies_search", "tool call"));
        });
        let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text.trim(),
            "INFO tools/call{trace_id=4bf9}: movie_reviews_mcp::logs::tests: tool call \
             tool=\"movies_search\""
        );
    }

    struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
