//! `min_chars`, `max_chars`: a string's length, in Unicode scalar values, as JSON Schema's
//! `minLength` and `maxLength` count it.

use serde_json::{Map, Value, json};

use super::Rule;
use crate::value::ArgValue;

/// The fewest and most characters a string argument may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Length {
    /// The fewest characters allowed.
    pub min: Option<u64>,
    /// The most characters allowed.
    pub max: Option<u64>,
}

impl Rule for Length {
    fn check(&self, value: &ArgValue, _sent: &Value) -> Result<(), String> {
        let ArgValue::String(text) = value else {
            return Ok(());
        };
        let chars = text.chars().count() as u64;
        let rule = match (self.min, self.max) {
            (Some(min), Some(max)) if chars < min || chars > max => {
                format!("Must be between {min} and {max} characters long")
            }
            (Some(min), None) if chars < min => format!("Must be at least {min} characters long"),
            (None, Some(max)) if chars > max => format!("Must be at most {max} characters long"),
            _ => return Ok(()),
        };
        Err(format!("{rule}, not {chars}."))
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        if let Some(min) = self.min {
            property.insert("minLength".into(), json!(min));
        }
        if let Some(max) = self.max {
            property.insert("maxLength".into(), json!(max));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(rule: Length, text: &str) -> Result<(), String> {
        rule.check(&ArgValue::String(text.to_owned()), &json!(text))
    }

    #[test]
    fn lengths_count_characters_and_say_the_rule() {
        let both = Length {
            min: Some(2),
            max: Some(3),
        };
        assert_eq!(check(both, "éé"), Ok(()));
        assert_eq!(
            check(both, "é"),
            Err("Must be between 2 and 3 characters long, not 1.".to_owned())
        );
        let at_most = Length {
            min: None,
            max: Some(1),
        };
        assert_eq!(
            check(at_most, "ab"),
            Err("Must be at most 1 characters long, not 2.".to_owned())
        );
        let at_least = Length {
            min: Some(1),
            max: None,
        };
        assert_eq!(
            check(at_least, ""),
            Err("Must be at least 1 characters long, not 0.".to_owned())
        );
    }
}
