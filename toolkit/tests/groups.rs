//! Groups of arguments: `one_of` and `any_of` on a tool or an object, `conflicts_with` and
//! `requires` on a field; published with `not` and `dependentRequired`, checked as one
//! sentence each.

use serde_json::{Value, json};
use toolkit::{Args, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Where to look: by names or by identifiers, at least one; a prefix only with names.
#[derive(Args, Debug)]
#[args(any_of(names, identifiers))]
#[allow(dead_code)]
pub struct Logs {
    names: Option<Vec<String>>,
    identifiers: Option<Vec<String>>,
    #[arg(requires = names)]
    prefix: Option<String>,
}

/// Shows a dashboard.
#[derive(Tool, Debug)]
#[tool(name = "dashboard_get", title = "Get dashboard", output = Out,
       read_only, destructive = false, idempotent, open_world = false,
       one_of(dashboard, uid))]
#[allow(dead_code)]
pub struct DashboardGet {
    /// The dashboard's name.
    dashboard: Option<String>,
    /// The dashboard's uid.
    uid: Option<String>,
    /// Its panels, all of them when left out.
    #[arg(conflicts_with = "summary")]
    panels: Option<Vec<u32>>,
    /// A summary instead of the panels.
    summary: Option<bool>,
    logs: Option<Logs>,
}

fn parse(arguments: Value) -> Result<DashboardGet, String> {
    let Value::Object(arguments) = arguments else {
        panic!("not an object");
    };
    toolkit::parse::<DashboardGet>(Some(&arguments)).map_err(|error| match error {
        ToolError::Invalid(violations) => violations.to_string(),
        other => panic!("unexpected {other:?}"),
    })
}

#[test]
fn groups_are_published_with_keywords_every_client_takes_at_the_top() {
    let schema = Value::Object(toolkit::input_schema(DashboardGet::SPEC));
    assert_eq!(
        schema["not"],
        json!({ "anyOf": [
            { "not": { "anyOf": [{ "required": ["dashboard"] }, { "required": ["uid"] }] } },
            { "required": ["dashboard", "uid"] },
            { "required": ["panels", "summary"] },
        ] })
    );
    for keyword in ["oneOf", "anyOf", "allOf"] {
        assert_eq!(schema.get(keyword), None, "{keyword} at the top");
    }
    let logs = &schema["properties"]["logs"];
    assert_eq!(
        logs["not"],
        json!({ "not": { "anyOf": [{ "required": ["names"] }, { "required": ["identifiers"] }] } })
    );
    assert_eq!(logs["dependentRequired"], json!({ "prefix": ["names"] }));
}

#[test]
fn a_call_that_keeps_every_group_runs() {
    let read = parse(json!({ "uid": "a1", "panels": [1], "logs": { "identifiers": ["x"] } }));
    let read = read.unwrap();
    assert_eq!(read.uid.as_deref(), Some("a1"));
    assert!(read.dashboard.is_none() && read.summary.is_none());
    assert!(parse(json!({ "dashboard": "Home", "summary": true })).is_ok());
    assert!(parse(json!({ "dashboard": "Home", "uid": null })).is_ok());
}

#[test]
fn each_broken_group_is_one_sentence() {
    assert_eq!(
        parse(json!({ "dashboard": "Home", "uid": "a1" })).unwrap_err(),
        "Validation Failed: Give exactly one of dashboard or uid, not both. \
         Correct the arguments and call the tool again."
    );
    assert_eq!(
        parse(json!({ "panels": [1], "summary": false, "logs": { "prefix": "api" } })).unwrap_err(),
        "Validation Failed: logs: Give at least one of names or identifiers. \
         logs: Give names with prefix, or leave prefix out. \
         Give exactly one of dashboard or uid. Give at most one of panels or summary. \
         Correct the arguments and call the tool again."
    );
}

/// A page: by its id or its path, never both.
#[derive(Args, Debug)]
#[args(one_of(id, path))]
#[allow(dead_code)]
pub struct Page {
    id: Option<u32>,
    path: Option<String>,
}

/// Where to read: a page, or a file whose encoding goes only with a name.
#[derive(Args, Debug)]
#[args(tag = "type")]
#[allow(dead_code)]
pub enum Source {
    Page(Page),
    File {
        name: Option<String>,
        #[arg(requires = name)]
        encoding: Option<String>,
    },
}

/// What to read: a number, or a file by its name or a glob, never both.
#[derive(Args, Debug)]
#[args(untagged)]
#[allow(dead_code)]
pub enum Target {
    Number(u32),
    File {
        name: Option<String>,
        #[arg(conflicts_with = name)]
        glob: Option<String>,
    },
}

/// Reads from a source.
#[derive(Tool, Debug)]
#[tool(name = "read_source", title = "Read source", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
#[allow(dead_code)]
pub struct ReadSource {
    source: Source,
    target: Option<Target>,
}

#[test]
fn a_unions_objects_keep_their_groups() {
    let schema = Value::Object(toolkit::input_schema(ReadSource::SPEC));
    let branches = &schema["properties"]["source"]["oneOf"];
    assert_eq!(
        branches[0]["not"]["anyOf"][1],
        json!({ "required": ["id", "path"] })
    );
    assert_eq!(
        branches[1]["dependentRequired"],
        json!({ "encoding": ["name"] })
    );
    assert_eq!(
        schema["properties"]["target"]["oneOf"][1]["not"],
        json!({ "required": ["glob", "name"] })
    );

    let read = |arguments: Value| {
        let Value::Object(arguments) = arguments else {
            panic!("not an object");
        };
        toolkit::parse::<ReadSource>(Some(&arguments)).map_err(|error| error.to_string())
    };
    assert!(read(json!({ "source": { "type": "page", "id": 1 } })).is_ok());
    assert_eq!(
        read(json!({
            "source": { "type": "page", "id": 1, "path": "a" },
        }))
        .unwrap_err(),
        "Validation Failed: source: Give exactly one of id or path, not both. \
         Correct the arguments and call the tool again."
    );
    assert_eq!(
        read(json!({ "source": { "type": "file", "encoding": "utf-8" } })).unwrap_err(),
        "Validation Failed: source: Give name with encoding, or leave encoding out. \
         Correct the arguments and call the tool again."
    );
    assert!(read(json!({ "source": { "type": "file" }, "target": { "glob": "*.md" } })).is_ok());
    assert_eq!(
        read(json!({ "source": { "type": "file" }, "target": { "name": "a", "glob": "*.md" } }))
            .unwrap_err(),
        "Validation Failed: target: Must be one of: an integer, or an object with name and glob \
         (Give at most one of glob or name). Correct the arguments and call the tool again."
    );
}
