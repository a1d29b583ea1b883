use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(max_chars = 10f32)]
    pub query: Option<String>,
    #[arg(min = 1u8, max = 2.5)]
    pub count: Option<u64>,
    #[arg(default = 10usize)]
    pub limit: u32,
}

fn main() {}
