use std::collections::BTreeMap;

use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(min_entries = 3, max_entries = 1)]
    pub crossed: BTreeMap<String, String>,
    #[arg(max_entries = 3)]
    pub a_list: Vec<String>,
    #[arg(each(max_chars = 3))]
    pub no_elements: String,
    #[arg(max_items = 3)]
    pub a_map: BTreeMap<String, String>,
    pub key_not_a_string: BTreeMap<u32, String>,
}

fn main() {}
