//! Testing a server's tools (the `testing` feature): [`TestClient`], a real MCP client connected
//! in-process to a [`Handler`] through the stdio transport a real client meets, whose calls
//! return a [`CallResult`] or, started, a [`PendingCall`] to follow and cancel;
//! [`tools_list`], the tool list as stable JSON to snapshot; and [`check_agreement`], the
//! property check that a tool's published input schema and its parser accept the same objects.
//!
//! ```
//! use serde_json::json;
//! use toolkit::testing::TestClient;
//! use toolkit::{Context, Run, Server, Tool, ToolError};
//!
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! pub struct Sum {
//!     total: u32,
//! }
//!
//! /// Adds two numbers.
//! #[derive(Tool)]
//! #[tool(name = "add", title = "Add", output = Sum,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct Add {
//!     #[arg(max = 1000)]
//!     a: u32,
//!     #[arg(max = 1000)]
//!     b: u32,
//! }
//!
//! impl Run<()> for Add {
//!     async fn run(self, _: &(), _: &Context) -> Result<Sum, ToolError> {
//!         Ok(Sum { total: self.a + self.b })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let handler = Server::new("calculator", "1.0.0").tool::<Add>().build(()).unwrap();
//! let client = TestClient::connect(&handler).await;
//!
//! let sum = client.call("add", json!({ "a": 2, "b": 3 })).await;
//! assert_eq!(sum.structured(), Some(&json!({ "total": 5 })));
//!
//! let refused = client.call("add", json!({ "a": 2000 })).await;
//! assert_eq!(refused.error_kind(), Some(toolkit::testing::ErrorKind::Validation));
//! assert!(refused.text().contains("a: Must be 1000 or less, not 2000."));
//! # }
//! ```

mod agreement;
mod call;
mod pending;
mod user;
mod wire;

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, Transport};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

pub use crate::ErrorKind;
pub use agreement::{Agreement, check_agreement};
pub use call::{CallResult, Progress};
pub use pending::PendingCall;

use crate::{Caller, Handler, Server};
use user::User;
use wire::Wire;

/// The MCP protocol version a [`TestClient`] speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Protocol {
    /// 2025-11-25: `initialize`, and the server asks its questions with `elicitation/create`.
    V2025_11_25,
    /// 2026-07-28, the newest: `server/discover`, and a call that needs the user's answer
    /// returns `input_required`, which the client answers by calling again.
    #[default]
    V2026_07_28,
}

impl Protocol {
    fn version(self) -> ProtocolVersion {
        match self {
            Protocol::V2025_11_25 => ProtocolVersion::V_2025_11_25,
            Protocol::V2026_07_28 => ProtocolVersion::V_2026_07_28,
        }
    }
}

/// How the user answers when a tool declared `confirm` asks to go ahead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Answer {
    /// The user confirms: the call runs.
    #[default]
    Accept,
    /// The user says no: the call answers `Cancelled:` and does not run.
    Decline,
    /// The user dismisses the question: as declining.
    Cancel,
}

/// A real rmcp client, connected in-process to a [`Handler`] over a pipe served by the
/// toolkit's stdio transport, or to a server's URL over Streamable HTTP: every call goes through
/// the protocol, the framing and the transport's limits as a real client's does. Its methods
/// panic on a protocol failure (the test fails there, saying why); a tool's error is a
/// [`CallResult`] like any other.
pub struct TestClient {
    /// Shared with the calls under way, each answered on a task of its own.
    service: Arc<RunningService<RoleClient, User>>,
    user: User,
    wire: Wire,
}

/// How a [`TestClient`] connects: its protocol version, who calls, whether and how its user
/// answers, and the token it sends over HTTP.
#[derive(Debug, Clone, Default)]
pub struct TestClientBuilder {
    protocol: Protocol,
    caller: Option<Caller>,
    answer: Answer,
    without_elicitation: bool,
    bearer: Option<String>,
}

