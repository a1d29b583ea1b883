//! The tools whose schemas and parsers are compared: between them every argument kind, rule and
//! default the framework has. `Serialize` (camelCase, like the wire names; snake_case and the
//! same renames for choices) lets a test compare what the tool receives with what was sent.
//!
//! Nothing here is read by the oracle but the input schema the derives publish: the doc
//! comments say what each declaration is for, not what the test expects of it. The one thing
//! the schema cannot say, whether a date-time is held at the offset sent or in UTC, the test
//! of each declaration states (`Agreement::date_times_in_utc`).

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use fluent_uri::Uri;
use toolkit::{Args, Choice, Tool, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Strings with and without length rules, and a boolean with a default.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "texts", title = "Texts", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Texts {
    /// Two to eight characters.
    #[arg(min_chars = 2, max_chars = 8, examples = ["Dune", "Solaris"])]
    title: String,
    /// Any text, or none.
    note: Option<String>,
    /// At most five characters, or none.
    #[arg(max_chars = 5)]
    label: Option<String>,
    /// One to twelve characters, `title` when left out.
    #[arg(min_chars = 1, max_chars = 12, default = "title")]
    order: String,
    /// True when left out.
    #[arg(default = true)]
    verbose: bool,
}

/// Integers of every width, with negative, declared and only the type's own bounds.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "numbers", title = "Numbers", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Numbers {
    /// Between -10 and -1.
    #[arg(min = -10, max = -1)]
    delta: i32,
    /// Any `i64`.
    anything: i64,
    /// Between 1 and 50, 10 when left out.
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
    /// Any `u64`.
    size: u64,
    /// Any `u32`, 0 when left out.
    #[arg(default = 0)]
    offset: u32,
    /// Any `i32`, or none.
    level: Option<i32>,
    /// Any `i8`.
    tiny: i8,
    /// From -1000 to any `i16`.
    #[arg(min = -1000)]
    small: i16,
    /// At most 200, 5 when left out.
    #[arg(max = 200, default = 5)]
    byte: u8,
    /// Any `u16`, or none.
    port: Option<u16>,
    /// More than 0 and less than 10: both exclusive bounds beside the type's own.
    #[arg(exclusive_min = 0, exclusive_max = 10)]
    step: i32,
    /// Any negative `i64`, or none.
    #[arg(exclusive_max = 0)]
    debt: Option<i64>,
}

/// Floats with exclusive and inclusive, whole and fractional bounds, whole and fractional
/// defaults, `f32`'s own range and none at all.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "floats", title = "Floats", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Floats {
    /// More than 0 and at most 600, 30 when left out.
    #[arg(exclusive_min = 0, max = 600, default = 30)]
    timeout: f64,
    /// From -90.5 to 90.5.
    #[arg(min = -90.5, max = 90.5)]
    latitude: f64,
    /// At least 0 and less than 1, in `f32` precision.
    #[arg(min = 0, exclusive_max = 1)]
    ratio: f32,
    /// Any `f64`.
    anything: f64,
    /// Any `f32`, or none.
    scale: Option<f32>,
    /// More than -1500, 0.25 when left out.
    #[arg(exclusive_min = -1.5e3, default = 0.25)]
    offset: f64,
}

/// A required and an optional UUID.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "ids", title = "Ids", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Ids {
    /// Required.
    id: Uuid,
    /// Optional.
    parent_id: Option<Uuid>,
}

/// An order: snake_case wire names, one renamed, documented and undocumented values.
#[derive(Choice, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SortBy {
    /// By name.
    Name,
    Size,
    LastModified,
    /// Newest first.
    #[choice(rename = "newest-first")]
    #[serde(rename = "newest-first")]
    Newest,
}

/// A mouse button: three undocumented values.
#[derive(Choice, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Button {
    Left,
    Right,
    Middle,
}

/// Two values only, so that a unique list of them is short.
#[derive(Choice, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Open,
    Closed,
}

/// A priority: an integer choice, which serialises as its number.
#[derive(Choice, Clone, Copy)]
pub enum Priority {
    /// Can wait.
    Low = 1,
    High = 3,
    Negative = -2,
}

