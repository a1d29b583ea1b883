//! The notebook as its adopter tests it: in-process with the toolkit's test client (a real
//! rmcp client on the toolkit's stdio transport over a pipe), and as the built binary on its own
//! stdin and stdout: a call, a broken rule, an id that names nothing, and a deletion the user
//! accepts or declines, in both protocol versions; and the tool list, snapshot.

use std::process::Stdio;
use std::time::Duration;

use adopter::Notebook;
use serde_json::{Value, json};
use toolkit::Handler;
use toolkit::testing::{Answer, ErrorKind, Protocol, TestClient};

const PROTOCOLS: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

/// The notebook's handler, on a notebook of its own.
fn notebook() -> Handler<Notebook> {
    adopter::server()
        .build(Notebook::default())
        .expect("the tools assemble")
}

/// A client on `protocol` whose user gives `answer`.
async fn connect(handler: &Handler<Notebook>, protocol: Protocol, answer: Answer) -> TestClient {
    TestClient::builder()
        .protocol(protocol)
        .answer(answer)
        .connect(handler)
        .await
}

/// Adds a note saying `words`, and returns its id.
async fn add(client: &TestClient, words: &str) -> Value {
    let result = client.call("notes_add", json!({ "text": words })).await;
    assert!(!result.is_error(), "{}", result.text());
    result.structured().expect("a result")["noteId"].clone()
}

#[test]
fn the_tool_list_is_snapshot() {
    insta::assert_snapshot!(
        "tools_list",
        toolkit::testing::tools_list(&adopter::server())
    );
}

#[tokio::test]
async fn a_call_runs_and_a_mistake_is_named() {
    let handler = notebook();
    for protocol in PROTOCOLS {
        let client = connect(&handler, protocol, Answer::Accept).await;
        add(&client, "milk").await;

        let result = client
            .call("notes_add", json!({ "text": "" , "title": "x"}))
            .await;
        assert_eq!(
            result.error_kind(),
            Some(ErrorKind::Validation),
            "{protocol:?}"
        );
        assert_eq!(
            result.text(),
            "Validation Failed: text: Must be between 1 and 500 characters long, not 0. \
             title: Not an argument of this tool, which takes text. Correct the arguments and call \
             the tool again.",
            "{protocol:?}"
        );

        let nobody = toolkit::Uuid::nil();
        let result = client
            .call("notes_delete", json!({ "noteId": nobody }))
            .await;
        assert_eq!(
            result.error_kind(),
            Some(ErrorKind::NotFound),
            "{}",
            result.text()
        );
    }
    assert_eq!(handler.state().texts(), ["milk", "milk"]);
}

#[tokio::test]
async fn a_deletion_runs_only_once_the_user_says_yes() {
    for protocol in PROTOCOLS {
        let handler = notebook();
        let declining = connect(&handler, protocol, Answer::Decline).await;
        let note = add(&declining, "call Ada").await;

        let result = declining
            .call("notes_delete", json!({ "noteId": note }))
            .await;
        assert_eq!(
            result.error_kind(),
            Some(ErrorKind::Cancelled),
            "{protocol:?}"
        );
        assert_eq!(
            result.text(),
            "Cancelled: the note was kept.",
            "{protocol:?}"
        );
        assert_eq!(handler.state().texts(), ["call Ada"], "{protocol:?}");

        let accepting = connect(&handler, protocol, Answer::Accept).await;
        let result = accepting
            .call("notes_delete", json!({ "noteId": note }))
            .await;
        assert!(!result.is_error(), "{protocol:?}: {}", result.text());
        assert!(handler.state().texts().is_empty(), "{protocol:?}");
        let question = "Delete the note \"call Ada\"?";
        assert_eq!(declining.asked(), [question], "{protocol:?}");
        assert_eq!(accepting.asked(), [question], "{protocol:?}");
    }
}

#[tokio::test]
async fn the_built_server_serves_on_its_stdio_until_its_input_ends() {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_adopter"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the notebook starts");
    let stdin = child.stdin.take().expect("its stdin");
    let stdout = child.stdout.take().expect("its stdout");
    let client = TestClient::builder().connect_io(stdout, stdin).await;

    let info = client
        .peer()
        .peer_info()
        .expect("the server said who it is");
    let name = info.server_info.as_ref().map(|server| server.name.as_str());
    assert_eq!(name, Some("notebook"));
    assert_eq!(
        client.instructions().as_deref(),
        Some(
            "Notebook: add notes (notes_add) and delete them (notes_delete). Deleting asks the user first."
        )
    );
    let tools = client.list_tools().await;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["notes_add", "notes_delete"]);
    let result = client.call("notes_add", json!({ "text": "milk" })).await;
    assert!(!result.is_error(), "{}", result.text());

    client.close().await;
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the notebook stops once its input ends")
        .expect("its status");
    assert!(status.success(), "{status}");
}
