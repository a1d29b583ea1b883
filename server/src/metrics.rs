//! What an operator scrapes at `/metrics` (served on `--metrics-address` only): tool calls by
//! tool and outcome, and how long they took; HTTP answers by status; authentication refusals by
//! reason (never the token); calls of destructive tools by how the user confirmed them;
//! requests in flight; connections open; the database connections in
//! use and idle; and the build's version. Counted always, in one registry for the process,
//! since every part of the server adds to it; cheap next to a call.

use std::sync::LazyLock;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;
use store::Store;
use tokio::net::TcpListener;
use toolkit::http::{HttpObserver, StatusCode};
use toolkit::{CallOutcome, CallRecord};

use crate::error::Error;

/// The process's metrics.
pub struct Metrics {
    registry: Registry,
    /// OpenTelemetry's MCP metrics, under their own names (no prefix).
    conventional: Registry,
    operation_seconds: Family<OperationLabels, Histogram, fn() -> Histogram>,
    calls: Family<CallLabels, Counter>,
    call_seconds: Family<ToolLabels, Histogram, fn() -> Histogram>,
    responses: Family<StatusLabels, Counter>,
    refusals: Family<RefusalLabels, Counter>,
    in_flight: Gauge,
    connections: Gauge,
    database_connections: Family<DatabaseLabels, Gauge>,
    confirmations: Family<ConfirmationLabels, Counter>,
}

/// How a tool call ended, as its answer says: the kinds of answer a client can get.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
pub enum Outcome {
    ok,
    validation,
    not_found,
    /// Stopped: the client cancelled or went away, or the server was shutting down; or the
    /// user declined to confirm it.
    cancelled,
    /// Refused for want of the user's confirmation: the client could not ask and the server
    /// requires it, or the confirmation brought back was stale.
    unconfirmed,
    /// Stopped at its time limit (`--timeout`).
    timed_out,
    /// Refused, the caller being over its rate limit (`--rate-limit`).
    rate_limited,
    /// Ran, but its result was larger than the server sends.
    too_large,
    /// Refused: its `idempotencyKey` was used for a call with other arguments.
    conflict,
    unexpected,
}

impl Outcome {
    /// The label of a call that ended as `outcome`; none for a call that asked its user, which
    /// is counted once it is retried with the answer.
    fn of_call(outcome: CallOutcome) -> Option<Outcome> {
        Some(match outcome {
            CallOutcome::Ok => Outcome::ok,
            CallOutcome::Invalid => Outcome::validation,
            CallOutcome::NotFound => Outcome::not_found,
            CallOutcome::Cancelled | CallOutcome::Declined => Outcome::cancelled,
            CallOutcome::Unconfirmed => Outcome::unconfirmed,
            CallOutcome::TimedOut => Outcome::timed_out,
            CallOutcome::RateLimited => Outcome::rate_limited,
            CallOutcome::TooLarge => Outcome::too_large,
            CallOutcome::Conflict => Outcome::conflict,
            CallOutcome::AskedUser => return None,
            _ => Outcome::unexpected,
        })
    }
}

/// Why a request was refused its token's way in.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum Refusal {
    missing,
    invalid,
    insufficient_scope,
}

