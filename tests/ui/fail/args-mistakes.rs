use toolkit::{Args, Tool, Uuid};

/// A tree node.
#[derive(Args)]
#[tool(name = "node")]
pub struct Node {
    pub children: Vec<Node>,
    #[arg(exists = Movie)]
    pub movie_id: Uuid,
    #[arg(max_chars = 5)]
    pub size: u32,
}

#[derive(Args)]
pub enum Shape {
    Circle,
}

#[derive(Args)]
pub struct Pair(pub u32, pub u32);

pub struct Movie;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

fn main() {}
