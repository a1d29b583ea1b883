//! Declare MCP tools as annotated Rust structs.
//!
//! GUIDE

mod error;
mod parse;
mod route;
mod schema;
mod spec;
mod value;

use std::future::Future;

pub use error::{ToolError, Violation, Violations};
pub use route::{Toolbox, ToolboxError, call, definition, route};
pub use schema::{OutputSchemaError, input_schema, output_schema};
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
/// every id they reference exists.
pub trait Run<S>: Tool + __private::References<S> {
    /// Runs the tool.
    fn run(self, state: &S) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
}

/// A kind of thing that arguments refer to by id (`#[arg(exists = Movie)]`), declared once for
/// every tool that refers to it.
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
pub trait Exists<E: Entity>: Sync {
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
    /// entity the tool refers to.
    pub trait References<S> {
        fn check_references(&self, state: &S)
        -> impl Future<Output = Result<(), ToolError>> + Send;
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
