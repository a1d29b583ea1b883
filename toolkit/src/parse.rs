//! Parsing a raw JSON arguments object against a [`ToolSpec`], collecting every problem.
//!
//! Unlike a serde derive, nothing here stops at the first error: each declared argument is
//! checked for its JSON type and every rule, then each undeclared name is reported, and the
//! caller gets either all the values or all the violations.

use serde_json::{Map, Number, Value};
use uuid::Uuid;

use crate::error::join_or;
use crate::value::{ArgValue, Values};
use crate::{ArgSpec, Kind, Presence, ToolSpec, Violations};

/// Names longer than this are cut short when echoed back, so a hostile key cannot blow up the
/// message.
const MAX_ECHOED_NAME_CHARS: usize = 64;

/// Undeclared names listed one by one, at most; past it the message says how many more there
/// are, so a request with a hundred thousand of them gets a message of a few lines.
const MAX_LISTED_UNKNOWN_NAMES: usize = 10;

/// Checks `arguments` against `spec`. A missing object means `{}`; `null` means left out.
pub fn parse_arguments(
    spec: &ToolSpec,
    arguments: Option<&Map<String, Value>>,
) -> Result<Values, Violations> {
    let empty = Map::new();
    let arguments = arguments.unwrap_or(&empty);
    let given = |index: usize| {
        spec.args.get(index).is_some_and(|arg| {
            arguments
                .get(arg.name)
                .is_some_and(|value| !value.is_null())
        })
    };

    let mut violations = Violations::default();
    let mut values = Vec::with_capacity(spec.args.len());
    for arg in spec.args {
        let value = match arguments.get(arg.name).filter(|value| !value.is_null()) {
            Some(raw) => check_value(arg, raw)
                .map_err(|sentence| violations.push(arg.label, sentence))
                .ok(),
            None => {
                match arg.presence {
                    Presence::Required => {
                        violations.push(arg.label, "This argument is required.");
                        None
                    }
                    Presence::Optional => None,
                    Presence::Default(default) => Some(ArgValue::from(default)),
                    Presence::RequiredUnless(other) => {
                        if !given(other) {
                            let other_name = spec.args.get(other).map_or("", |other| other.name);
                            violations.push(
                            arg.label,
                            arg.message.map_or_else(
                                || format!("This argument is required unless {other_name} is given."),
                                str::to_owned,
                            ),
                        );
                        }
                        None
                    }
                }
            }
        };
        values.push(value.filter(|_| !arg.ignored_with.is_some_and(given)));
    }

    let mut unknown = arguments
        .keys()
        .filter(|name| !spec.args.iter().any(|arg| arg.name == name.as_str()));
    for name in unknown.by_ref().take(MAX_LISTED_UNKNOWN_NAMES) {
        violations.push(echo_name(name), unknown_name_sentence(spec, name));
    }
    let more = unknown.count();
    if more > 0 {
        violations.push(
            format!("{} more names", thousands(more)),
            "Not arguments of this tool.",
        );
    }

    if violations.is_empty() {
        Ok(Values(values))
    } else {
        Err(violations)
    }
}

/// Checks one given (non-null) value: its JSON type first, then its rules in order. The first
/// broken rule is the argument's sentence (or its declared `message`).
fn check_value(arg: &ArgSpec, raw: &Value) -> Result<ArgValue, String> {
    let value = typed_value(arg.kind, raw)?;
    for rule in arg.rules {
        rule.check(&value, raw)
            .map_err(|sentence| arg.message.map_or(sentence, str::to_owned))?;
    }
    Ok(value)
}

