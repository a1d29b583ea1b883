//! A call's `Context` as a tool sees it: progress reported to the client (in order, rate
//! limited, and only when asked for), a cancelled call stopped where it waits, and the caller
//! a transport names; and the record of each call an observer receives once it has ended.
//!
//! Progress is read off the wire: the test speaks JSON-RPC lines to the server over an
//! in-process pipe, as a client does over stdio, because rmcp's client asks for progress on
//! every request and hands notifications to tasks of their own, whose order is not the wire's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};
use tokio_util::sync::CancellationToken;
use toolkit::testing::TestClient;
use toolkit::{
    CallOutcome, Caller, Context, Handler, PROGRESS_INTERVAL, Run, Server, Tool, ToolError, Toolbox,
};

/// How long a test waits for the server to reach a point it cannot be told about.
const PATIENCE: Duration = Duration::from_secs(20);

/// What `count_to` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Counted {
    /// The number counted to.
    counted: u32,
}

/// Counts to a number, reporting each step as progress.
#[derive(Tool)]
#[tool(name = "count_to", title = "Count", output = Counted, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct CountTo {
    /// The number to count to.
    #[arg(min = 1, max = 100_000)]
    to: u32,
    /// How long to pause after each step, in milliseconds.
    #[arg(min = 0, max = 1000, default = 0)]
    pause_ms: u64,
}

impl Run<Arc<Counter>> for CountTo {
    async fn run(self, _counter: &Arc<Counter>, context: &Context) -> Result<Counted, ToolError> {
        for step in 1..=self.to {
            let message = format!("counted {step}");
            context
                .progress(step.into(), Some(self.to.into()), message)
                .await;
            if self.pause_ms > 0 {
                tokio::time::sleep(Duration::from_millis(self.pause_ms)).await;
            }
        }
        Ok(Counted { counted: self.to })
    }
}

/// What `wait` would return, were it not cancelled.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Waited {}

/// Waits until the call is cancelled.
#[derive(Tool)]
#[tool(name = "wait", title = "Wait", output = Waited, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct Wait {}

impl Run<Arc<Counter>> for Wait {
    async fn run(self, counter: &Arc<Counter>, _context: &Context) -> Result<Waited, ToolError> {
        let _stopped = SetOnDrop(counter.stopped.clone());
        counter.waiting.store(true, Ordering::SeqCst);
        std::future::pending::<()>().await;
        Ok(Waited {})
    }
}

/// Sets its flag when dropped: when the toolkit drops a cancelled `run`.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Who `whoami` was called by.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Identity {
    /// The caller's subject, if the transport named one.
    subject: Option<String>,
    /// Whether the caller may write reviews.
    may_write: bool,
}

/// Says who is calling.
#[derive(Tool)]
#[tool(name = "whoami", title = "Who am I", output = Identity, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct Whoami {}

impl Run<Arc<Counter>> for Whoami {
    async fn run(self, _counter: &Arc<Counter>, context: &Context) -> Result<Identity, ToolError> {
        let caller = context.caller();
        Ok(Identity {
            subject: caller.map(|caller| caller.subject.clone()),
            may_write: caller.is_some_and(|caller| caller.has_scope("reviews.write")),
        })
    }
}

/// The state of the three tools: what `wait` tells the test.
#[derive(Default)]
pub struct Counter {
    /// Set once `wait` is waiting.
    waiting: AtomicBool,
    /// Set once `wait`'s run has been dropped.
    stopped: Arc<AtomicBool>,
}

/// A server of the three tools on `counter`.
fn serve(counter: &Arc<Counter>) -> Handler<Arc<Counter>> {
    let tools = Toolbox::new()
        .tool::<CountTo>()
        .tool::<Wait>()
        .tool::<Whoami>();
    Server::new("counter", "1.0.0")
        .toolbox(tools)
        .build(counter.clone())
        .expect("the tools assemble")
}

/// A client that speaks JSON-RPC lines to the server itself.
struct Wire {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: tokio::io::WriteHalf<DuplexStream>,
}

