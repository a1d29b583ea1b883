use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(pattern = "(unclosed")]
    pub invalid: String,
    #[arg(pattern = "(?i)case")]
    pub flags: String,
    #[arg(pattern = "\\p{Greek}+")]
    pub unicode_class: String,
    #[arg(pattern = "^[a-z]+$", default = "Main")]
    pub default_not_matching: String,
    #[arg(pattern = "^\\d+$")]
    pub not_a_string: u32,
    #[arg(pattern = 5)]
    pub not_a_literal_string: String,
    #[arg(each(pattern = "^a"))]
    pub elements_not_strings: Vec<u8>,
}

fn main() {}
