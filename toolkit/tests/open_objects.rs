//! Open objects, `#[arg(flatten)]` on a map: declared names read as fields, every other name
//! into the map, published as `additionalProperties`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};
use toolkit::{Args, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A page's properties: a title, and any others.
#[derive(Args, Debug, PartialEq)]
pub struct Properties {
    /// The page's title.
    #[arg(min_chars = 1)]
    title: String,
    #[arg(flatten)]
    others: HashMap<String, Value>,
}

/// Creates a page with labels.
#[derive(Tool, Debug)]
#[tool(name = "pages_create", title = "Create a page", output = Out,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct PagesCreate {
    /// The page.
    properties: Properties,
    /// How many copies, one when left out.
    #[arg(min = 1, default = 1)]
    copies: u8,
    /// Any other name is a label, of at most ten characters.
    #[arg(flatten, each(max_chars = 10))]
    labels: BTreeMap<String, String>,
}

fn parse(arguments: Value) -> Result<PagesCreate, String> {
    let Value::Object(arguments) = arguments else {
        panic!("not an object");
    };
    toolkit::parse::<PagesCreate>(Some(&arguments)).map_err(|error| match error {
        ToolError::Invalid(violations) => violations.to_string(),
        other => panic!("unexpected {other:?}"),
    })
}

#[test]
fn other_names_are_published_as_the_maps_values() {
    let schema = Value::Object(toolkit::input_schema(PagesCreate::SPEC));
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "properties": {
                    "type": "object",
                    "properties": {
                        "title": { "type": "string", "minLength": 1, "description": "The page's title." }
                    },
                    "required": ["title"],
                    "additionalProperties": true,
                    "description": "The page.",
                },
                "copies": {
                    "type": "integer", "minimum": 1, "maximum": 255, "default": 1,
                    "description": "How many copies, one when left out.",
                },
            },
            "required": ["properties"],
            "additionalProperties": {
                "type": "string",
                "maxLength": 10,
                "description": "Any other name is a label, of at most ten characters.",
            },
        })
    );
}

#[test]
fn other_names_go_into_the_map() {
    let read = parse(json!({
        "properties": { "title": "Notes", "icon": "📝", "tags": ["a"] },
        "team": "docs",
        "status": "draft",
    }))
    .unwrap();
    assert_eq!(read.properties.title, "Notes");
    assert_eq!(
        read.properties.others,
        HashMap::from([
            ("icon".to_owned(), json!("📝")),
            ("tags".to_owned(), json!(["a"]))
        ])
    );
    assert_eq!(read.copies, 1);
    assert_eq!(
        read.labels,
        BTreeMap::from([
            ("status".to_owned(), "draft".to_owned()),
            ("team".to_owned(), "docs".to_owned())
        ])
    );
    let bare = parse(json!({ "properties": { "title": "A" } })).unwrap();
    assert!(bare.labels.is_empty() && bare.properties.others.is_empty());
}

#[test]
fn a_value_of_another_name_is_checked_and_reported_under_that_name() {
    assert_eq!(
        parse(json!({
            "properties": { "title": "" },
            "copies": 0,
            "team": 3,
            "status": "far too long a label",
        }))
        .unwrap_err(),
        "Validation Failed: properties.title: Must be at least 1 character long, not 0. \
         copies: Must be 1 or more, not 0. team: Must be a string, not a number. \
         status: Must be at most 10 characters long, not 20. \
         Correct the arguments and call the tool again."
    );
}
