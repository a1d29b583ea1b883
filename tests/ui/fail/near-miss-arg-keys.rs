use toolkit::{Entity, Tool, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Movie;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &[];
}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(max_char = 100)]
    pub query: Option<String>,
    #[arg(defualt = 10)]
    pub limit: u32,
    #[arg(exist = Movie, requird_unless = review_id)]
    pub movie_id: Option<Uuid>,
    #[arg(ignore_with = movie_id)]
    pub review_id: Option<Uuid>,
}

fn main() {}
