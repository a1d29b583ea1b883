//! Reading a raw JSON arguments object into a tool's fields, collecting every problem.
//!
//! Unlike a serde derive, nothing here stops at the first error: the generated `Tool::read`
//! asks [`Fields`] for each declared argument in turn, which checks its presence, its type and
//! every rule, and then each undeclared name is reported; the caller gets either the tool or
//! every violation.

use serde_json::{Map, Value};

use crate::arg::{Reading, Rules};
use crate::error::join_or;
use crate::{ArgSpec, Presence, ToolError, Violations};

/// Names longer than this are cut short when echoed back, so a hostile key cannot blow up the
/// message.
const MAX_ECHOED_NAME_CHARS: usize = 64;

/// Undeclared names listed one by one, at most; past it the message says how many more there
/// are, so a request with a hundred thousand of them gets a message of a few lines.
const MAX_LISTED_UNKNOWN_NAMES: usize = 10;

/// How a field's type reads a value: its [`Arg::read`](crate::Arg::read). Generated code passes
/// it, so that a field's type is required to be an `Arg` in one place only.
pub type Read<T> = fn(&Value, &Rules, &mut Reading<'_>) -> Option<T>;

/// The arguments of one call, read field by field against the declared arguments.
pub struct Fields<'a> {
    args: &'static [ArgSpec],
    arguments: &'a Map<String, Value>,
    violations: Violations,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(args: &'static [ArgSpec], arguments: &'a Map<String, Value>) -> Self {
        Fields {
            args,
            arguments,
            violations: Violations::default(),
        }
    }

    /// The value of a field that is not an `Option`: as sent, else its default. `None` when it
    /// broke a rule or is missing (reported).
    pub fn required<T>(&mut self, index: usize, read: Read<T>) -> Option<T> {
        let arg = self.arg(index);
        if let Some(raw) = self.given(index) {
            return self.read(arg, raw, read);
        }
        match arg.presence {
            Presence::Default(default) => self.read(arg, &default.json(), read),
            // A field that is not an `Option` is required or has a default: the macro gives it
            // no other presence.
            _ => {
                self.violations
                    .push(arg.label, "This argument is required.");
                None
            }
        }
    }

    /// The value of an `Option` field: `Some(None)` when it is left out (or `null`), or ignored
    /// because the argument it is `ignored_with` is given. `None` when it broke a rule, or is
    /// missing while required (reported).
    pub fn optional<T>(&mut self, index: usize, read: Read<T>) -> Option<Option<T>> {
        let arg = self.arg(index);
        let ignored = arg
            .ignored_with
            .is_some_and(|other| self.given(other).is_some());
        if let Some(raw) = self.given(index) {
            // An ignored argument is still validated, and then dropped.
            let value = self.read(arg, raw, read)?;
            return Some((!ignored).then_some(value));
        }
        if let Presence::RequiredUnless(other) = arg.presence
            && self.given(other).is_none()
        {
            let other_name = self.args.get(other).map_or("", |other| other.name);
            let sentence = arg.message.map_or_else(
                || format!("This argument is required unless {other_name} is given."),
                str::to_owned,
            );
            self.violations.push(arg.label, sentence);
            return None;
        }
        Some(None)
    }

    /// The declared argument at `index`. Generated code asks only for the indexes of the list
    /// it declared, so the index is always in range.
    fn arg(&self, index: usize) -> &'static ArgSpec {
        let args: &'static [ArgSpec] = self.args;
        &args[index]
    }

    /// The argument at `index` as sent, if it was and is not `null`.
    fn given(&self, index: usize) -> Option<&'a Value> {
        let arg = self.args.get(index)?;
        self.arguments
            .get(arg.name)
            .filter(|value| !value.is_null())
    }

    fn read<T>(&mut self, arg: &ArgSpec, raw: &Value, read: Read<T>) -> Option<T> {
        let mut at = Reading::new(arg.name, arg.label, arg.message, &mut self.violations);
        read(raw, &arg.rules, &mut at)
    }

    /// The tool, once every undeclared name is reported too; or every violation.
    pub(crate) fn finish<T>(mut self, tool: Option<T>) -> Result<T, ToolError> {
        let args = self.args;
        let mut unknown = self
            .arguments
            .keys()
            .filter(|name| !args.iter().any(|arg| arg.name == name.as_str()));
        for name in unknown.by_ref().take(MAX_LISTED_UNKNOWN_NAMES) {
            self.violations
                .push(echo_name(name), unknown_name_sentence(args, name));
        }
        let more = unknown.count();
        if more > 0 {
            self.violations.push(
                format!("{} more names", thousands(more)),
                "Not arguments of this tool.",
            );
        }
        match tool {
            Some(tool) if self.violations.is_empty() => Ok(tool),
            _ if !self.violations.is_empty() => Err(ToolError::Invalid(self.violations)),
            // A field reads as `None` only after reporting why, so this is a framework bug.
            _ => Err(ToolError::unexpected(
                "a field was refused without a reason",
            )),
        }
    }
}

/// An undeclared name as sent, for the message: control characters escaped (so the message
/// stays one line) and cut after [`MAX_ECHOED_NAME_CHARS`] characters with `…`.
fn echo_name(name: &str) -> String {
    let mut echoed = String::new();
    for (index, c) in name.chars().enumerate() {
        if index == MAX_ECHOED_NAME_CHARS {
            echoed.push('…');
            break;
        }
        if c.is_control() {
            echoed.extend(c.escape_default());
        } else {
            echoed.push(c);
        }
    }
    echoed
}

/// `99990` as `99,990`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

fn unknown_name_sentence(args: &[ArgSpec], name: &str) -> String {
    if let Some(suggestion) = did_you_mean::closest(name, args.iter().map(|arg| arg.name)) {
        return format!("Not an argument of this tool. Did you mean {suggestion}?");
    }
    if args.is_empty() {
        return "Not an argument of this tool, which takes no arguments.".to_owned();
    }
    let names = join_or(args.iter().map(|arg| arg.name), "and");
    format!("Not an argument of this tool, which takes {names}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_in_thousands() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(99_990), "99,990");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn long_names_are_cut_when_echoed() {
        let long = "x".repeat(100);
        assert_eq!(echo_name(&long).chars().count(), MAX_ECHOED_NAME_CHARS + 1);
        assert_eq!(echo_name("movie_id"), "movie_id");
        assert_eq!(echo_name("movie\nid\u{0}"), "movie\\nid\\u{0}");
    }
}