impl serde::Serialize for Priority {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(*self as i64)
    }
}

/// Choices: defaulted, optional and required, of strings and of integers, and distinct
/// integer choices in a list (`3` beside `3.0`).
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "choices", title = "Choices", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Choices {
    /// `size` when left out.
    #[arg(default = "size")]
    sort_by: SortBy,
    /// Optional.
    button: Option<Button>,
    /// Required.
    then_by: SortBy,
    /// 3 when left out.
    #[arg(default = 3)]
    priority: Priority,
    /// Distinct priorities, or none.
    #[arg(unique)]
    priorities: Option<Vec<Priority>>,
}

/// Lists: strings with element rules and uniqueness, bounded numbers (unique integers, so that
/// `1` and `1.0` meet), choices, UUIDs and a list of lists with counts at both levels.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "lists", title = "Lists", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Lists {
    /// At most three distinct labels of one to five characters, `["new"]` when left out.
    #[arg(
        max_items = 3,
        unique,
        each(min_chars = 1, max_chars = 5),
        default = ["new"],
        examples = [["bug", "ui"], []]
    )]
    labels: Vec<String>,
    /// At least one distinct score from 0 to 10, or none.
    #[arg(min_items = 1, unique, each(min = 0, max = 10))]
    scores: Option<Vec<u8>>,
    /// Weights more than -1 and at most 1.5, `[0.5, 1]` when left out.
    #[arg(each(exclusive_min = -1, max = 1.5), default = [0.5, 1], examples = [[1.5]])]
    weights: Vec<f64>,
    /// Distinct states.
    #[arg(unique)]
    states: Vec<State>,
    /// Up to two rows of up to two `f32`s.
    #[arg(max_items = 2, each(max_items = 2))]
    matrix: Vec<Vec<f32>>,
    /// Ids, or none.
    ids: Option<Vec<Uuid>>,
}

/// Tuples: name–value pairs in a bounded list, a pair of bounded numbers, a triple with a
/// choice, a UUID and an object, and a pair of them nested, or none.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "tuples", title = "Tuples", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Tuples {
    /// At most three headers, each a name and a value.
    #[arg(max_items = 3)]
    headers: Vec<(String, String)>,
    /// A small count and a ratio.
    pair: (u8, f32),
    /// A state, an id and a point.
    triple: (State, Uuid, Point),
    /// Two pairs, or none.
    nested: Option<((bool, i8), (String,))>,
}

/// Null versus absent: nullable arguments (`Option<Option<T>>`: a bounded string, a choice and
/// an object holding a nullable field of its own) beside a plain `Option`, whose `null` means
/// left out. What the tool receives tells the two apart: a nullable argument left out is left
/// out of what it serialises, and its `null` is `null`.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "nulls", title = "Nulls", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Nulls {
    /// A label of at most five characters, `null` to clear it.
    #[arg(max_chars = 5)]
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<Option<String>>,
    /// A state, `null` to clear it.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<Option<State>>,
    /// Changes, `null` to remove them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<Option<Patch>>,
    /// A small number, or none.
    plain: Option<u8>,
}

/// Changes to a review: a nullable bounded number beside a required string.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Patch {
    /// One to five stars, `null` to remove them.
    #[arg(min = 1, max = 5)]
    #[serde(skip_serializing_if = "Option::is_none")]
    stars: Option<Option<u8>>,
    /// A note.
    note: String,
}

/// Case conventions: the arguments in snake_case, an object's fields in kebab-case and a
/// choice's values in SCREAMING_SNAKE_CASE, each with a `rename` that wins; serde's
/// `rename_all` writes what the tool receives, so the two must name everything alike.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[tool(name = "cases", title = "Cases", output = Out,
       read_only, destructive = false, idempotent, open_world = false, rename_all = "snake_case")]
pub struct Cases {
    /// Any group name.
    log_group_name: String,
    /// A token, or none.
    #[arg(rename = "nextToken")]
    #[serde(rename = "nextToken")]
    next_token: Option<String>,
    /// A level.
    level: Level,
    /// A filter, or none.
    log_filter: Option<LogFilter>,
}

