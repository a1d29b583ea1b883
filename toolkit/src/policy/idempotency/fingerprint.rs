//! A call's fingerprint: what tells a retry from another call with the same key.

use std::fmt::Write as _;

use rmcp::model::JsonObject;
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::KEY_ARGUMENT;

/// The SHA-256, in hex, of `arguments` without the key, written as canonical JSON: object
/// keys in order, and a whole number written as an integer however it was sent.
pub(super) fn fingerprint(arguments: &JsonObject) -> String {
    let mut canonical = String::new();
    let without_key = arguments.iter().filter(|(name, _)| *name != KEY_ARGUMENT);
    write_object(without_key, &mut canonical);
    let digest = Sha256::digest(canonical.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        // Writing to a `String` cannot fail.
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

fn write_object<'a>(entries: impl Iterator<Item = (&'a String, &'a Value)>, out: &mut String) {
    let mut entries: Vec<_> = entries.collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (index, (name, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write_canonical(&Value::String(name.clone()), out);
        out.push(':');
        write_canonical(value, out);
    }
    out.push('}');
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(object) => write_object(object.iter(), out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Number(number) => match number.as_f64() {
            // 2.0 and 2 are the same number; below 2^53 a float is exact.
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 9e15 => {
                let _ = write!(out, "{}", float as i64);
            }
            _ => {
                let _ = write!(out, "{number}");
            }
        },
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::idempotency::arguments;

    #[test]
    fn the_fingerprint_ignores_the_key_the_order_and_how_a_number_is_written() {
        let sent = fingerprint(&arguments(
            json!({ "a": 1, "b": [2.0, { "y": 1, "x": 2 }] }),
        ));
        let again =
            arguments(json!({ "idempotencyKey": "k1", "b": [2, { "x": 2, "y": 1 }], "a": 1.0 }));
        assert_eq!(fingerprint(&again), sent);
        assert_eq!(sent.len(), 64);
        assert_ne!(
            fingerprint(&arguments(json!({ "a": 2, "b": [2, {"x": 2, "y": 1}] }))),
            sent
        );
        assert_ne!(
            fingerprint(&arguments(json!({ "a": "1" }))),
            fingerprint(&arguments(json!({ "a": 1 })))
        );
    }
}
