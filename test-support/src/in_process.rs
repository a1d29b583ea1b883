//! A real rmcp client connected to a server running in-process over a duplex pipe, as a client
//! application would over stdio, and the output schemas it was told; and [`ToolServer`], the
//! server a test of declared tools needs when it has no handler of its own.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::Validator;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};

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

/// What a [`ToolServer`] does to each call's request context before its tool runs.
type BeforeCall<S> = Arc<dyn Fn(&S, &mut RequestContext<RoleServer>) + Send + Sync>;

/// An MCP server of a toolkit router on a state: the tools listed and called, nothing else.
pub struct ToolServer<S> {
    state: Arc<S>,
    tools: Arc<ToolRouter<S>>,
    before_call: Option<BeforeCall<S>>,
}

impl<S> Clone for ToolServer<S> {
    fn clone(&self) -> Self {
        ToolServer {
            state: self.state.clone(),
            tools: self.tools.clone(),
            before_call: self.before_call.clone(),
        }
    }
}

impl<S: Send + Sync + 'static> ToolServer<S> {
    /// Serves `tools` on `state`.
    pub fn new(state: Arc<S>, tools: ToolRouter<S>) -> ToolServer<S> {
        ToolServer {
            state,
            tools: Arc::new(tools),
            before_call: None,
        }
    }

    /// The same server, calling `before_call` on each call's request context first: to put a
    /// caller in its extensions, as an HTTP server's gate does.
    pub fn before_call(
        mut self,
        before_call: impl Fn(&S, &mut RequestContext<RoleServer>) + Send + Sync + 'static,
    ) -> ToolServer<S> {
        self.before_call = Some(Arc::new(before_call));
        self
    }
}

impl<S: Send + Sync + 'static> ServerHandler for ToolServer<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.list_all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(before_call) = &self.before_call {
            before_call(&self.state, &mut context);
        }
        let call = ToolCallContext::new(&*self.state, request, context);
        self.tools.call(call).await
    }
}
