//! Lists: `Vec` of strings, numbers and choices, with item counts, uniqueness and element
//! rules in `each(...)`, required and optional.
use serde_json::json;
use toolkit::{Choice, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

#[derive(Choice, Debug, PartialEq)]
pub enum State {
    Open,
    Closed,
}

/// Lists.
#[derive(Tool)]
#[tool(name = "lists", title = "Lists", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Lists {
    /// Labels to add.
    #[arg(max_items = 3, unique, each(min_chars = 1, max_chars = 5))]
    pub labels: Vec<String>,
    #[arg(min_items = 1, each(min = 0, max = 10))]
    pub scores: Option<Vec<u8>>,
    #[arg(unique = true)]
    pub states: Vec<State>,
    pub matrix: Vec<Vec<f64>>,
}

fn main() {
    let schema = toolkit::input_schema(Lists::SPEC);
    let properties = &schema["properties"];
    assert_eq!(properties["labels"], json!({
        "type": "array",
        "items": { "type": "string", "minLength": 1, "maxLength": 5 },
        "maxItems": 3,
        "uniqueItems": true,
        "description": "Labels to add.",
    }));
    assert_eq!(properties["scores"], json!({
        "type": "array",
        "items": { "type": "integer", "minimum": 0, "maximum": 10 },
        "minItems": 1,
    }));
    assert_eq!(properties["states"], json!({
        "type": "array", "items": { "type": "string", "enum": ["open", "closed"] }, "uniqueItems": true,
    }));
    assert_eq!(properties["matrix"], json!({
        "type": "array", "items": { "type": "array", "items": { "type": "number" } },
    }));
    assert_eq!(schema["required"], json!(["labels", "states", "matrix"]));

    let accepted = json!({ "labels": ["a", "bc"], "states": ["open"], "matrix": [[1, 2.5], []] });
    let lists: Lists = toolkit::parse(accepted.as_object()).unwrap();
    assert_eq!(lists.labels, ["a", "bc"]);
    assert_eq!((lists.scores, lists.states), (None, vec![State::Open]));
    assert_eq!(lists.matrix, [vec![1.0, 2.5], vec![]]);

    let refused = json!({
        "labels": ["a", "", "toolong", "a"],
        "scores": [],
        "states": ["open", "shut", "open"],
        "matrix": [[1], "row", [true]],
    });
    assert_eq!(
        toolkit::parse::<Lists>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         labels: Must have at most 3 items, not 4. \
         labels[1]: Must be between 1 and 5 characters long, not 0. \
         labels[2]: Must be between 1 and 5 characters long, not 7. \
         scores: Must have at least 1 item, not 0. \
         states: Must not repeat an item, but items 0 and 2 are equal. \
         states[1]: Must be one of open, closed, not \"shut\". \
         matrix[1]: Must be an array, not a string. \
         matrix[2][0]: Must be a number, not a boolean. \
         Correct the arguments and call the tool again."
    );

    let many = json!({ "labels": [], "states": [], "matrix": vec![json!(["x"]); 25] });
    let message = toolkit::parse::<Lists>(many.as_object()).err().unwrap().to_string();
    assert!(message.contains("matrix[9][0]: Must be a number, not a string. matrix: 15 more items break their rules."), "{message}");
    assert!(!message.contains("matrix[10]"), "{message}");
}
