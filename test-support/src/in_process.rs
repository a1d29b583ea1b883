//! A real rmcp client connected to a server running in-process over a duplex pipe, as a client
//! application would over stdio, and the output schemas it was told.

use std::collections::HashMap;

use jsonschema::Validator;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServerHandler, ServiceExt};

/// Bytes buffered in each direction of the in-process pipe.
const PIPE_BUFFER: usize = 1 << 16;

/// Starts `server` on one end of a duplex pipe and an rmcp client on the other, and returns
/// the initialized client. The server runs until the client is dropped or cancelled.
pub async fn connect<S: ServerHandler>(server: S) -> RunningService<RoleClient, ()> {
    let (client_end, server_end) = tokio::io::duplex(PIPE_BUFFER);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            // The pipe closing ends the server; how it ended does not matter to a test.
            let _ = running.waiting().await;
        }
    });
    ().serve(client_end)
        .await
        .expect("the client initializes against the in-process server")
}

/// A validator for each tool's published output schema (draft 2020-12, formats enforced), by
/// tool name, as the server lists them to `client`.
pub async fn output_schemas(client: &RunningService<RoleClient, ()>) -> HashMap<String, Validator> {
    let tools = client.list_all_tools().await.expect("tools/list answers");
    tools
        .into_iter()
        .map(|tool| {
            let schema = tool
                .output_schema
                .expect("every tool publishes an output schema");
            let validator = jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&serde_json::Value::Object((*schema).clone()))
                .expect("the output schema is a valid JSON Schema");
            (tool.name.to_string(), validator)
        })
        .collect()
}
