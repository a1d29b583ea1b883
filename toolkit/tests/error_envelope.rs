//! Errors a program can read, through a real client: every kind of error carries its envelope
//! in `_meta["toolkit/error"]`, with the fields its kind has, and each envelope holds to the
//! published schema (`toolkit::error_envelope_schema`). The text a model reads is unchanged.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::testing::{Answer as UserAnswer, TestClient};
use toolkit::{
    Answer, Confirm, Context, Entity, ErrorKind, Layer, Next, RateLimit, Run, Server, Tool,
    ToolCall, ToolError,
};
use uuid::Uuid;

/// What every tool here returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Done {}

/// A thing the tools look up.
pub struct Thing;

impl Entity for Thing {
    const NAME: &'static str = "thing";
    const LISTED_BY: &'static [&'static str] = &[];
}

/// Grades a piece of work.
#[derive(Tool)]
#[tool(name = "grade", title = "Grade", output = Done,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Grade {
    /// The grade.
    #[arg(min = 1, max = 10)]
    score: u32,
    /// A short label.
    #[arg(pattern = "^[a-z]+$")]
    pub label: Option<String>,
    /// Who graded it.
    #[arg(min_chars = 1)]
    pub by: String,
}

impl Run<()> for Grade {
    async fn check(&self, _: &(), _: &Context) -> Result<(), ToolError> {
        match self.score {
            7 => Err(ToolError::invalid::<Self>(
                "score",
                "Seven is not a grade here.",
            )),
            _ => Ok(()),
        }
    }

    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Ok(Done {})
    }
}

/// Finds a thing, and never does.
#[derive(Tool)]
#[tool(name = "find", title = "Find", output = Done,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Find {
    /// The thing's id.
    id: Uuid,
}

impl Run<()> for Find {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Err(ToolError::not_found::<Thing>(self.id))
    }
}

/// Claims a name that is always taken.
#[derive(Tool)]
#[tool(name = "claim", title = "Claim", output = Done,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct Claim {}

impl Run<()> for Claim {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Err(ToolError::conflict("Conflict: the name is taken."))
    }
}

/// Sleeps past its time limit.
#[derive(Tool)]
#[tool(name = "nap", title = "Nap", output = Done, timeout = "50ms",
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Nap {}

impl Run<()> for Nap {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok(Done {})
    }
}

/// Forgets everything, once the user says so.
#[derive(Tool)]
#[tool(name = "forget", title = "Forget", output = Done, confirm,
       read_only = false, destructive, idempotent, open_world = false)]
pub struct Forget {}

impl Confirm<()> for Forget {
    const DECLINED: &'static str = "nothing was forgotten.";

    async fn confirmation(&self, _: &(), _: &Context) -> Result<String, ToolError> {
        Ok("Forget everything?".to_owned())
    }
}

impl Run<()> for Forget {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Ok(Done {})
    }
}

/// Fails while reading.
#[derive(Tool)]
#[tool(name = "read_broken", title = "Read broken", output = Done,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct ReadBroken {}

impl Run<()> for ReadBroken {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Err(ToolError::unexpected("the disk is on fire"))
    }
}

/// Fails while writing.
#[derive(Tool)]
#[tool(name = "write_broken", title = "Write broken", output = Done,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct WriteBroken {}

impl Run<()> for WriteBroken {
    async fn run(self, _: &(), _: &Context) -> Result<Done, ToolError> {
        Err(ToolError::unexpected("the disk is on fire"))
    }
}

/// Refuses every grade given by `mallory`.
struct Lock;

impl Layer for Lock {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        if call.tool() == "grade" && call.arguments().get("by") == Some(&json!("mallory")) {
            return Err(ToolError::refused("Forbidden: mallory may not grade."));
        }
        Ok(next.run().await)
    }
}

async fn client() -> TestClient {
    let handler = Server::new("envelopes", "1.0.0")
        .tool::<Grade>()
        .tool::<Find>()
        .tool::<Claim>()
        .tool::<Nap>()
        .tool::<Forget>()
        .tool::<ReadBroken>()
        .tool::<WriteBroken>()
        .layer(Lock)
        .rate_limit_for("find", RateLimit::new(1, Duration::from_secs(60)))
        .build(())
        .expect("the tools assemble");
    TestClient::builder()
        .answer(UserAnswer::Decline)
        .connect(&handler)
        .await
}

