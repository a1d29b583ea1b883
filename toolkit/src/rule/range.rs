//! `min`, `max`: an integer's bounds, published as JSON Schema's `minimum` and `maximum`.
//!
//! Every integer argument has one: `#[derive(Tool)]` narrows the Rust type's own bounds by the
//! declared ones, so an offset of 2^70 is a broken rule, not an overflow.

use serde_json::{Map, Value};

use super::Rule;
use crate::schema::integer_json;
use crate::value::ArgValue;

/// The smallest and largest value an integer argument may have, both inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// The smallest value allowed.
    pub min: i128,
    /// The largest value allowed.
    pub max: i128,
}

impl Rule for Range {
    fn check(&self, value: &ArgValue, sent: &Value) -> Result<(), String> {
        let Range { min, max } = *self;
        match value {
            ArgValue::Integer(number) if *number < min || *number > max => {
                Err(format!("Must be between {min} and {max}, not {sent}."))
            }
            _ => Ok(()),
        }
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        property.insert("minimum".into(), integer_json(self.min));
        property.insert("maximum".into(), integer_json(self.max));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_value_outside_the_range_is_named_as_sent() {
        let rule = Range { min: 1, max: 50 };
        assert_eq!(rule.check(&ArgValue::Integer(50), &json!(50)), Ok(()));
        assert_eq!(
            rule.check(&ArgValue::Integer(51), &json!(51.0)),
            Err("Must be between 1 and 50, not 51.0.".to_owned())
        );
    }

    #[test]
    fn bounds_beyond_i64_are_published_as_u64() {
        let mut property = Map::new();
        Range {
            min: 0,
            max: u64::MAX.into(),
        }
        .publish(&mut property);
        assert_eq!(property["minimum"], json!(0));
        assert_eq!(property["maximum"], json!(u64::MAX));
    }
}
