//! A tool declared `#[tool(confirm)]`, called by rmcp's client over an in-process pipe: the
//! user is asked through the client's elicitation handler (`elicitation/create` on 2025-11-25,
//! `input_required` on 2026-07-28) and the tool runs only on a yes; a client that cannot ask
//! meets the server's policy; a sealed confirmation is refused when forged, expired, or
//! brought back for other arguments, another caller or a server with other keys, and accepted
//! by a server with the same keys. Every call ends in one audit event.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, InputResponses, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolkit::{
    Caller, Confirm, ConfirmOutcome, ConfirmPolicy, Confirmations, Context, Entity, Exists,
    Handler, Run, Server, StateKeys, Tool, ToolError, Toolbox, Uuid,
};

const HAT: Uuid = Uuid::from_u128(1);
const SCARF: Uuid = Uuid::from_u128(2);
const KEY: &str = "a-key-for-the-tests-that-is-32-bytes-long";
const OTHER_KEY: &str = "another-key-for-the-tests-32-bytes-long!";

pub struct Item;

impl Entity for Item {
    const NAME: &'static str = "item";
    const LISTED_BY: &'static [&'static str] = &[];
}

/// What `items_delete` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Deleted {
    /// Always true.
    deleted: bool,
}

/// Deletes an item from the shelf.
#[derive(Tool)]
#[tool(name = "items_delete", title = "Delete item", output = Deleted,
       read_only = false, destructive, idempotent, open_world = false, confirm)]
pub struct ItemsDelete {
    /// The item to delete.
    #[arg(exists = Item)]
    item_id: Uuid,
}

impl Run<Items> for ItemsDelete {
    async fn run(self, items: &Items, _context: &Context) -> Result<Deleted, ToolError> {
        items
            .items
            .lock()
            .unwrap()
            .retain(|item| *item != self.item_id);
        Ok(Deleted { deleted: true })
    }
}

impl Confirm<Items> for ItemsDelete {
    const DECLINED: &'static str = "the item was not deleted.";

    async fn confirmation(&self, _items: &Items, _context: &Context) -> Result<String, ToolError> {
        Ok(format!(
            "Delete item {}? This can't be undone.",
            self.item_id
        ))
    }
}

impl Exists<Item> for Items {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(self.items.lock().unwrap().contains(&id))
    }
}

/// One audit event: the ids, the caller's subject, the outcome.
type Recorded = (Vec<Uuid>, Option<String>, ConfirmOutcome);

/// The items on the shelf.
#[derive(Default)]
pub struct Items {
    items: Mutex<Vec<Uuid>>,
}

/// A server of `items_delete` on a shelf of two items, and the audit events it recorded.
#[derive(Clone)]
pub struct Shelf {
    audits: Arc<Mutex<Vec<Recorded>>>,
    server: Handler<Items>,
    /// Who the clients connected from now on call as (as an HTTP server's gate says).
    caller: Arc<Mutex<Option<Caller>>>,
}

impl Shelf {
    fn new(policy: ConfirmPolicy, keys: &str) -> Shelf {
        Shelf::with(Confirmations::new(policy, StateKeys::parse(keys).unwrap()))
    }

    fn with(confirmations: Confirmations) -> Shelf {
        let audits: Arc<Mutex<Vec<_>>> = Arc::default();
        let recorded = audits.clone();
        let confirmations = confirmations.audit(move |audit| {
            assert_eq!(audit.tool, "items_delete");
            let caller = audit.caller.map(|caller| caller.subject.clone());
            let event = (audit.ids.clone(), caller, audit.outcome);
            recorded.lock().unwrap().push(event);
        });
        let tools = Toolbox::new()
            .confirmations(confirmations)
            .tool::<ItemsDelete>();
        let items = Items {
            items: Mutex::new(vec![HAT, SCARF]),
        };
        let server = Server::new("shelf", "1.0.0").toolbox(tools).build(items);
        Shelf {
            audits,
            server: server.unwrap(),
            caller: Arc::default(),
        }
    }

    fn items(&self) -> Vec<Uuid> {
        self.server.state().items.lock().unwrap().clone()
    }

