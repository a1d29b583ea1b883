//! Call policies and layers, through a real client: a time limit that stops a run and answers
//! `Timed Out`, heartbeats while a slow call runs, rate limits per caller and their recovery,
//! the cap on a result's size, and a server's own layer that refuses or observes a call.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use toolkit::testing::{ErrorKind, TestClient};
use toolkit::{
    Answer, CallOutcome, Caller, Context, Layer, Next, RateLimit, Run, Server, Tool, ToolCall,
    ToolError,
};

/// What every tool here returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Done {
    /// Some text, as long as asked.
    text: String,
}

/// What the tools run on: whether a slow run was dropped before it finished.
#[derive(Default)]
pub struct State {
    dropped: AtomicBool,
    finished: AtomicBool,
}

/// Sets a flag when dropped: a run stopped at an `.await` drops what it holds.
struct Guard<'a>(&'a AtomicBool);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Waits, then returns.
#[derive(Tool)]
#[tool(name = "wait", title = "Wait", output = Done, timeout = "300ms",
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Wait {
    /// How long, in milliseconds.
    #[arg(max = 10_000)]
    ms: u64,
    /// Progress to report before waiting.
    #[arg(default = 0, max = 100)]
    reported: u64,
}

impl Run<State> for Wait {
    async fn run(self, state: &State, context: &Context) -> Result<Done, ToolError> {
        let _guard = Guard(&state.dropped);
        if self.reported > 0 {
            context.progress(self.reported, Some(100), "reported").await;
        }
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        state.finished.store(true, Ordering::SeqCst);
        Ok(Done {
            text: String::new(),
        })
    }
}

/// Returns text of the length asked for.
#[derive(Tool)]
#[tool(name = "echo", title = "Echo", output = Done, rate_limit = "2/s",
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Echo {
    /// How many characters.
    #[arg(max = 100_000)]
    length: usize,
}

impl Run<State> for Echo {
    async fn run(self, _: &State, _: &Context) -> Result<Done, ToolError> {
        Ok(Done {
            text: "x".repeat(self.length),
        })
    }
}

/// Stores text of the length asked for, and returns it.
#[derive(Tool)]
#[tool(name = "store", title = "Store", output = Done,
       read_only = false, destructive = false, idempotent, open_world = false)]
pub struct Store {
    /// How many characters.
    #[arg(max = 100_000)]
    length: usize,
}

impl Run<State> for Store {
    async fn run(self, _: &State, _: &Context) -> Result<Done, ToolError> {
        Ok(Done {
            text: "x".repeat(self.length),
        })
    }
}

fn server() -> Server<State> {
    Server::new("policies", "1.0.0")
        .tool::<Wait>()
        .tool::<Echo>()
        .tool::<Store>()
}

async fn client_of(server: Server<State>, caller: Option<&str>) -> TestClient {
    let handler = server.build(State::default()).expect("the tools assemble");
    let builder = TestClient::builder();
    let builder = match caller {
        Some(subject) => builder.caller(Caller::new(subject, Vec::new())),
        None => builder,
    };
    builder.connect(&handler).await
}

#[tokio::test]
async fn a_call_past_its_time_limit_is_stopped_and_told_so() {
    let handler = server().build(State::default()).unwrap();
    let client = TestClient::connect(&handler).await;
    let started = Instant::now();
    let result = client.call("wait", json!({ "ms": 5000 })).await;
    assert_eq!(result.error_kind(), Some(ErrorKind::TimedOut));
    assert_eq!(
        result.text(),
        "Timed Out: wait did not finish within 0.3 s, and changed nothing. Call it again."
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    // The run was dropped where it waited, and never finished.
    assert!(handler.state().dropped.load(Ordering::SeqCst));
    assert!(!handler.state().finished.load(Ordering::SeqCst));

    // Within its limit, the call ends as usual.
    let result = client.call("wait", json!({ "ms": 10 })).await;
    assert!(!result.is_error(), "{}", result.text());
}

#[tokio::test]
async fn a_server_default_limits_the_tools_that_declare_none() {
    let client = client_of(server().timeout(Duration::from_millis(50)), None).await;
    // `wait` declares its own limit, which the default does not shorten.
    let result = client.call("wait", json!({ "ms": 150 })).await;
    assert!(!result.is_error(), "{}", result.text());
}

#[tokio::test]
async fn a_slow_call_gets_heartbeats_that_grow_past_the_tools_own_progress() {
    let server = server().heartbeat(Duration::from_millis(40));
    let client = client_of(server.timeout(None), None).await;
    let result = client
        .call("wait", json!({ "ms": 250, "reported": 7 }))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    let progress = result.progress();
    assert!(progress.len() >= 3, "{progress:?}");
    assert_eq!(progress[0].progress, 7.0);
    for pair in progress.windows(2) {
        assert!(pair[1].progress > pair[0].progress, "{progress:?}");
        assert!(pair[1].progress < 8.0, "{progress:?}");
        assert_eq!(pair[1].total, Some(100.0));
    }
    let beat = progress[1].message.as_deref().unwrap_or_default();
    assert!(beat.starts_with("Still working: "), "{beat}");
}

#[tokio::test]
async fn without_a_heartbeat_a_silent_call_sends_no_progress() {
    let client = client_of(server().heartbeat(None), None).await;
    let result = client.call("wait", json!({ "ms": 100 })).await;
    assert!(result.progress().is_empty(), "{:?}", result.progress());
}

#[tokio::test]
async fn each_caller_has_its_own_rate_limit_and_it_fills_again() {
    let handler = server().build(State::default()).unwrap();
    let alice = TestClient::builder()
        .caller(Caller::new("alice", Vec::new()))
        .connect(&handler)
        .await;
    let bob = TestClient::builder()
        .caller(Caller::new("bob", Vec::new()))
        .connect(&handler)
        .await;
    for _ in 0..2 {
        let result = alice.call("echo", json!({ "length": 1 })).await;
        assert!(!result.is_error(), "{}", result.text());
    }
    let refused = alice.call("echo", json!({ "length": 1 })).await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::RateLimited));
    assert_eq!(
        refused.text(),
        "Rate Limited: echo may be called twice a second; try again in 1 s."
    );
    // Bob is another caller, and other tools are not limited.
    assert!(!bob.call("echo", json!({ "length": 1 })).await.is_error());
    assert!(!alice.call("store", json!({ "length": 1 })).await.is_error());
    // Half a second fills one call back.
    tokio::time::sleep(Duration::from_millis(550)).await;
    assert!(!alice.call("echo", json!({ "length": 1 })).await.is_error());
    assert!(alice.call("echo", json!({ "length": 1 })).await.is_error());
}

