use toolkit::{Context, Entity, Run, Tool, ToolError, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Movie;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search"];
}

/// Gets one movie.
#[derive(Tool)]
#[tool(name = "movies_get", title = "Get movie", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct MoviesGet {
    #[arg(exists = Movie)]
    pub movie_id: Uuid,
}

pub struct Server;

impl Run<Server> for MoviesGet {
    async fn run(self, _server: &Server, _context: &Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn main() {}