    fn outcomes(&self) -> Vec<ConfirmOutcome> {
        let audits = self.audits.lock().unwrap();
        audits.iter().map(|(_, _, outcome)| *outcome).collect()
    }

    /// The clients connected from now on call as `subject`.
    fn call_as(&self, subject: &str) {
        *self.caller.lock().unwrap() = Some(Caller::new(subject, vec![]));
    }
}

/// What the user does when asked.
#[derive(Clone, Copy, Debug)]
enum Answer {
    Yes,
    /// Accepts the form, leaving `confirm` false.
    Unticked,
    Decline,
    Cancel,
}

/// A client on `version` whose user answers every question with `answer`; `elicitation`:
/// whether it declares form elicitation.
#[derive(Clone)]
struct User {
    version: ProtocolVersion,
    elicitation: bool,
    answer: Answer,
    asked: Arc<Mutex<Vec<(String, Value)>>>,
}

impl User {
    fn new(version: ProtocolVersion, answer: Answer) -> User {
        User {
            version,
            elicitation: true,
            answer,
            asked: Arc::default(),
        }
    }

    fn unable(version: ProtocolVersion) -> User {
        User {
            elicitation: false,
            ..User::new(version, Answer::Yes)
        }
    }

    fn questions(&self) -> Vec<String> {
        let asked = self.asked.lock().unwrap();
        asked.iter().map(|(question, _)| question.clone()).collect()
    }
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        let mut config = ClientConfig::default();
        config.protocol_version = self.version.clone();
        config.capabilities = capabilities;
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            panic!("only forms are asked");
        };
        let schema = serde_json::to_value(&requested_schema).unwrap();
        self.asked.lock().unwrap().push((message, schema));
        let result = match self.answer {
            Answer::Yes => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({ "confirm": true })),
            Answer::Unticked => ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({ "confirm": false })),
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
            Answer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        };
        Ok(result)
    }
}

async fn connect(shelf: &Shelf, user: &User) -> RunningService<RoleClient, User> {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let mut server = shelf.server.clone();
    if let Some(caller) = shelf.caller.lock().unwrap().clone() {
        server = server.with_caller(caller);
    }
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    // rmcp's client initializes (up to 2025-11-25) unless told to discover.
    let connected = if user.version >= ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![user.version.clone()],
        };
        user.clone()
            .serve_with_lifecycle(client_end, lifecycle)
            .await
    } else {
        user.clone().serve(client_end).await
    };
    let client = connected.expect("the client connects");
    let spoken = client
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.clone());
    assert_eq!(
        spoken,
        Some(user.version.clone()),
        "the client speaks the version meant"
    );
    client
}

fn delete(item: Uuid) -> CallToolRequestParams {
    let arguments = json!({ "itemId": item });
    CallToolRequestParams::new("items_delete")
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}

const VERSIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

#[tokio::test]
async fn a_yes_runs_the_tool_after_asking_the_tools_question_in_a_form() {
    for version in VERSIONS {
        let shelf = Shelf::new(ConfirmPolicy::Ask, KEY);
        let user = User::new(version.clone(), Answer::Yes);
        let client = connect(&shelf, &user).await;

        let result = client.call_tool(delete(HAT)).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{version}: {}", text(&result));
        assert_eq!(shelf.items(), [SCARF], "{version}");
        let question = format!("Delete item {HAT}? This can't be undone.");
        assert_eq!(user.questions(), [question], "{version}");
        let schema = &user.asked.lock().unwrap()[0].1;
        assert_eq!(schema["required"], json!(["confirm"]), "{version}");
        assert_eq!(
            schema["properties"]["confirm"],
            json!({ "type": "boolean", "title": "Confirm" }),
            "{version}"
        );
        let audits = shelf.audits.lock().unwrap().clone();
        assert_eq!(
            audits,
            [(vec![HAT], None, ConfirmOutcome::Confirmed)],
            "{version}"
        );
    }
}

