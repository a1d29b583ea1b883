use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
#[arg(max_chars = 10)]
pub struct Args {
    #[tool(scope = "things.read")]
    pub query: String,
}

fn main() {}
