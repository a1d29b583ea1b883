use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    /// A bound past 2^53 − 1, which no client sends exactly.
    #[arg(max = 9007199254740992)]
    pub offset: i64,
    /// A default past it too.
    #[arg(default = 18446744073709551615)]
    pub size: u64,
}

fn main() {}