#[tokio::test]
async fn a_no_or_a_dismissal_deletes_nothing() {
    for version in VERSIONS {
        for answer in [Answer::Decline, Answer::Cancel, Answer::Unticked] {
            let shelf = Shelf::new(ConfirmPolicy::Ask, KEY);
            let user = User::new(version.clone(), answer);
            let client = connect(&shelf, &user).await;

            let result = client.call_tool(delete(HAT)).await.unwrap();
            assert_eq!(result.is_error, Some(true), "{version} {answer:?}");
            assert_eq!(text(&result), "Cancelled: the item was not deleted.");
            assert_eq!(shelf.items(), [HAT, SCARF], "{version} {answer:?}");
            assert_eq!(user.questions().len(), 1);
            assert_eq!(shelf.outcomes(), [ConfirmOutcome::Declined]);
        }
    }
}

#[tokio::test]
async fn a_client_that_cannot_ask_meets_the_servers_policy() {
    for version in VERSIONS {
        let shelf = Shelf::new(ConfirmPolicy::Ask, KEY);
        let client = connect(&shelf, &User::unable(version.clone())).await;
        let result = client.call_tool(delete(HAT)).await.unwrap();
        assert_eq!(
            result.is_error,
            Some(false),
            "{version} ask: {}",
            text(&result)
        );
        assert_eq!(shelf.items(), [SCARF]);
        assert_eq!(shelf.outcomes(), [ConfirmOutcome::NotAsked]);

        let shelf = Shelf::new(ConfirmPolicy::Require, KEY);
        let client = connect(&shelf, &User::unable(version.clone())).await;
        let result = client.call_tool(delete(HAT)).await.unwrap();
        assert_eq!(
            text(&result),
            "Error: this client can't ask the user to confirm, and this server requires it."
        );
        assert_eq!(result.is_error, Some(true));
        assert_eq!(shelf.items(), [HAT, SCARF], "{version} require");
        assert_eq!(shelf.outcomes(), [ConfirmOutcome::Refused]);

        // Off: not even a client that could ask is asked.
        let shelf = Shelf::new(ConfirmPolicy::Off, KEY);
        let user = User::new(version.clone(), Answer::Decline);
        let client = connect(&shelf, &user).await;
        let result = client.call_tool(delete(HAT)).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{version} off");
        assert!(user.questions().is_empty());
        assert_eq!(shelf.outcomes(), [ConfirmOutcome::NotAsked]);
    }
}

#[tokio::test]
async fn an_id_that_names_nothing_is_not_found_before_anyone_is_asked() {
    let shelf = Shelf::new(ConfirmPolicy::Require, KEY);
    let user = User::new(ProtocolVersion::V_2026_07_28, Answer::Yes);
    let client = connect(&shelf, &user).await;
    let result = client.call_tool(delete(Uuid::from_u128(9))).await.unwrap();
    assert!(
        text(&result).starts_with("Not Found: "),
        "{}",
        text(&result)
    );
    assert!(user.questions().is_empty());
    assert!(shelf.outcomes().is_empty());
}

/// The first round of a call on 2026-07-28: the sealed state it answered with.
async fn sealed_state(client: &RunningService<RoleClient, User>, item: Uuid) -> String {
    match client.call_tool_once(delete(item)).await.unwrap() {
        CallToolResponse::InputRequired(asked) => {
            let requests = asked.input_requests.expect("the input requests");
            assert_eq!(requests.keys().collect::<Vec<_>>(), ["confirm"]);
            asked.request_state.expect("a sealed state")
        }
        other => panic!("input required, not {other:?}"),
    }
}

/// A retry of deleting `item` with the user's yes and `state`.
fn retry(item: Uuid, state: Option<String>) -> CallToolRequestParams {
    let mut params = delete(item);
    let mut responses = InputResponses::new();
    responses.insert(
        "confirm".to_owned(),
        json!({ "action": "accept", "content": { "confirm": true } }),
    );
    params.input_responses = Some(responses);
    params.request_state = state;
    params
}

async fn retried(
    client: &RunningService<RoleClient, User>,
    params: CallToolRequestParams,
) -> CallToolResult {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("a result, not {other:?}"),
    }
}

