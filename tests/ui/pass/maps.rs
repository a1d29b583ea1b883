//! Maps and free-form JSON: `BTreeMap` and `HashMap` from strings to argument types, with entry
//! counts and rules on each value, and a `serde_json::Value` argument.
use std::collections::{BTreeMap, HashMap};

use serde_json::json;
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Maps.
#[derive(Tool)]
#[tool(name = "maps", title = "Maps", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Maps {
    /// Headers to send.
    #[arg(max_entries = 2, each(max_chars = 5))]
    pub headers: BTreeMap<String, String>,
    #[arg(min_entries = 1, each(max = 10))]
    pub counts: Option<HashMap<String, u32>>,
    pub tags: BTreeMap<String, Vec<String>>,
    /// Anything at all.
    pub extra: Option<serde_json::Value>,
}

fn main() {
    let schema = toolkit::input_schema(Maps::SPEC);
    let properties = &schema["properties"];
    assert_eq!(properties["headers"], json!({
        "type": "object",
        "additionalProperties": { "type": "string", "maxLength": 5 },
        "maxProperties": 2,
        "description": "Headers to send.",
    }));
    assert_eq!(properties["counts"], json!({
        "type": "object",
        "additionalProperties": { "type": "integer", "minimum": 0, "maximum": 10 },
        "minProperties": 1,
    }));
    assert_eq!(properties["extra"], json!({
        "description": "Anything at all. Any JSON value, with arrays and objects nested at most 32 deep.",
    }));

    let accepted = json!({
        "headers": { "Accept": "json" }, "tags": { "a": ["x"] }, "extra": [1, { "b": null }],
    });
    let maps: Maps = toolkit::parse(accepted.as_object()).unwrap();
    assert_eq!(maps.headers["Accept"], "json");
    assert_eq!((maps.counts, maps.tags["a"].clone()), (None, vec!["x".to_owned()]));
    assert_eq!(maps.extra, Some(json!([1, { "b": null }])));

    let mut deep = json!(1);
    for _ in 0..33 {
        deep = json!([deep]);
    }
    let refused = json!({
        "headers": { "A": "toolong", "B": "ok", "C": 1 },
        "counts": {},
        "tags": { "a": "x" },
        "extra": deep,
    });
    assert_eq!(
        toolkit::parse::<Maps>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         headers: Must have at most 2 entries, not 3. \
         headers[\"A\"]: Must be at most 5 characters long, not 7. \
         headers[\"C\"]: Must be a string, not a number. \
         counts: Must have at least 1 entry, not 0. \
         tags[\"a\"]: Must be an array, not a string. \
         extra: Must nest arrays and objects at most 32 deep. \
         Correct the arguments and call the tool again."
    );
}
