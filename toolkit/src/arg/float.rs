//! `f32` and `f64`: any JSON number (`5` too), within what the type holds. `f32`'s range is
//! published as `minimum` and `maximum`; a number beyond `f64`'s cannot reach the server, as no
//! JSON parser the server uses reads it as a number.

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type};
use crate::rule::Numeric;

impl Numeric for f64 {
    // A float takes any whole-number literal: `i128`'s range lies well inside `f64`'s.
    const MIN: i128 = i128::MIN;
    const MAX: i128 = i128::MAX;
    const FRACTIONS: bool = true;
    const LARGEST: f64 = f64::MAX;
}

impl Numeric for f32 {
    // `i128`'s range (±1.7e38) lies inside `f32`'s (±3.4e38).
    const MIN: i128 = i128::MIN;
    const MAX: i128 = i128::MAX;
    const FRACTIONS: bool = true;
    const LARGEST: f64 = f32::MAX as f64;
}

impl Arg for f64 {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("number"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let number = number(value, at)?;
        at.check(value, rules)?;
        Some(number)
    }
}

impl Arg for f32 {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("number"));
        schema.insert("minimum".into(), json!(-f64::from(f32::MAX)));
        schema.insert("maximum".into(), json!(f64::from(f32::MAX)));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let number = number(value, at)?;
        at.check(value, rules)?;
        let largest = f64::from(f32::MAX);
        if number < -largest {
            return at.refuse(format!("Must be {} or more, not {value}.", json!(-largest)));
        }
        if number > largest {
            return at.refuse(format!("Must be {} or less, not {value}.", json!(largest)));
        }
        // Within range, the cast rounds to the nearest `f32`.
        Some(number as f32)
    }
}

/// The number a JSON value holds, or the sentence refusing it.
fn number(value: &Value, at: &mut Reading<'_>) -> Option<f64> {
    match value.as_f64() {
        Some(number) if number.is_finite() => Some(number),
        _ => at.refuse(format!("Must be a number, not {}.", json_type(value))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::read_alone as read;

    #[test]
    fn floats_take_any_number_the_type_holds() {
        assert_eq!(read::<f64>(json!(5)), Ok(5.0));
        assert_eq!(read::<f64>(json!(-0.25)), Ok(-0.25));
        assert_eq!(read::<f64>(json!(u64::MAX)), Ok(u64::MAX as f64));
        assert_eq!(read::<f32>(json!(1.5)), Ok(1.5));
        assert_eq!(
            read::<f32>(json!(1e39)),
            Err("Must be 3.4028234663852886e+38 or less, not 1e+39.".into())
        );
        assert_eq!(
            read::<f64>(json!("1.5")),
            Err("Must be a number, not a string.".into())
        );
    }
}
