//! `min_chars`, `max_chars`: a string's length, in Unicode scalar values, as JSON Schema's
//! `minLength` and `maxLength` count it.

use serde_json::{Map, Value, json};

use super::Rule;

/// The fewest and most characters a string argument may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Length {
    /// The fewest characters allowed.
    pub min: Option<u64>,
    /// The most characters allowed.
    pub max: Option<u64>,
}

/// A type whose length in characters `min_chars` and `max_chars` limit: `String`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a string, so `min_chars` and `max_chars` cannot limit its length",
    label = "needs a `String` field",
    note = "to bound a number, write `min` or `max`"
)]
pub trait Characters {}

impl Characters for String {}

impl Rule for Length {
    fn name(&self) -> &'static str {
        "length"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(text) = value.as_str() else {
            return Ok(());
        };
        let chars = text.chars().count() as u64;
        let characters = |number| super::count(number, "character", "characters");
        let rule = match (self.min, self.max) {
            (Some(min), Some(max)) if chars < min || chars > max => {
                format!("Must be between {min} and {} long", characters(max))
            }
            (Some(min), None) if chars < min => {
                format!("Must be at least {} long", characters(min))
            }
            (None, Some(max)) if chars > max => {
                format!("Must be at most {} long", characters(max))
            }
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

    fn check(min: Option<u64>, max: Option<u64>, text: &str) -> Result<(), String> {
        Length { min, max }.check(&json!(text))
    }

    #[test]
    fn lengths_count_characters_and_say_the_rule() {
        assert_eq!(check(Some(2), Some(3), "éé"), Ok(()));
        assert_eq!(
            check(Some(2), Some(3), "é"),
            Err("Must be between 2 and 3 characters long, not 1.".to_owned())
        );
        assert_eq!(
            check(None, Some(1), "ab"),
            Err("Must be at most 1 character long, not 2.".to_owned())
        );
        assert_eq!(
            check(Some(1), None, ""),
            Err("Must be at least 1 character long, not 0.".to_owned())
        );
        assert_eq!(
            Length {
                min: Some(5),
                max: None
            }
            .check(&json!(3)),
            Ok(())
        );
    }
}
