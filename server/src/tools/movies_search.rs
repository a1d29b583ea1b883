//! `movies_search`: a page of movies whose title contains a search term.

use toolkit::{Context, Run, Tool, ToolError};

use super::group_reviews;
use crate::model::{Movie, Page};
use store::Store;

/// Finds movies whose title contains a search term, ignoring case, in title order. Leave the
/// query empty to browse every movie a page at a time.
///
/// Returns one page: `items`, `totalCount` (the results across every page) and `nextOffset`
/// (pass it as `offset` to get the next page; it is left out on the last page). Each movie has
/// its id (for movies_get, reviews_list and reviews_write), its review count and its average
/// stars (left out when it has no reviews). Set includeReviews to also get every review of each
/// movie.
#[derive(Debug, Tool)]
#[tool(name = "movies_search", title = "Search movies", output = Page<Movie>,
       scope = "reviews.read", read_only, destructive = false, idempotent, open_world = false,
       rate_limit = "600/min",
       ability = "search movies")]
pub struct MoviesSearch {
    /// Part of the title to look for, in any case. Leave it out to browse every movie.
    #[arg(max_chars = 100)]
    pub query: Option<String>,
    /// How many movies to skip: 0 for the first page, then the previous page's nextOffset.
    #[arg(min = 0, default = 0)]
    pub offset: u32,
    /// How many movies to return at most.
    #[arg(min = 1, max = 50, default = 10)]
    pub limit: u32,
    /// Also return every review of each movie.
    #[arg(default = false)]
    pub include_reviews: bool,
}

impl Run<Store> for MoviesSearch {
    async fn run(self, store: &Store, _context: &Context) -> Result<Page<Movie>, ToolError> {
        let (rows, reviews) = store
            .search_movies(
                self.query.as_deref(),
                self.offset,
                self.limit,
                self.include_reviews,
            )
            .await?;
        let mut reviews = reviews.map(|reviews| group_reviews(reviews, |review| review.movie_id));
        Ok(Page::from_rows(rows, self.offset, |movie| {
            let its_reviews = reviews
                .as_mut()
                .map(|groups| groups.remove(&movie.id).unwrap_or_default());
            Movie::from_row(movie, its_reviews)
        }))
    }
}
