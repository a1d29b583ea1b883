//! An MCP server of declared tools: [`Server`] is what an application says about itself and
//! its tools; the [`Handler`] it builds is the rmcp `ServerHandler` a transport serves. It
//! lists the tools (with caching hints), calls them, answers `server/discover`, names itself in
//! every result's `_meta`, and answers a `tools/call` rmcp cannot read as the toolkit answers
//! an argument mistake.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult,
    DiscoverResult, ErrorCode, Implementation, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tracing::Instrument as _;

use crate::trace::{TraceContext, call_span};
use crate::{
    CallRecord, Caller, Confirmations, Labels, Run, Selection, ToolSpecs, Toolbox, ToolboxError,
};

/// How long a client may reuse the tool list and the discovery result (MCP's `ttlMs`): an
/// hour. Both are fixed while the server runs: its tools are chosen when it is built and it
/// never sends `notifications/tools/list_changed`. They change only when it is restarted with
/// other tools or another version; the hint is one of freshness, not a promise, and a client
/// that then calls a tool no longer served is told so, so an hour bounds how long a client may
/// go on offering it without costing a request per turn.
const LISTS_FRESH_FOR_MS: u64 = 60 * 60 * 1000;

/// Who may share a cached tool list or discovery result (MCP's `cacheScope`): anyone. Neither
/// depends on the caller: a caller's scopes decide which tools it may call, not which are
/// listed.
const LISTS_CACHE_SCOPE: CacheScope = CacheScope::Public;

/// The `_meta` key under which a result names the server that gave it.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// An MCP server of the tools of a [`Toolbox`] on a state `S`: its name, version and title,
/// what it tells a model when it connects, and the toolbox's settings.
/// [`build`](Self::build), given the state, makes the [`Handler`] a transport serves.
///
/// ```
/// use toolkit::{Context, Run, Server, Tool, ToolError};
///
/// /// What `greet` returns.
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// pub struct Greeting {
///     /// The greeting.
///     text: String,
/// }
///
/// /// Greets someone by name.
/// #[derive(Tool)]
/// #[tool(name = "greet", title = "Greet someone", output = Greeting, ability = "greet people",
///        read_only, destructive = false, idempotent, open_world = false)]
/// pub struct Greet {
///     /// Who to greet.
///     #[arg(min_chars = 1, max_chars = 40)]
///     name: String,
/// }
///
/// impl Run<()> for Greet {
///     async fn run(self, _state: &(), _context: &Context) -> Result<Greeting, ToolError> {
///         Ok(Greeting { text: format!("Hello, {}!", self.name) })
///     }
/// }
///
/// let handler = Server::new("greeter", "1.0.0")
///     .title("Greeter")
///     .tool::<Greet>()
///     .build(())
///     .unwrap();
/// assert_eq!(handler.instructions(), "Greeter: greet people (greet).");
/// ```
pub struct Server<S> {
    toolbox: Toolbox<S>,
    /// Every tool added, once some are left out by [`select`](Self::select).
    declared: Option<ToolSpecs>,
    implementation: Implementation,
    instructions: Instructions,
}

/// What the server tells a model about itself when it connects.
enum Instructions {
    /// Made from the tools served, with the server's own guidance between their abilities and
    /// their cautions.
    Made { guidance: Option<String> },
    /// The server's own words.
    Given(String),
}

