//! Maps: `BTreeMap<String, T>` and `HashMap<String, T>`, a JSON object with any keys whose
//! values are each read as `T` with the rules of `each(...)`, and reported under their key
//! (`headers["Accept"]`). Published as `"type": "object"` with the value's schema as
//! `additionalProperties`.

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

        impl<T: Arg> Arg for $map<String, T> {
            const NESTING: usize = T::NESTING;

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