impl Wire {
    /// A server on one end of a pipe, initialized from the other.
    async fn connect(server: Handler<Arc<Counter>>) -> Wire {
        let (client_end, server_end) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = tokio::io::split(client_end);
        let mut wire = Wire {
            lines: BufReader::new(reader).lines(),
            writer,
        };
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "wire", "version": "1.0.0" },
            },
        });
        wire.send(initialize).await;
        let (_, answer) = wire.until_answered(0).await;
        assert!(answer.get("result").is_some(), "initialize: {answer}");
        wire.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        wire
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    /// Reads until the answer to request `id`: the notifications before it, and the answer.
    async fn until_answered(&mut self, id: u64) -> (Vec<Value>, Value) {
        let mut notifications = Vec::new();
        loop {
            let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
                .await
                .expect("the server answers in time")
                .unwrap()
                .expect("the server keeps the pipe open");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == json!(id) {
                return (notifications, message);
            }
            notifications.push(message);
        }
    }

    /// Calls `tool` as request `id`, with `meta` as the request's `_meta`: the progress
    /// notifications the server sent first, and the result.
    async fn call(&mut self, id: u64, tool: &str, arguments: Value, meta: Value) -> Calls {
        let params = json!({ "name": tool, "arguments": arguments, "_meta": meta });
        let request =
            json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params });
        self.send(request).await;
        let (notifications, answer) = self.until_answered(id).await;
        let progress = notifications
            .into_iter()
            .filter(|message| message["method"] == "notifications/progress")
            .map(|message| message["params"].clone())
            .collect();
        Calls {
            progress,
            result: answer["result"].clone(),
        }
    }
}

/// What one call brought back.
struct Calls {
    progress: Vec<Value>,
    result: Value,
}

#[tokio::test]
async fn progress_is_reported_in_order_under_the_requests_token() {
    let mut wire = Wire::connect(serve(&Arc::default())).await;
    let arguments = json!({ "to": 5, "pauseMs": PROGRESS_INTERVAL.as_millis() + 20 });
    let calls = wire
        .call(
            1,
            "count_to",
            arguments,
            json!({ "progressToken": "count-1" }),
        )
        .await;

    assert_eq!(calls.result["structuredContent"], json!({ "counted": 5 }));
    let expected: Vec<Value> = (1..=5)
        .map(|step| {
            json!({
                "progressToken": "count-1",
                "progress": step as f64,
                "total": 5.0,
                "message": format!("counted {step}"),
            })
        })
        .collect();
    assert_eq!(calls.progress, expected);
}

#[tokio::test]
async fn a_request_without_a_token_gets_no_progress() {
    let mut wire = Wire::connect(serve(&Arc::default())).await;
    let calls = wire
        .call(1, "count_to", json!({ "to": 3, "pauseMs": 0 }), json!({}))
        .await;

    assert_eq!(calls.result["structuredContent"], json!({ "counted": 3 }));
    assert_eq!(calls.progress, Vec::<Value>::new());
}

#[tokio::test]
async fn progress_reported_in_a_burst_is_thinned_to_increasing_steps_ending_at_the_total() {
    let mut wire = Wire::connect(serve(&Arc::default())).await;
    let calls = wire
        .call(
            7,
            "count_to",
            json!({ "to": 20000 }),
            json!({ "progressToken": 7 }),
        )
        .await;

    assert_eq!(
        calls.result["structuredContent"],
        json!({ "counted": 20000 })
    );
    let steps: Vec<f64> = (calls.progress.iter())
        .map(|params| params["progress"].as_f64().unwrap())
        .collect();
    assert!(
        steps.len() < 100,
        "a burst of 20000 reports is thinned, not sent whole: {} sent",
        steps.len()
    );
    assert_eq!(
        steps.first(),
        Some(&1.0),
        "the first report goes out at once"
    );
    assert_eq!(
        steps.last(),
        Some(&20000.0),
        "the report of the total always goes out"
    );
    assert!(
        steps.windows(2).all(|pair| pair[0] < pair[1]),
        "steps only grow: {steps:?}"
    );
    assert!(
        calls
            .progress
            .iter()
            .all(|params| params["progressToken"] == json!(7))
    );
}

#[tokio::test]
async fn a_cancelled_call_is_stopped_where_it_waits() {
    let counter = Arc::new(Counter::default());
    let client = TestClient::connect(&serve(&counter)).await;
    let mut call = client.start("wait", Value::Null);
    until(&counter.waiting, "the call waits").await;
    assert!(!counter.stopped.load(Ordering::SeqCst));

    call.cancel().await;
    until(&counter.stopped, "the cancelled run is dropped").await;
}

