use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(format = "uri")]
    pub page: String,
    #[arg(format = "date-time")]
    pub at: String,
    #[arg(format = "zip")]
    pub zip: String,
    #[arg(format = "email")]
    pub not_a_string: u32,
    #[arg(format = "email", default = "nobody")]
    pub default_not_an_address: String,
}

fn main() {}
