//! Maps: `BTreeMap<String, T>` and `HashMap<String, T>`, a JSON object with any keys whose
//! values are each read as `T` with the rules of `each(...)`, and reported under their key
//! (`headers["Accept"]`). Published as `"type": "object"` with the value's schema as
//! `additionalProperties`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type};
use crate::Violations;
use crate::rule::{Each, Entries};

/// Entries reported one by one, at most, in one map; past it one sentence says how many more
/// break their rules.
const MAX_REPORTED_ENTRIES: usize = 10;

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
    let each = rules.each();
    let mut entries = Vec::with_capacity(object.len());
    let mut reported = 0;
    let mut unreported = 0;
    for (key, element) in object {
        let read = if reported < MAX_REPORTED_ENTRIES {
            at.entry(key, |at| T::read(element, each, at))
        } else {
            let mut ignored = Violations::default();
            T::read(element, each, &mut Reading::quiet(&mut ignored))
        };
        match read {
            Some(read) => entries.push((key.clone(), read)),
            None if reported < MAX_REPORTED_ENTRIES => reported += 1,
            None => unreported += 1,
        }
    }
    if unreported > 0 {
        let noun = if unreported == 1 {
            "entry breaks its"
        } else {
            "entries break their"
        };
        at.refuse::<()>(format!("{unreported} more {noun} rules."));
    }
    own?;
    (reported == 0).then_some(entries)
}