/// A level, its values in SCREAMING_SNAKE_CASE but one.
#[derive(Choice, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[choice(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    DebugInfo,
    Warn,
    #[choice(rename = "err")]
    #[serde(rename = "err")]
    Error,
}

/// A filter, its fields in kebab-case.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[args(rename_all = "kebab-case")]
pub struct LogFilter {
    /// A stream of one character or more.
    #[arg(min_chars = 1)]
    log_stream: String,
    /// A pattern, or none.
    filter_pattern: Option<String>,
}

/// One replacement: a required bounded string, a free one and a boolean with a default.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// The text to find.
    #[arg(min_chars = 1)]
    old_text: String,
    /// What to put in its place.
    new_text: String,
    /// Every occurrence, false when left out.
    #[arg(default = false)]
    all: bool,
}

/// A point: a bounded integer, a float, and an integer with a default.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    /// From 0 to 100.
    #[arg(min = 0, max = 100)]
    x: i32,
    /// Any `f64`.
    y: f64,
    /// 0 when left out.
    #[arg(default = 0)]
    z: i16,
}

/// A frame: an object nested in an object (a point), an optional one under a renamed field,
/// and a float default.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Frame {
    /// One to eight characters.
    #[arg(min_chars = 1, max_chars = 8)]
    title: String,
    /// Required.
    corner: Point,
    /// Optional, under another wire name.
    #[arg(rename = "end")]
    #[serde(rename = "end")]
    far: Option<Point>,
    /// 1.5 when left out.
    #[arg(default = 1.5)]
    scale: f64,
}

/// Objects: a list of them with a count, and one nested two deep with an optional object field.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "edit_file", title = "Edit file", output = Out,
       read_only = false, destructive, idempotent = false, open_world = false)]
pub struct EditFile {
    /// At least one edit.
    #[arg(min_items = 1)]
    edits: Vec<Edit>,
    /// A frame, or none.
    frame: Option<Frame>,
}

/// Maps: bounded entry counts with rules on the values, a `HashMap`, lists as values and
/// objects as values.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "maps", title = "Maps", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Maps {
    /// At most two headers of at most five characters.
    #[arg(max_entries = 2, each(max_chars = 5))]
    headers: BTreeMap<String, String>,
    /// At least one count from 0 to 10, or none.
    #[arg(min_entries = 1, each(min = 0, max = 10))]
    counts: Option<HashMap<String, u32>>,
    /// Lists of at most two strings.
    #[arg(each(max_items = 2))]
    tags: BTreeMap<String, Vec<String>>,
    /// Points by name, or none.
    points: Option<BTreeMap<String, Point>>,
}

/// Patterns: anchored with ECMA-262's `\d`, an alternation with a default, `\w` on each element
/// of a list beside a length, `.` unanchored, `\b`, and `\d` on each value of a map.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "patterns", title = "Patterns", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Patterns {
    /// A ticket key like `AB-12`.
    #[arg(pattern = "^[A-Z]{2}-\\d+$")]
    ticket: String,
    /// `main` or `dev`, `main` when left out.
    #[arg(pattern = "^(main|dev)$", default = "main")]
    branch: String,
    /// Up to three words of at most ten characters.
    #[arg(max_items = 3, each(pattern = "^\\w+$", max_chars = 10))]
    words: Vec<String>,
    /// Anything with `b`, one character and `c` in it, or none.
    #[arg(pattern = "b.c")]
    middle: Option<String>,
    /// Anything with the word `cat` in it, or none.
    #[arg(pattern = "\\bcat\\b")]
    animal: Option<String>,
    /// Three-digit codes by name, or none.
    #[arg(each(pattern = "^\\d{3}$"))]
    codes: Option<BTreeMap<String, String>>,
}

/// Free-form JSON: required, optional, and as the elements of a bounded list.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "json", title = "Json", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Json {
    /// Required.
    payload: serde_json::Value,
    /// Optional.
    extra: Option<serde_json::Value>,
    /// At most two values.
    #[arg(max_items = 2)]
    many: Vec<serde_json::Value>,
}

