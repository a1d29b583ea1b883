//! `min`, `max`, `exclusive_min`, `exclusive_max`: a number's bounds, published as JSON
//! Schema's `minimum`, `maximum`, `exclusiveMinimum` and `exclusiveMaximum`.
//!
//! Only declared bounds are here: a type's own bounds (an `u8` holds 0 to 255) are its
//! [`Arg`](crate::Arg) impl's to publish and enforce, after these, so that a message names a
//! type's bound only where none was declared.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use super::Rule;

/// The bounds declared on a number argument; either may be left out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The lower bound.
    pub min: Option<Bound>,
    /// The upper bound.
    pub max: Option<Bound>,
}

/// One bound of a [`Range`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The bound's value.
    pub value: Number,
    /// Whether the value itself is excluded (`exclusive_min`) rather than allowed (`min`).
    pub exclusive: bool,
}

/// A bound as written: a whole number (exact at any integer type's width) or a fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// A whole number: `min = 1`.
    Whole(i128),
    /// A number with a fraction or an exponent: `min = 0.5`.
    Float(f64),
}

/// A number type: what `min`, `max`, `exclusive_min` and `exclusive_max` bound, and what a
/// numeric `default` fits. Its constants let a bound or default that the type cannot hold be
/// refused at compile time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number, so it cannot have a numeric bound or default",
    label = "needs a number field",
    note = "`min`, `max`, `exclusive_min`, `exclusive_max` and a numeric `default` fit an \
            integer or a float; to limit a `String`'s length, write `min_chars` or `max_chars`"
)]
pub trait Numeric {
    /// The smallest whole number the type holds (for a float, `i128::MIN`: any whole literal).
    const MIN: i128;
    /// The largest whole number the type holds.
    const MAX: i128;
    /// Whether the type holds fractions, as a float does.
    const FRACTIONS: bool;
    /// The largest magnitude the type holds.
    const LARGEST: f64;
}

impl Number {
    fn json(self) -> Value {
        match self {
            Number::Whole(whole) => crate::arg::integer_json(whole),
            Number::Float(float) => json!(float),
        }
    }

    /// How a JSON number compares with this bound: exactly for whole numbers, as `f64`s
    /// otherwise.
    fn compare(self, number: &serde_json::Number) -> Option<Ordering> {
        let whole = number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from));
        match (self, whole) {
            (Number::Whole(bound), Some(whole)) => Some(whole.cmp(&bound)),
            (Number::Whole(bound), None) => number.as_f64()?.partial_cmp(&(bound as f64)),
            (Number::Float(bound), _) => number.as_f64()?.partial_cmp(&bound),
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.json().fmt(f)
    }
}

impl Bound {
    /// Whether `number` keeps this bound as a lower (`Less` is out) or upper (`Greater`) one.
    fn keeps(self, number: &serde_json::Number, out: Ordering) -> bool {
        match self.value.compare(number) {
            Some(Ordering::Equal) => !self.exclusive,
            Some(ordering) => ordering != out,
            None => false,
        }
    }

    fn as_lower(self) -> String {
        if self.exclusive {
            format!("more than {}", self.value)
        } else {
            format!("at least {}", self.value)
        }
    }

    fn as_upper(self) -> String {
        if self.exclusive {
            format!("less than {}", self.value)
        } else {
            format!("at most {}", self.value)
        }
    }
}

impl Range {
    /// The rule as a sentence's start: `Must be between 1 and 50`, `Must be 1 or more`.
    fn rule(&self) -> String {
        let inclusive = |bound: Bound| !bound.exclusive;
        match (self.min, self.max) {
            (Some(min), Some(max)) if inclusive(min) && inclusive(max) => {
                format!("Must be between {} and {}", min.value, max.value)
            }
            (Some(min), Some(max)) => format!("Must be {} and {}", min.as_lower(), max.as_upper()),
            (Some(min), None) if inclusive(min) => format!("Must be {} or more", min.value),
            (None, Some(max)) if inclusive(max) => format!("Must be {} or less", max.value),
            (Some(min), None) => format!("Must be {}", min.as_lower()),
            (None, Some(max)) => format!("Must be {}", max.as_upper()),
            (None, None) => String::new(),
        }
    }
}

