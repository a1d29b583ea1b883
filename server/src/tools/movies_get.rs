//! `movies_get`: one movie with every review.

use toolkit::{Context, Run, Tool, ToolError};
use uuid::Uuid;

use crate::model::{Movie, Review};
use store::Store;

/// Gets one movie with its review count, average stars and every review, including each
/// author's name. Find movie ids with movies_search or reviews_list.
#[derive(Debug, Tool)]
#[tool(name = "movies_get", title = "Get movie", output = Movie,
       scope = "reviews.read", read_only, destructive = false, idempotent, open_world = false,
       rate_limit = "600/min",
       ability = "read a movie with all its reviews")]
pub struct MoviesGet {
    /// The movie's id, from movies_search or reviews_list.
    #[arg(exists = Movie)]
    pub movie_id: Uuid,
}

impl Run<Store> for MoviesGet {
    /// Reading the movie tells whether it exists.
    const CHECKS_EXISTENCE: bool = true;

    async fn run(self, store: &Store, _context: &Context) -> Result<Movie, ToolError> {
        let Some((movie, reviews)) = store.movie_with_reviews(self.movie_id).await? else {
            return Err(ToolError::Missing);
        };
        let reviews = reviews.into_iter().map(Review::from).collect();
        Ok(Movie::from_row(movie, Some(reviews)))
    }
}