/// Unique lists of integers and floats of every magnitude, where a whole number may be written
/// as an integer or as a float.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "unique_numbers", title = "Unique numbers", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct UniqueNumbers {
    /// Distinct `i64`s.
    #[arg(unique)]
    integers: Vec<i64>,
    /// Distinct `f64`s.
    #[arg(unique)]
    floats: Vec<f64>,
}

/// Someone invited: an email address and a date inside an object, and a name unless there is
/// a date.
#[derive(Args, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Guest {
    /// Required.
    #[arg(format = "email")]
    address: String,
    /// Optional.
    since: Option<NaiveDate>,
    /// One to twelve characters, needed without `since`.
    #[arg(required_unless = since, min_chars = 1, max_chars = 12)]
    name: Option<String>,
}

/// The typed formats, required and optional: URIs, dates, date-times kept at the offset sent,
/// email addresses, a list of each of dates and addresses, and both inside an object.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "formats", title = "Formats", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Formats {
    /// Required.
    page: Uri<String>,
    /// Optional.
    feed: Option<Uri<String>>,
    /// Required.
    due: NaiveDate,
    /// Optional.
    #[arg(examples = ["2024-02-29"])]
    start: Option<NaiveDate>,
    /// A leap day when left out.
    #[arg(default = "2024-02-29")]
    leap: NaiveDate,
    /// Required.
    at: DateTime<FixedOffset>,
    /// Optional.
    until: Option<DateTime<FixedOffset>>,
    /// Required.
    #[arg(format = "email")]
    to: String,
    /// Optional.
    #[arg(format = "email")]
    reply_to: Option<String>,
    /// At most three addresses.
    #[arg(max_items = 3, each(format = "email"))]
    cc: Vec<String>,
    /// Dates, or none.
    holidays: Option<Vec<NaiveDate>>,
    /// A guest, or none.
    guest: Option<Guest>,
}

/// Date-times converted to UTC: required, optional and in a list. (Their schema is that of
/// date-times kept at their offset; the test says which these are.)
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "instants", title = "Instants", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Instants {
    /// Required.
    at: DateTime<Utc>,
    /// Optional.
    until: Option<DateTime<Utc>>,
    /// At most three.
    #[arg(max_items = 3)]
    log: Vec<DateTime<Utc>>,
}

/// Every kind in one tool, so that problems in several arguments meet.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "everything", title = "Everything", output = Out,
       read_only = false, destructive, idempotent = false, open_world = false)]
pub struct Everything {
    #[arg(min_chars = 2, max_chars = 8)]
    title: String,
    note: Option<String>,
    #[arg(default = false)]
    verbose: bool,
    #[arg(min = -10, max = -1)]
    delta: i32,
    anything: i64,
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
    size: u64,
    #[arg(exclusive_min = 0, exclusive_max = 10)]
    step: i32,
    #[arg(exclusive_min = 0, default = 2.5)]
    weight: f32,
    #[arg(min = -90.5, max = 90.5)]
    latitude: Option<f64>,
    id: Uuid,
    parent_id: Option<Uuid>,
    #[arg(default = "name")]
    sort_by: SortBy,
    #[arg(max_items = 2, unique, each(min_chars = 1, max_chars = 3))]
    labels: Vec<String>,
    edits: Option<Vec<Edit>>,
    #[arg(max_entries = 2, each(min = 0, max = 10))]
    counts: BTreeMap<String, u8>,
    #[arg(pattern = "^[A-Z]{2}-\\d+$")]
    ticket: Option<String>,
    payload: Option<serde_json::Value>,
}

/// Unions: a tagged one (a struct variant with a bounded field and an optional one, a newtype
/// over an object with a default, a unit variant), in a list too; an untagged one whose
/// branches differ by JSON type (`oneOf`: a patterned string, a bounded integer, an object);
/// and an untagged one whose branches overlap (`anyOf`: a small integer before any number),
/// which the first branch that fits must read. serde's own `tag` and `untagged` write what the
/// tool receives.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "unions", title = "Unions", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Unions {
    /// Where to read.
    source: Source,
    /// Up to three more places, or none.
    #[arg(max_items = 3)]
    sources: Option<Vec<Source>>,
    /// What to compare with.
    target: Target,
    /// A size, or none.
    size: Option<Size>,
}

