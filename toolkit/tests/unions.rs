//! Unions, `#[derive(Args)]` on an enum: what each kind publishes, which branch reads a value,
//! and the sentences a value that fits no branch gets.

use serde_json::{Value, json};
use toolkit::{Args, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A page by its address.
#[derive(Args, Debug, PartialEq)]
pub struct Link {
    /// Where it is.
    #[arg(min_chars = 8)]
    url: String,
    /// How long to wait, in seconds.
    #[arg(min = 1, max = 60, default = 10)]
    timeout: u32,
}

/// Where to read from.
#[derive(Args, Debug, PartialEq)]
#[args(tag = "type")]
pub enum Source {
    /// A file on disk.
    File {
        #[arg(min_chars = 1)]
        path: String,
        line_count: Option<u32>,
    },
    /// A page on the web.
    WebPage(Link),
    /// Whatever the clipboard holds.
    Clipboard,
}

/// What to compare against.
#[derive(Args, Debug, PartialEq)]
#[args(untagged)]
pub enum Target {
    /// A dashboard's uid.
    Uid(#[arg(min_chars = 3, max_chars = 8)] String),
    /// A dashboard's number.
    Number(u32),
    /// A dashboard by its address.
    Link { url: String },
}

/// Anything, or a list of names.
#[derive(Args, Debug, PartialEq)]
#[args(untagged)]
pub enum Loose {
    Names(Vec<String>),
    Anything(serde_json::Value),
}

/// Compares a source with a target.
#[derive(Tool, Debug)]
#[tool(name = "compare", title = "Compare", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Compare {
    /// Where to read.
    source: Source,
    /// What to compare with.
    target: Option<Target>,
    /// Each place to look.
    sources: Option<Vec<Source>>,
    loose: Option<Loose>,
}

fn parse(arguments: Value) -> Result<Compare, String> {
    let Value::Object(arguments) = arguments else {
        panic!("not an object");
    };
    toolkit::parse::<Compare>(Some(&arguments)).map_err(|error| match error {
        ToolError::Invalid(violations) => violations.to_string(),
        other => panic!("unexpected {other:?}"),
    })
}

fn schema() -> Value {
    Value::Object(toolkit::input_schema(Compare::SPEC))
}

#[test]
fn a_tagged_union_is_one_of_objects_each_with_its_tag_as_a_const() {
    let schema = schema();
    let source = &schema["properties"]["source"];
    assert_eq!(source["type"], "object");
    assert_eq!(source["description"], "Where to read.");
    let branches = source["oneOf"].as_array().expect("oneOf");
    assert_eq!(branches.len(), 3);
    assert_eq!(
        branches[0],
        json!({
            "type": "object",
            "properties": {
                "type": { "type": "string", "const": "file" },
                "path": { "type": "string", "minLength": 1 },
                "lineCount": { "type": "integer", "minimum": 0, "maximum": 4294967295u32 },
            },
            "required": ["type", "path"],
            "additionalProperties": false,
            "description": "A file on disk.",
        })
    );
    assert_eq!(branches[1]["properties"]["type"]["const"], "web_page");
    assert_eq!(branches[1]["required"], json!(["type", "url"]));
    assert_eq!(branches[1]["properties"]["timeout"]["default"], 10);
    assert_eq!(
        branches[2],
        json!({
            "type": "object",
            "properties": { "type": { "type": "string", "const": "clipboard" } },
            "required": ["type"],
            "additionalProperties": false,
            "description": "Whatever the clipboard holds.",
        })
    );
}

#[test]
fn an_untagged_union_is_one_of_its_values_when_their_types_differ() {
    let schema = schema();
    let target = &schema["properties"]["target"];
    assert_eq!(target.get("type"), None);
    assert_eq!(
        target["oneOf"],
        json!([
            { "type": "string", "minLength": 3, "maxLength": 8, "description": "A dashboard's uid." },
            { "type": "integer", "minimum": 0, "maximum": 4294967295u32, "description": "A dashboard's number." },
            {
                "type": "object",
                "properties": { "url": { "type": "string" } },
                "required": ["url"],
                "additionalProperties": false,
                "description": "A dashboard by its address.",
            },
        ])
    );
    let loose = &schema["properties"]["loose"];
    assert_eq!(loose["anyOf"].as_array().map(Vec::len), Some(2));
    assert_eq!(loose.get("oneOf"), None);
}

#[test]
fn the_tag_chooses_the_variant_and_its_fields_are_read_as_an_objects() {
    let read = parse(json!({ "source": { "type": "file", "path": "a.txt" } })).unwrap();
    assert_eq!(
        read.source,
        Source::File {
            path: "a.txt".into(),
            line_count: None
        }
    );
    let read =
        parse(json!({ "source": { "type": "web_page", "url": "https://a.example" } })).unwrap();
    assert_eq!(
        read.source,
        Source::WebPage(Link {
            url: "https://a.example".into(),
            timeout: 10
        })
    );
    let read = parse(json!({
        "source": { "type": "clipboard" },
        "sources": [{ "type": "file", "path": "b", "lineCount": 2 }, { "type": "clipboard" }],
    }))
    .unwrap();
    assert_eq!(read.source, Source::Clipboard);
    assert_eq!(
        read.sources,
        Some(vec![
            Source::File {
                path: "b".into(),
                line_count: Some(2)
            },
            Source::Clipboard
        ])
    );
}

#[test]
fn a_tagged_variants_fields_are_reported_under_their_path() {
    assert_eq!(
        parse(json!({
            "source": { "type": "file", "path": "", "lines": 3 },
            "sources": [{ "type": "clipboard" }, { "type": "web_page", "url": "x", "timeout": 0 }],
        }))
        .unwrap_err(),
        "Validation Failed: source.path: Must be at least 1 character long, not 0. \
         source.lines: Not a field of this object, which has path and lineCount. \
         sources[1].url: Must be at least 8 characters long, not 1. \
         sources[1].timeout: Must be between 1 and 60, not 0. \
         Correct the arguments and call the tool again."
    );
}

#[test]
fn a_missing_or_unknown_tag_is_reported_on_the_tag() {
    assert_eq!(
        parse(json!({ "source": { "path": "a.txt" } })).unwrap_err(),
        "Validation Failed: source.type: This field is required: it says which kind of object \
         this is, file, web_page or clipboard. Correct the arguments and call the tool again."
    );
    assert_eq!(
        parse(json!({ "source": { "type": "fil", "path": "a.txt" } })).unwrap_err(),
        "Validation Failed: source.type: Must be one of file, web_page, clipboard, not \"fil\". \
         Did you mean file? Correct the arguments and call the tool again."
    );
    assert_eq!(
        parse(json!({ "source": "a.txt" })).unwrap_err(),
        "Validation Failed: source: Must be an object whose type is file, web_page or \
         clipboard, not a string. Correct the arguments and call the tool again."
    );
}

#[test]
fn an_untagged_value_is_read_by_the_first_variant_it_fits() {
    let read =
        |target: Value| parse(json!({ "source": { "type": "clipboard" }, "target": target }));
    assert_eq!(
        read(json!("abc")).unwrap().target,
        Some(Target::Uid("abc".into()))
    );
    assert_eq!(read(json!(42)).unwrap().target, Some(Target::Number(42)));
    assert_eq!(
        read(json!({ "url": "u" })).unwrap().target,
        Some(Target::Link { url: "u".into() })
    );
    let loose = |loose: Value| {
        parse(json!({ "source": { "type": "clipboard" }, "loose": loose }))
            .unwrap()
            .loose
    };
    assert_eq!(loose(json!(["a"])), Some(Loose::Names(vec!["a".into()])));
    assert_eq!(loose(json!([1])), Some(Loose::Anything(json!([1]))));
}

#[test]
fn a_value_no_variant_fits_gets_what_each_variant_is() {
    let refused = |target: Value| {
        parse(json!({ "source": { "type": "clipboard" }, "target": target })).unwrap_err()
    };
    assert_eq!(
        refused(json!(true)),
        "Validation Failed: target: Must be a string, an integer or an object with url, not a \
         boolean. Correct the arguments and call the tool again."
    );
    assert_eq!(
        refused(json!("a-very-long-uid")),
        "Validation Failed: target: Must be one of: a string (Must be between 3 and 8 \
         characters long, not 15), or an integer, or an object with url. Correct the arguments and call \
         the tool again."
    );
    assert_eq!(
        refused(json!({ "link": "u" })),
        "Validation Failed: target: Must be one of: a string, or an integer, or an object with \
         url (url: This field is required. link: Not a field of this object, which has url). \
         Correct the arguments and call the tool again."
    );
    assert_eq!(
        refused(json!(-1)),
        "Validation Failed: target: Must be one of: a string, or an integer (Must be 0 or more, \
         not -1), or an object with url. Correct the arguments and call the tool again."
    );
}
