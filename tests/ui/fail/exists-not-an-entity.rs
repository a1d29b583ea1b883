use toolkit::{Tool, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Movie;

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(exists = Movie)]
    pub movie_id: Uuid,
}

fn main() {}
