//! The sentence of every rule, in each shape of bound, under each label style, compared with
//! the exact text: one tool declares an argument per rule and shape, one call breaks them all,
//! and the message must read as the table below says, with the arguments named by their wire
//! names by default and capitalised when a server chooses so. Places inside an argument and
//! undeclared names read the same in both.

use std::collections::BTreeMap;

use serde_json::json;
use toolkit::{Args, Choice, Labels, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

#[derive(Choice)]
pub enum Side {
    Left,
    Right,
}

#[derive(Args)]
#[allow(dead_code)]
pub struct Edit {
    #[arg(min_chars = 1)]
    old_text: String,
}

/// One argument per rule and shape of bound.
#[derive(Tool)]
#[tool(name = "everything", title = "Everything", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
#[allow(dead_code)]
pub struct Everything {
    #[arg(min = 1, max = 100)]
    both: i32,
    #[arg(min = 1)]
    thought_number: u32,
    #[arg(max = 100)]
    at_most: i64,
    natural: u8,
    #[arg(exclusive_min = 0)]
    positive: f64,
    #[arg(exclusive_max = 600)]
    below: f64,
    #[arg(min = 0, exclusive_max = 1)]
    ratio: f32,
    #[arg(min_chars = 1, max_chars = 40)]
    name: String,
    #[arg(min_chars = 2)]
    code: String,
    #[arg(max_chars = 1)]
    initial: String,
    #[arg(pattern = "^[A-Z]{2}-\\d+$")]
    key: String,
    #[arg(min_items = 1, max_items = 2)]
    pair: Vec<u8>,
    #[arg(min_items = 1)]
    some: Vec<u8>,
    #[arg(unique)]
    distinct: Vec<u8>,
    #[arg(max_entries = 1)]
    headers: BTreeMap<String, String>,
    side: Side,
    edits: Vec<Edit>,
    #[arg(rename = "max_length", min = 1, max = 999_999)]
    max_length: u32,
}

/// Each argument, the value that breaks its rule, and the sentence it gets.
const TABLE: &[(&str, &str, &str)] = &[
    ("both", "0", "Must be between 1 and 100, not 0."),
    ("thoughtNumber", "0", "Must be 1 or more, not 0."),
    ("atMost", "101", "Must be 100 or less, not 101."),
    ("natural", "300", "Must be 255 or less, not 300."),
    ("positive", "0", "Must be more than 0, not 0."),
    ("below", "600.0", "Must be less than 600, not 600.0."),
    (
        "ratio",
        "1.50",
        "Must be at least 0 and less than 1, not 1.5.",
    ),
    (
        "name",
        "\"\"",
        "Must be between 1 and 40 characters long, not 0.",
    ),
    (
        "code",
        "\"a\"",
        "Must be at least 2 characters long, not 1.",
    ),
    (
        "initial",
        "\"ab\"",
        "Must be at most 1 character long, not 2.",
    ),
    (
        "key",
        "\"ab-1\"",
        "Must match the pattern ^[A-Z]{2}-\\d+$, not \"ab-1\".",
    ),
    (
        "pair",
        "[1, 2, 3]",
        "Must have between 1 and 2 items, not 3.",
    ),
    ("some", "[]", "Must have at least 1 item, not 0."),
    (
        "distinct",
        "[1, 1]",
        "Must not repeat an item, but items 0 and 1 are equal.",
    ),
    (
        "headers",
        "{\"a\": \"x\", \"b\": \"y\"}",
        "Must have at most 1 entry, not 2.",
    ),
    (
        "side",
        "\"Left\"",
        "Must be one of left, right, not \"Left\". Did you mean left?",
    ),
    ("max_length", "0", "Must be between 1 and 999999, not 0."),
];

/// The call: every value of the table, one bad element in `edits`, and an undeclared name.
fn arguments() -> serde_json::Map<String, serde_json::Value> {
    let mut arguments = serde_json::Map::new();
    for (name, value, _) in TABLE {
        let value = serde_json::from_str(value).expect("the table's values are JSON");
        arguments.insert((*name).to_owned(), value);
    }
    arguments.insert(
        "edits".into(),
        json!([{ "oldText": "x" }, { "oldText": "" }]),
    );
    arguments.insert("maxLength".into(), json!(5));
    arguments
}

/// The message, with each table row's argument named by `label`.
fn expected(label: impl Fn(&str) -> String) -> String {
    let mut message = "Validation Failed:".to_owned();
    for (index, (name, _, sentence)) in TABLE.iter().enumerate() {
        message.push_str(&format!(" {}: {sentence}", label(name)));
        // `edits` is declared after `side`, the row before `max_length`.
        if index == TABLE.len() - 2 {
            message.push_str(" edits[1].oldText: Must be at least 1 character long, not 0.");
        }
    }
    message.push_str(
        " maxLength: Not an argument of this tool. Did you mean max_length? \
         Correct the arguments and call the tool again.",
    );
    message
}

fn violations() -> toolkit::Violations {
    match toolkit::parse::<Everything>(Some(&arguments())) {
        Err(ToolError::Invalid(violations)) => violations,
        other => panic!(
            "every argument breaks a rule, but parse gave {:?}",
            other.err()
        ),
    }
}

#[test]
fn every_rule_reads_as_the_table_says_with_wire_names() {
    assert_eq!(violations().to_string(), expected(|name| name.to_owned()));
}

#[test]
fn every_rule_reads_as_the_table_says_capitalised() {
    let capitalised = |name: &str| {
        let mut chars = name.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().chain(chars).collect()
        })
    };
    assert_eq!(
        violations().labelled(Labels::Capitalised).to_string(),
        expected(capitalised)
    );
}

#[test]
fn each_violation_names_its_place_and_whether_it_is_an_argument() {
    let places: Vec<(String, bool)> = violations()
        .iter()
        .map(|violation| (violation.argument.clone(), violation.declared))
        .collect();
    assert_eq!(places[0], ("both".to_owned(), true));
    assert!(places.contains(&("edits[1].oldText".to_owned(), false)));
    assert_eq!(places.last(), Some(&("maxLength".to_owned(), false)));
}
