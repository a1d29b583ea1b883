//! The checked model of a tool declaration: what `check` hands to `expand`. Every value here
//! passed every check the macro can make from the tokens; what needs types (that an `exists`
//! entity is an `Entity`, that the output type serializes) the compiler checks through the
//! generated bounds. Expansion itself cannot fail.

use syn::Ident;

/// A tool whose declaration passed every check.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub name: String,
    pub title: String,
    pub description: String,
    pub hints: Hints,
    /// The OAuth scope a caller's token needs, when the tool declares one.
    pub scope: Option<String>,
    pub output: syn::Type,
    pub args: Vec<Arg<'a>>,
}

/// The four MCP hints, every one stated.
#[derive(Clone, Copy, Default)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

/// One checked argument.
pub struct Arg<'a> {
    pub ident: &'a Ident,
    /// The field's type, as written: errors about it point there.
    pub ty: &'a syn::Type,
    pub wire_name: String,
    pub label: String,
    pub description: Option<String>,
    pub kind: Kind,
    pub presence: Presence,
    pub message: Option<String>,
    pub ignored_with: Option<usize>,
    pub exists: Option<syn::Path>,
}

/// The argument's JSON type with its effective rules (integer bounds include the Rust type's).
pub enum Kind {
    String {
        min_chars: Option<u64>,
        max_chars: Option<u64>,
    },
    Boolean,
    Integer {
        min: i128,
        max: i128,
    },
    Uuid,
}

/// What leaving the argument out means.
pub enum Presence {
    Required,
    Optional,
    Default(DefaultValue),
    RequiredUnless(usize),
}

/// A default, already checked against the type and the rules.
pub enum DefaultValue {
    String(String),
    Boolean(bool),
    Integer(i128),
}
