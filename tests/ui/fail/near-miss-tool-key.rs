use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", titel = "T", output = Out, read_onyl = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    pub query: String,
}

fn main() {}
