//! `Vec<T>`: a JSON array of any argument type, each element read as `T` with the rules of
//! `each(...)`, and reported under its index (`labels[2]`). Published as `"type": "array"`
//! with the element's schema as `items`.

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type};
use crate::Violations;
use crate::rule::{Each, Items};

/// Elements reported one by one, at most, in one list; past it one sentence says how many
/// more break their rules, so that a list of a million bad elements gets a short message.
const MAX_REPORTED_ITEMS: usize = 10;

impl<T: Arg> Each for Vec<T> {
    type Item = T;
}

impl<T: Arg> Items for Vec<T> {}

impl<T: Arg> Arg for Vec<T> {
    const NESTING: usize = T::NESTING;

    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("array"));
        let mut items = Map::new();
        T::schema(&mut items, rules.each());
        schema.insert("items".into(), Value::Object(items));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(elements) = value.as_array() else {
            return at.refuse(format!("Must be an array, not {}.", json_type(value)));
        };
        // The list's own rules and each element's are all reported.
        let own = at.check(value, rules);
        let each = rules.each();
        let mut items = Vec::with_capacity(elements.len());
        let mut reported = 0;
        let mut unreported = 0;
        for (index, element) in elements.iter().enumerate() {
            let item = if reported < MAX_REPORTED_ITEMS {
                at.item(index, |at| T::read(element, each, at))
            } else {
                let mut ignored = Violations::default();
                T::read(element, each, &mut Reading::quiet(&mut ignored))
            };
            match item {
                Some(item) => items.push(item),
                None if reported < MAX_REPORTED_ITEMS => reported += 1,
                None => unreported += 1,
            }
        }
        if unreported > 0 {
            let noun = if unreported == 1 {
                "item breaks its"
            } else {
                "items break their"
            };
            at.refuse::<()>(format!("{unreported} more {noun} rules."));
        }
        own?;
        (reported == 0).then_some(items)
    }
}
