//! Declare MCP tools as annotated Rust structs.
//!
//! A tool is one struct: its doc comment is the description a model reads, `#[tool(...)]` says
//! its name, title, output type and behaviour hints, and each field is an argument with its rules
//! in `#[arg(...)]`. [`derive@Tool`] turns that one declaration into everything an MCP server
//! needs: argument parsing that reports every broken rule at once, existence checks, the input
//! and output JSON schemas, and the [`rmcp`] route. The schema a client sees and the rules the
//! server enforces are made from the same [`ToolSpec`], so they cannot disagree. [`Toolbox`]
//! assembles a server's tools into one rmcp router.
//!
//! ```
//! use toolkit::{Context, Run, Tool, ToolError, Toolbox};
//!
//! /// What `greet` returns.
//! #[derive(serde::Serialize, schemars::JsonSchema)]
//! pub struct Greeting {
//!     /// The greeting.
//!     text: String,
//! }
//!
//! /// Greets someone by name.
//! #[derive(Tool)]
//! #[tool(name = "greet", title = "Greet someone", output = Greeting,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct Greet {
//!     /// Who to greet.
//!     #[arg(min_chars = 1, max_chars = 40)]
//!     name: String,
//! }
//!
//! /// The state every tool runs against (a database pool, say).
//! pub struct State;
//!
//! impl Run<State> for Greet {
//!     async fn run(self, _state: &State, _context: &Context) -> Result<Greeting, ToolError> {
//!         Ok(Greeting { text: format!("Hello, {}!", self.name) })
//!     }
//! }
//!
//! let router = Toolbox::<State>::new().tool::<Greet>().build().unwrap();
//! assert_eq!(router.list_all()[0].name, "greet");
//!
//! tokio::runtime::Runtime::new().unwrap().block_on(async {
//!     let arguments = serde_json::json!({ "name": "Ada" });
//!     let result = toolkit::call::<State, Greet>(&State, arguments.as_object()).await;
//!     assert_eq!(result.content[0].as_text().unwrap().text, r#"{"text":"Hello, Ada!"}"#);
//!
//!     let arguments = serde_json::json!({ "name": "" });
//!     let result = toolkit::call::<State, Greet>(&State, arguments.as_object()).await;
//!     assert_eq!(
//!         result.content[0].as_text().unwrap().text,
//!         "Validation Failed: name: Must be between 1 and 40 characters long, not 0. \
//!          Correct the arguments and call the tool again."
//!     );
//! });
//! ```
//!
//! To start, read the tutorial, `docs/tutorial.md` in the repository: a first tool served over
//! stdio, rules and errors, HTTP with a token, and confirmation. The reference is
//! `docs/framework.md` (every attribute, rule and error), `docs/serving.md` (assembling and
//! serving tools, over stdio and HTTP) and `docs/testing.md` (the test kit, feature `testing`).
//! The examples of all four run as this crate's doctests.

#![forbid(unsafe_code)]

// The derives' generated code names this crate `::toolkit`, as it is named where they are used;
// this lets the crate's own tests declare tools with them.
#[cfg(test)]
extern crate self as toolkit;

/// The tutorial's code (docs/tutorial.md) compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/tutorial.md")]
struct TutorialDoctests;

/// The framework guide's code (docs/framework.md) compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/framework.md")]
struct FrameworkGuideDoctests;

/// The serving guide's code (docs/serving.md) compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/serving.md")]
struct ServingGuideDoctests;

/// The testing guide's code (docs/testing.md) compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/testing.md")]
struct TestingGuideDoctests;

/// The README's example of declaring a tool compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// What generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private;
pub mod arg;
#[cfg(feature = "http")]
pub mod auth;
mod confirm;
mod context;
mod error;
pub mod group;
#[cfg(feature = "http")]
pub mod http;
#[cfg(any(feature = "stdio", feature = "http"))]
pub mod jsonrpc;
mod layer;
mod outcome;
pub mod policy;
mod read;
mod route;
pub mod rule;
mod schema;
mod selection;
mod serve_error;
mod server;
#[cfg(any(feature = "stdio", feature = "http"))]
mod shutdown;
mod spec;
#[cfg(feature = "stdio")]
pub mod stdio;
#[cfg(feature = "testing")]
pub mod testing;
mod toolbox;
mod trace;

use std::future::Future;