#[tokio::test]
async fn a_call_cancelled_through_its_context_answers_cancelled() {
    let counter = Arc::new(Counter::default());
    let token = CancellationToken::new();
    let context = Context::detached().cancelled_by(token.clone());
    let call = toolkit::call_with::<Arc<Counter>, Wait>(&counter, None, context);
    let cancel = async {
        until(&counter.waiting, "the call waits").await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);

    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(text, "Cancelled: the call was stopped before it finished.");
    assert!(counter.stopped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_tool_sees_the_caller_its_transport_names_and_none_without() {
    let counter = Arc::new(Counter::default());
    let ana = Caller::new("ana", vec!["reviews.read".into(), "reviews.write".into()]);
    let named = Context::detached().with(ana);
    let result = toolkit::call_with::<Arc<Counter>, Whoami>(&counter, None, named).await;
    assert_eq!(
        result.structured_content,
        Some(json!({ "subject": "ana", "may_write": true }))
    );

    let result = toolkit::call::<Arc<Counter>, Whoami>(&counter, None).await;
    assert_eq!(
        result.structured_content,
        Some(json!({ "subject": null, "may_write": false }))
    );
}

/// One call as an observer saw it: the tool, how it ended, and the caller's subject.
type Seen = (&'static str, CallOutcome, Option<String>);

#[tokio::test]
async fn every_call_ends_in_a_record_of_its_tool_outcome_and_caller() {
    let counter = Arc::new(Counter::default());
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let record = seen.clone();
    let tools = Toolbox::new()
        .tool::<CountTo>()
        .tool::<Wait>()
        .tool::<Whoami>()
        .on_call(move |call| {
            let caller = call.caller.map(|caller| caller.subject.clone());
            let mut seen = record.lock().unwrap();
            seen.push((call.tool, call.outcome, caller));
        });
    let ana = Caller::new("ana", vec!["reviews.read".into()]);
    let server = Server::new("counter", "1.0.0")
        .toolbox(tools)
        .build(counter.clone())
        .expect("the tools assemble")
        .with_caller(ana);
    let client = TestClient::connect(&server).await;
    client.call("count_to", json!({ "to": 2 })).await;
    client
        .call("count_to", json!({ "to": 0, "pauseMs": 5000 }))
        .await;
    client.call("whoami", json!({})).await;
    // A tool no route has is refused before any tool runs: nothing to record.
    assert!(client.try_call("count_from", json!({})).await.is_err());
    let mut waiting = client.start("wait", Value::Null);
    until(&counter.waiting, "the call waits").await;
    waiting.cancel().await;
    until(&counter.stopped, "the cancelled run is dropped").await;
    let four_calls = async {
        while seen.lock().unwrap().len() < 4 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(PATIENCE, four_calls)
        .await
        .expect("the cancelled call is recorded");

    let ana = Some("ana".to_owned());
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("count_to", CallOutcome::Ok, ana.clone()),
            ("count_to", CallOutcome::Invalid, ana.clone()),
            ("whoami", CallOutcome::Ok, ana.clone()),
            ("wait", CallOutcome::Cancelled, ana),
        ]
    );
}

#[tokio::test]
async fn each_way_a_tool_fails_is_an_outcome_of_its_own() {
    use toolkit::Violations;
    let cases = [
        (
            ToolError::Invalid(Violations::default()),
            CallOutcome::Invalid,
        ),
        (
            ToolError::NotFound {
                entity: "movie",
                id: toolkit::Uuid::nil(),
                listed_by: &["movies_search"],
            },
            CallOutcome::NotFound,
        ),
        (ToolError::Cancelled, CallOutcome::Cancelled),
        (
            ToolError::Declined("nothing was done."),
            CallOutcome::Declined,
        ),
        (ToolError::StaleConfirmation, CallOutcome::Unconfirmed),
        (ToolError::CannotConfirm, CallOutcome::Unconfirmed),
        (
            ToolError::unexpected("the disk is full"),
            CallOutcome::Unexpected,
        ),
    ];
    for (error, expected) in cases {
        let text = error.to_string();
        let seen: Arc<Mutex<Vec<CallOutcome>>> = Arc::default();
        let record = seen.clone();
        let tools = Toolbox::new()
            .tool::<Fail>()
            .on_call(move |call| record.lock().unwrap().push(call.outcome));
        let failing = Failing(Mutex::new(Some(error)));
        let server = Server::new("failing", "1.0.0")
            .toolbox(tools)
            .build(failing);
        let client = TestClient::connect(&server.expect("the tool assembles")).await;
        let result = client.call("fail", Value::Null).await;
        assert!(result.is_error(), "{text}");
        assert_eq!(*seen.lock().unwrap(), [expected], "{text}");
        assert!(expected.is_error());
    }
}

/// What `fail` would return, were it to succeed.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Failed {}

/// Fails with the error its state holds.
#[derive(Tool)]
#[tool(name = "fail", title = "Fail", output = Failed, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct Fail {}

/// The error `fail` fails with, once.
pub struct Failing(Mutex<Option<ToolError>>);

impl Run<Failing> for Fail {
    async fn run(self, failing: &Failing, _context: &Context) -> Result<Failed, ToolError> {
        Err(failing.0.lock().unwrap().take().expect("one call"))
    }
}

/// Waits until `flag` is set.
async fn until(flag: &AtomicBool, what: &str) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while !flag.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    waited
        .await
        .unwrap_or_else(|_| panic!("{what} within {PATIENCE:?}"));
}