impl Refusal {
    /// The label of each refusal the HTTP transport tells of; `None` for one it may tell of in
    /// a later version, which no dashboard expects yet.
    fn of(refusal: toolkit::http::Refusal) -> Option<Refusal> {
        use toolkit::http::Refusal as Told;
        Some(match refusal {
            Told::MissingToken => Refusal::missing,
            Told::InvalidToken => Refusal::invalid,
            Told::InsufficientScope => Refusal::insufficient_scope,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq, EncodeLabelValue)]
#[allow(non_camel_case_types)]
enum ConnectionState {
    in_use,
    idle,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CallLabels {
    tool: String,
    outcome: Outcome,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConfirmationLabels {
    tool: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabels {
    tool: String,
}

/// The attributes OpenTelemetry's `mcp.server.operation.duration` carries, as Prometheus names
/// them: `error_type` is `tool_error` for a call answered with a tool error (`isError`), and
/// empty (no label, to Prometheus) for one that succeeded.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    mcp_method_name: &'static str,
    gen_ai_tool_name: String,
    gen_ai_operation_name: &'static str,
    error_type: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabels {
    reason: Refusal,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DatabaseLabels {
    state: ConnectionState,
}

/// From 100 µs to about 3 s, doubling: a read takes a fraction of a millisecond, a search of a
/// huge catalogue for a new term tens of milliseconds.
fn call_seconds_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 2.0, 16))
}

/// OpenTelemetry's buckets for `mcp.server.operation.duration`, from 10 ms to 5 minutes.
fn operation_seconds_histogram() -> Histogram {
    let buckets = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
    ];
    Histogram::new(buckets)
}

/// The metrics of this process.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

impl Metrics {
    fn new() -> Metrics {
        let calls = Family::<CallLabels, Counter>::default();
        let call_seconds =
            Family::new_with_constructor(call_seconds_histogram as fn() -> Histogram);
        let responses = Family::<StatusLabels, Counter>::default();
        let refusals = Family::<RefusalLabels, Counter>::default();
        let (in_flight, connections) = (Gauge::default(), Gauge::default());
        let database_connections = Family::<DatabaseLabels, Gauge>::default();
        let confirmations = Family::<ConfirmationLabels, Counter>::default();
        let mut registry = Registry::with_prefix("movie_reviews");
        let tool_calls = "Tool calls, by tool and by how they ended";
        registry.register("tool_calls", tool_calls, calls.clone());
        let seconds = "How long tool calls took, by tool";
        registry.register("tool_call_seconds", seconds, call_seconds.clone());
        let answers = "HTTP answers, by status";
        registry.register("http_responses", answers, responses.clone());
        let refused = "Requests refused for their token, by reason";
        registry.register("auth_refusals", refused, refusals.clone());
        let answering = "HTTP requests being answered";
        registry.register("http_requests_in_flight", answering, in_flight.clone());
        let open = "HTTP connections open";
        registry.register("http_connections", open, connections.clone());
        let database = "Connections to the database, in use or idle";
        registry.register(
            "database_connections",
            database,
            database_connections.clone(),
        );
        let confirmed = "Calls of destructive tools, by tool and by how the user confirmed them";
        registry.register("confirmations", confirmed, confirmations.clone());
        let version = Info::new(vec![("version", env!("CARGO_PKG_VERSION"))]);
        registry.register("build", "The server's version", version);
        let mut conventional = Registry::default();
        let operation_seconds =
            Family::new_with_constructor(operation_seconds_histogram as fn() -> Histogram);
        conventional.register_with_unit(
            "mcp_server_operation_duration",
            "How long MCP requests took, tool errors counted as failures (OpenTelemetry's \
             mcp.server.operation.duration)",
            prometheus_client::registry::Unit::Seconds,
            operation_seconds.clone(),
        );
        Metrics {
            registry,
            conventional,
            operation_seconds,
            calls,
            call_seconds,
            responses,
            refusals,
            in_flight,
            connections,
            database_connections,
            confirmations,
        }
    }

    /// A call of destructive tool `tool`, confirmed (or not) as `outcome`.
    pub fn confirmation(&self, tool: &str, outcome: toolkit::ConfirmOutcome) {
        let labels = ConfirmationLabels {
            tool: tool.to_owned(),
            outcome: crate::confirmations::label(outcome),
        };
        self.confirmations.get_or_create(&labels).inc();
    }

    /// A tool call, once it has ended. A call that asks its user to confirm is counted when
    /// it is retried with the answer.
    pub fn tool_call(&self, call: &CallRecord<'_>) {
        let Some(outcome) = Outcome::of_call(call.outcome) else {
            return;
        };
        let seconds = call.duration.as_secs_f64();
        let tool = call.tool.to_owned();
        self.calls
            .get_or_create(&CallLabels {
                tool: tool.clone(),
                outcome,
            })
            .inc();
        let operation = OperationLabels {
            mcp_method_name: "tools/call",
            gen_ai_tool_name: tool.clone(),
            gen_ai_operation_name: "execute_tool",
            error_type: if call.outcome.is_error() {
                "tool_error"
            } else {
                ""
            },
        };
        self.operation_seconds
            .get_or_create(&operation)
            .observe(seconds);
        self.call_seconds
            .get_or_create(&ToolLabels { tool })
            .observe(seconds);
    }

    /// The text a scrape gets, with the database's connections as `store` has them now.
    pub fn scrape(&self, store: &Store) -> String {
        let (in_use, idle) = store.connections_in_use_and_idle();
        for (state, count) in [
            (ConnectionState::in_use, in_use),
            (ConnectionState::idle, idle),
        ] {
            let count = i64::try_from(count).unwrap_or(i64::MAX);
            self.database_connections
                .get_or_create(&DatabaseLabels { state })
                .set(count);
        }
        use prometheus_client::encoding::text::{encode_eof, encode_registry};
        let mut text = String::new();
        // Writing to a String cannot fail, and every metric here encodes.
        let encoded = encode_registry(&mut text, &self.registry)
            .and_then(|()| encode_registry(&mut text, &self.conventional))
            .and_then(|()| encode_eof(&mut text));
        if let Err(error) = encoded {
            tracing::error!(%error, "the metrics could not be encoded");
        }
        text
    }
}

/// Counts the HTTP transport's traffic: requests in flight and answers by status, connections
/// open, and refusals by reason.
pub struct HttpTraffic;

impl HttpObserver for HttpTraffic {
    fn request_started(&self) {
        metrics().in_flight.inc();
    }

    fn request_finished(&self, status: Option<StatusCode>) {
        let metrics = metrics();
        metrics.in_flight.dec();
        if let Some(status) = status {
            let status = status.as_u16();
            metrics
                .responses
                .get_or_create(&StatusLabels { status })
                .inc();
        }
    }

    fn connection_opened(&self) {
        metrics().connections.inc();
    }

    fn connection_closed(&self) {
        metrics().connections.dec();
    }

    fn refused(&self, refusal: toolkit::http::Refusal) {
        if let Some(reason) = Refusal::of(refusal) {
            let labels = RefusalLabels { reason };
            metrics().refusals.get_or_create(&labels).inc();
        }
    }
}

/// Serves `/metrics` on `listener`, with the database's connections as `store` has them, until
/// the task is aborted.
pub fn serve(listener: TcpListener, store: Store) -> Result<tokio::task::JoinHandle<()>, Error> {
    let address = listener.local_addr()?;
    tracing::info!(%address, "serving metrics on http://{address}/metrics");
    let scrape = move || {
        let text = metrics().scrape(&store);
        async move { ([(CONTENT_TYPE, OPENMETRICS_TEXT)], text) }
    };
    let router = Router::new().route("/metrics", get(scrape));
    Ok(tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, router).await {
            tracing::error!(%error, "serving metrics failed");
        }
    }))
}