impl Rule for Range {
    fn name(&self) -> &'static str {
        "range"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Value::Number(number) = value else {
            return Ok(());
        };
        let low = self.min.is_none_or(|min| min.keeps(number, Ordering::Less));
        let high = self
            .max
            .is_none_or(|max| max.keeps(number, Ordering::Greater));
        if low && high {
            Ok(())
        } else {
            Err(format!("{}, not {value}.", self.rule()))
        }
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        if let Some(min) = self.min {
            let key = if min.exclusive {
                "exclusiveMinimum"
            } else {
                "minimum"
            };
            property.insert(key.into(), min.value.json());
        }
        if let Some(max) = self.max {
            let key = if max.exclusive {
                "exclusiveMaximum"
            } else {
                "maximum"
            };
            property.insert(key.into(), max.value.json());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(value: Number, exclusive: bool) -> Option<Bound> {
        Some(Bound { value, exclusive })
    }

    fn whole(value: i128) -> Option<Bound> {
        at(Number::Whole(value), false)
    }

    #[test]
    fn a_value_outside_the_range_is_named_as_sent() {
        let rule = Range {
            min: whole(1),
            max: whole(50),
        };
        assert_eq!(rule.check(&json!(50)), Ok(()));
        assert_eq!(rule.check(&json!(1.0)), Ok(()));
        assert_eq!(
            rule.check(&json!(51.0)),
            Err("Must be between 1 and 50, not 51.0.".to_owned())
        );
        assert_eq!(
            rule.check(&json!("51")),
            Ok(()),
            "not a number: not this rule's"
        );
    }

    #[test]
    fn each_shape_of_range_says_what_was_declared() {
        let cases = [
            (
                Range {
                    min: whole(1),
                    max: None,
                },
                json!(0),
                "Must be 1 or more, not 0.",
            ),
            (
                Range {
                    min: None,
                    max: whole(100),
                },
                json!(101),
                "Must be 100 or less, not 101.",
            ),
            (
                Range {
                    min: at(Number::Float(0.0), true),
                    max: None,
                },
                json!(0),
                "Must be more than 0.0, not 0.",
            ),
            (
                Range {
                    min: None,
                    max: at(Number::Whole(600), true),
                },
                json!(600.0),
                "Must be less than 600, not 600.0.",
            ),
            (
                Range {
                    min: whole(0),
                    max: at(Number::Float(1.5), true),
                },
                json!(1.5),
                "Must be at least 0 and less than 1.5, not 1.5.",
            ),
            (
                Range {
                    min: at(Number::Whole(0), true),
                    max: whole(10),
                },
                json!(-1),
                "Must be more than 0 and at most 10, not -1.",
            ),
        ];
        for (rule, value, sentence) in cases {
            assert_eq!(rule.check(&value), Err(sentence.to_owned()), "{rule:?}");
        }
    }

    #[test]
    fn whole_bounds_compare_exactly_beyond_f64() {
        let rule = Range {
            min: None,
            max: whole(u64::MAX.into()),
        };
        assert_eq!(rule.check(&json!(u64::MAX)), Ok(()));
        let rule = Range {
            min: None,
            max: whole(i128::from(u64::MAX) - 1),
        };
        assert!(rule.check(&json!(u64::MAX)).is_err());
    }

    #[test]
    fn bounds_are_published_under_their_keywords() {
        let mut property = Map::new();
        Range {
            min: at(Number::Whole(0), true),
            max: whole(u64::MAX.into()),
        }
        .publish(&mut property);
        assert_eq!(property["exclusiveMinimum"], json!(0));
        assert_eq!(property["maximum"], json!(u64::MAX));
    }
}
