//! Snapshots of the input schema of every kind of argument: numbers and their bounds, a choice,
//! lists with element rules, tuples, a nullable number, an integer choice, an object nested in
//! a list and in an object, maps, a pattern, the typed formats, free-form JSON, tagged and
//! untagged unions, other names taken by a flattened map, and groups. A change to what a
//! client is told shows up in review.

use std::collections::BTreeMap;

use toolkit::{Args, Choice, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// The state of an issue.
#[derive(Choice)]
pub enum State {
    /// Not yet closed.
    Open,
    /// Done with.
    Closed,
    All,
}

/// How urgent.
#[derive(Choice)]
pub enum Priority {
    /// Can wait.
    Low = 1,
    High = 3,
}

/// A point.
#[derive(Args)]
#[allow(dead_code)]
pub struct Point {
    x: f64,
    #[arg(min = 0.0, default = 0.0)]
    y: f64,
}

/// One replacement.
#[derive(Args)]
#[allow(dead_code)]
pub struct Edit {
    /// The text to find.
    #[arg(min_chars = 1)]
    old_text: String,
    /// Where it is.
    at: Option<Point>,
}

/// A shape to draw.
#[derive(Args)]
#[args(tag = "kind", rename_all = "kebab-case")]
#[allow(dead_code)]
pub enum Shape {
    /// A circle around the origin.
    Circle {
        #[arg(exclusive_min = 0.0)]
        radius: f64,
    },
    /// A single point.
    SinglePoint(Point),
}

/// A dashboard, by its uid or its number.
#[derive(Args)]
#[args(untagged)]
#[allow(dead_code)]
pub enum Dashboard {
    Uid(#[arg(pattern = "^[a-z0-9]+$")] String),
    /// Its number.
    Number(u32),
}

/// Every kind of argument.
#[derive(Tool)]
#[tool(name = "kinds", title = "Kinds", output = Out,
       read_only, destructive = false, idempotent, open_world = false,
       any_of(ratio, feed))]
#[allow(dead_code)]
pub struct Kinds {
    /// A timeout.
    #[arg(exclusive_min = 0, max = 600, default = 30)]
    timeout: f64,
    ratio: Option<f32>,
    tiny: i8,
    #[arg(min = 1)]
    count: usize,
    /// Which issues.
    #[arg(default = "open")]
    state: State,
    #[arg(
        min_items = 1,
        max_items = 20,
        unique,
        each(min_chars = 1, max_chars = 50),
        default = ["bug"],
        examples = [["bug", "ui"]]
    )]
    labels: Vec<String>,
    #[arg(min_items = 1)]
    edits: Vec<Edit>,
    #[arg(max_entries = 10, each(max_chars = 200))]
    headers: BTreeMap<String, String>,
    /// Name–value pairs.
    pairs: Vec<(String, State)>,
    /// How urgent.
    #[arg(default = 1)]
    priority: Priority,
    /// A milestone, or `null` to take it away.
    #[arg(min = 1)]
    milestone: Option<Option<u32>>,
    #[arg(pattern = "^[A-Z]{2}-\\d+$", examples = ["AB-12", "XY-7"])]
    key: String,
    #[arg(default = "https://example.com/")]
    page: url::Url,
    feed: Option<fluent_uri::Uri<String>>,
    due: chrono::NaiveDate,
    at: chrono::DateTime<chrono::Utc>,
    #[arg(format = "email")]
    to: String,
    #[arg(conflicts_with = ratio)]
    extra: Option<serde_json::Value>,
    /// What to draw.
    shape: Shape,
    dashboard: Option<Dashboard>,
    /// Any other name, with a short text.
    #[arg(flatten, each(max_chars = 20))]
    others: BTreeMap<String, String>,
}

#[test]
fn every_kind_of_argument_publishes_the_snapshot() {
    let schema = serde_json::Value::Object(toolkit::input_schema(Kinds::SPEC));
    insta::assert_json_snapshot!("kinds_input_schema", schema);
}
