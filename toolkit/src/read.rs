//! Reading a raw JSON arguments object into a tool's fields, collecting every problem.
//!
//! Unlike a serde derive, nothing here stops at the first error: the generated `Tool::read`
//! asks [`Fields`] for each declared argument in turn, which checks its presence, its type and
//! every rule, and then each undeclared name is reported; the caller gets either the tool or
//! every violation.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::arg::{Arg, Reading, Rules, json_type};
use crate::error::join_or;
use crate::group::{self, Group};
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

/// The arguments of one call, or the fields of an object inside one (`#[derive(Args)]`), read
/// field by field against the declared arguments.
pub struct Fields<'a> {
    args: &'static [ArgSpec],
    arguments: &'a Map<String, Value>,
    violations: &'a mut Violations,
    /// The object's path in wire names, for an object inside an argument (`edits[1]`); `None`
    /// for a tool's own arguments.
    path: Option<String>,
    /// How many violations were reported before this object's: any more are its own.
    before: usize,
    /// A tagged union's tag, which the object holds besides its declared fields.
    tag: Option<&'static str>,
    /// Which fields are given together, checked once they are read.
    groups: &'static [Group],
}

impl<'a> Fields<'a> {
    pub(crate) fn new(
        args: &'static [ArgSpec],
        arguments: &'a Map<String, Value>,
        violations: &'a mut Violations,
    ) -> Self {
        let before = violations.len();
        Fields {
            args,
            arguments,
            violations,
            path: None,
            before,
            tag: None,
            groups: &[],
        }
    }

