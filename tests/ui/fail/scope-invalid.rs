use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", scope = "", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Empty {}

/// Does another thing.
#[derive(Tool)]
#[tool(name = "u", title = "U", scope = "réviews", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct NotAscii {}

fn main() {}
