//! Tuples, `(A, B, …)` of one to eight argument types: a JSON array of exactly that many
//! elements, each read as its own type and reported under its index (`headers[1][0]`), as a
//! list of name–value pairs is sent (`[["Accept", "text/html"], …]`). Published as
//! `prefixItems` with each element's schema, `items: false` and the length as `minItems`.

use serde_json::{Map, Value, json};

use super::object::deepest;
use super::{Arg, Reading, Rules, json_type};

/// The schema of a tuple whose elements' schemas are `elements`.
fn tuple_schema(schema: &mut Map<String, Value>, elements: Vec<Value>, rules: &Rules) {
    let length = elements.len();
    schema.insert("type".into(), json!("array"));
    schema.insert("prefixItems".into(), Value::Array(elements));
    schema.insert("items".into(), json!(false));
    schema.insert("minItems".into(), json!(length));
    rules.publish(schema);
}

/// The elements of a tuple of `length`, if `value` is an array of exactly that many (else
/// refused), and its own rules hold.
fn elements<'v>(
    value: &'v Value,
    length: usize,
    rules: &Rules,
    at: &mut Reading<'_>,
) -> Option<&'v [Value]> {
    let items = match value {
        Value::Array(items) if items.len() == length => items,
        Value::Array(items) => {
            return at.refuse(format!(
                "Must be an array of exactly {length} items, not {}.",
                items.len()
            ));
        }
        other => {
            return at.refuse(format!(
                "Must be an array of exactly {length} items, not {}.",
                json_type(other)
            ));
        }
    };
    at.check(value, rules)?;
    Some(items)
}

/// The schema of element type `T`, on its own.
fn element_schema<T: Arg>() -> Value {
    let mut schema = Map::new();
    T::schema(&mut schema, &Rules::NONE);
    Value::Object(schema)
}

macro_rules! tuples {
    ($($length:literal => ($($element:ident $index:tt),+);)*) => {$(
        impl<$($element: Arg),+> Arg for ($($element,)+) {
            const NESTING: usize = deepest(&[$($element::NESTING),+]);

            fn nested_args(found: &mut Vec<&'static [crate::ArgSpec]>) {
                $($element::nested_args(found);)+
            }

            fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
                tuple_schema(schema, vec![$(element_schema::<$element>()),+], rules);
            }

            fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
                let items = elements(value, $length, rules, at)?;
                // Every element is read, so that each broken one is reported.
                let read = ($(
                    at.item($index, |at| $element::read(&items[$index], &Rules::NONE, at)),
                )+);
                Some(($(read.$index?,)+))
            }
        }
    )*};
}

tuples! {
    1 => (A 0);
    2 => (A 0, B 1);
    3 => (A 0, B 1, C 2);
    4 => (A 0, B 1, C 2, D 3);
    5 => (A 0, B 1, C 2, D 3, E 4);
    6 => (A 0, B 1, C 2, D 3, E 4, F 5);
    7 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    8 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Violations;
    use crate::arg::read_alone;

    #[test]
    fn a_tuple_is_an_array_of_exactly_its_elements() {
        assert_eq!(
            read_alone::<(String, u8)>(json!(["a", 1])),
            Ok(("a".to_owned(), 1))
        );
        assert_eq!(
            read_alone::<(String, u8)>(json!(["a"])),
            Err("Must be an array of exactly 2 items, not 1.".into())
        );
        assert_eq!(
            read_alone::<(String, u8)>(json!({ "a": 1 })),
            Err("Must be an array of exactly 2 items, not an object.".into())
        );
    }

    #[test]
    fn each_broken_element_is_reported_under_its_index() {
        let mut violations = Violations::default();
        let read = <Vec<(String, u8)>>::read(
            &json!([["a", 1], [2, 300]]),
            &Rules::NONE,
            &mut Reading::new("headers", true, None, &mut violations),
        );
        assert!(read.is_none());
        let reported: Vec<(String, String)> = violations
            .iter()
            .map(|v| (v.argument.to_string(), v.sentence.clone()))
            .collect();
        assert_eq!(
            reported,
            [
                (
                    "headers[1][0]".to_owned(),
                    "Must be a string, not a number.".to_owned()
                ),
                (
                    "headers[1][1]".to_owned(),
                    "Must be 255 or less, not 300.".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn a_tuple_publishes_each_element_and_its_length() {
        let mut schema = Map::new();
        <(String, bool)>::schema(&mut schema, &Rules::NONE);
        assert_eq!(
            Value::Object(schema),
            json!({
                "type": "array",
                "prefixItems": [{ "type": "string" }, { "type": "boolean" }],
                "items": false,
                "minItems": 2,
            })
        );
    }
}
