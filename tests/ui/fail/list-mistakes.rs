use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(min_items = 5, max_items = 2)]
    pub crossed: Vec<String>,
    #[arg(max_items = 3)]
    pub not_a_list: String,
    #[arg(each(max_chars = 5))]
    pub elements_not_strings: Vec<u32>,
    #[arg(each(default = 1))]
    pub default_inside: Vec<u32>,
    #[arg(each())]
    pub empty_each: Vec<u32>,
    #[arg(unique = 1)]
    pub unique_not_a_flag: Vec<u32>,
    #[arg(min_items = -1)]
    pub negative: Vec<u32>,
    #[arg(each(max = 300))]
    pub element_out_of_range: Vec<u8>,
}

fn main() {}
