//! Declare MCP tools as annotated Rust structs.
//!
//! A tool is one struct: its doc comment is the description a model reads, `#[tool(...)]` says
//! its name, title, output type and behaviour hints, and each field is an argument with its rules
//! in `#[arg(...)]`. `#[derive(Tool)]` turns that one declaration into everything an MCP server
//! needs — argument parsing that reports every broken rule at once, existence checks, the input
//! and output JSON schemas, and the [`rmcp`] route — so the schema a client sees and the rules
//! the server enforces cannot disagree.
//!
//! # A first tool
//!
//! ```
//! use toolkit::{Run, Tool, ToolError, Toolbox};
//!
//! /// What `greet` returns. An output type is `Serialize + JsonSchema`, and an object.
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
//! /// The server state every tool runs against (a database pool, say).
//! pub struct Server;
//!
//! impl Run<Server> for Greet {
//!     async fn run(self, _server: &Server) -> Result<Greeting, ToolError> {
//!         Ok(Greeting { text: format!("Hello, {}!", self.name) })
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // Start-up assembles every tool into one rmcp router; a clash of names is an error here.
//! let router = Toolbox::<Server>::new().tool::<Greet>().build().unwrap();
//! assert_eq!(router.list_all()[0].name, "greet");
//!
//! // What a call returns: compact JSON text plus the same value as structuredContent.
//! let arguments = serde_json::json!({ "name": "Ada" });
//! let result = toolkit::call::<Server, Greet>(&Server, arguments.as_object()).await;
//! assert_eq!(result.content[0].as_text().unwrap().text, r#"{"text":"Hello, Ada!"}"#);
//! assert_eq!(result.structured_content, Some(serde_json::json!({ "text": "Hello, Ada!" })));
//!
//! // Every failure is an `isError` result with one text block the model can act on.
//! let arguments = serde_json::json!({ "name": "", "nmae": "Ada" });
//! let result = toolkit::call::<Server, Greet>(&Server, arguments.as_object()).await;
//! assert_eq!(result.is_error, Some(true));
//! assert_eq!(
//!     result.content[0].as_text().unwrap().text,
//!     "Validation Failed: Name: Must be between 1 and 40 characters long, not 0. \
//!      nmae: Not an argument of this tool. Did you mean name? \
//!      Correct the arguments and call the tool again."
//! );
//! # });
//! ```
//!
//! To serve the router, implement rmcp's `ServerHandler` with `list_tools` returning
//! `router.list_all()`, `get_tool` returning `router.get(name)`, and `call_tool` calling
//! `router.call(ToolCallContext::new(self, request, context))`. A call for a tool that does not
//! exist is then the JSON-RPC error -32602, as the MCP specification prescribes.
//!
//! # The tool: `#[tool(...)]`
//!
//! | key | meaning |
//! |---|---|
//! | `name = "…"` | the MCP name: 1 to 128 of `A-Z a-z 0-9 _ - .` |
//! | `title = "…"` | the name a person sees |
//! | `output = Type` | what a successful call returns |
//! | `description = "…"` | the description, instead of the doc comment |
//! | `read_only`, `destructive`, `idempotent`, `open_world` | the four MCP hints |
//! | `scope = "…"` | the OAuth scope a caller's token needs, where the server checks tokens |
//!
//! Every hint must be stated: bare means `true`, or write `= true` or `= false`. A tool that
//! does not say whether it is read-only, destructive, idempotent and open-world does not
//! compile, and neither does a read-only tool that claims to be destructive. The doc comment is
//! read as prose: the lines of a paragraph are joined by spaces, paragraphs are kept apart, and
//! list items stay on lines of their own.
//!
//! ```
//! use toolkit::{Hints, Tool};
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Deleted {}
//!
//! /// Only for readers of the Rust code.
//! #[derive(Tool)]
//! #[tool(name = "reviews_delete", title = "Delete review", output = Deleted,
//!        description = "Permanently deletes a review. Confirm with the user first.",
//!        read_only = false, destructive, idempotent, open_world = false)]
//! pub struct ReviewsDelete {
//!     review_id: toolkit::Uuid,
//! }
//!
//! let spec = ReviewsDelete::SPEC;
//! assert_eq!((spec.name, spec.title), ("reviews_delete", "Delete review"));
//! assert_eq!(spec.description, "Permanently deletes a review. Confirm with the user first.");
//! assert_eq!(
//!     spec.hints,
//!     Hints { read_only: false, destructive: true, idempotent: true, open_world: false }
//! );
//! ```
//!
//! ## Scopes: `scope`
//!
//! A server that checks bearer tokens (over HTTP, say) needs to know what each tool asks of a
//! caller. `scope = "reviews.read"` says it in the declaration: the scope is carried in the
//! tool's [`ToolSpec`], and [`Toolbox::specs`] looks it up by tool name, so the layer that reads
//! the token can refuse a call before the tool runs. A scope is one OAuth scope token (printable
//! ASCII, no spaces, `"` or `\`), checked at compile time. A tool without one needs only a token
//! the server accepts. The scope is not part of `tools/list`; stdio, which has no tokens,
//! ignores it.
//!
//! ```
//! use toolkit::Tool;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Lists reviews.
//! #[derive(Tool)]
//! #[tool(name = "reviews_list", title = "List reviews", output = Out, scope = "reviews.read",
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct ReviewsList {}
//!
//! assert_eq!(ReviewsList::SPEC.scope, Some("reviews.read"));
//! ```
//!
//! The output schema comes from the output type's `JsonSchema`, made self-contained (no `$ref`,
//! `$defs` or `$schema`) and never nullable: a property the server leaves out when absent
//! (`#[serde(skip_serializing_if = "Option::is_none")]`) is simply not `required`.
//!
//! # Arguments: `#[arg(...)]`
//!
//! Each field is an argument of type `String`, `bool`, `i32`, `i64`, `u32`, `u64` or `Uuid`, or
//! an `Option` of one of them. Its wire name is the field's name in camelCase (`include_reviews`
//! is `includeReviews`), and a validation message names it with a capital first letter
//! (`IncludeReviews`). Its doc comment is its description in the input schema.
//!
//! | key | meaning |
//! |---|---|
//! | `min = N`, `max = N` | integer bounds; either may be left out |
//! | `min_chars = N`, `max_chars = N` | a string's length, counted in Unicode scalar values |
//! | `default = literal` | the value when the argument is left out |
//! | `message = "…"` | the sentence shown when one of this argument's rules breaks |
//! | `exists = Entity` | the id must name an existing row |
//! | `required_unless = field` | required only when `field` is not given |
//! | `ignored_with = field` | validated, but ignored when `field` is given |
//! | `rename = "…"` | another wire name |
//!
//! Mistakes in these attributes are compile errors on the offending token, all reported at
//! once, each saying what to write instead: an unknown or duplicated key, bounds on a string or
//! a length on an integer, `min` above `max`, a bound the type cannot hold, a default of the
//! wrong type or outside the argument's own rules, `exists` on a field that is not a `Uuid`.
//!
//! ## Required, optional and defaults
//!
//! A plain field is required; an `Option` field may be left out; a field with a `default` takes
//! it when left out. `null` counts as left out, and a call with no arguments object at all is
//! treated as `{}`.
//!
//! ```
//! use toolkit::Tool;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Lists things.
//! #[derive(Tool)]
//! #[tool(name = "list", title = "List", output = Out,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct List {
//!     /// Only things whose name contains this.
//!     query: Option<String>,
//!     /// Also return each thing's parts.
//!     #[arg(default = false)]
//!     include_parts: bool,
//!     /// Why you are asking.
//!     reason: String,
//! }
//!
//! let list: List = toolkit::parse(serde_json::json!({ "query": null, "reason": "x" }).as_object())
//!     .unwrap_or_else(|error| panic!("{error}"));
//! assert_eq!((list.query, list.include_parts), (None, false));
//!
//! let error = toolkit::parse::<List>(None).err().unwrap();
//! assert_eq!(
//!     error.to_string(),
//!     "Validation Failed: Reason: This argument is required. \
//!      Correct the arguments and call the tool again."
//! );
//! ```
//!
//! ## Integer bounds: `min`, `max`
//!
//! The type's own bounds always apply and are published as the schema's `minimum` and
//! `maximum`, so an offset of 2^70 is a broken rule rather than an overflow. A number with no
//! fractional part (`5.0`) is an integer; `5.5` is not.
//!
//! ```
//! use toolkit::Tool;
//! use toolkit::rule::Range;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Pages through things.
//! #[derive(Tool)]
//! #[tool(name = "page", title = "Page", output = Out,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct PageThrough {
//!     #[arg(min = 0, default = 0)]
//!     offset: u32,
//!     #[arg(min = 1, max = 50, default = 10)]
//!     limit: u32,
//! }
//!
//! let offset = PageThrough::SPEC.args[0].rule::<Range>();
//! assert_eq!(offset, Some(&Range { min: 0, max: u32::MAX.into() }));
//! let page: PageThrough = toolkit::parse(serde_json::json!({ "limit": 5.0 }).as_object())
//!     .unwrap_or_else(|error| panic!("{error}"));
//! assert_eq!(page.limit, 5);
//!
//! let error = toolkit::parse::<PageThrough>(
//!     serde_json::json!({ "offset": 1e30, "limit": 5.5 }).as_object(),
//! );
//! assert_eq!(
//!     error.err().unwrap().to_string(),
//!     "Validation Failed: Offset: Must be between 0 and 4294967295, not 1e+30. \
//!      Limit: Must be an integer, not 5.5. Correct the arguments and call the tool again."
//! );
//! ```
//!
//! ## String lengths: `min_chars`, `max_chars`
//!
//! Lengths count Unicode scalar values, not bytes, and apply to the value as sent: `"é"` is one
//! character. JSON Schema's `minLength` and `maxLength` count the same way.
//!
//! ```
//! use toolkit::Tool;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Searches titles.
//! #[derive(Tool)]
//! #[tool(name = "search", title = "Search", output = Out,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct Search {
//!     #[arg(max_chars = 100)]
//!     query: Option<String>,
//! }
//!
//! let accepted = serde_json::json!({ "query": "é".repeat(100) });
//! assert!(toolkit::parse::<Search>(accepted.as_object()).is_ok());
//! let refused = serde_json::json!({ "query": "é".repeat(101) });
//! assert_eq!(
//!     toolkit::parse::<Search>(refused.as_object()).err().unwrap().to_string(),
//!     "Validation Failed: Query: Must be at most 100 characters long, not 101. \
//!      Correct the arguments and call the tool again."
//! );
//! ```
//!
//! ## Custom messages: `message`
//!
//! `message` replaces the sentence for any broken rule declared on the argument (`min`, `max`,
//! `min_chars`, `max_chars`, `required_unless`). It must end with a full stop, since it follows
//! the argument's name in the one-line message.
//!
//! ```
//! use toolkit::Tool;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Rates a movie.
//! #[derive(Tool)]
//! #[tool(name = "rate", title = "Rate", output = Out,
//!        read_only = false, destructive = false, idempotent, open_world = false)]
//! pub struct Rate {
//!     #[arg(min = 1, max = 5, message = "A star rating must be between 1 and 5.")]
//!     stars: u32,
//! }
//!
//! let error = toolkit::parse::<Rate>(serde_json::json!({ "stars": 6 }).as_object());
//! assert_eq!(
//!     error.err().unwrap().to_string(),
//!     "Validation Failed: Stars: A star rating must be between 1 and 5. \
//!      Correct the arguments and call the tool again."
//! );
//! ```
//!
//! ## Ids and existence: `exists`
//!
//! A `Uuid` argument is accepted only in the hyphenated 36-character form, in any case.
//! `exists = Entity` checks, once every rule has passed, that the id names something: the
//! entity declares once how it is named and which tools list its ids ([`Entity`]), and the
//! server state says how to look it up ([`Exists`]). Ids are checked in argument order and the
//! first miss is the answer. A tool whose state cannot check an entity it refers to does not
//! compile.
//!
//! ```
//! use toolkit::{Entity, Exists, Run, Tool, ToolError, Uuid};
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! pub struct Movie;
//!
//! impl Entity for Movie {
//!     const NAME: &'static str = "movie";
//!     const LISTED_BY: &'static [&'static str] = &["movies_search", "reviews_list"];
//! }
//!
//! /// Gets one movie.
//! #[derive(Tool)]
//! #[tool(name = "movies_get", title = "Get movie", output = Out,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct MoviesGet {
//!     #[arg(exists = Movie)]
//!     movie_id: Uuid,
//! }
//!
//! pub struct Server;
//!
//! impl Exists<Movie> for Server {
//!     async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
//!         Ok(id.is_nil()) // a real server asks its store
//!     }
//! }
//!
//! impl Run<Server> for MoviesGet {
//!     async fn run(self, _server: &Server) -> Result<Out, ToolError> {
//!         Ok(Out {})
//!     }
//! }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
//! let arguments = serde_json::json!({ "movieId": id });
//! let result = toolkit::call::<Server, MoviesGet>(&Server, arguments.as_object()).await;
//! assert_eq!(
//!     result.content[0].as_text().unwrap().text,
//!     "Not Found: No movie has the id 3f2504e0-4f89-11d3-9a0c-0305e82c3301. \
//!      Call movies_search or reviews_list to find movie ids."
//! );
//! # });
//! ```
//!
//! Looking every id up before `run` costs a call of `Exists` each, a round trip when the state
//! is a database server. A tool whose `run` finds out by itself (its read finds no row, its
//! write saves nothing) sets [`Run::CHECKS_EXISTENCE`] and returns [`ToolError::Missing`] on a
//! miss; only then does the toolkit look the ids up, in argument order, to name the first miss.
//! The answer is the same either way.
//!
//! ## Arguments that depend on another: `required_unless`, `ignored_with`
//!
//! `required_unless = field` makes an `Option` argument required only when `field` is not
//! given (present and not `null`), as when a tool creates a thing unless an id to change is
//! passed. `ignored_with = field` keeps validating an `Option` argument but, when `field` is
//! given, neither checks its existence nor passes it to the tool.
//!
//! ```
//! use toolkit::{Tool, Uuid};
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Creates a review, or changes one when reviewId is passed.
//! #[derive(Tool)]
//! #[tool(name = "reviews_write", title = "Write review", output = Out,
//!        read_only = false, destructive, idempotent = false, open_world = false)]
//! pub struct ReviewsWrite {
//!     #[arg(required_unless = review_id, message = "Needed to create a review.")]
//!     movie_id: Option<Uuid>,
//!     #[arg(ignored_with = review_id)]
//!     note: Option<String>,
//!     review_id: Option<Uuid>,
//! }
//!
//! let error = toolkit::parse::<ReviewsWrite>(serde_json::json!({}).as_object());
//! assert_eq!(
//!     error.err().unwrap().to_string(),
//!     "Validation Failed: MovieId: Needed to create a review. \
//!      Correct the arguments and call the tool again."
//! );
//! let id = Uuid::nil().to_string();
//! let change = serde_json::json!({ "reviewId": id, "note": "ignored" });
//! let write: ReviewsWrite = toolkit::parse(change.as_object()).unwrap_or_else(|e| panic!("{e}"));
//! assert_eq!((write.movie_id, write.note), (None, None));
//! ```
//!
//! ## Wire names: `rename`
//!
//! ```
//! use toolkit::Tool;
//! # #[derive(serde::Serialize, schemars::JsonSchema)] pub struct Out {}
//!
//! /// Searches.
//! #[derive(Tool)]
//! #[tool(name = "search", title = "Search", output = Out,
//!        read_only, destructive = false, idempotent, open_world = false)]
//! pub struct Search {
//!     #[arg(rename = "q")]
//!     query: String,
//!     include_reviews: bool,
//! }
//!
//! let names: Vec<_> = Search::SPEC.args.iter().map(|arg| arg.name).collect();
//! assert_eq!(names, ["q", "includeReviews"]);
//! ```
//!
//! # Errors
//!
//! Every failure is a tool result with `isError: true` and one text block; none is a protocol
//! error. The texts:
//!
//! - `Validation Failed: ` then `Name: sentence.` for each broken rule in argument order, then
//!   each undeclared name as sent (with "Did you mean movieId?" when one is close; past ten of
//!   them, how many more: `99,990 more names: Not arguments of this tool.`), then
//!   `Correct the arguments and call the tool again.`
//! - `Not Found: No movie has the id …. Call movies_search or reviews_list to find movie ids.`
//! - `Error: Something unexpected happened. Reference: 1a2b3c4d.` for anything else; the log
//!   line (a `tracing` error event) carries the same reference and the cause, which never
//!   reaches the client.
//!
//! A tool's own code returns [`ToolError`]: `?` turns any error into an unexpected one,
//! [`ToolError::not_found`] reports a missing row, and [`ToolError::invalid`] a rule only the
//! tool can check, in the same form as a declared one. A rule that needs the state but must
//! be reported before any `Not Found` (a review's movie can't change, even to an id that names
//! nothing) goes in [`Run::check`], which runs after the declared rules and before the
//! existence checks.
//!
//! One call runs: parse and validate every argument → [`Run::check`] → every `exists` check, in
//! argument order → [`Run::run`] → encode the result.

