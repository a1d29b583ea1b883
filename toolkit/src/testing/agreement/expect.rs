//! What the oracle expects, from the schema and the object sent alone: the object the schema
//! validator is to judge (the parser's one leniency about `null` taken out, and the validator's
//! about display names, see [`crate::testing::agreement::mailbox`]), and the values an accepted object gives the
//! tool, as the tool serialises them.

use serde_json::{Value, json};

use crate::testing::agreement::json::{exact_integer, float, integral};
use crate::testing::agreement::mailbox::display_names_refused;
use crate::testing::agreement::rfc3339::{Zone, received};
use crate::testing::agreement::schema::{Format, Kind, Schema};

/// `arguments` as the validator is to judge them: without the `null`s of declared fields
/// ([`without_null_fields`]), and with every email value written as a display name made one
/// no reading takes for an address ([`display_names_refused`]).
pub fn for_validator(root: &Schema, arguments: &Value) -> Value {
    let mut instance = without_null_fields(root, arguments);
    display_names_refused(root, &mut instance);
    instance
}

/// `value` with every `null` given for a declared field removed, at the top and inside nested
/// objects: the parser reads such a `null` as "left out" (it reads a nested object's fields as
/// it reads a tool's arguments), a leniency the schema cannot state. Unknown names are kept
/// whatever their value, and so are `null` elements of a list or values of a map, which are
/// just invalid values.
pub fn without_null_fields(schema: &Schema, value: &Value) -> Value {
    match (&schema.kind, value) {
        (Kind::Object(properties, others), Value::Object(object)) => Value::Object(
            (object.iter())
                .filter_map(|(name, value)| {
                    let Some(property) = properties.iter().find(|p| &p.name == name) else {
                        let value = match others {
                            Some(others) => without_null_fields(others, value),
                            None => value.clone(),
                        };
                        return Some((name.clone(), value));
                    };
                    // A nullable field's `null` is a value of its own, which the schema states.
                    let nullable = matches!(property.schema.kind, Kind::Nullable(_));
                    let kept = !value.is_null() || nullable;
                    kept.then(|| (name.clone(), without_null_fields(&property.schema, value)))
                })
                .collect(),
        ),
        (Kind::List(list), Value::Array(items)) => Value::Array(
            (items.iter())
                .map(|item| without_null_fields(&list.items, item))
                .collect(),
        ),
        (Kind::Tuple(elements), Value::Array(items)) => Value::Array(
            (items.iter().enumerate())
                .map(|(index, item)| match elements.get(index) {
                    Some(element) => without_null_fields(element, item),
                    None => item.clone(),
                })
                .collect(),
        ),
        (Kind::Map(entries), Value::Object(object)) => Value::Object(
            (object.iter())
                .map(|(key, value)| (key.clone(), without_null_fields(&entries.values, value)))
                .collect(),
        ),
        (Kind::Nullable(inner), value) => without_null_fields(inner, value),
        // The parser reads a value by the first branch that takes it, each on its own terms.
        (Kind::Union(union), value) => match union.branch_of(value) {
            Some(index) => without_null_fields(&union.branches[index], value),
            None => value.clone(),
        },
        _ => value.clone(),
    }
}

/// What an accepted value should give the tool, as the tool serialises it: each value sent
/// (integers as exact integers, floats as their precision holds them, UUIDs in lower case,
/// date-times as chrono writes them back, held in `zone` (see [`crate::testing::agreement::rfc3339`]), URIs, dates,
/// email addresses and free-form JSON as sent), a field left out (or `null`) as the schema's
/// default, else `null`; all the way down.
pub fn expected(schema: &Schema, sent: Option<&Value>, zone: Zone) -> Value {
    let Some(sent) = sent.filter(|value| !value.is_null()) else {
        return match &schema.default {
            Some(default) => expected(schema, Some(default), zone),
            None => Value::Null,
        };
    };
    match (&schema.kind, sent) {
        (Kind::Integer(_) | Kind::Numbers(_), Value::Number(number)) => {
            integral(number).map_or(Value::Null, exact_integer)
        }
        // A float, sent or by default, and written `5` or `5.0`, is held as a float and
        // serialised as one (`5.0`, never the integer 5).
        (Kind::Float(precision, _), Value::Number(number)) => {
            (number.as_f64()).map_or(Value::Null, |number| float(precision.held(number)))
        }
        (Kind::Uuid, Value::String(text)) => json!(text.to_lowercase()),
        (Kind::Format(Format::DateTime), Value::String(text)) => {
            received(text, zone).map_or(Value::Null, Value::String)
        }
        (Kind::List(list), Value::Array(items)) => Value::Array(
            (items.iter())
                .map(|item| expected(&list.items, Some(item), zone))
                .collect(),
        ),
        (Kind::Tuple(elements), Value::Array(items)) => Value::Array(
            (elements.iter().zip(items))
                .map(|(element, item)| expected(element, Some(item), zone))
                .collect(),
        ),
        (Kind::Map(entries), Value::Object(object)) => Value::Object(
            (object.iter())
                .map(|(key, value)| (key.clone(), expected(&entries.values, Some(value), zone)))
                .collect(),
        ),
        // A nullable field left out is left out of what the tool serialises too
        // (`skip_serializing_if`), where `null` is serialised as `null`.
        // Any other name, in an open object, is an entry of the tool's flattened map.
        (Kind::Object(properties, others), Value::Object(object)) => {
            let declared = (properties.iter())
                .filter(|property| {
                    !matches!(property.schema.kind, Kind::Nullable(_))
                        || object.contains_key(&property.name)
                })
                .map(|property| {
                    let value = expected(&property.schema, object.get(&property.name), zone);
                    (property.name.clone(), value)
                });
            let others = (object.iter())
                .filter(|(name, _)| !properties.iter().any(|property| &property.name == *name))
                .filter_map(|(name, value)| {
                    Some((name.clone(), expected(others.as_ref()?, Some(value), zone)))
                });
            Value::Object(declared.chain(others).collect())
        }
        (Kind::Nullable(inner), value) => expected(inner, Some(value), zone),
        // What the first branch that accepts it gives.
        (Kind::Union(union), value) => match union.branch_of(value) {
            Some(index) => expected(&union.branches[index], Some(value), zone),
            None => Value::Null,
        },
        _ => sent.clone(),
    }
}

/// Whether the tool received exactly what was expected: `==`, except that two floats must be
/// the same `f64` bit for bit, where `==` would take -0.0 for 0.0, all the way down.
pub fn identical(received: &Value, expected: &Value) -> bool {
    match (received, expected) {
        (Value::Object(received), Value::Object(expected)) => {
            received.len() == expected.len()
                && (received.iter()).all(|(name, value)| {
                    expected
                        .get(name)
                        .is_some_and(|other| identical(value, other))
                })
        }
        (Value::Array(received), Value::Array(expected)) => {
            received.len() == expected.len()
                && (received.iter().zip(expected)).all(|(value, other)| identical(value, other))
        }
        (Value::Number(received), Value::Number(expected))
            if received.is_f64() && expected.is_f64() =>
        {
            received.as_f64().map(f64::to_bits) == expected.as_f64().map(f64::to_bits)
        }
        _ => received == expected,
    }
}
