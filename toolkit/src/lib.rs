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
//! `docs/framework.md` (every attribute, rule and error) and `docs/serving.md` (assembling and
//! serving tools, over stdio and HTTP). The examples of all three run as this crate's doctests.

#![forbid(unsafe_code)]

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

/// The README's example of declaring a tool compiles and runs, as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

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
mod outcome;
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
mod trace;

use std::future::Future;

pub use arg::{Arg, Args, Choice, Union};
pub use confirm::{
    Audit, CONFIRMATION_LIFETIME, Confirm, ConfirmOutcome, ConfirmPolicy, Confirmations,
    StateKeyError, StateKeys,
};
pub use context::{Caller, Cancellation, Context, PROGRESS_INTERVAL};
pub use error::{Labels, ToolError, Violation, Violations};
pub use outcome::{CallOutcome, CallRecord};
pub use route::{
    ToolSpecs, Toolbox, ToolboxError, call, call_with, definition, route, unreadable_call,
};
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

/// What generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    use std::future::Future;

    pub use serde_json::{Map as JsonMap, Value as JsonValue};

    pub use crate::arg::choice::{read as choice_read, schema as choice_schema};
    pub use crate::arg::map::Flatten;
    pub use crate::arg::object::deepest;
    pub use crate::arg::union::{read_tagged, read_untagged, schema as union_schema};
    pub use crate::arg::{Arg, Branch, Rules, Shape, Union};
    pub use crate::group::Group;
    pub use crate::read::Fields;
    pub use crate::rule::{Characters, Numeric};
    pub use crate::schema::object_schema;
    pub use crate::{ArgSpec, Hints, Literal, Presence, ToolSpec};
    use crate::{Entity, Exists, ToolError, Uuid};

    /// A type that a string literal (a default or an example) fits. Checked in generated code,
    /// so that a literal of the wrong kind is a compile error on it.
    #[diagnostic::on_unimplemented(
        message = "a `{Self}` argument cannot have a string default or example",
        label = "a string",
        note = "a string fits a `String` argument, a `#[derive(Choice)]` enum's argument when it \
                names one of its values, or a typed format (a UUID, a URL, a date); an integer \
                choice's is one of its numbers (`default = 3`); a list's is written in brackets \
                (`default = [\"a\", \"b\"]`)"
    )]
    pub trait StringDefault {
        /// Which strings the type holds, as far as a constant can tell.
        const FORM: StringForm = StringForm::Any;
    }

    /// Which strings a type holds, as far as a constant can tell: what a string literal is
    /// checked against at compile time. A toolbox reads every literal as a call would when it
    /// adds the tool, which catches the rest (a URL, the 30th of February).
    pub enum StringForm {
        /// Any string, as far as a constant can tell.
        Any,
        /// One of these names (a `Choice`'s).
        Names(&'static [&'static str]),
        /// A UUID in the hyphenated form.
        Uuid,
        /// A date, `2024-05-31`.
        #[cfg(feature = "chrono")]
        Date,
        /// An RFC 3339 date and time, `2024-05-31T14:30:00Z`.
        #[cfg(feature = "chrono")]
        DateTime,
    }

    impl StringDefault for String {}

    impl StringDefault for Uuid {
        const FORM: StringForm = StringForm::Uuid;
    }

    #[cfg(feature = "url")]
    impl StringDefault for url::Url {}

    #[cfg(feature = "uri")]
    impl StringDefault for fluent_uri::Uri<String> {}

    #[cfg(feature = "chrono")]
    impl StringDefault for chrono::NaiveDate {
        const FORM: StringForm = StringForm::Date;
    }

    #[cfg(feature = "chrono")]
    impl<Z: chrono::TimeZone> StringDefault for chrono::DateTime<Z>
    where
        Self: crate::Arg,
    {
        const FORM: StringForm = StringForm::DateTime;
    }

    /// A type that a list literal (`default = ["a", "b"]`) fits, whose elements are `Item`s.
    #[diagnostic::on_unimplemented(
        message = "a `{Self}` argument cannot have a list default or example",
        label = "a list",
        note = "a list in brackets fits a `Vec<T>` argument, each element a literal of `T`; \
                another argument's default is one literal (`default = 10`, `default = \"a\"`)"
    )]
    pub trait ListDefault {
        /// The type of each element.
        type Item;
    }

    impl<T: crate::Arg> ListDefault for Vec<T> {
        type Item = T;
    }

    /// A type that a whole-number default (`default = 3`) fits: a number within its range, or
    /// an integer choice when it is one of its values. Checked in generated code, so that a
    /// default of the wrong kind is a compile error on the default.
    #[diagnostic::on_unimplemented(
        message = "a `{Self}` argument cannot have a whole-number default",
        label = "a whole-number default",
        note = "a whole-number default fits an integer or a float argument, or a \
                `#[derive(Choice)]` enum whose variants are numbers (`Low = 1`) when it is one \
                of them"
    )]
    pub trait WholeDefault {
        /// The smallest whole number the type holds.
        const MIN: i128;
        /// The largest whole number the type holds.
        const MAX: i128;
        /// The numbers the type holds, where it does not hold every one in its range (an
        /// integer choice's values).
        const NUMBERS: Option<&'static [i64]> = None;
    }

    macro_rules! whole_defaults {
        ($($number:ty),*) => {$(
            impl WholeDefault for $number {
                const MIN: i128 = <$number as Numeric>::MIN;
                const MAX: i128 = <$number as Numeric>::MAX;
            }
        )*};
    }

    whole_defaults!(i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);

    /// `format = "email"`'s rule: toolkit's `Email`, or without the `email` feature a stand-in
    /// that is never run, since [`email_format`] then fails to compile on the `format` key.
    #[cfg(feature = "email")]
    pub use crate::rule::Email as EmailRule;

    /// The stand-in for `format = "email"`'s rule without the `email` feature (see
    /// [`email_format`]).
    #[cfg(not(feature = "email"))]
    #[derive(Debug)]
    pub struct EmailRule;

    #[cfg(not(feature = "email"))]
    impl crate::rule::Rule for EmailRule {
        fn check(&self, _: &JsonValue) -> Result<(), String> {
            Ok(())
        }

        fn publish(&self, _: &mut JsonMap<String, JsonValue>) {}
    }

    /// Whether toolkit was built with the `email` feature, which `format = "email"` needs.
    #[diagnostic::on_unimplemented(
        message = "`format = \"email\"` needs toolkit's `email` feature",
        label = "the `email` feature is off",
        note = "turn it on where toolkit is a dependency: \
                `toolkit = {{ version = \"…\", features = [\"email\"] }}`"
    )]
    pub trait EmailFeature {}

    #[cfg(feature = "email")]
    impl EmailFeature for () {}

    /// `format = "email"`, which compiles only with toolkit's `email` feature.
    pub const fn email_format<T: EmailFeature>() {}

    /// A type that `default = true` or `default = false` fits.
    #[diagnostic::on_unimplemented(
        message = "a `{Self}` argument cannot default to `true` or `false`",
        label = "a boolean default",
        note = "`true` and `false` are defaults of a `bool` argument"
    )]
    pub trait BooleanDefault {}

    impl BooleanDefault for bool {}

    // Compile-time checks of a field's settings against its type. Generated code calls each in
    // a constant, spanned on the setting: a type without the trait is an error there, and a
    // literal the type cannot hold panics the constant's evaluation with `refusal`.

    /// A field of type `T`, in the stubs of a declaration with mistakes (the real code requires
    /// `Arg` where it reads the field).
    pub const fn argument<T: crate::Arg>() {}

    /// `min_chars` or `max_chars` on a field of type `T`.
    pub const fn characters<T: crate::rule::Characters>() {}

    /// The element of list type `L`, as the subject of the rules in `each(...)`: it takes a
    /// rule when the element type does, and the compile error names the element type.
    pub struct Element<L>(core::marker::PhantomData<L>);

    impl<L: crate::rule::Each> Characters for Element<L> where L::Item: Characters {}

    impl<L: crate::rule::Each> crate::rule::Text for Element<L> where L::Item: crate::rule::Text {}

    impl<L: crate::rule::Each> Numeric for Element<L>
    where
        L::Item: Numeric,
    {
        const MIN: i128 = <L::Item as Numeric>::MIN;
        const MAX: i128 = <L::Item as Numeric>::MAX;
        const FRACTIONS: bool = <L::Item as Numeric>::FRACTIONS;
        const LARGEST: f64 = <L::Item as Numeric>::LARGEST;
    }

    impl<L: crate::rule::Each> crate::rule::Each for Element<L>
    where
        L::Item: crate::rule::Each,
    {
        type Item = <L::Item as crate::rule::Each>::Item;
    }

    impl<L: crate::rule::Each> crate::rule::Items for Element<L> where L::Item: crate::rule::Items {}

    impl<L: crate::rule::Each> crate::rule::Entries for Element<L> where L::Item: crate::rule::Entries {}

    /// `pattern` on a field of type `T`.
    pub const fn text<T: crate::rule::Text>() {}

    /// `min_items`, `max_items` or `unique` on a field of type `T`.
    pub const fn items<T: crate::rule::Items>() {}

    /// `min_entries` or `max_entries` on a field of type `T`.
    pub const fn entries<T: crate::rule::Entries>() {}

    /// A whole-number bound or default on a field of type `T`.
    pub const fn whole<T: Numeric>(value: i128, refusal: &str) {
        if value < T::MIN || value > T::MAX {
            panic!("{}", refusal);
        }
    }

    /// A whole-number default on a field of type `T`: within its range (else `refusal`), and
    /// one of its numbers if it has numbers (else `not_one`).
    pub const fn whole_default<T: WholeDefault>(value: i128, refusal: &str, not_one: &str) {
        if value < T::MIN || value > T::MAX {
            panic!("{}", refusal);
        }
        let Some(numbers) = T::NUMBERS else {
            return;
        };
        let mut index = 0;
        while index < numbers.len() {
            if numbers[index] as i128 == value {
                return;
            }
            index += 1;
        }
        panic!("{}", not_one);
    }

    /// A bound or default with a fraction or an exponent (finite: the macro refuses `1e400`) on
    /// a field of type `T`.
    pub const fn float<T: Numeric>(value: f64, refusal: &str) {
        if !T::FRACTIONS || value.abs() > T::LARGEST {
            panic!("{}", refusal);
        }
    }

    /// A string literal on a field of type `T`: one of its names, if it has names (else
    /// `not_one`), and in its form, if it has one a constant can check (else `malformed`).
    pub const fn string_default<T: StringDefault>(value: &str, not_one: &str, malformed: &str) {
        let fits = match T::FORM {
            StringForm::Any => true,
            StringForm::Names(names) => {
                let mut index = 0;
                while index < names.len() && !same_str(names[index], value) {
                    index += 1;
                }
                if index == names.len() {
                    panic!("{}", not_one);
                }
                true
            }
            StringForm::Uuid => crate::arg::uuid::hyphenated(value),
            #[cfg(feature = "chrono")]
            StringForm::Date => crate::arg::date::full_date(value),
            #[cfg(feature = "chrono")]
            StringForm::DateTime => crate::arg::date::rfc3339_date_time(value),
        };
        if !fits {
            panic!("{}", malformed);
        }
    }

    /// A list literal on a field of type `L`, called with `T` = `<L as ListDefault>::Item`:
    /// naming the element type is the check that `L` is a list, written as each element's
    /// check writes it, so that a field that is no list is one error, not one per element.
    pub const fn list_default<T>() {}

    /// What reading `value` as a `T` with `rules` refuses, one `place: sentence` each: an
    /// [`ArgSpec::refusals`](crate::ArgSpec::refusals).
    pub fn refusals<T: crate::Arg>(value: &JsonValue, rules: &crate::arg::Rules) -> Vec<String> {
        let mut violations = crate::Violations::default();
        let mut reading = crate::arg::Reading::new("", false, None, &mut violations);
        let _ = T::read(value, rules, &mut reading);
        violations
            .iter()
            .map(|violation| match violation.argument.as_str() {
                "" => violation.sentence.clone(),
                place => format!("{place}: {}", violation.sentence),
            })
            .collect()
    }

    /// `a == b`, which a `const fn` cannot write for strings.
    const fn same_str(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut index = 0;
        while index < a.len() {
            if a[index] != b[index] {
                return false;
            }
            index += 1;
        }
        true
    }

    /// A `true` or `false` default on a field of type `T`.
    pub const fn boolean_default<T: BooleanDefault>() {}

    /// Checks every `exists = …` argument of a tool; generated with one `Exists` bound per
    /// entity the tool refers to. The ids are taken apart from the tool, so they can still be
    /// checked after `run` has consumed it.
    pub trait References<S> {
        /// The `exists` arguments' ids, in argument order (`None`: not passed).
        type Ids: Copy + Send + AsRef<[Option<Uuid>]>;

        fn reference_ids(&self) -> Self::Ids;

        /// `Not Found` for the first id that names nothing.
        fn check_references(
            ids: Self::Ids,
            state: &S,
        ) -> impl Future<Output = Result<(), ToolError>> + Send;
    }

    /// How a tool asks the user to confirm a call: its [`Confirm`](crate::Confirm) impl when it
    /// declares `confirm` (the derive requires one then), and never asked otherwise.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is declared with `#[tool(confirm)]`, so it must say what the user is asked to confirm",
        label = "needs `impl toolkit::Confirm<{S}> for {Self}`",
        note = "implement `toolkit::Confirm<{S}>` for `{Self}`, whose `confirmation` words the question, or drop `confirm`"
    )]
    pub trait Confirms<S> {
        /// What did not happen when the user declines.
        const DECLINED: &'static str = "the tool did not run.";

        /// The question the user is asked.
        fn confirmation(
            &self,
            state: &S,
            context: &crate::Context,
        ) -> impl Future<Output = Result<String, ToolError>> + Send {
            let _ = (state, context);
            async { Ok(String::new()) }
        }
    }

    /// The id an `exists` field holds, whether the field is `Uuid` or `Option<Uuid>`.
    #[diagnostic::on_unimplemented(
        message = "`exists` checks an id, so the field must be a `Uuid`, `Option<Uuid>` or `Option<Option<Uuid>>`, not `{Self}`",
        label = "not an id",
        note = "an id is a `toolkit::Uuid` (the `uuid` crate's)"
    )]
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

    impl ReferenceId for Option<Option<Uuid>> {
        fn reference_id(&self) -> Option<Uuid> {
            self.flatten()
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