#![forbid(unsafe_code)]

/// The framework guide's code (docs/framework.md) compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../docs/framework.md")]
struct FrameworkGuideDoctests;

mod error;
mod parse;
mod route;
pub mod rule;
mod schema;
mod selection;
mod spec;
mod trace;
mod value;

use std::future::Future;

pub use error::{ToolError, Violation, Violations};
pub use route::{ToolSpecs, Toolbox, ToolboxError, call, definition, route, unreadable_call};
pub use schema::{OutputSchemaError, input_schema, output_schema};
pub use selection::Selection;
pub use spec::{ArgSpec, DefaultValue, Hints, Kind, Presence, ToolSpec};
pub use tool_macros::Tool;
pub use uuid::Uuid;

/// A declared tool: what `#[derive(Tool)]` implements. See the crate docs for the attributes.
pub trait Tool: Sized + Send + 'static {
    /// What a successful call returns; its schema is the tool's output schema.
    type Output: serde::Serialize + schemars::JsonSchema;

    /// The tool's name, title, hints and arguments with their rules.
    const SPEC: &'static ToolSpec;

    #[doc(hidden)]
    fn from_values(values: __private::Values) -> Result<Self, ToolError>;
}

/// Parses and validates raw JSON arguments as tool `T`, without running it: every broken rule
/// is in the `Invalid` error. Existence is not checked here; [`call`] does that.
pub fn parse<T: Tool>(
    arguments: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<T, ToolError> {
    let values = parse::parse_arguments(T::SPEC, arguments).map_err(ToolError::Invalid)?;
    T::from_values(values)
}

/// The code that runs a tool against the server state `S`, once its arguments are valid and
/// (unless the tool checks existence itself) every id they reference exists.
pub trait Run<S>: Tool + __private::References<S> {
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
    fn check(&self, state: &S) -> impl Future<Output = Result<(), ToolError>> + Send {
        let _ = state;
        async { Ok(()) }
    }

    /// Runs the tool.
    fn run(self, state: &S) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
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

/// What generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    use std::future::Future;

    pub use crate::value::{FromArg, Values};
    pub use crate::{ArgSpec, DefaultValue, Hints, Kind, Presence, ToolSpec};
    use crate::{Entity, Exists, ToolError, Uuid};

    /// Checks every `exists = …` argument of a tool; generated with one `Exists` bound per
    /// entity the tool refers to. The ids are taken apart from the tool, so they can still be
    /// checked after `run` has consumed it.
    pub trait References<S> {
        /// The `exists` arguments' ids, in argument order (`None`: not passed).
        type Ids: Copy + Send;

        fn reference_ids(&self) -> Self::Ids;

        /// `Not Found` for the first id that names nothing.
        fn check_references(
            ids: Self::Ids,
            state: &S,
        ) -> impl Future<Output = Result<(), ToolError>> + Send;
    }

    /// The id an `exists` field holds, whether the field is `Uuid` or `Option<Uuid>`.
    pub trait ReferenceId {
        fn reference_id(&self) -> Option<Uuid>;
    }

    impl ReferenceId for Uuid {
        fn reference_id(&self) -> Option<Uuid> {
            Some(*self)
        }
    }

    impl ReferenceId for Option<Uuid> {
        fn reference_id(&self) -> Option<Uuid> {
            *self
        }
    }

    /// `Not Found` unless the entity `id` names exists.
    pub async fn check_exists<E: Entity, S: Exists<E>>(
        state: &S,
        id: Option<Uuid>,
    ) -> Result<(), ToolError> {
        match id {
            Some(id) if !state.exists(id).await? => Err(ToolError::not_found::<E>(id)),
            _ => Ok(()),
        }
    }
}
