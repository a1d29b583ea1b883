//! The static description of a tool that `#[derive(Tool)]` generates: its name, title, hints and
//! every argument with its rules. Parsing, the input schema and the rmcp registration are all
//! computed from this one value, which is why what a client is told and what the server enforces
//! cannot disagree.

use std::any::Any;

use serde_json::{Map, Value, json};

use crate::arg::Rules;
use crate::rule::Rule;

/// Everything the framework knows about one tool, generated from its declaration.
#[derive(Debug)]
pub struct ToolSpec {
    /// The MCP tool name (`movies_search`).
    pub name: &'static str,
    /// The human-readable title (`Search movies`).
    pub title: &'static str,
    /// The description a model reads: the struct's doc comment or `description = "..."`.
    pub description: &'static str,
    /// The four MCP behaviour hints, every one stated in the declaration.
    pub hints: Hints,
    /// The OAuth scope a caller's token must carry to call the tool, where the server checks
    /// tokens (`reviews.read`). `None`: any token the server accepts will do.
    pub scope: Option<&'static str>,
    /// What the tool lets a model do, as a phrase that a server's instructions list among
    /// others (`search movies`), so that they name only the tools served.
    pub ability: Option<&'static str>,
    /// A warning that a server's instructions add, in full sentences, while the tool is served
    /// (`Deleting is permanent: confirm with the user first.`).
    pub caution: Option<&'static str>,
    /// Whether the user confirms each call before it runs (`#[tool(confirm)]`; see
    /// [`Confirm`](crate::Confirm)).
    pub confirm: bool,
    /// The arguments, in declaration order: the order of the schema and of violations.
    pub args: &'static [ArgSpec],
    /// Which arguments are given together: `one_of`, `any_of`, `conflicts_with`, `requires`.
    pub groups: &'static [crate::group::Group],
    /// How long a call may run before it is stopped (`#[tool(timeout = "30s")]`). `None`: as
    /// long as the server's default allows.
    pub timeout: Option<std::time::Duration>,
    /// How often one caller may call the tool (`#[tool(rate_limit = "60/min")]`). `None`: as
    /// often as the server's default allows.
    pub rate_limit: Option<crate::RateLimit>,
    /// Whether the tool takes an `idempotencyKey` (`#[tool(idempotency_key)]`), the last of
    /// its [`args`](Self::args): a retry with the same key gets the first call's result.
    pub idempotency_key: bool,
}

impl ToolSpec {
    /// The argument declared by the Rust field `field`, if there is one.
    pub fn arg(&self, field: &str) -> Option<&ArgSpec> {
        self.args.iter().find(|arg| arg.field == field)
    }

    /// Each declared default and example, in the tool's arguments and the objects inside them,
    /// that its argument would refuse if a client sent it: one sentence each, naming the tool
    /// and the argument.
    pub(crate) fn refused_literals(&self) -> Vec<String> {
        let mut problems = Vec::new();
        refused_literals(self.name, self.args, &mut Vec::new(), &mut problems);
        problems
    }
}

/// [`ToolSpec::refused_literals`] of the arguments `args`, inside the arguments `path`.
fn refused_literals(
    tool: &str,
    args: &'static [ArgSpec],
    path: &mut Vec<&'static str>,
    problems: &mut Vec<String>,
) {
    for arg in args {
        path.push(arg.name);
        let default = match arg.presence {
            Presence::Default(default) => Some(("default", default)),
            _ => None,
        };
        let examples = arg.examples.iter().map(|example| ("example", *example));
        for (what, literal) in default.into_iter().chain(examples) {
            let value = literal.json();
            let refusals = (arg.refusals)(&value, &arg.rules);
            if !refusals.is_empty() {
                problems.push(format!(
                    "the {what} {value} of `{tool}`'s argument `{}` is not a value it takes: {}",
                    path.join("."),
                    refusals.join(" ")
                ));
            }
        }
        let mut nested = Vec::new();
        (arg.nested)(&mut nested);
        for fields in nested {
            refused_literals(tool, fields, path, problems);
        }
        path.pop();
    }
}

