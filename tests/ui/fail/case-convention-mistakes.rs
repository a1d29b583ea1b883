use toolkit::{Args, Choice, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

#[derive(Choice)]
#[choice(rename_all = "kebabcase", rename = "x")]
pub enum Colour {
    #[choice(rename_all = "lowercase")]
    DarkRed,
}

#[derive(Args)]
#[args(rename_all = "Title Case", rename_al = "camelCase")]
pub struct Filter {
    pub pattern: String,
}

/// Reads logs.
#[derive(Tool)]
#[tool(name = "logs", title = "Logs", output = Out, read_only, destructive = false, idempotent,
       open_world = false, rename_all = "camelcase")]
pub struct Logs {
    pub colour: Colour,
    pub filter: Filter,
}

fn main() {}
