use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// An ability that reads as a sentence, and a caution that does not.
#[derive(Tool)]
#[tool(name = "a", title = "A", output = Out, read_only, destructive = false, idempotent,
       open_world = false, ability = "Search movies.", caution = "confirm first")]
pub struct Sentence {}

/// Both left empty.
#[derive(Tool)]
#[tool(name = "b", title = "B", output = Out, read_only, destructive = false, idempotent,
       open_world = false, ability = " ", caution = "")]
pub struct Empty {}

fn main() {}