impl TestClientBuilder {
    /// The protocol version to speak; the newest by default.
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Who calls: what a tool's [`Context::caller`](crate::Context::caller) is, as an HTTP
    /// server would set it from a token. None by default, as over stdio. (Whether the caller's
    /// scopes allow a call is the HTTP server's check, made before the call reaches the tools.)
    /// In-process only: over HTTP the server names the caller from the [`bearer`](Self::bearer)
    /// token.
    pub fn caller(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// How the user answers a tool that asks to confirm; [`Answer::Accept`] by default.
    pub fn answer(mut self, answer: Answer) -> Self {
        self.answer = answer;
        self
    }

    /// A client that does not declare elicitation: the server cannot ask its user, and a tool
    /// declared `confirm` meets the server's [`ConfirmPolicy`](crate::ConfirmPolicy) instead.
    pub fn without_elicitation(mut self) -> Self {
        self.without_elicitation = true;
        self
    }

    /// The bearer token sent with every HTTP request (without the `Bearer ` prefix); none by
    /// default. HTTP only.
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Serves `handler` on one end of an in-process pipe and connects this client to the
    /// other. The handler is cloned: its state is the test's to inspect.
    ///
    /// # Panics
    ///
    /// If the client cannot connect (the server refused the handshake), or a bearer token was
    /// set: in-process, [`caller`](Self::caller) says who calls.
    pub async fn connect<S: Send + Sync + 'static>(self, handler: &Handler<S>) -> TestClient {
        assert!(
            self.bearer.is_none(),
            "a bearer token is sent over HTTP only: in-process, `.caller(...)` says who calls"
        );
        let mut handler = handler.clone();
        if let Some(caller) = self.caller.clone() {
            handler = handler.with_caller(caller);
        }
        let (client_end, server_end) = tokio::io::duplex(PIPE_BUFFER);
        let (input, output) = tokio::io::split(server_end);
        // The pipe closing (the client dropped) ends the server; how it ended is no test's
        // business.
        tokio::spawn(crate::stdio::serve(
            handler,
            input,
            output,
            std::future::pending(),
        ));
        let (read, write) = tokio::io::split(client_end);
        self.connect_over(AsyncRwTransport::new_client(read, write))
            .await
    }

    /// Connects this client to the MCP endpoint at `url` over Streamable HTTP: a server the
    /// test started with [`Server::serve_http`](crate::Server::serve_http) or
    /// [`http::bind`](crate::http::bind), or a built binary serving HTTP.
    ///
    /// # Panics
    ///
    /// If the client cannot connect (the server refused the handshake, or the token), or a
    /// caller was set: over HTTP, the server names the caller from the token.
    pub async fn connect_http(self, url: &str) -> TestClient {
        assert!(
            self.caller.is_none(),
            "over HTTP the server names the caller from the token: set `.bearer(...)`"
        );
        // reqwest is built with rustls and no crypto provider of its own; installing ring's
        // fails only when one is installed already, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        if let Some(token) = &self.bearer {
            config = config.auth_header(token.clone());
        }
        let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
        self.connect_over(transport).await
    }

    /// Connects this client to a server that reads from `write`'s other end and writes to
    /// `read`'s: the standard input and output of a built server started as a child process,
    /// say, to test the binary as a client application runs it.
    ///
    /// # Panics
    ///
    /// If the client cannot connect, or a caller or a bearer token was set: the server decides
    /// who calls.
    pub async fn connect_io<R, W>(self, read: R, write: W) -> TestClient
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        assert!(
            self.caller.is_none() && self.bearer.is_none(),
            "a server on its own stdio decides who calls: no caller or token can be set"
        );
        self.connect_over(AsyncRwTransport::new_client(read, write))
            .await
    }

    async fn connect_over<T>(self, transport: T) -> TestClient
    where
        T: Transport<RoleClient> + 'static,
    {
        let wire = Wire::default();
        let transport = wire.watch(transport);
        let user = User::new(
            self.protocol.version(),
            (!self.without_elicitation).then_some(self.answer),
        );
        let service = match self.protocol {
            Protocol::V2025_11_25 => user.clone().serve(transport).await,
            Protocol::V2026_07_28 => {
                let lifecycle = ClientLifecycleMode::Discover {
                    preferred_versions: vec![self.protocol.version()],
                };
                user.clone()
                    .serve_with_lifecycle(transport, lifecycle)
                    .await
            }
        };
        let service = service.unwrap_or_else(|error| panic!("the test client connects: {error}"));
        TestClient {
            service: Arc::new(service),
            user,
            wire,
        }
    }
}

