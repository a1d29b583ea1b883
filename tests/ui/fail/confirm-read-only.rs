use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Searches.
#[derive(Tool)]
#[tool(name = "search", title = "Search", output = Out,
       read_only, destructive = false, idempotent, open_world = false, confirm)]
pub struct Search {}

/// Confirms, misspelt.
#[derive(Tool)]
#[tool(name = "wipe", title = "Wipe", output = Out,
       read_only = false, destructive, idempotent, open_world = false, confrim)]
pub struct Wipe {}

fn main() {}
