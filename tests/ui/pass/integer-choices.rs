//! An integer choice: `#[derive(Choice)]` on an enum whose variants have discriminants,
//! published as an integer `enum`, read from its numbers (`3` or `3.0`), with a default.
use serde_json::json;
use toolkit::{Choice, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// How urgent.
#[derive(Choice, Debug, PartialEq)]
pub enum Priority {
    /// Can wait.
    Low = 1,
    /// Now.
    High = 3,
    Never = -1,
}

/// Files an issue.
#[derive(Tool)]
#[tool(name = "issues_file", title = "File an issue", output = Out, read_only = false,
       destructive = false, idempotent = false, open_world = false)]
pub struct IssuesFile {
    /// How urgent the issue is.
    #[arg(default = 3)]
    pub priority: Priority,
    pub others: Vec<Priority>,
}

fn parse(arguments: serde_json::Value) -> Result<IssuesFile, ToolError> {
    toolkit::parse::<IssuesFile>(arguments.as_object())
}

fn main() {
    let schema = toolkit::input_schema(IssuesFile::SPEC);
    assert_eq!(
        schema["properties"]["priority"],
        json!({
            "type": "integer",
            "enum": [1, 3, -1],
            "default": 3,
            "description": "How urgent the issue is. `1`: Can wait; `3`: Now.",
        })
    );
    assert_eq!(Priority::NUMBERS, Some(&[1, 3, -1][..]));
    assert_eq!(Priority::NAMES, ["1", "3", "-1"]);

    let read = parse(json!({ "others": [1, 3.0, -1] })).unwrap();
    assert_eq!(read.priority, Priority::High);
    assert_eq!(read.others, [Priority::Low, Priority::High, Priority::Never]);

    let Err(ToolError::Invalid(violations)) = parse(json!({ "priority": 2, "others": ["3"] }))
    else {
        panic!("2 and \"3\" are not priorities");
    };
    let sentences: Vec<String> = violations
        .iter()
        .map(|v| format!("{}: {}", v.argument, v.sentence))
        .collect();
    assert_eq!(
        sentences,
        [
            "priority: Must be one of 1, 3, -1, not 2.",
            "others[0]: Must be one of 1, 3, -1, not a string.",
        ]
    );
}
