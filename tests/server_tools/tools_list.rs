//! tools/list: the tools' names, titles, hints and schemas, as a client sees them before it
//! calls any.

use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

use crate::client::Backend;
use crate::fixture;

async fn tools_list_is_snapshotted_whole(backend: Backend) {
    let client = fixture::client(backend).await;
    let tools = client.session.list_tools().await;
    // The path is relative to this file: the snapshot is the workspace's snapshots/tools_list.snap.
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("tools_list", tools);
    });
}

async fn every_tool_has_the_title_and_hints_of_the_brief(backend: Backend) {
    let client = fixture::client(backend).await;
    let tools = client.session.list_tools().await;
    let table: Vec<(String, String, bool, bool, bool, bool)> = tools
        .iter()
        .map(|tool| {
            let hints = tool.annotations.clone().unwrap();
            (
                tool.name.to_string(),
                tool.title.clone().unwrap(),
                hints.read_only_hint.unwrap(),
                hints.destructive_hint.unwrap(),
                hints.idempotent_hint.unwrap(),
                hints.open_world_hint.unwrap(),
            )
        })
        .collect();
    let expected = [
        ("authors_search", "Search authors", true, false, true, false),
        ("movies_get", "Get movie", true, false, true, false),
        ("movies_search", "Search movies", true, false, true, false),
        ("reviews_delete", "Delete review", false, true, true, false),
        ("reviews_list", "List reviews", true, false, true, false),
        ("reviews_write", "Write review", false, true, false, false),
    ]
    .map(|(name, title, ro, de, id, ow)| (name.to_owned(), title.to_owned(), ro, de, id, ow));
    assert_eq!(table, expected);
    let delete = tools
        .iter()
        .find(|tool| tool.name == "reviews_delete")
        .unwrap();
    assert!(
        delete.description.as_deref().unwrap().contains("confirm"),
        "reviews_delete tells the model to confirm with the user first"
    );
}

async fn schemas_are_self_contained_and_never_nullable(backend: Backend) {
    let client = fixture::client(backend).await;
    for tool in client.session.list_tools().await {
        let text = json!([tool.input_schema, tool.output_schema]).to_string();
        for absent in ["$ref", "$defs", "$schema", "\"null\""] {
            assert!(!text.contains(absent), "{} has {absent}", tool.name);
        }
        assert_eq!(tool.input_schema["additionalProperties"], json!(false));
        assert_eq!(tool.output_schema.unwrap()["type"], json!("object"));
    }
}

async fn an_unknown_tool_is_a_json_rpc_invalid_params_error(backend: Backend) {
    let client = fixture::client(backend).await;
    let error =
        (client.session.try_call("movies_delete", Value::Null).await).expect_err("no such tool");
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
}

on_every_backend!(
    tools_list_is_snapshotted_whole,
    every_tool_has_the_title_and_hints_of_the_brief,
    schemas_are_self_contained_and_never_nullable,
    an_unknown_tool_is_a_json_rpc_invalid_params_error,
);