/// How many bytes the pipe holds in each direction before a writer waits.
const PIPE_BUFFER: usize = 1 << 16;

impl TestClient {
    /// A client on the newest protocol version, with no caller, whose user accepts every
    /// confirmation: [`TestClient::builder`] for others.
    ///
    /// # Panics
    ///
    /// If the client cannot connect.
    pub async fn connect<S: Send + Sync + 'static>(handler: &Handler<S>) -> TestClient {
        TestClient::builder().connect(handler).await
    }

    /// A client to connect with other settings.
    pub fn builder() -> TestClientBuilder {
        TestClientBuilder::default()
    }

    /// What `tools/list` lists, every page of it.
    ///
    /// # Panics
    ///
    /// If the server does not answer.
    pub async fn list_tools(&self) -> Vec<rmcp::model::Tool> {
        (self.service.list_all_tools().await)
            .unwrap_or_else(|error| panic!("tools/list answers: {error}"))
    }

    /// Calls `tool` with `arguments` (a JSON object, or `null` for none), asking for progress,
    /// and answers the tool's questions as the user would.
    ///
    /// # Panics
    ///
    /// If `arguments` is neither an object nor `null`, or the call fails as a protocol error
    /// rather than a tool result (an unknown tool, say): [`try_call`](Self::try_call) returns
    /// that error.
    pub async fn call(&self, tool: &str, arguments: Value) -> CallResult {
        self.start(tool, arguments).answer().await
    }

    /// [`call`](Self::call), with a protocol error returned rather than panicking on.
    pub async fn try_call(&self, tool: &str, arguments: Value) -> Result<CallResult, ServiceError> {
        self.start(tool, arguments).try_answer().await
    }

    /// Starts a call and returns at once, to read its progress as it comes or to cancel it
    /// before it answers.
    ///
    /// # Panics
    ///
    /// If `arguments` is neither an object nor `null`.
    pub fn start(&self, tool: &str, arguments: Value) -> PendingCall {
        let (call, meta) = self.wire.new_call();
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.meta = Some(meta);
        params.arguments = match arguments {
            Value::Null => None,
            Value::Object(arguments) => Some(arguments),
            other => panic!("the arguments of a call are a JSON object or null, not {other}"),
        };
        PendingCall::start(Arc::clone(&self.service), self.wire.clone(), call, params)
    }

    /// The questions the user was asked to confirm, in order.
    pub fn asked(&self) -> Vec<String> {
        self.user.asked()
    }

    /// The server's `instructions`, as the client received them.
    pub fn instructions(&self) -> Option<String> {
        (self.service.peer_info()).and_then(|info| info.instructions.clone())
    }

    /// Ends the session: over stdio the server's input ends, over HTTP the client stops.
    /// Dropping the client does the same without waiting; calls still under way are cancelled.
    pub async fn close(self) {
        match Arc::try_unwrap(self.service) {
            Ok(mut service) => {
                // How the session's task ended is no test's business once it has.
                let _ = service.close().await;
            }
            Err(shared) => shared.cancellation_token().cancel(),
        }
    }

    /// The rmcp client's handle on the server, for requests this client does not wrap.
    pub fn peer(&self) -> &rmcp::service::Peer<RoleClient> {
        self.service.peer()
    }
}

/// What `tools/list` lists for `server`, as pretty JSON in name order: made to be snapshot
/// (`insta::assert_snapshot!(toolkit::testing::tools_list(&server))`), so that a change to any
/// tool's name, description, hints or schema shows in review.
pub fn tools_list<S: Send + Sync + 'static>(server: &Server<S>) -> String {
    // A tool definition is strings, maps and JSON values: it always serialises.
    serde_json::to_string_pretty(&server.definitions()).unwrap_or_default()
}
