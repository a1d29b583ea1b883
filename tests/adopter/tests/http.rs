//! The notebook as its adopter tests it over HTTP: served by the toolkit's HTTP transport with
//! static tokens, in-process, and driven by the test kit's client over Streamable HTTP on
//! 2026-07-28: a call, a broken rule, a request without a token (401), a deletion with a token
//! that may only write (403), and a deletion the user declines, then accepts.

use std::net::SocketAddr;

use adopter::Notebook;
use serde_json::{Value, json};
use toolkit::auth::StaticTokens;
use toolkit::http::{self, HttpSettings};
use toolkit::testing::{Answer, TestClient};

/// The notebook served over HTTP on a loopback port, with a writer's and an editor's token.
struct Served {
    url: String,
    writer: String,
    editor: String,
    notebook: toolkit::Handler<Notebook>,
}

async fn serve() -> Served {
    let scopes = |scopes: &[&str]| {
        scopes
            .iter()
            .map(|&scope| scope.to_owned())
            .collect::<Vec<_>>()
    };
    let writer = StaticTokens::mint("nb_", &scopes(&["notes.write"])).unwrap();
    let editor = StaticTokens::mint("nb_", &scopes(&["notes.write", "notes.delete"])).unwrap();
    let entries = format!("{}\n{}", writer.entry, editor.entry);
    let tokens = StaticTokens::parse(&entries, "NOTEBOOK_TOKENS").unwrap();
    let server = adopter::server();
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let settings = HttpSettings::default().authenticate(tokens);
    let bound = http::bind(loopback, settings, &server.declared())
        .await
        .expect("bind a loopback port");
    let url = bound.public_url().to_string();
    let notebook = server
        .build(Notebook::default())
        .expect("the tools assemble");
    tokio::spawn(bound.serve(notebook.clone(), std::future::pending()));
    Served {
        url,
        writer: writer.token,
        editor: editor.token,
        notebook,
    }
}

/// An HTTP client, for the requests the test client does not make. reqwest is built with
/// rustls and no TLS provider of its own (the workspace builds ring, never OpenSSL): one must be
/// installed before a client is made.
fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A client presenting `token`, whose user gives `answer`.
async fn connect(served: &Served, token: &str, answer: Answer) -> TestClient {
    (TestClient::builder().bearer(token).answer(answer))
        .connect_http(&served.url)
        .await
}

/// Posts a raw `tools/call` of `tool`, with `token` if any: the status and the challenge.
async fn post(served: &Served, token: Option<&str>, tool: &str, arguments: Value) -> (u16, String) {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}});
    let mut request = http_client()
        .post(&served.url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .json(&message);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("the server answers");
    let challenge = (response.headers().get("www-authenticate"))
        .map(|value| value.to_str().expect("a readable challenge").to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), challenge)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_runs_a_mistake_is_named_and_a_token_is_needed_with_its_scope() {
    let served = serve().await;
    let client = connect(&served, &served.writer, Answer::Accept).await;
    let result = client.call("notes_add", json!({ "text": "milk" })).await;
    assert!(!result.is_error(), "{}", result.text());
    let note = result.structured().expect("a result")["noteId"].clone();

    let result = client.call("notes_add", json!({ "text": "" })).await;
    assert_eq!(
        result.text(),
        "Validation Failed: text: Must be between 1 and 500 characters long, not 0. Correct the \
         arguments and call the tool again."
    );

    let (status, challenge) = post(&served, None, "notes_add", json!({ "text": "x" })).await;
    assert_eq!(status, 401);
    assert!(
        challenge.starts_with("Bearer resource_metadata="),
        "{challenge}"
    );
    let (status, challenge) = post(
        &served,
        Some(&served.writer),
        "notes_delete",
        json!({ "noteId": note }),
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        challenge.starts_with("Bearer error=\"insufficient_scope\", scope=\"notes.delete\""),
        "{challenge}"
    );
    assert!(
        (client
            .try_call("notes_delete", json!({ "noteId": note }))
            .await)
            .is_err(),
        "the test client meets the 403 as a failed request"
    );
    assert_eq!(served.notebook.state().texts(), ["milk"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deletion_over_http_runs_only_once_the_user_says_yes() {
    let served = serve().await;
    let declining = connect(&served, &served.editor, Answer::Decline).await;
    let result = declining
        .call("notes_add", json!({ "text": "call Ada" }))
        .await;
    let note = result.structured().expect("a result")["noteId"].clone();

    let delete = json!({ "noteId": note });
    let result = declining.call("notes_delete", delete.clone()).await;
    assert_eq!(result.text(), "Cancelled: the note was kept.");
    assert_eq!(served.notebook.state().texts(), ["call Ada"]);

    let accepting = connect(&served, &served.editor, Answer::Accept).await;
    let result = accepting.call("notes_delete", delete).await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(served.notebook.state().texts().is_empty());
    let question = "Delete the note \"call Ada\"?";
    assert_eq!(declining.asked(), [question]);
    assert_eq!(accepting.asked(), [question]);
}

#[tokio::test]
async fn the_built_server_needs_tokens_to_serve_http() {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_adopter"))
        .args(["--http", "127.0.0.1:0"])
        .env_remove("NOTEBOOK_TOKENS")
        .output()
        .await
        .expect("the notebook runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--http needs the tokens' entries in NOTEBOOK_TOKENS"),
        "{stderr}"
    );
}
