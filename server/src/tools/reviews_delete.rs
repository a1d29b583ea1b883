//! `reviews_delete`: permanently deletes a review, once the user has confirmed it where the
//! client can ask them.

use toolkit::{Confirm, Context, Run, Tool, ToolError};
use uuid::Uuid;

use crate::model::{Deleted, Review, full_name};
use store::Store;

/// Permanently deletes a review. This cannot be undone: before calling it, tell the user which
/// review will be deleted (its movie, author and stars, from reviews_list) and ask them to
/// confirm. Returns the deleted review's id; deleting it again is Not Found.
#[derive(Debug, Tool)]
#[tool(name = "reviews_delete", title = "Delete review", output = Deleted,
       scope = "reviews.write", read_only = false, destructive, idempotent, open_world = false,
       confirm, rate_limit = "60/min", ability = "delete a review",
       caution = "Deleting is permanent: confirm with the user first.")]
pub struct ReviewsDelete {
    /// The review to delete, from reviews_list.
    #[arg(exists = Review)]
    pub review_id: Uuid,
}

impl Run<Store> for ReviewsDelete {
    /// Deleting the review tells whether it existed.
    const CHECKS_EXISTENCE: bool = true;

    async fn run(self, store: &Store, _context: &Context) -> Result<Deleted, ToolError> {
        if !store.delete_review(self.review_id).await? {
            return Err(ToolError::Missing);
        }
        Ok(Deleted {
            review_id: self.review_id,
            deleted: true,
        })
    }
}

impl Confirm<Store> for ReviewsDelete {
    const DECLINED: &'static str = "the review was not deleted.";

    async fn confirmation(&self, store: &Store, _context: &Context) -> Result<String, ToolError> {
        let review = store
            .review(self.review_id)
            .await?
            .ok_or(ToolError::Missing)?;
        let author = full_name(&review.author_first_name, &review.author_last_name);
        Ok(format!(
            "Delete the {}-star review of \"{}\" by {author}? This can't be undone.",
            review.stars, review.movie_title
        ))
    }
}
