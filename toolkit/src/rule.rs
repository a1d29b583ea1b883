//! The rules a given argument value must keep, one module each. A rule's module holds all of its
//! runtime half: the spec entry `#[derive(Tool)]` writes (the rule's type, with its bounds), the
//! check every call's value must pass, the JSON Schema keywords that tell a client the same
//! rule, and the trait a field's type must implement to take the rule (so a rule on the wrong
//! type is a compile error on the field). Its compile-time half (the `#[arg(...)]` keys it reads
//! and what the macro refuses in them) is the module of the same name in `tool-macros`.
//!
//! A rule checks the JSON value as sent, once it is known to have the argument's type, and, as
//! a JSON Schema keyword does, passes any value it does not apply to.
//!
//! A new rule is a module here implementing [`Rule`], and one in the macro; the guide's "How it
//! works" (`docs/framework.md`) lists the tests and docs that change with it.

#[cfg(feature = "email")]
mod email;
mod entries;
mod items;
mod length;
mod pattern;
mod range;

use std::any::Any;
use std::fmt::Debug;

use serde_json::{Map, Value};

#[cfg(feature = "email")]
pub use email::Email;
pub use entries::{Entries, EntryCount};
pub use items::{Each, ItemCount, Items};
pub use length::{Characters, Length};
pub use pattern::{Pattern, Text};
pub use range::{Bound, Number, Numeric, Range};

/// `1 item`, `2 items`: a count and its noun, for a rule's sentence.
pub(crate) fn count(number: u64, one: &str, many: &str) -> String {
    if number == 1 {
        format!("1 {one}")
    } else {
        format!("{number} {many}")
    }
}

/// A rule on the value of an argument, checked on every call and published in its schema.
pub trait Rule: Any + Debug + Sync {
    /// Checks a value that already has the argument's JSON type, as sent:
    /// `Err("Must be at most 40 characters long, not 41.")`.
    fn check(&self, value: &Value) -> Result<(), String>;

    /// Writes the rule's JSON Schema keywords into the argument's property (`maxLength`).
    fn publish(&self, property: &mut Map<String, Value>);

    /// The rule's name in the `violations` of an error a program reads (see the guide's
    /// "Errors a program can read"): `range`, `length`, `pattern`, `format`, `items`,
    /// `entries`.
    fn name(&self) -> &'static str;
}
