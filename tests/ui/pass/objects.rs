//! Objects: `#[derive(Args)]` structs as a field, an optional field and a list's elements,
//! nested two deep, with rules, defaults and renames on their fields; the schema inlined.
use serde_json::json;
use toolkit::{Args, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// One replacement.
#[derive(Args, Debug, PartialEq)]
pub struct Edit {
    /// The text to find.
    #[arg(min_chars = 1)]
    pub old_text: String,
    /// What to put in its place.
    pub new_text: String,
    #[arg(default = false)]
    pub all: bool,
}

#[derive(Args, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Args, Debug, PartialEq)]
pub struct Line {
    pub from: Point,
    #[arg(rename = "to")]
    pub until: Point,
}

/// Edits a file.
#[derive(Tool)]
#[tool(name = "edit_file", title = "Edit file", output = Out, read_only = false, destructive, idempotent = false, open_world = false)]
pub struct EditFile {
    /// The edits, in order.
    #[arg(min_items = 1)]
    pub edits: Vec<Edit>,
    pub line: Option<Line>,
}

fn main() {
    assert_eq!(Edit::ARGS.len(), 3);
    assert_eq!(<Line as toolkit::Arg>::NESTING, 2);
    let schema = toolkit::input_schema(EditFile::SPEC);
    assert_eq!(schema["properties"]["edits"], json!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "oldText": { "type": "string", "minLength": 1, "description": "The text to find." },
                "newText": { "type": "string", "description": "What to put in its place." },
                "all": { "type": "boolean", "default": false },
            },
            "required": ["oldText", "newText"],
            "additionalProperties": false,
        },
        "minItems": 1,
        "description": "The edits, in order.",
    }));
    let point = json!({
        "type": "object",
        "properties": { "x": { "type": "number" }, "y": { "type": "number" } },
        "required": ["x", "y"],
        "additionalProperties": false,
    });
    assert_eq!(schema["properties"]["line"]["properties"]["to"], point);
    assert!(!serde_json::Value::Object(schema.clone()).to_string().contains("$ref"));

    let accepted = json!({
        "edits": [{ "oldText": "a", "newText": "b" }],
        "line": { "from": { "x": 0, "y": 1 }, "to": { "x": 2.5, "y": 3 } },
    });
    let edit: EditFile = toolkit::parse(accepted.as_object()).unwrap();
    assert_eq!(edit.edits, [Edit { old_text: "a".into(), new_text: "b".into(), all: false }]);
    assert_eq!(edit.line.unwrap().until, Point { x: 2.5, y: 3.0 });

    let refused = json!({
        "edits": [{ "oldText": "a", "newText": "b" }, { "oldTxt": "", "newText": 5 }, "x"],
        "line": { "from": { "x": "0" }, "to": { "x": 1, "y": 2, "z": 3 } },
    });
    assert_eq!(
        toolkit::parse::<EditFile>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         edits[1].oldText: This field is required. \
         edits[1].newText: Must be a string, not a number. \
         edits[1].oldTxt: Not a field of this object. Did you mean oldText? \
         edits[2]: Must be an object, not a string. \
         line.from.x: Must be a number, not a string. \
         line.from.y: This field is required. \
         line.to.z: Not a field of this object, which has x and y. \
         Correct the arguments and call the tool again."
    );
}
