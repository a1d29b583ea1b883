//! JSON numbers and values as JSON Schema reads them: the integer a number stands for, how to
//! write one exactly, and when two values are equal (as `uniqueItems` compares them). Shared by
//! the oracle, the generators and the tally.

use serde_json::{Map, Number, Value, json};

pub type Object = Map<String, Value>;

/// The integer a JSON number stands for exactly, if it has no fractional part; floats beyond
/// `i128` saturate. Used to classify values and to predict what the tool receives.
pub fn integral(number: &Number) -> Option<i128> {
    if let Some(value) = number.as_i64() {
        return Some(value.into());
    }
    if let Some(value) = number.as_u64() {
        return Some(value.into());
    }
    let float = number.as_f64()?;
    (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
}

/// `value` as a JSON integer where `i64` or `u64` holds it, else as the nearest float: as the
/// toolkit writes a declared integer.
pub(crate) use crate::arg::integer_json as exact_integer;

/// A JSON float (`5.0` stays a float, not the integer 5).
pub fn float(value: f64) -> Value {
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// `number` as a JSON integer when `whole` asks for it and it is one within `i64`, else as a
/// float.
pub fn written(number: f64, whole: bool) -> Value {
    let integer = number.fract() == 0.0 && number.abs() < 9e18;
    if whole && integer {
        json!(number as i64)
    } else {
        float(number)
    }
}

/// Whether two values are equal as JSON Schema has it: numbers by their mathematical value
/// (`1` and `1.0` are equal, and so are 2^60 and 2^60 written as a float), objects whatever the
/// order of their keys, arrays element by element.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => match (a.is_f64(), b.is_f64()) {
            (true, true) => a.as_f64() == b.as_f64(),
            (false, false) => integral(a) == integral(b),
            // An integer and a float: equal when the float is exactly that integer.
            (a_is_float, _) => {
                let (integer, float) = if a_is_float { (b, a) } else { (a, b) };
                let whole = float
                    .as_f64()
                    .filter(|float| float.fract() == 0.0 && float.abs() < 2f64.powi(127));
                whole.is_some_and(|whole| Some(whole as i128) == integral(integer))
            }
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && (a.iter())
                    .all(|(key, value)| b.get(key).is_some_and(|other| equal(value, other)))
        }
        _ => a == b,
    }
}

/// The same value written another way, still [`equal`]: a whole number as a float if it is an
/// integer and as an integer if it is a float (where the other form holds it exactly), object
/// keys in reverse order, and so on inside.
pub fn rewritten(value: &Value) -> Value {
    match value {
        Value::Number(number) => match integral(number) {
            Some(whole) if number.is_f64() => {
                let integer = exact_integer(whole);
                if integer.is_f64() {
                    value.clone()
                } else {
                    integer
                }
            }
            Some(whole) if (whole as f64) as i128 == whole => float(whole as f64),
            _ => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(rewritten).collect()),
        Value::Object(object) => Value::Object(
            (object.iter().rev())
                .map(|(key, value)| (key.clone(), rewritten(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}
