use std::collections::BTreeMap;

use toolkit::{Tool, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Literals {
    /// Examples not in brackets.
    #[arg(examples = "moon")]
    pub query: String,
    /// No examples at all.
    #[arg(examples = [])]
    pub topic: String,
    /// An example longer than the argument takes.
    #[arg(max_chars = 5, examples = ["short", "far too long"])]
    pub code: String,
    /// A list default with more elements than it takes.
    #[arg(max_items = 1, default = ["a", "b"])]
    pub labels: Vec<String>,
    /// A list default whose element breaks `each(...)`.
    #[arg(each(max = 10), default = [1, 20])]
    pub pages: Vec<u8>,
    /// A list default that repeats itself.
    #[arg(unique, default = ["a", "a"])]
    pub tags: Vec<String>,
    /// A list default on a string.
    #[arg(default = ["a"])]
    pub name: String,
    /// A string default on a list.
    #[arg(default = "a")]
    pub words: Vec<String>,
    /// An element of the wrong type.
    #[arg(default = [1, "two"])]
    pub counts: Vec<u8>,
    /// A UUID not in the hyphenated form.
    #[arg(default = "3f2504e04f8911d39a0c0305e82c3301")]
    pub id: Uuid,
    /// A date not in its form.
    #[arg(examples = ["2024-5-31"])]
    pub day: Option<chrono::NaiveDate>,
    /// Something that is not a literal.
    #[arg(examples = [some_constant])]
    pub other: String,
    /// A list with an element that is not a literal.
    #[arg(default = ["a", other])]
    pub more: Vec<String>,
    /// Examples of a flattened map.
    #[arg(flatten, examples = [1])]
    pub rest: BTreeMap<String, u8>,
}

fn main() {}