/// Calls `tool` and returns the envelope of the error it answers, checked against the schema.
async fn envelope(client: &TestClient, tool: &str, arguments: Value) -> Value {
    let result = client.call(tool, arguments).await;
    assert!(result.is_error(), "{tool}: {}", result.text());
    let envelope = result
        .error()
        .cloned()
        .expect("an error carries an envelope");
    let schema = toolkit::error_envelope_schema();
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let problems: Vec<String> = validator
        .iter_errors(&envelope)
        .map(|error| error.to_string())
        .collect();
    assert!(
        problems.is_empty(),
        "{tool}: {envelope} breaks the schema: {problems:?}"
    );
    assert_eq!(
        result.error_kind().map(|kind| kind.as_str()),
        envelope["kind"].as_str()
    );
    envelope
}

#[tokio::test]
async fn every_kind_of_error_carries_its_envelope() {
    let client = client().await;
    let mut kinds = BTreeSet::new();

    let invalid = envelope(
        &client,
        "grade",
        json!({ "score": 11, "label": "A+", "bye": "ada" }),
    )
    .await;
    assert_eq!(
        invalid,
        json!({
            "kind": "validation",
            "retryable": false,
            "violations": [
                { "path": "score", "rule": "range", "message": "Must be between 1 and 10, not 11." },
                { "path": "label", "rule": "pattern",
                  "message": "Must match the pattern ^[a-z]+$, not \"A+\"." },
                { "path": "by", "rule": "required", "message": "This argument is required." },
                { "path": "bye", "rule": "unknown",
                  "message": "Not an argument of this tool, which takes score, label and by." },
            ],
        })
    );
    let custom = envelope(&client, "grade", json!({ "score": 7, "by": "ada" })).await;
    assert_eq!(
        custom["violations"],
        json!([{ "path": "score", "rule": "custom", "message": "Seven is not a grade here." }])
    );
    kinds.insert(invalid["kind"].to_string());

    let id = Uuid::nil();
    let not_found = envelope(&client, "find", json!({ "id": id })).await;
    assert_eq!(
        not_found,
        json!({ "kind": "not_found", "retryable": false })
    );
    kinds.insert(not_found["kind"].to_string());

    let limited = envelope(&client, "find", json!({ "id": id })).await;
    assert_eq!(limited["kind"], "rate_limited");
    assert_eq!(limited["retryable"], true);
    let wait = limited["retryAfterMs"]
        .as_u64()
        .expect("a wait in milliseconds");
    assert!((59_000..=60_000).contains(&wait), "{wait}");
    kinds.insert(limited["kind"].to_string());

    let conflict = envelope(&client, "claim", json!({})).await;
    assert_eq!(conflict, json!({ "kind": "conflict", "retryable": false }));
    kinds.insert(conflict["kind"].to_string());

    let timed_out = envelope(&client, "nap", json!({})).await;
    assert_eq!(timed_out, json!({ "kind": "timed_out", "retryable": true }));
    kinds.insert(timed_out["kind"].to_string());

    let declined = envelope(&client, "forget", json!({})).await;
    assert_eq!(declined, json!({ "kind": "cancelled", "retryable": false }));
    kinds.insert(declined["kind"].to_string());

    let refused = envelope(&client, "grade", json!({ "score": 3, "by": "mallory" })).await;
    assert_eq!(refused, json!({ "kind": "refused", "retryable": false }));
    kinds.insert(refused["kind"].to_string());

    let read = envelope(&client, "read_broken", json!({})).await;
    assert_eq!(read["kind"], "unexpected");
    assert_eq!(read["retryable"], true, "a read may be retried");
    let result = client.call("write_broken", json!({})).await;
    let reference = result.error().expect("an envelope")["reference"].clone();
    assert_eq!(result.error().expect("an envelope")["retryable"], false);
    assert_eq!(
        result.text(),
        format!(
            "Error: Something unexpected happened. Reference: {}.",
            reference.as_str().expect("a reference")
        )
    );
    kinds.insert(read["kind"].to_string());

    let every: BTreeSet<String> = ErrorKind::ALL
        .iter()
        .map(|kind| json!(kind.as_str()).to_string())
        .collect();
    assert_eq!(kinds, every, "every kind is met");
}

#[tokio::test]
async fn a_success_carries_no_envelope() {
    let client = client().await;
    let result = client
        .call("grade", json!({ "score": 3, "by": "ada" }))
        .await;
    assert!(!result.is_error());
    assert!(result.error().is_none());
    let meta = result.raw().meta.as_ref();
    assert!(
        meta.is_none_or(|meta| !meta.0.contains_key(toolkit::ERROR_META_KEY)),
        "{meta:?}"
    );
}
