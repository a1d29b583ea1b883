//! `Vec<T>`: a JSON array of any argument type, each element read as `T` with the rules of
//! `each(...)`, and reported under its index (`labels[2]`). Published as `"type": "array"`
//! with the element's schema as `items`.

use serde_json::{Map, Value, json};

use super::{Arg, Place, Reading, Rules, json_type};
use crate::rule::{Each, Items};

impl<T: Arg> Each for Vec<T> {
    type Item = T;
}

impl<T: Arg> Items for Vec<T> {}

impl<T: Arg> Arg for Vec<T> {
    const NESTING: usize = T::NESTING;

    fn nested_args(found: &mut Vec<&'static [crate::ArgSpec]>) {
        T::nested_args(found);
    }

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
        let elements = elements
            .iter()
            .enumerate()
            .map(|(index, element)| (Place::Index(index), element));
        let items = at.elements(
            elements,
            rules.each(),
            ("item breaks its", "items break their"),
        );
        own?;
        items
    }
}
