//! Safe retries through a real client: a tool declared `#[tool(idempotency_key)]` runs once per
//! key and caller, a retry gets the first result, other arguments under the same key conflict,
//! concurrent duplicates wait for the first, keys expire, and a tool that keeps its result in
//! its own transaction is not kept twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::idempotency::{KeptResult, MemoryStore, StoreError};
use toolkit::testing::{ErrorKind, TestClient};
use toolkit::{Caller, Context, IdempotencyStore, KeyedCall, Run, Server, Tool, ToolError};

/// What placing an order returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Placed {
    /// The order's number: how many orders were placed before it, and one.
    number: usize,
    /// What was ordered.
    item: String,
}

/// The shop: how many orders it placed, and where the tool keeping its own results keeps them.
#[derive(Default)]
pub struct Shop {
    placed: AtomicUsize,
    ledger: Arc<CountingStore>,
}

/// Places an order.
#[derive(Tool)]
#[tool(name = "order_place", title = "Place order", output = Placed, idempotency_key,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct OrderPlace {
    /// What to order.
    #[arg(min_chars = 1)]
    pub item: String,
    /// How long placing it takes, in milliseconds.
    #[arg(default = 0, max = 5_000)]
    pub ms: u64,
}

impl Run<Arc<Shop>> for OrderPlace {
    async fn run(self, shop: &Arc<Shop>, _: &Context) -> Result<Placed, ToolError> {
        tokio::time::sleep(Duration::from_millis(self.ms)).await;
        let number = shop.placed.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(Placed {
            number,
            item: self.item,
        })
    }
}

/// Writes a ledger entry, keeping its result with the entry as a database would, in one
/// transaction.
#[derive(Tool)]
#[tool(name = "ledger_write", title = "Write ledger", output = Placed, idempotency_key,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct LedgerWrite {
    /// The entry.
    pub item: String,
    /// Whether another replica kept a result under the key while this call ran.
    #[arg(default = false)]
    pub raced: bool,
}

impl Run<Arc<Shop>> for LedgerWrite {
    async fn run(self, shop: &Arc<Shop>, context: &Context) -> Result<Placed, ToolError> {
        let keyed = context
            .idempotency()
            .ok_or(ToolError::unexpected("no key"))?;
        if self.raced {
            let theirs = json!({ "number": 99, "item": self.item }).to_string();
            (shop.ledger.memory.keep(keyed, &theirs).await).map_err(ToolError::Unexpected)?;
            return Err(keyed.taken());
        }
        let number = shop.placed.fetch_add(1, Ordering::SeqCst) + 1;
        let placed = Placed {
            number,
            item: self.item,
        };
        let result = KeyedCall::result_of(&placed)?;
        (shop.ledger.memory.keep(keyed, &result).await).map_err(ToolError::Unexpected)?;
        keyed.mark_kept();
        Ok(placed)
    }
}

/// A memory store that counts what the toolkit asks of it.
#[derive(Default)]
pub struct CountingStore {
    memory: MemoryStore,
    keeps: AtomicUsize,
}

impl IdempotencyStore for CountingStore {
    async fn find(&self, call: &KeyedCall) -> Result<Option<KeptResult>, StoreError> {
        self.memory.find(call).await
    }

    async fn keep(&self, call: &KeyedCall, result: &str) -> Result<bool, StoreError> {
        self.keeps.fetch_add(1, Ordering::SeqCst);
        self.memory.keep(call, result).await
    }
}

fn server(shop: &Shop) -> Server<Arc<Shop>> {
    Server::new("shop", "1.0.0")
        .tool::<OrderPlace>()
        .tool::<LedgerWrite>()
        .idempotency_store(shop.ledger.clone())
}

async fn client(caller: Option<&str>, expiry: Option<Duration>) -> (TestClient, Arc<Shop>) {
    let shop = Arc::new(Shop::default());
    let mut server = server(&shop);
    if let Some(expiry) = expiry {
        server = server.idempotency_expiry(expiry);
    }
    let handler = server.build(shop.clone()).expect("the tools assemble");
    let mut builder = TestClient::builder();
    if let Some(subject) = caller {
        builder = builder.caller(Caller::new(subject, Vec::new()));
    }
    (builder.connect(&handler).await, shop)
}

fn number(result: &toolkit::testing::CallResult) -> Value {
    assert!(!result.is_error(), "{}", result.text());
    result.structured().expect("an output")["number"].clone()
}

#[tokio::test]
async fn a_retry_with_the_same_key_gets_the_first_result_and_runs_nothing() {
    let (client, shop) = client(None, None).await;
    let order = json!({ "item": "tea", "ms": 0, "idempotencyKey": "order-1" });
    let first = client.call("order_place", order.clone()).await;
    let retry = client.call("order_place", order).await;
    assert_eq!(number(&first), 1);
    assert_eq!(
        retry.raw(),
        first.raw(),
        "the retry's result is the first's, text and all"
    );
    // The same arguments in another order, with a whole number written as a float.
    let reordered = json!({ "idempotencyKey": "order-1", "ms": 0.0, "item": "tea" });
    assert_eq!(number(&client.call("order_place", reordered).await), 1);
    assert_eq!(shop.placed.load(Ordering::SeqCst), 1);

    let without_key = json!({ "item": "tea" });
    assert_eq!(
        number(&client.call("order_place", without_key.clone()).await),
        2
    );
    assert_eq!(number(&client.call("order_place", without_key).await), 3);
    let new_key = json!({ "item": "tea", "idempotencyKey": "order-2" });
    assert_eq!(number(&client.call("order_place", new_key).await), 4);
}

