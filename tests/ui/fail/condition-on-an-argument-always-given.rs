use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    pub query: String,
    #[arg(default = 10)]
    pub limit: u32,
    #[arg(required_unless = query)]
    pub movie: Option<String>,
    #[arg(ignored_with = limit)]
    pub author: Option<String>,
}

fn main() {}
