//! Choices: `#[derive(Choice)]` enums as required, optional and defaulted arguments, with
//! snake_case and renamed wire names, described and undescribed values.
use serde_json::json;
use toolkit::{Choice, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// How to sort.
#[derive(Choice, Debug, PartialEq, Clone, Copy)]
pub enum SortBy {
    /// By name, A to Z.
    Name,
    /// By size in bytes
    Size,
    LastModified,
    /// Newest first.
    #[choice(rename = "newest-first")]
    Newest,
}

#[derive(Choice, Debug, PartialEq)]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// Lists files.
#[derive(Tool)]
#[tool(name = "list", title = "List", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct List {
    /// The order.
    #[arg(default = "size")]
    pub sort_by: SortBy,
    pub button: Option<Button>,
    pub then_by: SortBy,
}

fn main() {
    assert_eq!(SortBy::NAMES, ["name", "size", "last_modified", "newest-first"]);
    assert_eq!(SortBy::Newest.name(), "newest-first");
    let schema = toolkit::input_schema(List::SPEC);
    assert_eq!(schema["properties"]["sortBy"], json!({
        "type": "string",
        "enum": ["name", "size", "last_modified", "newest-first"],
        "default": "size",
        "description": "The order. `name`: By name, A to Z; `size`: By size in bytes; \
                        `newest-first`: Newest first.",
    }));
    assert_eq!(schema["properties"]["button"], json!({
        "type": "string", "enum": ["left", "right", "middle"],
    }));
    assert_eq!(schema["required"], json!(["thenBy"]));

    let list: List = toolkit::parse(json!({ "thenBy": "last_modified" }).as_object()).unwrap();
    assert_eq!((list.sort_by, list.button, list.then_by), (SortBy::Size, None, SortBy::LastModified));

    let refused = json!({ "sortBy": "Size", "button": 1, "thenBy": "sise" });
    assert_eq!(
        toolkit::parse::<List>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         sortBy: Must be one of name, size, last_modified, newest-first, not \"Size\". Did you mean size? \
         button: Must be one of left, right, middle, not a number. \
         thenBy: Must be one of name, size, last_modified, newest-first, not \"sise\". Did you mean size? \
         Correct the arguments and call the tool again."
    );
}
