//! `serde_json::Value`: a free-form argument, any JSON value nested at most
//! [`MAX_JSON_DEPTH`] arrays and objects deep, which its schema's description says, since JSON
//! Schema has no keyword for depth. (`null` is "left out", as for every argument.)

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules};

/// How many arrays and objects deep a free-form argument may nest: `[[1]]` is 2 deep.
pub const MAX_JSON_DEPTH: usize = 32;

impl Arg for Value {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert(
            "description".into(),
            json!(format!(
                "Any JSON value, with arrays and objects nested at most {MAX_JSON_DEPTH} deep."
            )),
        );
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        if depth(value) > MAX_JSON_DEPTH {
            return at.refuse(format!(
                "Must nest arrays and objects at most {MAX_JSON_DEPTH} deep."
            ));
        }
        at.check(value, rules)?;
        Some(value.clone())
    }
}

/// How many arrays and objects deep `value` nests, counted without recursion, so that no
/// input can exhaust the stack.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0)];
    while let Some((value, above)) = pending.pop() {
        let depth = above + 1;
        match value {
            Value::Array(items) => pending.extend(items.iter().map(|child| (child, depth))),
            Value::Object(object) => pending.extend(object.values().map(|child| (child, depth))),
            _ => continue,
        }
        deepest = deepest.max(depth);
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_arrays_and_objects() {
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!([])), 1);
        assert_eq!(depth(&json!({ "a": [1, { "b": [] }] })), 4);
    }
}
