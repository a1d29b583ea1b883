//! `reviews_write`: creates a review, or changes the stars of an existing one.

use toolkit::{Context, KeyedCall, Run, Tool, ToolError, Violations};
use uuid::Uuid;

use crate::kept_results::call_key;
use crate::model::{Author, Movie, Review};
use store::{Keep, NewReview, ReviewRow, Store, StoreError};

/// Creates a review of a movie by an author, or changes the stars of an existing review when
/// reviewId is passed. A review's movie and author can't change.
///
/// To create, pass stars, movieId (from movies_search) and authorId (from authors_search). To
/// change the stars, pass stars and reviewId (from reviews_list). Returns the saved review.
#[derive(Debug, Tool)]
#[tool(name = "reviews_write", title = "Write review", output = Review,
       scope = "reviews.write", read_only = false, destructive, idempotent = false,
       open_world = false, rate_limit = "120/min", idempotency_key,
       ability = "write a review or change its stars")]
pub struct ReviewsWrite {
    /// The rating, from 1 to 5.
    #[arg(min = 1, max = 5, message = "A star rating must be between 1 and 5.")]
    pub stars: u32,
    /// The movie reviewed. Needed to create a review.
    #[arg(exists = Movie, required_unless = review_id,
          message = "Needed to create a review (or pass reviewId to change one).")]
    pub movie_id: Option<Uuid>,
    /// The review's author. Needed to create a review.
    #[arg(exists = Author, required_unless = review_id,
          message = "Needed to create a review (or pass reviewId to change one).")]
    pub author_id: Option<Uuid>,
    /// The review to change. Leave it out to create a review.
    #[arg(exists = Review)]
    pub review_id: Option<Uuid>,
}

impl Run<Store> for ReviewsWrite {
    /// A review keeps its movie and author: passing others with `reviewId` is a broken rule,
    /// reported before any id is looked up (so a `movieId` that names nothing is still "can't
    /// change", not Not Found). A `reviewId` that names nothing is left to its existence check.
    async fn check(&self, store: &Store, _context: &Context) -> Result<(), ToolError> {
        let Some(review_id) = self.review_id else {
            return Ok(());
        };
        if self.movie_id.is_none() && self.author_id.is_none() {
            return Ok(());
        }
        let Some(review) = store.review(review_id).await? else {
            return Ok(());
        };
        let mut violations = Violations::default();
        if self.movie_id.is_some_and(|id| id != review.movie_id) {
            violations.push_arg::<Self>("movie_id", "A review's movie can't change.");
        }
        if self.author_id.is_some_and(|id| id != review.author_id) {
            violations.push_arg::<Self>("author_id", "A review's author can't change.");
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(ToolError::Invalid(violations))
        }
    }

    /// Each write saves nothing when an id names nothing, and says so.
    const CHECKS_EXISTENCE: bool = true;

    /// A call with an `idempotencyKey` keeps its result in the transaction of its write, so
    /// that a retry after the server died between the commit and the answer finds it.
    async fn run(self, store: &Store, context: &Context) -> Result<Review, ToolError> {
        // The declared range, 1 to 5, fits a u8.
        let stars = u8::try_from(self.stars)?;
        let keyed = context.idempotency();
        let keep = keyed.map(|call| Keep {
            key: call_key(call),
            result: Box::new(|row: &ReviewRow| {
                // A review is a plain struct of strings and numbers: it always serialises.
                KeyedCall::result_of(&Review::from(row.clone())).unwrap_or_default()
            }),
        });
        let written = match self.review_id {
            Some(review_id) => store.set_review_stars(review_id, stars, keep).await,
            None => {
                // `required_unless` guarantees both when there is no reviewId.
                let (Some(movie_id), Some(author_id)) = (self.movie_id, self.author_id) else {
                    return Err(ToolError::unexpected(
                        "a new review without movie or author",
                    ));
                };
                let review = NewReview {
                    id: Uuid::new_v4(),
                    movie_id,
                    author_id,
                    stars,
                };
                store.create_review(&review, keep).await
            }
        };
        let saved = match (written, keyed) {
            (Err(StoreError::KeyTaken), Some(call)) => return Err(call.taken()),
            (written, _) => written?.ok_or(ToolError::Missing)?,
        };
        if let Some(call) = keyed {
            call.mark_kept();
        }
        Ok(saved.into())
    }
}