/// The content type of the text `/metrics` answers.
const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    /// The labels a dashboard reads: a declined call counts as cancelled, a refused
    /// confirmation as unconfirmed, and a call that asks its user only on its retry.
    #[test]
    fn each_way_a_call_ends_has_the_label_it_always_had() {
        let labels = [
            (CallOutcome::Ok, Some(Outcome::ok)),
            (CallOutcome::Invalid, Some(Outcome::validation)),
            (CallOutcome::NotFound, Some(Outcome::not_found)),
            (CallOutcome::Cancelled, Some(Outcome::cancelled)),
            (CallOutcome::Declined, Some(Outcome::cancelled)),
            (CallOutcome::Unconfirmed, Some(Outcome::unconfirmed)),
            (CallOutcome::AskedUser, None),
            (CallOutcome::TimedOut, Some(Outcome::timed_out)),
            (CallOutcome::RateLimited, Some(Outcome::rate_limited)),
            (CallOutcome::TooLarge, Some(Outcome::too_large)),
            (CallOutcome::Conflict, Some(Outcome::conflict)),
            (CallOutcome::Unexpected, Some(Outcome::unexpected)),
        ];
        for (outcome, label) in labels {
            assert_eq!(Outcome::of_call(outcome), label, "{outcome}");
        }
    }
}
