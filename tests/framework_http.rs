//! The toolkit's HTTP transport served in-process: what `bind` refuses to serve, the tokens and
//! scopes the gate checks (and the caller a token stands for, which a handler's own never
//! replaces), the readiness checks an application adds, the metadata naming the
//! server, and what an `HttpObserver` is told.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use test_support::http_client;
use tokio::sync::oneshot;
use toolkit::auth::StaticTokens;
use toolkit::http::{self, HttpError, HttpObserver, HttpSettings, Refusal, StatusCode};
use toolkit::{Caller, Context, Run, Server, Tool, ToolError};

/// A note.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Note {
    /// What it says.
    text: String,
}

/// Reads a note.
#[derive(Tool)]
#[tool(name = "notes_read", title = "Read a note", output = Note, scope = "notes.read", read_only,
       destructive = false, idempotent, open_world = false)]
pub struct NotesRead {}

impl Run<()> for NotesRead {
    async fn run(self, _state: &(), _context: &Context) -> Result<Note, ToolError> {
        Ok(Note {
            text: "a note".to_owned(),
        })
    }
}

/// Writes a note.
#[derive(Tool)]
#[tool(name = "notes_write", title = "Write a note", output = Note, scope = "notes.write",
       read_only = false, destructive = false, idempotent, open_world = false)]
pub struct NotesWrite {
    /// What to write.
    #[arg(min_chars = 1)]
    text: String,
}

impl Run<()> for NotesWrite {
    async fn run(self, _state: &(), _context: &Context) -> Result<Note, ToolError> {
        Ok(Note { text: self.text })
    }
}

/// Says hello to anyone: it declares no scope.
#[derive(Tool)]
#[tool(name = "hello", title = "Say hello", output = Note, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct Hello {}

impl Run<()> for Hello {
    async fn run(self, _state: &(), _context: &Context) -> Result<Note, ToolError> {
        Ok(Note {
            text: "hello".to_owned(),
        })
    }
}

/// Says who calls.
#[derive(Tool)]
#[tool(name = "whoami", title = "Who am I", output = Note, scope = "notes.read", read_only,
       destructive = false, idempotent, open_world = false)]
pub struct Whoami {}

impl Run<()> for Whoami {
    async fn run(self, _state: &(), context: &Context) -> Result<Note, ToolError> {
        let subject = context.caller().map(|caller| caller.subject.clone());
        Ok(Note {
            text: subject.unwrap_or_default(),
        })
    }
}

fn notebook() -> Server<()> {
    Server::new("notebook", "1.0.0")
        .title("Notebook")
        .tool::<NotesRead>()
        .tool::<NotesWrite>()
}

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

#[tokio::test]
async fn bind_refuses_an_open_network_without_authentication_and_a_tool_without_a_scope() {
    let anywhere = SocketAddr::from(([0, 0, 0, 0], 0));
    let declared = notebook().declared();
    let refused = http::bind(anywhere, HttpSettings::default(), &declared).await;
    let Err(HttpError::Unauthenticated(address)) = refused else {
        panic!("served 0.0.0.0 without authentication");
    };
    assert_eq!(address, anywhere);
    let insecure = HttpSettings::default().insecure_no_auth(true);
    assert!(http::bind(anywhere, insecure, &declared).await.is_ok());

    let tokens = StaticTokens::parse("", "none").unwrap();
    let declared = notebook().tool::<Hello>().declared();
    let settings = HttpSettings::default().authenticate(tokens);
    let Err(error) = http::bind(loopback(), settings, &declared).await else {
        panic!("served a tool without a scope with authentication on");
    };
    assert!(matches!(&error, HttpError::Unscoped(tools) if tools == &["hello"]));
    assert!(
        error
            .to_string()
            .ends_with(": hello; give each one `scope = \"…\"` in its #[tool(...)]"),
        "{error}"
    );
}

/// What the observer was told, in order.
#[derive(Clone, Default)]
struct Told(Arc<Mutex<Vec<String>>>);

