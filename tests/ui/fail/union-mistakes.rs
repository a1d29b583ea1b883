use toolkit::Args;

#[derive(Args)]
#[args(tag = "type", untagged)]
pub enum Both {
    A { x: u32 },
}

#[derive(Args)]
#[args(untagged, rename_all = "camelCase")]
pub enum Named {
    #[args(rename = "text")]
    Text(String),
    Nothing,
    Pair(u32, u32),
    Maybe(Option<u32>),
    Defaulted(#[arg(default = 3, rename = "n")] u32),
    #[arg(max_chars = 3)]
    Short(String),
    Wrong(#[arg(max_chars = 3)] u32),
    Rest(#[arg(flatten, conflicts_with = text)] std::collections::BTreeMap<String, String>),
}

#[derive(Args)]
#[args(tag = "1type", rename = "x")]
pub enum BadTag {
    A,
}

#[derive(Args)]
#[args(tag = "type")]
pub enum Clashes {
    #[args(tag = "kind")]
    First { r#type: String },
    #[args(rename = "first")]
    Second,
    Nested(Box<Clashes>),
    Rules(#[arg(max_chars = 3)] Point),
}

#[derive(Args)]
#[args(tag = "type")]
pub enum NotAnObject {
    Text(String),
    Fine(Point),
}

#[derive(Args)]
#[args(untagged = true)]
pub enum Valued {
    A(u32),
}

#[derive(Args)]
#[args(tag = "type")]
pub struct Flat {
    pub x: u32,
}

#[derive(Args)]
pub struct Point {
    pub x: f64,
}

fn main() {}
