//! `bool`: `true` or `false`, nothing else (not `"true"`, not `1`).

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type};

impl Arg for bool {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("boolean"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(flag) = value.as_bool() else {
            return at.refuse(format!("Must be true or false, not {}.", json_type(value)));
        };
        at.check(value, rules)?;
        Some(flag)
    }
}