pub use arg::{Arg, Args, Choice, Union};
pub use confirm::{
    Audit, CONFIRMATION_LIFETIME, Confirm, ConfirmOutcome, ConfirmPolicy, Confirmations,
    StateKeyError, StateKeys,
};
pub use context::{Caller, Cancellation, Context, PROGRESS_INTERVAL};
pub use error::{
    ERROR_META_KEY, ErrorKind, Labels, ToolError, Violation, Violations, error_envelope_schema,
};
pub use layer::{Answer, Layer, Next, ToolCall};
pub use outcome::{CallOutcome, CallRecord};
pub use policy::RateLimit;
pub use policy::idempotency::{self, IdempotencyStore, KeyedCall};
pub use route::{call, call_with, definition, route, unreadable_call};
pub use schema::{OutputSchemaError, input_schema, output_schema};
pub use selection::Selection;
pub use serve_error::ServeError;
pub use server::{Handler, Server};
#[cfg(any(feature = "stdio", feature = "http"))]
pub use shutdown::shutdown_signal;
pub use spec::{ArgSpec, Hints, Literal, Presence, ToolSpec};
/// The token a [`Cancellation`] carries, and [`Context::cancelled_by`] takes.
pub use tokio_util::sync::CancellationToken;
pub use tool_macros::{Args, Choice, Tool};
pub use toolbox::{ToolSpecs, Toolbox, ToolboxError};
pub use uuid::Uuid;

/// A declared tool: what `#[derive(Tool)]` implements. The attributes are in the framework
/// guide, `docs/framework.md`.
pub trait Tool: Sized + Send + 'static {
    /// What a successful call returns; its schema is the tool's output schema.
    type Output: serde::Serialize + schemars::JsonSchema;

    /// The tool's name, title, hints and arguments with their rules.
    const SPEC: &'static ToolSpec;

    /// Reads each field from the call's arguments, in declaration order.
    #[doc(hidden)]
    fn read(fields: &mut __private::Fields<'_>) -> Option<Self>;
}

/// Parses and validates raw JSON arguments as tool `T`, without running it: every broken rule
/// is in the `Invalid` error. Existence is not checked here; [`call`] does that.
pub fn parse<T: Tool>(
    arguments: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<T, ToolError> {
    let empty = serde_json::Map::new();
    let mut violations = Violations::default();
    let mut fields = read::Fields::new(T::SPEC.args, arguments.unwrap_or(&empty), &mut violations)
        .with_groups(T::SPEC.groups);
    let tool = T::read(&mut fields);
    fields.finish_tool(tool)
}

/// The code that runs a tool against the server state `S`, once its arguments are valid and
/// (unless the tool checks existence itself) every id they reference exists.
pub trait Run<S>: Tool + __private::References<S> + __private::Confirms<S> {
    /// Whether `run` itself finds out that an `exists` argument names nothing, so the toolkit
    /// does not look the ids up first. False by default: the toolkit checks every id before
    /// `run`, which then always sees ids that named something a moment ago.
    ///
    /// Set it when the tool's own reads or writes already miss on such an id (a read that
    /// finds no row, a write that inserts nothing), so a call that finds everything makes no
    /// lookup of its own. Such a `run` must change nothing when an id names nothing, and must
    /// then return [`ToolError::Missing`]: the toolkit checks the ids in argument order and
    /// answers `Not Found` for the first miss, the same answer as checking first.
    const CHECKS_EXISTENCE: bool = false;

    /// Checks rules that only the tool can see, with the state (a database lookup, say), once
    /// the declared rules pass and before any `exists` check, so such a broken rule is reported
    /// as `Validation Failed` ahead of a `Not Found`. None by default.
    fn check(
        &self,
        state: &S,
        context: &Context,
    ) -> impl Future<Output = Result<(), ToolError>> + Send {
        let _ = (state, context);
        async { Ok(()) }
    }

    /// Runs the tool. `context` is the call's: who calls, progress, cancellation. A cancelled
    /// call's `run` is dropped at its next `.await`, so whatever it holds (a transaction, say)
    /// is dropped with it.
    fn run(
        self,
        state: &S,
        context: &Context,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A kind of thing that arguments refer to by id (`#[arg(exists = Movie)]`), declared once for
/// every tool that refers to it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity, so `exists = {Self}` cannot check an id of it",
    label = "`exists` names an entity here",
    note = "implement `toolkit::Entity` for `{Self}`: its NAME in a Not Found message, and the \
            tools that list its ids (LISTED_BY)"
)]
pub trait Entity: 'static {
    /// The word for one of them in a `Not Found` message: `movie`.
    const NAME: &'static str;
    /// The tools that return valid ids of this kind, named in the `Not Found` message.
    const LISTED_BY: &'static [&'static str];
}

/// How the server state `Self` tells whether an entity `E` with a given id exists.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot tell whether a `{E}` exists",
    label = "a tool run on `{Self}` declares `exists = {E}`",
    note = "implement `toolkit::Exists<{E}>` for `{Self}`"
)]
pub trait Exists<E>: Sync {
    /// Whether the entity exists. An `Err` is an unexpected failure of the lookup itself.
    fn exists(&self, id: Uuid) -> impl Future<Output = Result<bool, ToolError>> + Send;
}
