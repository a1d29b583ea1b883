//! The MCP server: the file tools' router served from an rmcp `ServerHandler`, against the
//! served directory.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use toolkit::{Labels, ToolboxError};

use crate::sandbox::Sandbox;
use crate::tools;

/// What the server tells a client it is for.
const INSTRUCTIONS: &str = "Files in one directory: read, write, edit, list, search, move and \
    inspect them. Every path is relative to the served directory (list_allowed_directories \
    names it) and must stay inside it.";

/// The server: the tools, and the directory they work in.
pub struct FileServer {
    tools: ToolRouter<Sandbox>,
    sandbox: Sandbox,
}

impl FileServer {
    /// Serves the file tools on `sandbox`.
    pub fn new(sandbox: Sandbox) -> Result<FileServer, ToolboxError> {
        Ok(FileServer {
            tools: tools::toolbox().build()?,
            sandbox,
        })
    }
}

impl ServerHandler for FileServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("files", env!("CARGO_PKG_VERSION")).with_title("Files"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.list_all()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.tools.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = ToolCallContext::new(&self.sandbox, request, context);
        self.tools.call(call).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            let message = format!("Method not found: {}", request.method);
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
        }
        let result =
            toolkit::unreadable_call(&self.tools, request.params.as_ref(), Labels::WireNames)?;
        let result = serde_json::to_value(result)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(CustomResult(result))
    }
}