/// The value as the argument's JSON type, or the sentence saying which type it must be.
fn typed_value(kind: Kind, raw: &Value) -> Result<ArgValue, String> {
    match kind {
        Kind::String => raw
            .as_str()
            .map(|text| ArgValue::String(text.to_owned()))
            .ok_or_else(|| format!("Must be a string, not {}.", json_type(raw))),
        Kind::Boolean => raw
            .as_bool()
            .map(ArgValue::Boolean)
            .ok_or_else(|| format!("Must be true or false, not {}.", json_type(raw))),
        Kind::Integer => {
            let Value::Number(number) = raw else {
                return Err(format!("Must be an integer, not {}.", json_type(raw)));
            };
            integer(number)
                .map(ArgValue::Integer)
                .ok_or_else(|| format!("Must be an integer, not {number}."))
        }
        Kind::Uuid => {
            let text = raw
                .as_str()
                .ok_or_else(|| format!("Must be a UUID string, not {}.", json_type(raw)))?;
            hyphenated_uuid(text).map(ArgValue::Uuid).ok_or_else(|| {
                "Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.".to_owned()
            })
        }
    }
}

/// The integer a JSON number stands for: `5` and `5.0` are 5, `5.5` is none. A float beyond
/// `i128` saturates, which still lies outside every declared bound.
fn integer(number: &Number) -> Option<i128> {
    if let Some(value) = number.as_i64() {
        return Some(value.into());
    }
    if let Some(value) = number.as_u64() {
        return Some(value.into());
    }
    let float = number.as_f64()?;
    // Casting a float to an integer saturates in Rust, and integral floats convert exactly.
    (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
}

/// A UUID in the hyphenated 36-character form only, any case; braced, URN and unhyphenated
/// forms are refused even though `Uuid::parse_str` would take them.
pub(crate) fn hyphenated_uuid(text: &str) -> Option<Uuid> {
    let hyphen_at = |index| matches!(index, 8 | 13 | 18 | 23);
    let well_formed = text.len() == 36
        && text.bytes().enumerate().all(|(index, byte)| {
            if hyphen_at(index) {
                byte == b'-'
            } else {
                byte.is_ascii_hexdigit()
            }
        });
    well_formed.then(|| Uuid::parse_str(text).ok()).flatten()
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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

fn unknown_name_sentence(spec: &ToolSpec, name: &str) -> String {
    if let Some(suggestion) = closest_name(spec, name) {
        return format!("Not an argument of this tool. Did you mean {suggestion}?");
    }
    if spec.args.is_empty() {
        return "Not an argument of this tool, which takes no arguments.".to_owned();
    }
    let names = join_or(spec.args.iter().map(|arg| arg.name), "and");
    format!("Not an argument of this tool, which takes {names}.")
}

/// The declared name the caller probably meant (`movie_id`, `includereviews`, `limt`).
fn closest_name(spec: &ToolSpec, name: &str) -> Option<&'static str> {
    did_you_mean::closest(name, spec.args.iter().map(|arg| arg.name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_accept_integral_floats_only() {
        let number = |text: &str| serde_json::from_str::<Number>(text).unwrap();
        assert_eq!(integer(&number("5")), Some(5));
        assert_eq!(integer(&number("5.0")), Some(5));
        assert_eq!(integer(&number("-0.0")), Some(0));
        assert_eq!(integer(&number("5.5")), None);
        assert_eq!(
            integer(&number("18446744073709551615")),
            Some(u64::MAX.into())
        );
        assert_eq!(integer(&number("1e300")), Some(i128::MAX));
        assert_eq!(integer(&number("-1e300")), Some(i128::MIN));
    }

    #[test]
    fn uuids_only_in_hyphenated_form() {
        let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
        assert_eq!(hyphenated_uuid(id), Uuid::parse_str(id).ok());
        assert_eq!(hyphenated_uuid("3f2504e04f8911d39a0c0305e82c3301"), None);
        assert_eq!(
            hyphenated_uuid("{3f2504e0-4f89-11d3-9a0c-0305e82c3301}"),
            None
        );
        assert_eq!(
            hyphenated_uuid("3f2504e0-4f89-11d3-9a0c-0305e82c330g"),
            None
        );
        assert_eq!(hyphenated_uuid("3f2504e0-4f89-11d3-9a0c-0305e82c33é"), None);
    }

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
