//! Maps: `BTreeMap<String, T>` and `HashMap<String, T>`, a JSON object with any keys whose
//! values are each read as `T` with the rules of `each(...)`, and reported under their key
//! (`headers["Accept"]`). Published as `"type": "object"` with the value's schema as
//! `additionalProperties`. With `#[arg(flatten)]` a map takes the names an object does not
//! declare beside its fields ([`Flatten`]).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::{Arg, Place, Reading, Rules, json_type};
use crate::rule::{Each, Entries};

macro_rules! maps {
    ($($map:ident),*) => {$(
        impl<T: Arg> Each for $map<String, T> {
            type Item = T;
        }

        impl<T: Arg> Entries for $map<String, T> {}

        impl<T: Arg> Flatten for $map<String, T> {
            type Value = T;

            fn from_entries(entries: Vec<(String, T)>) -> Self {
                entries.into_iter().collect()
            }
        }

        impl<T: Arg> Arg for $map<String, T> {
            const NESTING: usize = T::NESTING;

            fn nested_args(found: &mut Vec<&'static [crate::ArgSpec]>) {
                T::nested_args(found);
            }

            fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
                map_schema::<T>(schema, rules);
            }

            fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
                read_entries::<T>(value, rules, at).map(|entries| entries.into_iter().collect())
            }
        }
    )*};
}

maps!(BTreeMap, HashMap);

/// A map that `#[arg(flatten)]` fills with the names an object does not declare.
#[diagnostic::on_unimplemented(
    message = "`#[arg(flatten)]` needs a map from `String`, not `{Self}`",
    label = "not a `BTreeMap<String, T>` or `HashMap<String, T>`",
    note = "the names an object does not declare go into a `BTreeMap<String, T>` or a \
            `HashMap<String, T>`, each value a `T`"
)]
pub trait Flatten: Arg {
    /// The type of each value.
    type Value: Arg;

    /// The map holding `entries`.
    fn from_entries(entries: Vec<(String, Self::Value)>) -> Self;

    /// The `additionalProperties` of the object whose other names go into the map: each
    /// value's schema, or `true` for any JSON value.
    fn others(rules: &Rules) -> Value {
        let mut values = Map::new();
        Self::Value::schema(&mut values, rules.each());
        if values.keys().all(|key| key == "description") {
            return Value::Bool(true);
        }
        Value::Object(values)
    }
}

fn map_schema<T: Arg>(schema: &mut Map<String, Value>, rules: &Rules) {
    schema.insert("type".into(), json!("object"));
    let mut values = Map::new();
    T::schema(&mut values, rules.each());
    schema.insert("additionalProperties".into(), Value::Object(values));
    rules.publish(schema);
}

/// The entries of a JSON object, each value read as `T`: all of them, or `None` when any broke
/// a rule (reported).
fn read_entries<T: Arg>(
    value: &Value,
    rules: &Rules,
    at: &mut Reading<'_>,
) -> Option<Vec<(String, T)>> {
    let Some(object) = value.as_object() else {
        return at.refuse(format!("Must be an object, not {}.", json_type(value)));
    };
    let own = at.check(value, rules);
    let entries = object
        .iter()
        .map(|(key, element)| (Place::Key(key), element));
    let values = at.elements(
        entries,
        rules.each(),
        ("entry breaks its", "entries break their"),
    );
    own?;
    // Read in the object's order, so each value goes with its key.
    Some(object.keys().cloned().zip(values?).collect())
}
