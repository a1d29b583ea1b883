//! The MCP server: the rmcp `ServerHandler` over the store and the tools. The transports
//! (`stdio`, `http`) serve it.

use std::sync::Arc;

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult,
    DiscoverResult, ErrorCode, Implementation, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use toolkit::ToolSpecs;

use crate::tools::{self, Tools};
use store::Store;

/// How long a client may reuse the tool list and the discovery result (MCP's `ttlMs`): an
/// hour. Both are fixed while the server runs: its tools are chosen at start-up and it never
/// sends `notifications/tools/list_changed`. They change only when it is restarted with other
/// `--tools`, `--read-only` or another version; the hint is one of freshness, not a promise,
/// and a client that then calls a tool no longer served is told so, so an hour bounds how long
/// a client may go on offering it without costing a request per turn.
const LISTS_FRESH_FOR_MS: u64 = 60 * 60 * 1000;

/// Who may share a cached tool list or discovery result (MCP's `cacheScope`): anyone. Neither
/// depends on the caller: over HTTP a token's scopes decide which tools it may call, not which
/// are listed.
const LISTS_CACHE_SCOPE: CacheScope = CacheScope::Public;

/// The `_meta` key under which a result names the server that gave it.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// What the server tells a model about itself when it connects: what the tools `served` let it
/// do (each tool's declared ability and caution), so that a deployment serving fewer tools does
/// not promise the others.
fn instructions(served: &ToolSpecs) -> String {
    let abilities: Vec<String> = served
        .iter()
        .filter_map(|spec| Some(format!("{} ({})", spec.ability?, spec.name)))
        .collect();
    let abilities: Vec<&str> = abilities.iter().map(String::as_str).collect();
    let mut text = format!(
        "Movie reviews: {}. Ids come from the search and list tools. Lists come a page at a \
         time: pass a page's nextOffset as offset to get the next.",
        prose_list(&abilities)
    );
    for caution in served.iter().filter_map(|spec| spec.caution) {
        text.push(' ');
        text.push_str(caution);
    }
    text
}

/// Joins phrases as prose: `a`, `a and b`, `a, b, and c`.
fn prose_list(phrases: &[&str]) -> String {
    match phrases {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [first, second] => format!("{first} and {second}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

/// The movie-review MCP server.
#[derive(Clone)]
pub struct MovieReviews {
    pub(crate) store: Store,
    /// The tools served; the HTTP layer reads the scopes they declare.
    pub(crate) tools: Tools,
    instructions: Arc<str>,
    /// This server's name, title and version, as results carry it in `_meta`.
    identity: Arc<Value>,
}

/// This server's name, title and version.
fn implementation() -> Implementation {
    Implementation::new("movie-reviews-mcp", env!("CARGO_PKG_VERSION")).with_title("Movie reviews")
}

impl MovieReviews {
    /// A server serving `tools` over `store`.
    pub fn new(store: Store, tools: Tools) -> MovieReviews {
        let instructions = instructions(tools.served());
        // An `Implementation` is plain strings: it always serialises.
        let identity = serde_json::to_value(implementation()).unwrap_or_default();
        MovieReviews {
            store,
            tools,
            instructions: Arc::from(instructions),
            identity: Arc::new(identity),
        }
    }

    /// `meta` with this server's identity added: MCP asks a server to name itself in every
    /// result's `_meta`, so that a client without a session (no `initialize`) still learns who
    /// answered.
    fn identified(&self, meta: &mut Option<MetaObject>) {
        meta.get_or_insert_default()
            .0
            .insert(SERVER_INFO_KEY.to_owned(), Value::clone(&self.identity));
    }
}

impl ServerHandler for MovieReviews {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation())
            .with_instructions(self.instructions.to_string())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.tools.router().list_all())
            .with_ttl_ms(LISTS_FRESH_FOR_MS)
            .with_cache_scope(LISTS_CACHE_SCOPE);
        self.identified(&mut result.meta);
        Ok(result)
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let versions = self.supported_protocol_versions().into_owned();
        Ok(DiscoverResult::from_server_info(versions, self.get_info())
            .with_ttl_ms(LISTS_FRESH_FOR_MS)
            .with_cache_scope(LISTS_CACHE_SCOPE))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.router().get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut answer = self
            .tools
            .router()
            .call(ToolCallContext::new(&self.store, request, context))
            .await;
        if let Ok(CallToolResponse::Complete(result)) = &mut answer {
            self.identified(&mut result.meta);
        }
        answer
    }

    /// Requests rmcp could not read as one of MCP's: a `tools/call` whose params are not the
    /// shape of a call (`arguments` that are not an object, no `name`) gets the answer the
    /// toolkit gives such a call; any other method is unknown.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != "tools/call" {
            let message = format!("Method not found: {}", request.method);
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
        }
        let params = request.params.as_ref();
        let mut result = toolkit::unreadable_call(self.tools.router(), params, tools::LABELS)?;
        self.identified(&mut result.meta);
        // A client on a version before 2026-07-28 knows no `resultType`: rmcp leaves it out of
        // the results it builds, but this one reaches rmcp as a custom result.
        let current = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if !current {
            result.result_type = None;
        }
        serde_json::to_value(result)
            .map(CustomResult)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }
}

#[cfg(test)]
mod tests {
    use toolkit::Selection;

    use super::*;

    /// The contract's six tools, by name, so that the text below holds whatever tools are
    /// added.
    fn the_six() -> Selection {
        let names = [
            "movies_search",
            "authors_search",
            "movies_get",
            "reviews_list",
            "reviews_write",
            "reviews_delete",
        ];
        Selection {
            read_only: false,
            names: Some(names.map(str::to_owned).to_vec()),
        }
    }

    #[test]
    fn the_instructions_name_only_the_tools_served() {
        let six = Tools::assemble(crate::tools::toolbox(), &the_six()).unwrap();
        assert_eq!(
            instructions(six.served()),
            "Movie reviews: search movies (movies_search), search authors (authors_search), \
             read a movie with all its reviews (movies_get), list reviews (reviews_list), write \
             a review or change its stars (reviews_write), and delete a review (reviews_delete). \
             Ids come from the search and list tools. Lists come a page at a time: pass a page's \
             nextOffset as offset to get the next. Deleting is permanent: confirm with the user \
             first."
        );
        let names = vec!["movies_search".to_owned(), "movies_get".to_owned()];
        let selection = Selection {
            read_only: false,
            names: Some(names),
        };
        let reading = Tools::assemble(crate::tools::toolbox(), &selection).unwrap();
        let reading = instructions(reading.served());
        assert!(reading.starts_with(
            "Movie reviews: search movies (movies_search) and read a movie with all its reviews \
             (movies_get). "
        ));
        assert!(!reading.contains("reviews_delete") && !reading.contains("Deleting"));
    }
}
