//! `pattern`: a string must match a regular expression, as JSON Schema's `pattern` has it (a
//! match anywhere in the string, unless anchored with `^` and `$`).
//!
//! A client reads the published pattern as ECMA-262 does; the server matches its Rust
//! translation, which `#[derive(Tool)]` wrote after refusing every construct the two read
//! differently (see the macro's `rule/pattern.rs`). Each is compiled once, on first use.

use std::collections::HashMap;
use std::sync::{LazyLock, PoisonError, RwLock};

use regex::Regex;
use serde_json::{Map, Value, json};

use super::Rule;
use crate::arg::quoted;

/// The pattern a string argument must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern as declared, and published: ECMA-262 syntax.
    pub source: &'static str,
    /// The same pattern as Rust's `regex` reads it, with ECMA-262's meanings of `\d`, `\w`,
    /// `\s`, `\b` and `.` written out.
    pub rust: &'static str,
}

/// A type whose values `pattern` and `format = "email"` apply to: `String`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a string, so `pattern` and `format` cannot apply to it",
    label = "needs a `String` field",
    note = "`pattern` is a regular expression a `String` argument must match, and \
            `format = \"email\"` makes one an email address"
)]
pub trait Text {}

impl Text for String {}

/// Every pattern compiled so far, by its Rust text. Declarations hold a fixed set of patterns,
/// so the map stays small.
static COMPILED: LazyLock<RwLock<HashMap<&'static str, Regex>>> = LazyLock::new(Default::default);

/// The compiled form of `rust`. The macro compiled the same text with the same `regex`, so it
/// compiles here; should it not, the error is logged and no value matches.
fn compiled(rust: &'static str) -> Option<Regex> {
    let known = COMPILED.read().unwrap_or_else(PoisonError::into_inner);
    if let Some(regex) = known.get(rust) {
        return Some(regex.clone());
    }
    drop(known);
    match Regex::new(rust) {
        Ok(regex) => {
            let mut known = COMPILED.write().unwrap_or_else(PoisonError::into_inner);
            known.insert(rust, regex.clone());
            Some(regex)
        }
        Err(error) => {
            tracing::error!(pattern = rust, %error, "a declared pattern does not compile");
            None
        }
    }
}

impl Rule for Pattern {
    fn name(&self) -> &'static str {
        "pattern"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(text) = value.as_str() else {
            return Ok(());
        };
        if compiled(self.rust).is_some_and(|regex| regex.is_match(text)) {
            Ok(())
        } else {
            Err(format!(
                "Must match the pattern {}, not {}.",
                self.source,
                quoted(text)
            ))
        }
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        property.insert("pattern".into(), json!(self.source));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_matches_anywhere_unless_anchored() {
        let rule = Pattern {
            source: r"^[A-Z]{2}-\d+$",
            rust: r"^[A-Z]{2}-[0-9]+$",
        };
        assert_eq!(rule.check(&json!("AB-12")), Ok(()));
        assert_eq!(
            rule.check(&json!("ab-12")),
            Err(r#"Must match the pattern ^[A-Z]{2}-\d+$, not "ab-12"."#.to_owned())
        );
        let unanchored = Pattern {
            source: "b",
            rust: "b",
        };
        assert_eq!(unanchored.check(&json!("abc")), Ok(()));
        assert_eq!(
            unanchored.check(&json!(5)),
            Ok(()),
            "not a string: not this rule's"
        );
    }
}
