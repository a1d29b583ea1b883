//! `min_entries`, `max_entries`: how many entries a map has, as JSON Schema's `minProperties`
//! and `maxProperties` count them.

use serde_json::{Map, Value, json};

use super::{Each, Rule};

/// How many entries a map argument may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCount {
    /// The fewest entries allowed.
    pub min: Option<u64>,
    /// The most entries allowed.
    pub max: Option<u64>,
}

/// A map type, whose number of entries `min_entries` and `max_entries` limit:
/// `BTreeMap<String, T>`, `HashMap<String, T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map, so `min_entries` and `max_entries` cannot apply to it",
    label = "needs a map field",
    note = "a map argument is a `BTreeMap<String, T>` or `HashMap<String, T>` of an argument type"
)]
pub trait Entries: Each {}

impl Rule for EntryCount {
    fn name(&self) -> &'static str {
        "entries"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(object) = value.as_object() else {
            return Ok(());
        };
        let count = object.len() as u64;
        let entries = |number| super::count(number, "entry", "entries");
        let rule = match (self.min, self.max) {
            (Some(min), Some(max)) if count < min || count > max => {
                format!("Must have between {min} and {}", entries(max))
            }
            (Some(min), None) if count < min => format!("Must have at least {}", entries(min)),
            (None, Some(max)) if count > max => format!("Must have at most {}", entries(max)),
            _ => return Ok(()),
        };
        Err(format!("{rule}, not {count}."))
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        if let Some(min) = self.min {
            property.insert("minProperties".into(), json!(min));
        }
        if let Some(max) = self.max {
            property.insert("maxProperties".into(), json!(max));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_what_was_declared() {
        let rule = EntryCount {
            min: Some(1),
            max: Some(2),
        };
        assert_eq!(rule.check(&json!({ "a": 1 })), Ok(()));
        assert_eq!(
            rule.check(&json!({})),
            Err("Must have between 1 and 2 entries, not 0.".to_owned())
        );
        let at_most = EntryCount {
            min: None,
            max: Some(1),
        };
        assert_eq!(
            at_most.check(&json!({ "a": 1, "b": 2 })),
            Err("Must have at most 1 entry, not 2.".to_owned())
        );
    }
}