/// The MCP tool annotations, which tell a client how careful to be with a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// The tool changes nothing.
    pub read_only: bool,
    /// The tool may destroy or overwrite data (meaningful only when not read-only).
    pub destructive: bool,
    /// Calling the tool twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// The tool reaches things outside this server (the web, other systems).
    pub open_world: bool,
}

/// One argument: its names, its type and every rule it carries.
#[derive(Debug)]
pub struct ArgSpec {
    /// The Rust field the value goes into (`movie_id`).
    pub field: &'static str,
    /// The name on the wire (`movieId`).
    pub name: &'static str,
    /// The field's doc comment, published as the argument's description.
    pub description: Option<&'static str>,
    /// Writes the JSON Schema of the argument's type and rules: the field's
    /// [`Arg::schema`](crate::Arg::schema).
    pub schema: fn(&mut Map<String, Value>, &Rules),
    /// The rules declared on the value, in the order they are checked.
    pub rules: Rules,
    /// What happens when the argument is left out.
    pub presence: Presence,
    /// A sentence that replaces the default one when a declared rule of this argument breaks.
    pub message: Option<&'static str>,
    /// Index of the argument that, when given, makes this one ignored: it is still validated,
    /// but neither checked for existence nor passed to the tool.
    pub ignored_with: Option<usize>,
    /// Whether `null` is a value of its own (an `Option<Option<T>>` field: `Some(None)`),
    /// rather than the argument left out. Published as `anyOf` of the type and `null`.
    pub nullable: bool,
    /// For a map that takes every name the object does not declare (`#[arg(flatten)]`): the
    /// object's `additionalProperties`, which it is published as rather than as a property.
    pub flatten: Option<fn(&Rules) -> Value>,
    /// Values a client could send, published as `examples` (`#[arg(examples = [...])]`).
    pub examples: &'static [Literal],
    /// What reading `value` as the argument's type with `rules` would refuse, as a call reads
    /// it, one `place: sentence` each (nothing when it fits): how a toolbox checks each declared
    /// default and example, including those the macro cannot (a URL, a type of the user's own).
    pub refusals: fn(&Value, &Rules) -> Vec<String>,
    /// The fields of the objects the argument's type holds ([`Arg::nested_args`](crate::Arg)),
    /// whose defaults and examples a toolbox checks in turn.
    pub nested: fn(&mut Vec<&'static [ArgSpec]>),
}

impl ArgSpec {
    /// The argument's rule of type `R`, if it has one:
    /// `spec.args[0].rule::<Length>()`.
    pub fn rule<R: Rule>(&self) -> Option<&R> {
        self.rules
            .own
            .iter()
            .find_map(|rule| (*rule as &dyn Any).downcast_ref::<R>())
    }
}

/// What a missing (or `null`) argument means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Presence {
    /// Leaving it out is a broken rule.
    Required,
    /// Leaving it out gives the tool `None`.
    Optional,
    /// Leaving it out gives the tool this value.
    Default(Literal),
    /// Leaving it out is a broken rule unless the argument at this index is given.
    RequiredUnless(usize),
}

/// A value written in a declaration: a default or an example. The macro checks it against the
/// field's rules and, as far as a constant can, its type; a toolbox reads it as a call would
/// when the tool is added ([`Toolbox::tool`](crate::Toolbox::tool)); a call reads a default as if
/// it had been sent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    /// A string (`"title"`).
    String(&'static str),
    /// `true` or `false`.
    Boolean(bool),
    /// A whole number (`10`).
    Integer(i128),
    /// A number with a fraction or an exponent (`0.5`).
    Float(f64),
    /// A list of literals (`["a", "b"]`), for a list argument.
    List(&'static [Literal]),
}

impl Literal {
    /// The value as JSON, as a client would send it.
    pub fn json(self) -> Value {
        match self {
            Literal::String(text) => json!(text),
            Literal::Boolean(flag) => json!(flag),
            Literal::Integer(number) => crate::arg::integer_json(number),
            Literal::Float(number) => json!(number),
            Literal::List(items) => Value::Array(items.iter().map(|item| item.json()).collect()),
        }
    }
}
