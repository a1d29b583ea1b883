//! `min_items`, `max_items`, `unique`: a list's length and whether its elements differ, as
//! JSON Schema's `minItems`, `maxItems` and `uniqueItems` have them.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Rule;

/// How many elements a list argument may have, and whether they must differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemCount {
    /// The fewest elements allowed.
    pub min: Option<u64>,
    /// The most elements allowed.
    pub max: Option<u64>,
    /// No two elements may be equal, as JSON values (`1` and `1.0` are equal).
    pub unique: bool,
}

/// A list type, whose length `min_items` and `max_items` limit: `Vec<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list, so `min_items`, `max_items` and `unique` cannot apply \
               to it",
    label = "needs a `Vec` field",
    note = "a list argument is a `Vec<T>` of an argument type"
)]
pub trait Items: Each {}

/// A type with elements, which the rules in `each(...)` apply to: a list's items, a map's
/// values.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no elements, so `each(...)` cannot apply to it",
    label = "needs a `Vec` or map field",
    note = "`each(...)` holds rules for the items of a `Vec<T>` or the values of a map"
)]
pub trait Each {
    /// The element's type.
    type Item;
}

impl Rule for ItemCount {
    fn name(&self) -> &'static str {
        "items"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(items) = value.as_array() else {
            return Ok(());
        };
        let count = items.len() as u64;
        let in_items = |number| super::count(number, "item", "items");
        let rule = match (self.min, self.max) {
            (Some(min), Some(max)) if count < min || count > max => {
                Some(format!("Must have between {min} and {}", in_items(max)))
            }
            (Some(min), None) if count < min => {
                Some(format!("Must have at least {}", in_items(min)))
            }
            (None, Some(max)) if count > max => {
                Some(format!("Must have at most {}", in_items(max)))
            }
            _ => None,
        };
        if let Some(rule) = rule {
            return Err(format!("{rule}, not {count}."));
        }
        if self.unique
            && let Some((first, second)) = repeated(items)
        {
            return Err(format!(
                "Must not repeat an item, but items {first} and {second} are equal."
            ));
        }
        Ok(())
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        if let Some(min) = self.min {
            property.insert("minItems".into(), json!(min));
        }
        if let Some(max) = self.max {
            property.insert("maxItems".into(), json!(max));
        }
        if self.unique {
            property.insert("uniqueItems".into(), json!(true));
        }
    }
}

/// The indexes of the first element equal to an earlier one, and of that earlier one. Each
/// element is written in a canonical form, so the check takes linear time.
fn repeated(items: &[Value]) -> Option<(usize, usize)> {
    let mut seen = HashMap::with_capacity(items.len());
    let mut text = String::new();
    for (index, item) in items.iter().enumerate() {
        text.clear();
        canonical(item, &mut text);
        if let Some(&earlier) = seen.get(text.as_str()) {
            return Some((earlier, index));
        }
        seen.insert(text.clone(), index);
    }
    None
}

/// `value` written so that JSON-equal values are written alike: object keys sorted, and a
/// number with no fractional part written as an integer (`1.0` as `1`).
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => {
            // A whole float converts to an integer exactly: every integer JSON carries (at most
            // 64 bits) is then written as one, whichever way it was sent.
            let whole = number
                .as_f64()
                .filter(|float| float.fract() == 0.0 && float.abs() < 2f64.powi(127));
            match (number.as_i64(), number.as_u64(), whole) {
                (Some(int), _, _) => out.push_str(&int.to_string()),
                (_, Some(int), _) => out.push_str(&int.to_string()),
                (_, _, Some(float)) => out.push_str(&(float as i128).to_string()),
                _ => out.push_str(&number.to_string()),
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            out.push('{');
            for key in keys {
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                canonical(&object[key.as_str()], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(min: Option<u64>, max: Option<u64>, unique: bool) -> ItemCount {
        ItemCount { min, max, unique }
    }

    #[test]
    fn counts_say_what_was_declared() {
        assert_eq!(rule(Some(1), Some(3), false).check(&json!([1, 2])), Ok(()));
        assert_eq!(
            rule(Some(1), Some(3), false).check(&json!([])),
            Err("Must have between 1 and 3 items, not 0.".to_owned())
        );
        assert_eq!(
            rule(Some(1), None, false).check(&json!([])),
            Err("Must have at least 1 item, not 0.".to_owned())
        );
        assert_eq!(
            rule(None, Some(1), false).check(&json!([1, 2])),
            Err("Must have at most 1 item, not 2.".to_owned())
        );
    }

    #[test]
    fn uniqueness_is_json_equality() {
        let unique = rule(None, None, true);
        assert_eq!(unique.check(&json!([1, 2, "1", [1], {"a": 1}])), Ok(()));
        assert_eq!(
            unique.check(&json!([0, 1, 1.0])),
            Err("Must not repeat an item, but items 1 and 2 are equal.".to_owned())
        );
        assert!(
            unique
                .check(&json!([{"a": 1, "b": [2.0]}, {"b": [2], "a": 1.0}]))
                .is_err()
        );
        assert_eq!(unique.check(&json!([0.5, 0.25])), Ok(()));
        assert!(
            unique
                .check(&json!([9007199254740992_u64, 9007199254740992.0]))
                .is_err()
        );
        assert!(
            unique
                .check(&json!([i64::MIN, -9.223372036854776e18]))
                .is_err()
        );
    }
}
