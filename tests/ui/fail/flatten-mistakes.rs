use std::collections::BTreeMap;

use toolkit::Args;

#[derive(Args)]
pub struct Twice {
    #[arg(flatten)]
    pub first: BTreeMap<String, String>,
    #[arg(flatten, rename = "more", max_entries = 3)]
    pub second: BTreeMap<String, String>,
    #[arg(flatten = true)]
    pub third: Option<BTreeMap<String, String>>,
}

#[derive(Args)]
pub struct NotAMap {
    #[arg(flatten)]
    pub rest: String,
}

fn main() {}