    /// The fields of the object `value`, read where `at` is reading it; a value that is not
    /// an object is refused there.
    pub fn nested(
        args: &'static [ArgSpec],
        value: &'a Value,
        at: &'a mut Reading<'_>,
    ) -> Option<Fields<'a>> {
        let Some(arguments) = value.as_object() else {
            return at.refuse(format!("Must be an object, not {}.", json_type(value)));
        };
        let path = at.wire_path();
        let violations = at.violations();
        let before = violations.len();
        Some(Fields {
            args,
            arguments,
            violations,
            path: Some(path),
            before,
            tag: None,
            groups: &[],
        })
    }

    /// The same fields, with the rules `groups` about which of them are given together.
    pub fn with_groups(self, groups: &'static [Group]) -> Self {
        Fields { groups, ..self }
    }

    /// The same fields in an object that also holds a tagged union's `tag`, which is then not
    /// an unknown name.
    pub fn with_tag(self, tag: &'static str) -> Self {
        Fields {
            tag: Some(tag),
            ..self
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
                let sentence = format!("This {} is required.", self.noun());
                self.report(arg, "required", sentence);
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
                || {
                    format!(
                        "This {} is required unless {other_name} is given.",
                        self.noun()
                    )
                },
                str::to_owned,
            );
            self.report(arg, "required", sentence);
            return None;
        }
        Some(None)
    }

    /// The value of an `Option<Option<T>>` field, whose `null` is a value of its own:
    /// `Some(None)` when it is left out (or ignored because the argument it is `ignored_with`
    /// is given), `Some(Some(None))` for `null`. `None` when it broke a rule, or is missing
    /// while required (reported).
    pub fn nullable<T>(&mut self, index: usize, read: Read<T>) -> Option<Option<Option<T>>> {
        let arg = self.arg(index);
        let ignored = arg
            .ignored_with
            .is_some_and(|other| self.given(other).is_some());
        match self.given(index) {
            Some(Value::Null) => Some((!ignored).then_some(None)),
            Some(raw) => {
                let value = self.read(arg, raw, read)?;
                Some((!ignored).then_some(Some(value)))
            }
            None => self.optional(index, read).map(|_| None),
        }
    }

    /// The map of an `#[arg(flatten)]` field at `index`: every name the object does not
    /// declare, each value read as the map's values with the rules of `each(...)`, and
    /// reported under its name (`edits[1].color`). `None` when one broke a rule (reported).
    pub fn flattened<T: Arg, M>(
        &mut self,
        index: usize,
        from_entries: fn(Vec<(String, T)>) -> M,
    ) -> Option<M> {
        let arg = self.arg(index);
        let each = arg.rules.each();
        let (args, tag) = (self.args, self.tag);
        let mut entries = Vec::new();
        let (mut reported, mut unreported) = (0, 0);
        for (name, value) in self.arguments {
            if tag == Some(name.as_str()) || args.iter().any(|arg| arg.name == name.as_str()) {
                continue;
            }
            let place = match &self.path {
                None => echo_name(name),
                Some(path) => format!("{path}.{}", echo_name(name)),
            };
            let mut quiet = Violations::default();
            let mut at = if reported < MAX_LISTED_UNKNOWN_NAMES {
                Reading::new(place, false, None, self.violations)
            } else {
                Reading::quiet(&mut quiet)
            };
            match T::read(value, each, &mut at) {
                Some(read) => entries.push((name.clone(), read)),
                None if reported < MAX_LISTED_UNKNOWN_NAMES => reported += 1,
                None => unreported += 1,
            }
        }
        if unreported > 0 {
            let place = self.path.clone().unwrap_or_default();
            let sentence = format!("{} more values break their rules.", thousands(unreported));
            self.violations.push_broken(place, false, "each", sentence);
        }
        (reported == 0 && unreported == 0).then(|| from_entries(entries))
    }

    /// The declared argument at `index`. Generated code asks only for the indexes of the list
    /// it declared, so the index is always in range.
    fn arg(&self, index: usize) -> &'static ArgSpec {
        let args: &'static [ArgSpec] = self.args;
        &args[index]
    }

    /// The argument at `index` as sent, if it was and is not `null` (a nullable argument's
    /// `null` is a value it was given).
    fn given(&self, index: usize) -> Option<&'a Value> {
        let arg = self.args.get(index)?;
        self.arguments
            .get(arg.name)
            .filter(|value| arg.nullable || !value.is_null())
    }

    /// What one of these is called in a sentence: an argument of a tool, a field of an object.
    fn noun(&self) -> &'static str {
        if self.path.is_some() {
            "field"
        } else {
            "argument"
        }
    }

    /// Where a problem of `arg` is: a tool's own argument by its wire name, or inside an
    /// object its path.
    fn place(&self, arg: &'static ArgSpec) -> Cow<'static, str> {
        match &self.path {
            None => Cow::Borrowed(arg.name),
            Some(path) => Cow::Owned(format!("{path}.{}", arg.name)),
        }
    }

    /// Reports a problem of `arg` itself (not of its value): the rule named `rule` broke.
    fn report(&mut self, arg: &'static ArgSpec, rule: &'static str, sentence: String) {
        let place = self.place(arg);
        let declared = self.path.is_none();
        self.violations.push_broken(place, declared, rule, sentence);
    }

    fn read<T>(&mut self, arg: &'static ArgSpec, raw: &Value, read: Read<T>) -> Option<T> {
        let place = self.place(arg);
        let declared = self.path.is_none();
        let mut at = Reading::new(place, declared, arg.message, self.violations);
        read(raw, &arg.rules, &mut at)
    }

    /// Reports each broken group, under the object's path (a tool's under none).
    fn report_broken_groups(&mut self) {
        if self.groups.is_empty() {
            return;
        }
        let broken = group::broken(self.args, self.groups, |index| self.given(index).is_some());
        let place = self.path.clone().unwrap_or_default();
        for (rule, sentence) in broken {
            self.violations
                .push_broken(place.clone(), false, rule, sentence);
        }
    }

    /// Reports each undeclared name, under its path inside an object.
    fn report_unknown_names(&mut self) {
        let args = self.args;
        if args.iter().any(|arg| arg.flatten.is_some()) {
            // Every other name is an entry of the flattened map.
            return;
        }
        let nested = self.path.is_some();
        let tag = self.tag;
        let mut unknown = self.arguments.keys().filter(|name| {
            tag != Some(name.as_str()) && !args.iter().any(|arg| arg.name == name.as_str())
        });
        for name in unknown.by_ref().take(MAX_LISTED_UNKNOWN_NAMES) {
            let at = match &self.path {
                None => echo_name(name),
                Some(path) => format!("{path}.{}", echo_name(name)),
            };
            let sentence = unknown_name_sentence(args, name, nested);
            self.violations.push_broken(at, false, "unknown", sentence);
        }
        let more = unknown.count();
        if more > 0 {
            let (at, sentence) = match &self.path {
                None => (
                    format!("{} more names", thousands(more)),
                    "Not arguments of this tool.",
                ),
                Some(path) => (
                    format!("{path}: {} more names", thousands(more)),
                    "Not fields of this object.",
                ),
            };
            self.violations.push_broken(at, false, "unknown", sentence);
        }
    }

    /// The end of an object's fields: its undeclared names reported, and `Some` when nothing
    /// in it broke a rule.
    pub fn finish(mut self) -> Option<()> {
        self.report_broken_groups();
        self.report_unknown_names();
        (self.violations.len() == self.before).then_some(())
    }

    /// The tool, once every undeclared name is reported too; or every violation.
    pub(crate) fn finish_tool<T>(mut self, tool: Option<T>) -> Result<T, ToolError> {
        self.report_broken_groups();
        self.report_unknown_names();
        let violations = std::mem::take(self.violations);
        match tool {
            Some(tool) if violations.is_empty() => Ok(tool),
            _ if !violations.is_empty() => Err(ToolError::Invalid(violations)),
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

fn unknown_name_sentence(args: &[ArgSpec], name: &str, nested: bool) -> String {
    let (not_one, takes, none) = if nested {
        ("Not a field of this object", "has", "no fields")
    } else {
        ("Not an argument of this tool", "takes", "no arguments")
    };
    if let Some(suggestion) = did_you_mean::closest(name, args.iter().map(|arg| arg.name)) {
        return format!("{not_one}. Did you mean {suggestion}?");
    }
    if args.is_empty() {
        return format!("{not_one}, which {takes} {none}.");
    }
    let names = join_or(args.iter().map(|arg| arg.name), "and");
    format!("{not_one}, which {takes} {names}.")
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
