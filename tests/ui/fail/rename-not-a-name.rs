use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(rename = "movie id")]
    pub movie: Option<String>,
    #[arg(rename = "say \"hi\"")]
    pub greeting: Option<String>,
    #[arg(rename = "back\\slash")]
    pub path: Option<String>,
    #[arg(rename = "")]
    pub nothing: Option<String>,
}

fn main() {}