impl Told {
    fn push(&self, event: String) {
        self.0.lock().unwrap().push(event);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

impl HttpObserver for Told {
    fn request_started(&self) {
        self.push("started".to_owned());
    }
    fn request_finished(&self, status: Option<StatusCode>) {
        self.push(format!(
            "finished {}",
            status.map_or(0, |status| status.as_u16())
        ));
    }
    fn connection_opened(&self) {
        self.push("opened".to_owned());
    }
    fn refused(&self, refusal: Refusal) {
        self.push(format!("refused {refusal:?}"));
    }
}

/// A notebook served over HTTP with a reader's and a writer's token, until the sender is used.
struct Served {
    origin: String,
    reader: String,
    told: Told,
    ready: Arc<Mutex<Result<(), String>>>,
    stop: oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<Result<(), toolkit::ServeError>>,
}

async fn serve() -> Served {
    let reader = StaticTokens::mint("nb_", &["notes.read".to_owned()]).unwrap();
    let tokens = StaticTokens::parse(&reader.entry, "test").unwrap();
    let told = Told::default();
    let settings = HttpSettings::default()
        .authenticate(tokens)
        .observe(told.clone());
    let server = notebook();
    let bound = http::bind(loopback(), settings, &server.declared())
        .await
        .unwrap();
    let origin = format!("http://{}", bound.local_addr().unwrap());
    assert_eq!(bound.public_url().as_str(), format!("{origin}/mcp"));
    let ready = Arc::new(Mutex::new(Ok(())));
    let answer = Arc::clone(&ready);
    let bound = bound.ready("the notebook", move || {
        let answer = answer.lock().unwrap().clone();
        async move { answer }
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let handler = server.build(()).unwrap();
    let serving = tokio::spawn(bound.serve(handler, async {
        let _ = stopped.await;
    }));
    Served {
        origin,
        reader: reader.token,
        told,
        ready,
        stop,
        serving,
    }
}

/// Posts `message` to `/mcp` with `token`; the status, the challenge and the body.
async fn post(served: &Served, token: Option<&str>, message: Value) -> (u16, String, String) {
    let mut request = http_client()
        .post(format!("{}/mcp", served.origin))
        .header("accept", "application/json, text/event-stream")
        .json(&message);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = (response.headers().get("www-authenticate"))
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, challenge, response.text().await.unwrap())
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_scopes_are_checked_and_every_request_and_refusal_is_told() {
    let served = serve().await;
    let metadata = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        served.origin
    );

    let (status, challenge, _) = post(&served, None, call("notes_read", json!({}))).await;
    assert_eq!((status, challenge), (401, format!("Bearer {metadata}")));
    let (status, challenge, _) =
        post(&served, Some("nb_guess"), call("notes_read", json!({}))).await;
    assert_eq!(
        (status, challenge),
        (401, format!("Bearer error=\"invalid_token\", {metadata}"))
    );
    let writing = call("notes_write", json!({"text": "hi"}));
    let (status, challenge, _) = post(&served, Some(&served.reader), writing).await;
    assert_eq!(
        (status, challenge),
        (
            403,
            format!("Bearer error=\"insufficient_scope\", scope=\"notes.write\", {metadata}")
        )
    );
    let (status, _, body) =
        post(&served, Some(&served.reader), call("notes_read", json!({}))).await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["result"]["structuredContent"]["text"], "a note");

    let told = served.told.take();
    let requests: Vec<&str> = told
        .iter()
        .map(String::as_str)
        .filter(|event| *event != "opened")
        .collect();
    assert_eq!(
        requests,
        [
            "started",
            "refused MissingToken",
            "finished 401",
            "started",
            "refused InvalidToken",
            "finished 401",
            "started",
            "refused InsufficientScope",
            "finished 403",
            "started",
            "finished 200",
        ]
    );
    assert!(told.contains(&"opened".to_owned()), "{told:?}");

    let metadata: Value = http_client()
        .get(format!(
            "{}/.well-known/oauth-protected-resource",
            served.origin
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], format!("{}/mcp", served.origin));
    assert_eq!(metadata["resource_name"], "Notebook");
    assert_eq!(
        metadata["scopes_supported"],
        json!(["notes.read", "notes.write"])
    );

    served.stop.send(()).unwrap();
    assert!(served.serving.await.unwrap().is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_answers_with_the_checks_the_application_added() {
    let served = serve().await;
    let readyz = || async {
        let response = http_client()
            .get(format!("{}/readyz", served.origin))
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.text().await.unwrap())
    };
    assert_eq!(readyz().await, (200, "ready\n".to_owned()));
    *served.ready.lock().unwrap() = Err("the disk is gone".to_owned());
    assert_eq!(
        readyz().await,
        (503, "not ready: the notebook does not answer\n".to_owned())
    );
    let health = http_client()
        .get(format!("{}/healthz", served.origin))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200, "the process still answers");
    served.stop.send(()).unwrap();
    assert!(served.serving.await.unwrap().is_ok());
}

/// `Handler::with_caller` names the caller of a call that arrives without one; over HTTP the
/// caller is the one the token stands for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tokens_caller_is_never_replaced_by_the_handlers_own() {
    let reader = StaticTokens::mint("nb_", &["notes.read".to_owned()]).unwrap();
    let tokens = StaticTokens::parse(&reader.entry, "test").unwrap();
    let server = Server::new("notebook", "1.0.0").tool::<Whoami>();
    let settings = HttpSettings::default().authenticate(tokens);
    let bound = http::bind(loopback(), settings, &server.declared())
        .await
        .unwrap();
    let url = bound.public_url().to_string();
    let local = Caller::new("local", vec!["notes.read".to_owned()]);
    let handler = server.build(()).unwrap().with_caller(local);
    tokio::spawn(bound.serve(handler, std::future::pending()));
    let answer: Value = http_client()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .bearer_auth(&reader.token)
        .json(&call("whoami", json!({})))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let subject = answer["result"]["structuredContent"]["text"]
        .as_str()
        .unwrap();
    assert!(subject.starts_with("token:"), "{answer}");
}
