//! `String`: any JSON string, with `min_chars` and `max_chars`.

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type};

impl Arg for String {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("string"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("Must be a string, not {}.", json_type(value)));
        };
        at.check(value, rules)?;
        Some(text.to_owned())
    }
}