const STALE: &str =
    "Error: the confirmation has expired or does not match this call; call the tool again.";

#[tokio::test]
async fn a_forged_or_misused_confirmation_is_refused_and_nothing_runs() {
    let shelf = Shelf::new(ConfirmPolicy::Ask, KEY);
    let user = User::new(ProtocolVersion::V_2026_07_28, Answer::Yes);
    let client = connect(&shelf, &user).await;
    let state = sealed_state(&client, HAT).await;

    let mut forged = state.clone();
    forged.insert(forged.len() - 3, 'x');
    let bad = [
        ("forged", retry(HAT, Some(forged))),
        ("made up", retry(HAT, Some("rs1.e30.e30".to_owned()))),
        ("missing", retry(HAT, None)),
        ("other arguments", retry(SCARF, Some(state.clone()))),
    ];
    for (how, params) in bad {
        let result = retried(&client, params).await;
        assert_eq!(text(&result), STALE, "{how}");
        assert_eq!(result.is_error, Some(true));
    }
    assert_eq!(shelf.items(), [HAT, SCARF]);
    assert_eq!(shelf.outcomes(), [ConfirmOutcome::Refused; 4]);

    // The state itself is good.
    let result = retried(&client, retry(HAT, Some(state))).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(shelf.items(), [SCARF]);
}

#[tokio::test]
async fn a_confirmation_is_the_callers_own() {
    let shelf = Shelf::new(ConfirmPolicy::Ask, KEY);
    let user = User::new(ProtocolVersion::V_2026_07_28, Answer::Yes);
    shelf.call_as("ana");
    let ana = connect(&shelf, &user).await;
    let state = sealed_state(&ana, HAT).await;

    shelf.call_as("bob");
    let bob = connect(&shelf, &user).await;
    let result = retried(&bob, retry(HAT, Some(state.clone()))).await;
    assert_eq!(text(&result), STALE);
    assert_eq!(shelf.items(), [HAT, SCARF]);

    let result = retried(&ana, retry(HAT, Some(state))).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let audits = shelf.audits.lock().unwrap().clone();
    assert_eq!(
        audits,
        [
            (vec![HAT], Some("bob".to_owned()), ConfirmOutcome::Refused),
            (vec![HAT], Some("ana".to_owned()), ConfirmOutcome::Confirmed),
        ]
    );
}

#[tokio::test]
async fn an_expired_confirmation_is_refused() {
    let keys = StateKeys::parse(KEY).unwrap();
    let confirmations =
        Confirmations::new(ConfirmPolicy::Ask, keys).lifetime(Duration::from_millis(50));
    let shelf = Shelf::with(confirmations);
    let user = User::new(ProtocolVersion::V_2026_07_28, Answer::Yes);
    let client = connect(&shelf, &user).await;
    let state = sealed_state(&client, HAT).await;
    tokio::time::sleep(Duration::from_millis(200)).await;

    let result = retried(&client, retry(HAT, Some(state))).await;
    assert_eq!(text(&result), STALE);
    assert_eq!(shelf.items(), [HAT, SCARF]);
}

#[tokio::test]
async fn replicas_with_one_key_accept_each_others_confirmations_and_others_refuse_them() {
    let user = User::new(ProtocolVersion::V_2026_07_28, Answer::Yes);
    let sealing = Shelf::new(ConfirmPolicy::Ask, KEY);
    let state = sealed_state(&connect(&sealing, &user).await, HAT).await;

    // Rotated: a new key first, the old one still opening.
    let same = Shelf::new(ConfirmPolicy::Ask, &format!("{OTHER_KEY}\n{KEY}\n"));
    let result = retried(
        &connect(&same, &user).await,
        retry(HAT, Some(state.clone())),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(same.items(), [SCARF]);

    let other = Shelf::new(ConfirmPolicy::Ask, OTHER_KEY);
    let result = retried(&connect(&other, &user).await, retry(HAT, Some(state))).await;
    assert_eq!(text(&result), STALE);
    assert_eq!(other.items(), [HAT, SCARF]);
}
