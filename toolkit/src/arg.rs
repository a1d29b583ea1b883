//! The Rust types an argument can have, one module each: how a JSON value is read as the type,
//! and the JSON Schema keywords that tell a client the same. A type's module holds both halves,
//! so what is published and what is accepted are written side by side.
//!
//! A new argument type is one `impl Arg`, in a module here or in the user's own crate (a
//! `Stars(u8)` that only holds 1 to 5, say).

mod boolean;
pub(crate) mod choice;
#[cfg(feature = "chrono")]
pub(crate) mod date;
mod float;
mod integer;
mod json;
mod list;
pub(crate) mod map;
pub(crate) mod object;
mod string;
mod tuple;
pub(crate) mod union;
#[cfg(feature = "uri")]
mod uri;
#[cfg(feature = "url")]
mod url;
pub(crate) mod uuid;

pub use choice::Choice;
pub use integer::MAX_SAFE_INTEGER;
pub(crate) use integer::integer_json;
pub use json::MAX_JSON_DEPTH;
pub use object::Args;
pub use union::{Branch, Shape, Union};

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::Violations;
use crate::rule::Rule;

/// A Rust type that a tool argument can have: `String`, `bool`, the integers, `f32` and `f64`,
/// [`Uuid`](crate::Uuid), choices, objects, unions, lists, tuples and maps of these,
/// `serde_json::Value`, and any type that implements it. `Option<T>` of one is an optional argument.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type a tool argument can have",
    label = "not an argument type",
    note = "an argument is a `String`, a `bool`, an integer (`i8` to `i64`, `u8` to `u64`, \
            `usize`), an `f32` or `f64`, a `toolkit::Uuid` (the `uuid` crate's), a \
            `#[derive(Choice)]` enum, a `#[derive(Args)]` struct or enum, a `Vec<T>`, a tuple `(A, B)` \
            of up to eight, a `BTreeMap` or `HashMap` from `String` to `T`, a \
            `serde_json::Value`, or any type that implements `toolkit::Arg`; or an `Option` of \
            one, or an `Option<Option<T>>` of one, whose `null` differs from left out"
)]
pub trait Arg: Sized + Send + 'static {
    /// How many objects deep a value of the type nests: 0 for a string or a number, one more
    /// than its deepest field for a `#[derive(Args)]` struct. The derive evaluates it, so that
    /// a type that contains itself is a compile error rather than a schema without end.
    const NESTING: usize = 0;

    /// Writes the type's JSON Schema keywords into an argument's property (`"type": "integer"`
    /// and its natural bounds), then the keywords of the rules declared on it
    /// ([`Rules::publish`]).
    fn schema(schema: &mut Map<String, Value>, rules: &Rules);

    /// Reads a JSON value (never `null`) as this type. A value of the wrong JSON type, or one
    /// the type cannot hold, is refused with a sentence saying what it must be; a value of the
    /// right type is then checked against the declared rules ([`Reading::check`]). `None` when
    /// anything was refused (and reported to `at`).
    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self>;

    /// Adds to `found` the fields of every object the type holds: an object's own, and those
    /// of a list's, a map's, a tuple's or a union's objects. A toolbox walks them to check each
    /// declared default and example. A type that holds no object keeps the default, which adds
    /// nothing.
    #[doc(hidden)]
    fn nested_args(found: &mut Vec<&'static [crate::ArgSpec]>) {
        let _ = found;
    }
}

/// The rules declared on one value, in the order a call checks them.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The rules on the value itself.
    pub own: &'static [&'static dyn Rule],
    /// The rules on each element, for a list: `each(...)`.
    pub each: Option<&'static Rules>,
}

impl Rules {
    /// No rules.
    pub const NONE: Rules = Rules {
        own: &[],
        each: None,
    };

    /// Writes every rule's JSON Schema keywords, after the type's own (a declared `maximum`
    /// replaces the type's natural one).
    pub fn publish(&self, schema: &mut Map<String, Value>) {
        for rule in self.own {
            rule.publish(schema);
        }
    }

    /// The rules on each element (none, where `each(...)` was not written).
    pub fn each(&self) -> &'static Rules {
        self.each.unwrap_or(&Rules::NONE)
    }
}

/// Where a value is being read, and where its broken rules are reported. An argument's own
/// problems are reported under its label, with its `message` in place of a broken rule's
/// sentence; an element's under its path in wire names (`labels[2]`), with the rule's own.
pub struct Reading<'a> {
    /// The value's place in wire names (`labels`, `edits[1].oldText`), which an element's
    /// place extends.
    name: Cow<'a, str>,
    /// Whether `name` is a tool's own argument, named in the server's label style.
    declared: bool,
    /// Below the argument: `[2]`, `[2].oldText`; empty at the argument itself.
    path: String,
    message: Option<&'static str>,
    violations: &'a mut Violations,
}

impl<'a> Reading<'a> {
    pub(crate) fn new(
        name: impl Into<Cow<'a, str>>,
        declared: bool,
        message: Option<&'static str>,
        violations: &'a mut Violations,
    ) -> Self {
        Reading {
            name: name.into(),
            declared,
            path: String::new(),
            message,
            violations,
        }
    }

    /// A reading whose reports are kept in `violations` and not shown, to count them.
    pub(crate) fn quiet(violations: &'a mut Violations) -> Self {
        Reading::new("", false, None, violations)
    }

