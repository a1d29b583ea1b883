//! Ids: `Uuid` and `Option<Uuid>`, existence checks, "required unless" and "ignored with",
//! a custom message, and a state that can check every entity referred to.
use toolkit::{Context, Entity, Exists, Presence, Run, Tool, ToolError, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Movie;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search"];
}

pub struct Review;

impl Entity for Review {
    const NAME: &'static str = "review";
    const LISTED_BY: &'static [&'static str] = &["reviews_list"];
}

/// Ids.
#[derive(Tool)]
#[tool(name = "ids", title = "Ids", output = Out, read_only = false, destructive, idempotent = false, open_world = false)]
pub struct Ids {
    #[arg(exists = Movie, required_unless = review_id, message = "Needed to create a review.")]
    pub movie_id: Option<Uuid>,
    #[arg(exists = Movie, ignored_with = review_id)]
    pub other_movie_id: Option<Uuid>,
    #[arg(exists = Review)]
    pub review_id: Option<Uuid>,
    pub plain: Uuid,
}

pub struct Server;

impl Exists<Movie> for Server {
    async fn exists(&self, _id: Uuid) -> Result<bool, ToolError> {
        Ok(true)
    }
}

impl Exists<Review> for Server {
    async fn exists(&self, _id: Uuid) -> Result<bool, ToolError> {
        Ok(true)
    }
}

impl Run<Server> for Ids {
    async fn run(self, _server: &Server, _context: &Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn main() {
    let args = Ids::SPEC.args;
    let schema = toolkit::input_schema(Ids::SPEC);
    assert!(args.iter().all(|arg| schema["properties"][arg.name]["format"] == "uuid"));
    assert_eq!(args[0].presence, Presence::RequiredUnless(2));
    assert_eq!(args[0].message, Some("Needed to create a review."));
    assert_eq!(args[1].ignored_with, Some(2));
    assert_eq!(args[3].presence, Presence::Required);
}
