use toolkit::{Choice, Tool};

#[derive(Choice)]
#[choice(rename = "sort")]
pub enum SortBy {
    Name,
    Size(u64),
    #[choice(rename = "name")]
    Title,
    #[choice(renmae = "x")]
    Date,
    #[choice(rename = "")]
    Kind,
    Colour { hue: u8 },
}

#[derive(Choice)]
pub enum Button {
    Left,
    Right,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Clicks.
#[derive(Tool)]
#[tool(name = "click", title = "Click", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Click {
    #[arg(default = "centre")]
    pub button: Button,
    #[arg(max_chars = 5)]
    pub other: Button,
}

fn main() {}