impl<S: Send + Sync + 'static> Server<S> {
    /// A server named `name` (a short identifier, as `package.json` or `Cargo.toml` has it),
    /// at `version`. It serves no tools until they are added.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Server<S> {
        Server {
            toolbox: Toolbox::new(),
            declared: None,
            implementation: Implementation::new(name, version),
            instructions: Instructions::Made { guidance: None },
        }
    }

    /// The name a person reads (`Movie reviews`); it opens the instructions made from the
    /// tools. By default the name is used.
    pub fn title(mut self, title: impl Into<String>) -> Server<S> {
        self.implementation = self.implementation.with_title(title);
        self
    }

    /// Adds tool `T`, as [`Toolbox::tool`] does.
    pub fn tool<T: Run<S>>(mut self) -> Server<S> {
        self.toolbox = self.toolbox.tool::<T>();
        self
    }

    /// Serves the tools of `toolbox`, in place of those added so far; its settings (labels,
    /// confirmations, the call observer) come with it, and the server's own setters change
    /// them after.
    pub fn toolbox(mut self, toolbox: Toolbox<S>) -> Server<S> {
        self.toolbox = toolbox;
        self.declared = None;
        self
    }

    /// Serves only the tools added so far that `selection` chooses (a `--tools` or
    /// `--read-only` option, say); a name no tool has is a problem [`check`](Self::check) and
    /// [`build`](Self::build) report.
    pub fn select(mut self, selection: &Selection) -> Server<S> {
        self.declared.get_or_insert_with(|| self.toolbox.specs());
        self.toolbox = self.toolbox.select(selection);
        self
    }

    /// What a model should know beyond what each tool lets it do: placed in the instructions
    /// made from the tools, after their abilities and before their cautions.
    pub fn guidance(mut self, guidance: impl Into<String>) -> Server<S> {
        self.instructions = Instructions::Made {
            guidance: Some(guidance.into()),
        };
        self
    }

    /// The instructions a model reads when it connects, in place of those made from the
    /// tools' declared `ability` and `caution`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Server<S> {
        self.instructions = Instructions::Given(instructions.into());
        self
    }

    /// How `Validation Failed` messages name the tools' own arguments
    /// ([`Toolbox::labels`]).
    pub fn labels(mut self, labels: Labels) -> Server<S> {
        self.toolbox = self.toolbox.labels(labels);
        self
    }

    /// How tools declared `confirm` ask the user ([`Toolbox::confirmations`]).
    pub fn confirmations(mut self, confirmations: Confirmations) -> Server<S> {
        self.toolbox = self.toolbox.confirmations(confirmations);
        self
    }

    /// Hands every call, once it has ended, to `observer` ([`Toolbox::on_call`]).
    pub fn on_call(
        mut self,
        observer: impl Fn(&CallRecord<'_>) + Send + Sync + 'static,
    ) -> Server<S> {
        self.toolbox = self.toolbox.on_call(observer);
        self
    }

    /// Runs `layer` around every call, inside the layers added before it
    /// ([`Toolbox::layer`]).
    pub fn layer(mut self, layer: impl crate::Layer) -> Server<S> {
        self.toolbox = self.toolbox.layer(layer);
        self
    }

    /// How long a call of a tool that declares no `timeout` may run ([`Toolbox::timeout`]).
    pub fn timeout(mut self, timeout: impl Into<Option<std::time::Duration>>) -> Server<S> {
        self.toolbox = self.toolbox.timeout(timeout);
        self
    }

    /// How often one caller may call each tool that declares no `rate_limit`
    /// ([`Toolbox::rate_limit`]).
    pub fn rate_limit(mut self, limit: impl Into<Option<crate::RateLimit>>) -> Server<S> {
        self.toolbox = self.toolbox.rate_limit(limit);
        self
    }

    /// How often one caller may call the tool named `tool`, whatever it declares
    /// ([`Toolbox::rate_limit_for`]).
    pub fn rate_limit_for(
        mut self,
        tool: &str,
        limit: impl Into<Option<crate::RateLimit>>,
    ) -> Server<S> {
        self.toolbox = self.toolbox.rate_limit_for(tool, limit);
        self
    }

    /// The most bytes a successful result may have ([`Toolbox::max_result_bytes`]).
    pub fn max_result_bytes(mut self, bytes: usize) -> Server<S> {
        self.toolbox = self.toolbox.max_result_bytes(bytes);
        self
    }

    /// Where the results of calls made with an `idempotencyKey` are kept
    /// ([`Toolbox::idempotency_store`]).
    pub fn idempotency_store(mut self, store: impl crate::IdempotencyStore) -> Server<S> {
        self.toolbox = self.toolbox.idempotency_store(store);
        self
    }

    /// How long the result of a call made with an `idempotencyKey` is kept
    /// ([`Toolbox::idempotency_expiry`]).
    pub fn idempotency_expiry(mut self, expiry: std::time::Duration) -> Server<S> {
        self.toolbox = self.toolbox.idempotency_expiry(expiry);
        self
    }

    /// How long a call with a progress token may go without progress before the toolkit
    /// sends some ([`Toolbox::heartbeat`]).
    pub fn heartbeat(mut self, every: impl Into<Option<std::time::Duration>>) -> Server<S> {
        self.toolbox = self.toolbox.heartbeat(every);
        self
    }

    /// Every problem with the tools (two with one name, an output type that cannot be
    /// published, a selected name no tool has), found before there is a state to build with:
    /// what a command checks before it opens its database.
    pub fn check(&self) -> Result<(), ToolboxError> {
        self.toolbox.check()
    }

    /// The instructions a model will read when it connects, made from the tools served so far
    /// (or given with [`instructions`](Self::instructions)).
    pub fn describe(&self) -> String {
        match &self.instructions {
            Instructions::Given(text) => text.clone(),
            Instructions::Made { guidance } => {
                let implementation = &self.implementation;
                let title = (implementation.title.as_deref()).unwrap_or(&implementation.name);
                made_instructions(title, guidance.as_deref(), &self.toolbox.specs())
            }
        }
    }

    /// What `tools/list` will list: each tool served, in name order.
    pub fn definitions(&self) -> Vec<McpTool> {
        self.toolbox.definitions()
    }

    /// What every tool added declares, served or not.
    pub fn declared(&self) -> ToolSpecs {
        self.declared
            .clone()
            .unwrap_or_else(|| self.toolbox.specs())
    }

    /// Builds the server on `state` and serves it over stdio: see [`Handler::serve_stdio`].
    #[cfg(feature = "stdio")]
    pub async fn serve_stdio(self, state: S) -> Result<(), crate::ServeError> {
        self.build(state)?.serve_stdio().await
    }

    /// Builds the server on `state` and serves it over HTTP: see [`Handler::serve_http`].
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        state: S,
        address: std::net::SocketAddr,
        settings: crate::http::HttpSettings,
    ) -> Result<(), crate::ServeError> {
        self.build(state)?.serve_http(address, settings).await
    }

    /// The handler a transport serves, its tools running on `state`; or every problem with
    /// the tools, as [`check`](Self::check) finds them.
    pub fn build(self, state: S) -> Result<Handler<S>, ToolboxError> {
        let declared = self.declared();
        let instructions = self.describe();
        let toolbox = self.toolbox;
        let served = toolbox.specs();
        let labels = toolbox.chosen_labels();
        let router = toolbox.build()?;
        // An `Implementation` is plain strings: it always serialises.
        let identity = serde_json::to_value(&self.implementation).unwrap_or_default();
        Ok(Handler {
            state: Arc::new(state),
            router: Arc::new(router),
            shared: Arc::new(Shared {
                implementation: self.implementation,
                instructions,
                identity,
                served,
                declared,
                labels,
            }),
            caller: None,
        })
    }
}

