use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

#[doc = concat!("Does one ", "thing.")]
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, scope = "things.read ", read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(max_chars = 18446744073709551616)]
    pub query: Option<String>,
    #[arg(min_chars = 2, max_chars = 5, default = "much too long")]
    pub sort: String,
}

fn main() {}