    /// Reports that the value is not of the type, or not one the type can hold:
    /// `Must be a string, not a number.` Always `None`, to return.
    pub fn refuse<T>(&mut self, sentence: impl Into<String>) -> Option<T> {
        self.refuse_for("type", sentence)
    }

    /// Reports that the value breaks the rule named `rule` (see
    /// [`Violation::rule`](crate::Violation::rule)): `format` for a value of the right JSON type
    /// not in the type's form (a UUID, a date), `enum` for one not among a choice's values.
    /// Always `None`, to return.
    pub fn refuse_for<T>(&mut self, rule: &'static str, sentence: impl Into<String>) -> Option<T> {
        let declared = self.declared && self.path.is_empty();
        let place = if declared {
            self.name.to_string()
        } else {
            self.wire_path()
        };
        self.violations.push_broken(place, declared, rule, sentence);
        None
    }

    /// Checks `value` against `rules` in order, reporting the first broken one (or, for the
    /// argument itself, its `message` in its place). `None` when one broke.
    pub fn check(&mut self, value: &Value, rules: &Rules) -> Option<()> {
        for rule in rules.own {
            if let Err(sentence) = rule.check(value) {
                let sentence = match self.message {
                    Some(message) if self.path.is_empty() => message.to_owned(),
                    _ => sentence,
                };
                return self.refuse_for(rule.name(), sentence);
            }
        }
        Some(())
    }

    /// Reads the value at `key` of a map with `read`, reporting under `name["key"]`.
    pub fn entry<T>(
        &mut self,
        key: &str,
        read: impl FnOnce(&mut Reading<'_>) -> Option<T>,
    ) -> Option<T> {
        self.within(Place::Key(key), read)
    }

    /// Reads the element at `index` of a list with `read`, reporting under `name[index]`.
    pub fn item<T>(
        &mut self,
        index: usize,
        read: impl FnOnce(&mut Reading<'_>) -> Option<T>,
    ) -> Option<T> {
        self.within(Place::Index(index), read)
    }

    fn within<T>(
        &mut self,
        place: Place<'_>,
        read: impl FnOnce(&mut Reading<'_>) -> Option<T>,
    ) -> Option<T> {
        use std::fmt::Write as _;
        let length = self.path.len();
        // Writing to a `String` cannot fail.
        let _ = match place {
            Place::Index(index) => write!(self.path, "[{index}]"),
            Place::Key(key) => write!(self.path, "[{}]", quoted(key)),
        };
        let value = read(self);
        self.path.truncate(length);
        value
    }

    /// Reads each element of a list or value of a map as a `T` with the rules `each`, all of
    /// them or `None`. At most [`MAX_REPORTED_ELEMENTS`] broken ones are reported one by one;
    /// one sentence counts the rest (`nouns`: the one and the many, `item breaks its`), so
    /// that a million bad elements get a short message.
    pub(crate) fn elements<'v, T: Arg>(
        &mut self,
        elements: impl Iterator<Item = (Place<'v>, &'v Value)>,
        each: &Rules,
        nouns: (&str, &str),
    ) -> Option<Vec<T>> {
        let mut read = Vec::new();
        let (mut reported, mut unreported) = (0, 0);
        for (place, element) in elements {
            let item = if reported < MAX_REPORTED_ELEMENTS {
                self.within(place, |at| T::read(element, each, at))
            } else {
                let mut ignored = Violations::default();
                T::read(element, each, &mut Reading::quiet(&mut ignored))
            };
            match item {
                Some(item) => read.push(item),
                None if reported < MAX_REPORTED_ELEMENTS => reported += 1,
                None => unreported += 1,
            }
        }
        if unreported > 0 {
            let noun = if unreported == 1 { nouns.0 } else { nouns.1 };
            self.refuse::<()>(format!("{unreported} more {noun} rules."));
        }
        (reported == 0).then_some(read)
    }

    /// The value's path in wire names (`edits[1]`), which a nested object's fields extend.
    pub(crate) fn wire_path(&self) -> String {
        format!("{}{}", self.name, self.path)
    }

    /// Where the broken rules go, for a nested object's fields.
    pub(crate) fn violations(&mut self) -> &mut Violations {
        self.violations
    }
}

/// Where an element is: its index in a list, or its key in a map.
pub(crate) enum Place<'k> {
    Index(usize),
    Key(&'k str),
}

/// Broken elements of one list or map reported one by one, at most.
const MAX_REPORTED_ELEMENTS: usize = 10;

/// Strings longer than this are cut short when a message shows them, so that a long value does
/// not blow up the message.
const MAX_QUOTED_CHARS: usize = 64;

/// A string as sent, for a message: JSON-quoted (so control characters are escaped and the
/// message stays one line), and cut after [`MAX_QUOTED_CHARS`] characters with `…`.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", Value::from(&text[..cut])),
        None => Value::from(text).to_string(),
    }
}

/// Reads `value` as a `T` with no rules, for a type's tests: the value, or its sentences.
#[cfg(test)]
pub(crate) fn read_alone<T: Arg>(value: Value) -> Result<T, String> {
    let mut violations = Violations::default();
    let read = T::read(
        &value,
        &Rules::NONE,
        &mut Reading::new("n", true, None, &mut violations),
    );
    read.ok_or_else(|| violations.iter().map(|v| v.sentence.clone()).collect())
}

/// What a JSON value is, for a sentence that refuses it: `not a string`.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
