//! The notebook as its adopter tests it: served over the toolkit's stdio transport (in-process
//! on a pipe, and as the built binary on its own stdin and stdout) and driven by rmcp's client:
//! a call, a broken rule, an id that names nothing, and a deletion the user accepts or declines,
//! in both protocol versions.

mod client;

use std::process::Stdio;
use std::time::Duration;

use adopter::Notebook;
use client::{User, call, text};
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use toolkit::Handler;

const VERSIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// The notebook's handler, on a notebook of its own.
fn notebook() -> Handler<Notebook> {
    adopter::server()
        .build(Notebook::default())
        .expect("the tools assemble")
}

/// `user`'s client, connected to `handler` served by the toolkit's stdio transport over a pipe.
async fn connect(handler: &Handler<Notebook>, user: &User) -> RunningService<RoleClient, User> {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (input, output) = tokio::io::split(server_end);
    let serving = toolkit::stdio::serve(handler.clone(), input, output, std::future::pending());
    tokio::spawn(serving);
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
    connected.expect("the client connects")
}

/// Adds a note saying `words`, and returns its id.
async fn add(client: &RunningService<RoleClient, User>, words: &str) -> Value {
    let result = client
        .call_tool(call("notes_add", json!({ "text": words })))
        .await
        .expect("notes_add answers");
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    result.structured_content.expect("a result")["noteId"].clone()
}

#[tokio::test]
async fn a_call_runs_and_a_mistake_is_named() {
    let handler = notebook();
    for version in VERSIONS {
        let client = connect(&handler, &User::new(version.clone(), true)).await;
        add(&client, "milk").await;

        let result = client
            .call_tool(call("notes_add", json!({ "text": "" , "title": "x"})))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{version}");
        assert_eq!(
            text(&result),
            "Validation Failed: text: Must be between 1 and 500 characters long, not 0. \
             title: Not an argument of this tool, which takes text. Correct the arguments and call \
             the tool again.",
            "{version}"
        );

        let nobody = toolkit::Uuid::nil();
        let result = client
            .call_tool(call("notes_delete", json!({ "noteId": nobody })))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{version}");
        assert!(
            text(&result).starts_with("Not Found: "),
            "{}",
            text(&result)
        );
    }
    assert_eq!(handler.state().texts(), ["milk", "milk"]);
}

#[tokio::test]
async fn a_deletion_runs_only_once_the_user_says_yes() {
    for version in VERSIONS {
        let handler = notebook();
        let declining = User::new(version.clone(), false);
        let client = connect(&handler, &declining).await;
        let note = add(&client, "call Ada").await;

        let result = client
            .call_tool(call("notes_delete", json!({ "noteId": note })))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(true), "{version}");
        assert_eq!(text(&result), "Cancelled: the note was kept.", "{version}");
        assert_eq!(handler.state().texts(), ["call Ada"], "{version}");

        let accepting = User::new(version.clone(), true);
        let client = connect(&handler, &accepting).await;
        let result = client
            .call_tool(call("notes_delete", json!({ "noteId": note })))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(false), "{version}: {}", text(&result));
        assert!(handler.state().texts().is_empty(), "{version}");
        let question = "Delete the note \"call Ada\"?";
        assert_eq!(*declining.asked.lock().unwrap(), [question], "{version}");
        assert_eq!(*accepting.asked.lock().unwrap(), [question], "{version}");
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
    let client = ().serve((stdout, stdin)).await.expect("the client initializes");

    let info = client
        .peer()
        .peer_info()
        .expect("the server said who it is");
    let name = info.server_info.as_ref().map(|server| server.name.as_str());
    assert_eq!(name, Some("notebook"));
    assert_eq!(
        info.instructions.as_deref(),
        Some(
            "Notebook: add notes (notes_add) and delete them (notes_delete). Deleting asks the user first."
        )
    );
    let tools = client.list_all_tools().await.expect("tools/list answers");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["notes_add", "notes_delete"]);
    let result = client
        .call_tool(call("notes_add", json!({ "text": "milk" })))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false), "{}", text(&result));

    client.cancel().await.expect("the client closes");
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the notebook stops once its input ends")
        .expect("its status");
    assert!(status.success(), "{status}");
}