#[tokio::test]
async fn the_same_key_with_other_arguments_conflicts() {
    let (client, shop) = client(None, None).await;
    let first = json!({ "item": "tea", "idempotencyKey": "k" });
    assert_eq!(number(&client.call("order_place", first).await), 1);
    let other = json!({ "item": "coffee", "idempotencyKey": "k" });
    let conflict = client.call("order_place", other).await;
    assert_eq!(
        conflict.text(),
        "Conflict: this idempotencyKey was used for a different call; use a new key for a new \
         call."
    );
    assert_eq!(conflict.error_kind(), Some(ErrorKind::Conflict));
    assert_eq!(
        conflict.error(),
        Some(&json!({ "kind": "conflict", "retryable": false }))
    );
    assert_eq!(shop.placed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_key_belongs_to_its_caller() {
    let shop = Arc::new(Shop::default());
    let handler = server(&shop).build(shop.clone()).unwrap();
    let order = json!({ "item": "tea", "idempotencyKey": "mine" });
    let mut numbers = Vec::new();
    for subject in ["ada", "bob", "ada"] {
        let client = TestClient::builder()
            .caller(Caller::new(subject, Vec::new()))
            .connect(&handler)
            .await;
        numbers.push(number(&client.call("order_place", order.clone()).await));
    }
    assert_eq!(numbers, [json!(1), json!(2), json!(1)]);
}

#[tokio::test]
async fn concurrent_calls_with_one_key_run_once() {
    let (client, shop) = client(Some("ada"), None).await;
    let order = json!({ "item": "tea", "ms": 100, "idempotencyKey": "burst" });
    let calls = (0..16).map(|_| client.call("order_place", order.clone()));
    let results = futures::future::join_all(calls).await;
    for result in &results {
        assert_eq!(number(result), 1);
    }
    assert_eq!(shop.placed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_key_expires() {
    let (client, shop) = client(None, Some(Duration::from_millis(100))).await;
    let order = json!({ "item": "tea", "idempotencyKey": "brief" });
    assert_eq!(number(&client.call("order_place", order.clone()).await), 1);
    assert_eq!(number(&client.call("order_place", order.clone()).await), 1);
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(number(&client.call("order_place", order).await), 2);
    assert_eq!(shop.placed.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_breaking_its_rules_is_refused_and_nothing_runs() {
    let (client, shop) = client(None, None).await;
    for (key, sentence) in [
        (
            json!(""),
            "Must be between 1 and 100 characters long, not 0.",
        ),
        (
            json!("x".repeat(101)),
            "Must be between 1 and 100 characters long, not 101.",
        ),
        (
            json!("two words"),
            "Must match the pattern ^[A-Za-z0-9_-]*$, not \"two words\".",
        ),
        (json!(7), "Must be a string, not a number."),
    ] {
        let result = (client.call(
            "order_place",
            json!({ "item": "tea", "idempotencyKey": key }),
        ))
        .await;
        assert_eq!(
            result.text(),
            format!(
                "Validation Failed: idempotencyKey: {sentence} Correct the arguments and call \
                 the tool again."
            )
        );
    }
    assert_eq!(shop.placed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_tool_that_keeps_its_result_itself_is_not_kept_twice() {
    let (client, shop) = client(None, None).await;
    let entry = json!({ "item": "rent", "idempotencyKey": "march" });
    let first = client.call("ledger_write", entry.clone()).await;
    let retry = client.call("ledger_write", entry).await;
    assert_eq!(number(&first), 1);
    assert_eq!(retry.raw(), first.raw());
    assert_eq!(
        shop.ledger.keeps.load(Ordering::SeqCst),
        0,
        "the layer kept nothing"
    );
    assert_eq!(shop.placed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_tool_that_finds_its_key_taken_answers_with_the_result_kept() {
    let (client, shop) = client(None, None).await;
    let entry = json!({ "item": "rent", "raced": true, "idempotencyKey": "april" });
    let raced = client.call("ledger_write", entry).await;
    assert_eq!(
        raced.structured(),
        Some(&json!({ "number": 99, "item": "rent" }))
    );
    assert_eq!(shop.placed.load(Ordering::SeqCst), 0);
}

#[test]
fn the_key_is_published_as_an_optional_argument_after_the_tools_own() {
    let shop = Shop::default();
    let listed: Value = serde_json::from_str(&toolkit::testing::tools_list(&server(&shop)))
        .expect("the tool list is JSON");
    let tools = listed["tools"]
        .as_array()
        .or(listed.as_array())
        .expect("tools");
    let order = tools
        .iter()
        .find(|tool| tool["name"] == "order_place")
        .expect("order_place is listed");
    let schema = &order["inputSchema"];
    let key = &schema["properties"]["idempotencyKey"];
    assert_eq!(key["type"], "string");
    assert_eq!(key["minLength"], 1);
    assert_eq!(key["maxLength"], 100);
    assert_eq!(key["pattern"], "^[A-Za-z0-9_-]*$");
    assert!(
        key["description"]
            .as_str()
            .unwrap()
            .contains("the same key")
    );
    let required = schema["required"].as_array().expect("required");
    assert!(!required.contains(&json!("idempotencyKey")));
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["item", "ms", "idempotencyKey"]);
}