/// What every clone of a [`Handler`] shares.
struct Shared {
    implementation: Implementation,
    instructions: String,
    /// This server's name, title and version, as results carry it in `_meta`.
    identity: Value,
    served: ToolSpecs,
    declared: ToolSpecs,
    /// How a `Validation Failed` answer to an unreadable call names `arguments`.
    labels: Labels,
}

/// `Title: ability (tool), ability (tool), and ability (tool). Guidance. Caution. Caution.`:
/// what the tools served let a model do, so that a deployment serving fewer tools does not
/// promise the others.
fn made_instructions(title: &str, guidance: Option<&str>, served: &ToolSpecs) -> String {
    let abilities: Vec<String> = served
        .iter()
        .filter_map(|spec| Some(format!("{} ({})", spec.ability?, spec.name)))
        .collect();
    let abilities: Vec<&str> = abilities.iter().map(String::as_str).collect();
    // Tools that declare no ability leave only the title to open with.
    let mut text = match abilities.as_slice() {
        [] => format!("{title}."),
        _ => format!("{title}: {}.", prose_list(&abilities)),
    };
    let cautions = served.iter().filter_map(|spec| spec.caution);
    for sentence in guidance.into_iter().chain(cautions) {
        text.push(' ');
        text.push_str(sentence);
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

/// The rmcp `ServerHandler` a [`Server`] builds: cheap to clone, one per connection or request
/// if a transport wants.
pub struct Handler<S> {
    state: Arc<S>,
    router: Arc<ToolRouter<S>>,
    shared: Arc<Shared>,
    /// Who makes a call that arrives without a caller, if anyone.
    caller: Option<Arc<Caller>>,
}

impl<S> Clone for Handler<S> {
    fn clone(&self) -> Self {
        Handler {
            state: self.state.clone(),
            router: self.router.clone(),
            shared: self.shared.clone(),
            caller: self.caller.clone(),
        }
    }
}

impl<S> Handler<S> {
    /// The state the tools run on.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// What the tools served declare, in the order they were added.
    pub fn served(&self) -> &ToolSpecs {
        &self.shared.served
    }

    /// What every tool declares, served or not (a token's scopes are checked against every
    /// tool's, since it may be meant for other replicas serving other tools).
    pub fn declared(&self) -> &ToolSpecs {
        &self.shared.declared
    }

    /// The instructions a model reads when it connects.
    pub fn instructions(&self) -> &str {
        &self.shared.instructions
    }

    /// The server's name, title and version.
    pub fn implementation(&self) -> &Implementation {
        &self.shared.implementation
    }

    /// The same handler (on the same state), with every call that arrives without a caller
    /// made by `caller`: the user who started a stdio server, say, or whoever a test calls as.
    /// The caller an HTTP request's token stands for is never replaced.
    pub fn with_caller(mut self, caller: Caller) -> Handler<S> {
        self.caller = Some(Arc::new(caller));
        self
    }

    /// Serves MCP on this process's stdin and stdout, to the one client that started it,
    /// until the client closes stdin or the process gets SIGTERM or SIGINT; every request
    /// read by then is answered before it returns. See [`stdio`](crate::stdio) for what it
    /// guarantees (bounded memory, answers to unreadable messages, cancellation), and
    /// [`stdio::serve`](crate::stdio::serve) to serve other streams or stop on another signal.
    ///
    /// stdout carries only MCP messages: log to stderr.
    #[cfg(feature = "stdio")]
    pub async fn serve_stdio(self) -> Result<(), crate::ServeError>
    where
        S: Send + Sync + 'static,
    {
        let (input, output) = crate::stdio::standard_streams();
        crate::stdio::serve(self, input, output, crate::shutdown_signal()).await
    }

    /// Serves MCP over Streamable HTTP on `address` as `settings` say, until the process gets
    /// SIGTERM or SIGINT; then calls in flight finish. See [`http`](crate::http) for what it
    /// guarantees (limits, timeouts, `Host` and `Origin` checks, tokens and scopes), and
    /// [`http::bind`](crate::http::bind) to add readiness checks or stop on another signal.
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        address: std::net::SocketAddr,
        settings: crate::http::HttpSettings,
    ) -> Result<(), crate::ServeError>
    where
        S: Send + Sync + 'static,
    {
        let bound = crate::http::bind(address, settings, self.declared()).await?;
        bound.serve(self, crate::shutdown_signal()).await
    }

    /// `meta` with this server's identity added: MCP asks a server to name itself in every
    /// result's `_meta`, so that a client without a session (no `initialize`) still learns who
    /// answered.
    fn identified(&self, meta: &mut Option<MetaObject>) {
        meta.get_or_insert_default()
            .0
            .insert(SERVER_INFO_KEY.to_owned(), self.shared.identity.clone());
    }
}

impl<S: Send + Sync + 'static> ServerHandler for Handler<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.shared.implementation.clone())
            .with_instructions(self.shared.instructions.clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(self.router.list_all())
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

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.router.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(caller) = &self.caller
            && crate::context::find::<Caller>(&context.extensions).is_none()
        {
            context.extensions.insert(Caller::clone(caller));
        }
        if !self.router.has_route(&request.name) {
            // rmcp answers Invalid params (-32602); the span says so.
            let trace = TraceContext::of(&context.meta, &context.extensions);
            let trace_id = trace.call_id();
            let span = call_span(None, &context, &trace, &trace_id);
            crate::trace::failed(&span, "-32602");
            let call = ToolCallContext::new(&*self.state, request, context);
            return self.router.call(call).instrument(span).await;
        }
        let call = ToolCallContext::new(&*self.state, request, context);
        let mut answer = self.router.call(call).await;
        if let Ok(CallToolResponse::Complete(result)) = &mut answer {
            self.identified(&mut result.meta);
        }
        answer
    }

    /// Requests rmcp could not read as one of MCP's: a `tools/call` whose params are not the
    /// shape of a call (`arguments` that are not an object, no `name`) gets the answer
    /// [`unreadable_call`](crate::unreadable_call) gives; any other method is unknown.
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
        let labels = self.shared.labels;
        let mut result = crate::unreadable_call(&self.router, params, labels)?;
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
    use super::*;

    #[test]
    fn phrases_read_as_prose() {
        assert_eq!(prose_list(&["a"]), "a");
        assert_eq!(prose_list(&["a", "b"]), "a and b");
        assert_eq!(prose_list(&["a", "b", "c"]), "a, b, and c");
    }

    #[test]
    fn tools_without_abilities_leave_the_title_and_the_guidance() {
        let served = ToolSpecs::default();
        assert_eq!(made_instructions("Files", None, &served), "Files.");
        assert_eq!(
            made_instructions("Files", Some("Paths are relative."), &served),
            "Files. Paths are relative."
        );
    }
}
