//! Defaults and examples: `examples = [...]` published as `examples`, list defaults, and
//! defaults of typed formats (a URL, a date, a UUID). The macro checks a literal against the
//! rules and, where a constant can, the type; a toolbox reads each one as a call would when it
//! adds the tool, and refuses one its argument would refuse, naming the tool and the argument.

use serde_json::{Value, json};
use toolkit::{Args, Choice, Tool, ToolError, Toolbox};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

#[derive(Choice, Debug, PartialEq)]
pub enum Sort {
    Newest,
    Oldest,
}

/// Where to send the results.
#[derive(Args, Debug)]
#[allow(dead_code)]
pub struct Hook {
    /// The address called with each result.
    #[arg(default = "https://hooks.example.com/results")]
    url: url::Url,
    /// How many times a failed call is tried again.
    #[arg(default = 3, max = 5, examples = [0, 5])]
    retries: u8,
}

/// Searches the archive.
#[derive(Tool, Debug)]
#[tool(name = "archive_search", title = "Search the archive", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
#[allow(dead_code)]
pub struct ArchiveSearch {
    /// Words to look for.
    #[arg(max_chars = 100, examples = ["moon landing", "apollo 11"])]
    query: String,
    /// Labels every result carries.
    #[arg(default = ["public"], max_items = 3, each(max_chars = 20), examples = [["public", "press"], []])]
    labels: Vec<String>,
    /// The order of the results.
    #[arg(default = ["newest"], unique)]
    sort: Vec<Sort>,
    /// Pages of results, in order.
    #[arg(default = [1, 2])]
    pages: Vec<u32>,
    /// The archive's address.
    #[arg(default = "https://archive.example.com/api")]
    archive: url::Url,
    /// Results from this day on.
    #[arg(default = "1969-07-16", examples = ["1969-07-20"])]
    since: chrono::NaiveDate,
    /// A collection to search in.
    #[arg(examples = ["3f2504e0-4f89-11d3-9a0c-0305e82c3301"])]
    collection: Option<toolkit::Uuid>,
    hook: Option<Hook>,
}

/// A date the compiler cannot tell is not one: the form is right, the day is not.
#[derive(Tool, Debug)]
#[tool(name = "calendar_show", title = "Show a day", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
#[allow(dead_code)]
pub struct CalendarShow {
    /// The day.
    #[arg(default = "2023-02-30")]
    day: chrono::NaiveDate,
    /// Where to show it.
    hook: Option<BadHook>,
}

/// A hook whose address no URL reader takes.
#[derive(Args, Debug)]
#[allow(dead_code)]
pub struct BadHook {
    /// The address called.
    #[arg(examples = ["https://ok.example.com", "http://example.com:99999/"])]
    url: url::Url,
}

struct Server;

impl toolkit::Run<Server> for ArchiveSearch {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

impl toolkit::Run<Server> for CalendarShow {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn parse(arguments: Value) -> Result<ArchiveSearch, String> {
    let Value::Object(arguments) = arguments else {
        panic!("not an object");
    };
    toolkit::parse::<ArchiveSearch>(Some(&arguments)).map_err(|error| match error {
        ToolError::Invalid(violations) => violations.to_string(),
        other => panic!("unexpected {other:?}"),
    })
}

#[test]
fn examples_and_defaults_are_published_as_a_client_would_send_them() {
    let schema = Value::Object(toolkit::input_schema(ArchiveSearch::SPEC));
    let properties = &schema["properties"];
    assert_eq!(
        properties["query"]["examples"],
        json!(["moon landing", "apollo 11"])
    );
    assert_eq!(properties["labels"]["default"], json!(["public"]));
    assert_eq!(
        properties["labels"]["examples"],
        json!([["public", "press"], []])
    );
    assert_eq!(properties["sort"]["default"], json!(["newest"]));
    assert_eq!(properties["pages"]["default"], json!([1, 2]));
    assert_eq!(
        properties["archive"]["default"],
        json!("https://archive.example.com/api")
    );
    assert_eq!(properties["since"]["default"], json!("1969-07-16"));
    assert_eq!(properties["since"]["examples"], json!(["1969-07-20"]));
    let hook = &properties["hook"]["properties"];
    assert_eq!(hook["retries"]["examples"], json!([0, 5]));
    assert_eq!(
        hook["url"]["default"],
        json!("https://hooks.example.com/results")
    );
}

#[test]
fn every_published_default_and_example_is_valid_against_the_schema() {
    let schema = Value::Object(toolkit::input_schema(ArchiveSearch::SPEC));
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (name, property) in schema["properties"].as_object().unwrap() {
        let values = property.get("default").into_iter().chain(
            property
                .get("examples")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
        for value in values {
            let call = json!({ "query": "x", name.as_str(): value });
            assert!(validator.is_valid(&call), "{name}: {value}");
            assert!(parse(call).is_ok(), "{name}: {value}");
        }
    }
}

#[test]
fn a_left_out_list_or_typed_format_gets_its_default() {
    let read = parse(json!({ "query": "moon" })).unwrap();
    assert_eq!(read.labels, ["public"]);
    assert_eq!(read.sort, [Sort::Newest]);
    assert_eq!(read.pages, [1, 2]);
    assert_eq!(read.archive.as_str(), "https://archive.example.com/api");
    assert_eq!(read.since.to_string(), "1969-07-16");
    let read = parse(json!({ "query": "moon", "hook": {} })).unwrap();
    let hook = read.hook.unwrap();
    assert_eq!(hook.url.as_str(), "https://hooks.example.com/results");
    assert_eq!(hook.retries, 3);
}

#[test]
fn a_toolbox_takes_a_tool_whose_literals_all_fit() {
    assert!(
        Toolbox::<Server>::new()
            .tool::<ArchiveSearch>()
            .check()
            .is_ok()
    );
}

#[test]
fn a_toolbox_refuses_a_literal_the_compiler_could_not_check_naming_tool_and_argument() {
    let problems = Toolbox::<Server>::new()
        .tool::<ArchiveSearch>()
        .tool::<CalendarShow>()
        .check()
        .unwrap_err()
        .to_string();
    assert!(
        problems.contains(
            "the default \"2023-02-30\" of `calendar_show`'s argument `day` is not a value it \
             takes: Must be a date in the form 2024-05-31, not \"2023-02-30\"."
        ),
        "{problems}"
    );
    assert!(
        problems.contains(
            "the example \"http://example.com:99999/\" of `calendar_show`'s argument `hook.url` \
             is not a value it takes: Must have a port from 0 to 65535"
        ),
        "{problems}"
    );
    assert!(!problems.contains("archive_search"), "{problems}");
    assert!(!problems.contains("https://ok.example.com"), "{problems}");
}
