//! The checked model of a tool declaration: what `check` hands to `expand`. `expand` writes the
//! tool from it when `check` reported nothing, and stubs otherwise, so the model is built even
//! from a declaration with mistakes: a value that failed its check holds a stand-in (an empty
//! name, no rule), and a missing output type is the error itself (`attr::error_type`). What
//! needs types (that a field's type is an argument type and takes its rules, that an `exists`
//! entity is an `Entity`, that the output type serializes) the compiler checks through the
//! generated bounds and constants. Expansion itself cannot fail.

use syn::Ident;

use crate::rule::Checked;

/// A tool declaration, checked.
pub struct Model<'a> {
    pub ident: &'a Ident,
    pub name: String,
    pub title: String,
    pub description: String,
    pub hints: Hints,
    /// The OAuth scope a caller's token needs, when the tool declares one.
    pub scope: Option<String>,
    /// What the tool lets a model do, as a server's instructions list it.
    pub ability: Option<String>,
    /// A sentence a server's instructions add while the tool is served.
    pub caution: Option<String>,
    /// Whether the user confirms each call (`#[tool(confirm)]`).
    pub confirm: bool,
    /// How long a call may run (`#[tool(timeout = "30s")]`).
    pub timeout: Option<std::time::Duration>,
    /// How often one caller may call: calls, and the period (`#[tool(rate_limit = "60/min")]`).
    pub rate_limit: Option<(u32, std::time::Duration)>,
    /// Whether the tool takes an `idempotencyKey` after its own arguments
    /// (`#[tool(idempotency_key)]`).
    pub idempotency_key: bool,
    pub output: syn::Type,
    pub args: Vec<Arg<'a>>,
    /// Which arguments are given together.
    pub groups: Vec<Group>,
}

/// A rule about which fields of one struct are given together, by their indexes.
pub enum Group {
    OneOf(Vec<usize>),
    AnyOf(Vec<usize>),
    Conflicts(usize, usize),
    Requires(usize, usize),
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
    /// The argument's type: the field's, or the `T` of an `Option<T>` field, as written (errors
    /// about it point there).
    pub ty: &'a syn::Type,
    /// Whether the field is an `Option`.
    pub optional: bool,
    /// Whether the field is an `Option<Option<T>>`, whose `null` is `Some(None)`.
    pub nullable: bool,
    pub wire_name: String,
    pub description: Option<String>,
    /// The rules its value must keep, in the order a call checks them.
    pub rules: Rules,
    pub presence: Presence,
    pub message: Option<String>,
    pub ignored_with: Option<usize>,
    /// Whether the field takes the names the object does not declare (`#[arg(flatten)]`).
    pub flatten: bool,
    /// The entity `exists = …` names, and where the key was written.
    pub exists: Option<(syn::Path, proc_macro2::Span)>,
    /// `examples = [...]`: each value, and where it was written (for the generated checks
    /// against the type).
    pub examples: Vec<(Value, proc_macro2::Span)>,
}

/// The rules of one value, checked: its own, and its elements' (`each(...)`) with where
/// `each` was written.
pub struct Rules {
    pub own: Vec<Box<dyn Checked>>,
    pub each: Option<(proc_macro2::Span, Box<Rules>)>,
}

/// What leaving the argument out means.
pub enum Presence {
    Required,
    Optional,
    /// A default, and where it was written (for the generated checks against the type).
    Default(Value, proc_macro2::Span),
    RequiredUnless(usize),
}

/// A default or an example, already checked against the rules; the generated code checks it
/// against the type.
pub enum Value {
    String(String),
    Boolean(bool),
    Integer(i128),
    Float(f64),
    /// A list's elements, each with where it was written.
    List(Vec<(Value, proc_macro2::Span)>),
}

impl Value {
    /// Whether two values are the same JSON value, as `uniqueItems` compares them: `1` and
    /// `1.0` are one number.
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Boolean(a), Value::Boolean(b)) => a == b,
            (Value::Integer(a), Value::Integer(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Integer(a), Value::Float(b)) | (Value::Float(b), Value::Integer(a)) => {
                *a as f64 == *b
            }
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|((a, _), (b, _))| a.same(b))
            }
            _ => false,
        }
    }
}

/// The value as it would be written in the attribute.
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::String(text) => write!(f, "{text:?}"),
            Value::Boolean(flag) => flag.fmt(f),
            Value::Integer(number) => number.fmt(f),
            Value::Float(number) => write!(f, "{number:?}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (index, (item, _)) in items.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    item.fmt(f)?;
                }
                f.write_str("]")
            }
        }
    }
}
