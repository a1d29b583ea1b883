//! The integers, `i8` to `i64`, `u8` to `u64` and `usize`: a JSON number with no fractional
//! part (`5` or `5.0`), within the type's own bounds, which the schema publishes as `minimum`
//! and `maximum` so that a client never sends a value that would wrap.

use serde_json::{Map, Number, Value, json};

use super::{Arg, Reading, Rules, json_type};
use crate::rule::Numeric;

macro_rules! integers {
    ($($int:ty),*) => {$(
        impl Numeric for $int {
            // Widening to i128 is lossless for every integer type up to 64 bits.
            const MIN: i128 = <$int>::MIN as i128;
            const MAX: i128 = <$int>::MAX as i128;
            const FRACTIONS: bool = false;
            const LARGEST: f64 = <$int>::MAX as f64;
        }

        impl Arg for $int {
            fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
                schema.insert("type".into(), json!("integer"));
                schema.insert("minimum".into(), integer_json(<$int as Numeric>::MIN));
                schema.insert("maximum".into(), integer_json(<$int as Numeric>::MAX));
                rules.publish(schema);
            }

            fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
                let number = whole_number(value, at)?;
                at.check(value, rules)?;
                within::<$int>(number, value, at)?;
                <$int>::try_from(number).ok()
            }
        }
    )*};
}

integers!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

/// The whole number a JSON value stands for, or the sentence refusing it.
fn whole_number(value: &Value, at: &mut Reading<'_>) -> Option<i128> {
    let Value::Number(number) = value else {
        return at.refuse(format!("Must be an integer, not {}.", json_type(value)));
    };
    match whole(number) {
        Some(whole) => Some(whole),
        None => at.refuse(format!("Must be an integer, not {number}.")),
    }
}

/// The integer a JSON number stands for: `5` and `5.0` are 5, `5.5` is none. A float beyond
/// `i128` saturates, which still lies outside every integer type's bounds.
fn whole(number: &Number) -> Option<i128> {
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

/// Refuses a whole number outside the type's bounds. The declared bounds, which lie inside
/// them, were checked first, so this names a type's bound only where none was declared.
fn within<T: Numeric>(number: i128, sent: &Value, at: &mut Reading<'_>) -> Option<()> {
    if number < T::MIN {
        return at.refuse(format!("Must be {} or more, not {sent}.", T::MIN));
    }
    if number > T::MAX {
        return at.refuse(format!("Must be {} or less, not {sent}.", T::MAX));
    }
    Some(())
}

/// An integer as JSON. Bounds come from `i8`..`u64`, so they always fit one of serde_json's
/// integer types.
pub(crate) fn integer_json(value: i128) -> Value {
    if let Ok(signed) = i64::try_from(value) {
        json!(signed)
    } else if let Ok(unsigned) = u64::try_from(value) {
        json!(unsigned)
    } else {
        json!(value as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::read_alone as read;

    #[test]
    fn integers_accept_integral_floats_only() {
        let number = |text: &str| serde_json::from_str::<Number>(text).unwrap();
        assert_eq!(whole(&number("5")), Some(5));
        assert_eq!(whole(&number("5.0")), Some(5));
        assert_eq!(whole(&number("-0.0")), Some(0));
        assert_eq!(whole(&number("5.5")), None);
        assert_eq!(
            whole(&number("18446744073709551615")),
            Some(u64::MAX.into())
        );
        assert_eq!(whole(&number("1e300")), Some(i128::MAX));
        assert_eq!(whole(&number("-1e300")), Some(i128::MIN));
    }

    #[test]
    fn a_value_the_type_cannot_hold_names_the_bound_it_breaks() {
        assert_eq!(read::<u8>(json!(255.0)), Ok(255));
        assert_eq!(
            read::<u8>(json!(300)),
            Err("Must be 255 or less, not 300.".into())
        );
        assert_eq!(
            read::<u64>(json!(-1)),
            Err("Must be 0 or more, not -1.".into())
        );
        assert_eq!(
            read::<i8>(json!(-1e300)),
            Err("Must be -128 or more, not -1e+300.".into())
        );
        assert_eq!(
            read::<i32>(json!(1.5)),
            Err("Must be an integer, not 1.5.".into())
        );
        assert_eq!(
            read::<i32>(json!("1")),
            Err("Must be an integer, not a string.".into())
        );
    }

    #[test]
    fn bounds_beyond_i64_are_published_as_u64() {
        let mut schema = Map::new();
        u64::schema(&mut schema, &Rules::NONE);
        assert_eq!(schema["minimum"], json!(0));
        assert_eq!(schema["maximum"], json!(u64::MAX));
    }
}
