//! `reviews_list`: a page of reviews, filtered by movie and/or author, or one review by id.

use toolkit::{Context, Run, Tool, ToolError};
use uuid::Uuid;

use crate::model::{Author, Movie, Page, Review};
use store::{ReviewFilter, Store};

/// Lists reviews with their star rating and the title and author of each, in movie-title order.
/// Filter by movie, by author, or both, or pass a reviewId to get one review.
///
/// Returns one page: `items`, `totalCount` (the results across every page) and `nextOffset`
/// (pass it as `offset` to get the next page; it is left out on the last page). Each review
/// carries its id (for reviews_write and reviews_delete), its movie's id and title, and its
/// author's id and name.
#[derive(Debug, Tool)]
#[tool(name = "reviews_list", title = "List reviews", output = Page<Review>,
       scope = "reviews.read", read_only, destructive = false, idempotent, open_world = false,
       rate_limit = "600/min",
       ability = "list reviews")]
pub struct ReviewsList {
    /// Only reviews of this movie (an id from movies_search).
    #[arg(exists = Movie, ignored_with = review_id)]
    pub movie_id: Option<Uuid>,
    /// Only reviews by this author (an id from authors_search).
    #[arg(exists = Author, ignored_with = review_id)]
    pub author_id: Option<Uuid>,
    /// Get this one review instead. The other filters are ignored.
    #[arg(exists = Review)]
    pub review_id: Option<Uuid>,
    /// How many reviews to skip: 0 for the first page, then the previous page's nextOffset.
    #[arg(min = 0, default = 0)]
    pub offset: u32,
    /// How many reviews to return at most.
    #[arg(min = 1, max = 50, default = 10)]
    pub limit: u32,
}

impl Run<Store> for ReviewsList {
    /// Reading the review, or the page with its total, tells whether the ids exist.
    const CHECKS_EXISTENCE: bool = true;

    async fn run(self, store: &Store, _context: &Context) -> Result<Page<Review>, ToolError> {
        if let Some(id) = self.review_id {
            let Some(review) = store.review(id).await? else {
                return Err(ToolError::Missing);
            };
            return Ok(Page::new(vec![review.into()], 1, 0));
        }
        let filter = ReviewFilter {
            movie_id: self.movie_id,
            author_id: self.author_id,
        };
        let Some(rows) = store.list_reviews(filter, self.offset, self.limit).await? else {
            return Err(ToolError::Missing);
        };
        Ok(Page::from_rows(rows, self.offset, Review::from))
    }
}