#[tokio::test]
async fn a_servers_own_rate_limits_replace_and_complete_the_declared_ones() {
    let one_a_minute = RateLimit::new(1, Duration::from_secs(60));
    let server = server()
        .rate_limit(one_a_minute)
        .rate_limit_for("echo", None);
    let client = client_of(server, None).await;
    for _ in 0..5 {
        assert!(!client.call("echo", json!({ "length": 1 })).await.is_error());
    }
    assert!(
        !client
            .call("store", json!({ "length": 1 }))
            .await
            .is_error()
    );
    let refused = client.call("store", json!({ "length": 1 })).await;
    assert_eq!(
        refused.text(),
        "Rate Limited: store may be called once a minute; try again in 60 s."
    );

    let problem = server_with_a_misspelt_limit().build(State::default()).err();
    assert_eq!(
        problem.map(|problem| problem.to_string()),
        Some("no tool is named `ecko`: did you mean `echo`?".to_owned())
    );
}

fn server_with_a_misspelt_limit() -> Server<State> {
    server().rate_limit_for("ecko", RateLimit::new(1, Duration::from_secs(1)))
}

#[tokio::test]
async fn a_result_over_the_cap_asks_for_less_or_says_the_change_is_kept() {
    let client = client_of(server().max_result_bytes(100), None).await;
    assert!(
        !client
            .call("echo", json!({ "length": 10 }))
            .await
            .is_error()
    );
    let refused = client.call("echo", json!({ "length": 1000 })).await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::Refused));
    assert_eq!(
        refused.text(),
        "Result Too Large: the result of echo is 1,011 bytes, more than the 100 this server \
         sends. Ask for less: a smaller page, or a narrower query."
    );
    let kept = client.call("store", json!({ "length": 1000 })).await;
    assert!(kept.text().ends_with(
        "The call itself went through, and what it changed is kept: don't call it again to \
         see the result."
    ));
}

/// Lets each caller call only the tools listed for it.
struct AllowList {
    allowed: Vec<(&'static str, &'static str)>,
    seen: Arc<Mutex<Vec<(String, CallOutcome)>>>,
}

impl Layer for AllowList {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        let caller = call.caller().map_or("", |caller| caller.subject.as_str());
        if !self.allowed.contains(&(caller, call.tool())) {
            return Err(ToolError::refused(format!(
                "Forbidden: {caller} may not call {}.",
                call.tool()
            )));
        }
        let answer = next.run().await;
        let seen = (call.arguments()["length"].to_string(), answer.outcome());
        self.seen.lock().unwrap().push(seen);
        Ok(answer)
    }
}

#[tokio::test]
async fn a_servers_own_layer_refuses_a_call_or_sees_how_it_ended() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    let server = server()
        .max_result_bytes(100)
        .layer(AllowList {
            allowed: vec![("alice", "echo")],
            seen: seen.clone(),
        })
        .on_call(move |_| {
            counted.fetch_add(1, Ordering::SeqCst);
        });
    let handler = server.build(State::default()).unwrap();
    let alice = TestClient::builder()
        .caller(Caller::new("alice", Vec::new()))
        .connect(&handler)
        .await;
    let refused = alice.call("store", json!({ "length": 1 })).await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::Refused));
    assert_eq!(refused.text(), "Forbidden: alice may not call store.");
    assert!(!alice.call("echo", json!({ "length": 2 })).await.is_error());
    assert!(
        alice
            .call("echo", json!({ "length": 500 }))
            .await
            .is_error()
    );
    // A call that breaks a rule is answered before any layer sees it.
    let invalid = alice.call("echo", json!({ "length": -1 })).await;
    assert_eq!(invalid.error_kind(), Some(ErrorKind::Validation));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            ("2".to_owned(), CallOutcome::Ok),
            ("500".to_owned(), CallOutcome::TooLarge)
        ]
    );
    assert_eq!(runs.load(Ordering::SeqCst), 4, "every call is observed");
}
