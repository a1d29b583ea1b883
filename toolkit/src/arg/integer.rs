//! The integers, `i8` to `i64`, `u8` to `u64` and `usize`: a JSON number with no fractional
//! part (`5` or `5.0`), within the type's own bounds, which the schema publishes as `minimum`
//! and `maximum` so that a client never sends a value that would wrap.
//!
//! A 64-bit integer (`i64`, `u64`, `usize`) holds only what a JSON client can send exactly,
//! ±[`MAX_SAFE_INTEGER`]: most clients hold a JSON number as a double, which rounds a wider
//! integer (2^53 + 1 arrives as 2^53), so a wider bound would promise what no client keeps.

use serde_json::{Map, Number, Value, json};

use super::{Arg, Reading, Rules, json_type};
use crate::rule::Numeric;

/// The largest integer a double holds exactly along with every integer below it, 2^53 − 1
/// (JavaScript's `Number.MAX_SAFE_INTEGER`): the widest bound a 64-bit integer argument has.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The larger of two bounds, in a constant.
const fn larger(a: i128, b: i128) -> i128 {
    if a > b { a } else { b }
}

/// The smaller of two bounds, in a constant.
const fn smaller(a: i128, b: i128) -> i128 {
    if a < b { a } else { b }
}

macro_rules! integers {
    ($($int:ty),*) => {$(
        impl Numeric for $int {
            // Widening to i128 is lossless for every integer type up to 64 bits; a 64-bit
            // type's range is narrowed to what JSON carries exactly.
            const MIN: i128 = larger(<$int>::MIN as i128, -(MAX_SAFE_INTEGER as i128));
            const MAX: i128 = smaller(<$int>::MAX as i128, MAX_SAFE_INTEGER as i128);
            const FRACTIONS: bool = false;
            const LARGEST: f64 = Self::MAX as f64;
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

/// An integer as JSON. Bounds are declared on `i8`..`u64` and lie within them, so they always
/// fit one of serde_json's integer types.
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
            read::<u32>(json!(u64::MAX)),
            Err("Must be 4294967295 or less, not 18446744073709551615.".into())
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
    fn sixty_four_bit_integers_hold_what_json_carries_exactly() {
        for schema in [i64::schema, u64::schema, usize::schema] {
            let mut published = Map::new();
            schema(&mut published, &Rules::NONE);
            assert_eq!(published["maximum"], json!(9_007_199_254_740_991_i64));
        }
        let mut published = Map::new();
        i64::schema(&mut published, &Rules::NONE);
        assert_eq!(published["minimum"], json!(-9_007_199_254_740_991_i64));
        assert_eq!(
            read::<i64>(json!(9_007_199_254_740_991_i64)),
            Ok((1 << 53) - 1)
        );
        assert_eq!(
            read::<u64>(json!(9_007_199_254_740_992_i64)),
            Err("Must be 9007199254740991 or less, not 9007199254740992.".into())
        );
        assert_eq!(
            read::<i64>(json!(i64::MIN)),
            Err("Must be -9007199254740991 or more, not -9223372036854775808.".into())
        );
        assert_eq!(read::<i32>(json!(i32::MIN)), Ok(i32::MIN));
    }
}