/// Where to read from.
#[derive(Args, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[args(tag = "kind")]
pub enum Source {
    /// A file.
    File {
        /// One to eight characters.
        #[arg(min_chars = 1, max_chars = 8)]
        path: String,
        /// Any line count, or none.
        lines: Option<u32>,
    },
    /// A page.
    WebPage(Page),
    /// Whatever the clipboard holds.
    Clipboard,
}

/// A page, with a default wait.
#[derive(Args, serde::Serialize)]
pub struct Page {
    /// Any address.
    url: String,
    /// One to sixty seconds, ten when left out.
    #[arg(min = 1, max = 60, default = 10)]
    wait: u8,
}

/// A dashboard by its uid, its number or its address.
#[derive(Args, serde::Serialize)]
#[serde(untagged)]
#[args(untagged)]
pub enum Target {
    Uid(#[arg(pattern = "^[a-z]+$", max_chars = 6)] String),
    Number(#[arg(min = 1, max = 100)] u16),
    Address {
        /// Any host.
        host: String,
        /// A port, or none.
        port: Option<u16>,
    },
}

/// A small whole number, else any number.
#[derive(Args, serde::Serialize)]
#[serde(untagged)]
#[args(untagged)]
pub enum Size {
    Small(#[arg(max = 10)] u8),
    Any(f64),
}

/// Open objects: the tool's own other names into a map of short strings, and an object whose
/// other names take any JSON value beside a bounded title. serde's `flatten` writes what the
/// tool receives.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "open", title = "Open", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Open {
    /// A page, or none.
    page: Option<Properties>,
    /// One to ten, one when left out.
    #[arg(min = 1, max = 10, default = 1)]
    copies: u8,
    /// Any other name, with one to four characters.
    #[arg(flatten, each(min_chars = 1, max_chars = 4))]
    #[serde(flatten)]
    labels: BTreeMap<String, String>,
}

/// A page's properties: a title, and any others.
#[derive(Args, serde::Serialize)]
pub struct Properties {
    /// One to eight characters.
    #[arg(min_chars = 1, max_chars = 8)]
    title: String,
    /// Any other name, with any value.
    #[arg(flatten)]
    #[serde(flatten)]
    others: HashMap<String, serde_json::Value>,
}

/// Groups: exactly one of two names at the top, never two choices together, a prefix only with
/// names, an owner unless there is a uid, and an object that needs at least one of three
/// filters.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "groups", title = "Groups", output = Out,
       read_only, destructive = false, idempotent, open_world = false,
       one_of(dashboard, uid))]
pub struct Groups {
    /// One to eight characters, or none.
    #[arg(min_chars = 1, max_chars = 8)]
    dashboard: Option<String>,
    /// Any uid, or none.
    uid: Option<Uuid>,
    /// A state, or none; never with `summary`.
    #[arg(conflicts_with = summary)]
    state: Option<State>,
    /// Any flag, or none.
    summary: Option<bool>,
    /// Up to two names, or none.
    #[arg(max_items = 2)]
    names: Option<Vec<String>>,
    /// A prefix, only with names.
    #[arg(requires = names)]
    prefix: Option<String>,
    /// Filters, or none.
    filter: Option<Filter>,
    /// An owner, needed without a uid.
    #[arg(required_unless = uid, message = "Needed without a uid.", max_chars = 6)]
    owner: Option<String>,
}

/// At least one of three filters.
#[derive(Args, serde::Serialize)]
#[args(any_of(level, since, text))]
pub struct Filter {
    /// Zero to five, or none.
    #[arg(max = 5)]
    level: Option<u8>,
    /// Any number, or none.
    since: Option<u32>,
    /// Any text, or none.
    text: Option<String>,
}
