//! `authors_search`: a page of authors whose name contains a search term.

use toolkit::{Context, Run, Tool, ToolError};

use super::group_reviews;
use crate::model::{Author, Page};
use store::Store;

/// Finds authors by first name, last name or full name, ignoring case, in last-name order.
/// Leave the query empty to browse every author a page at a time.
///
/// Returns one page: `items`, `totalCount` (the results across every page) and `nextOffset`
/// (pass it as `offset` to get the next page; it is left out on the last page). Each author has
/// their id (for reviews_list and reviews_write), their review count and the average stars they
/// give (left out when they have written no reviews). Set includeReviews to also get every
/// review each author has written.
#[derive(Debug, Tool)]
#[tool(name = "authors_search", title = "Search authors", output = Page<Author>,
       scope = "reviews.read", read_only, destructive = false, idempotent, open_world = false,
       rate_limit = "600/min",
       ability = "search authors")]
pub struct AuthorsSearch {
    /// Part of the first name, last name or "first last" to look for, in any case. Leave it
    /// out to browse every author.
    #[arg(max_chars = 100)]
    pub query: Option<String>,
    /// How many authors to skip: 0 for the first page, then the previous page's nextOffset.
    #[arg(min = 0, default = 0)]
    pub offset: u32,
    /// How many authors to return at most.
    #[arg(min = 1, max = 50, default = 10)]
    pub limit: u32,
    /// Also return every review each author has written.
    #[arg(default = false)]
    pub include_reviews: bool,
}

impl Run<Store> for AuthorsSearch {
    async fn run(self, store: &Store, _context: &Context) -> Result<Page<Author>, ToolError> {
        let (rows, reviews) = store
            .search_authors(
                self.query.as_deref(),
                self.offset,
                self.limit,
                self.include_reviews,
            )
            .await?;
        let mut reviews = reviews.map(|reviews| group_reviews(reviews, |review| review.author_id));
        Ok(Page::from_rows(rows, self.offset, |author| {
            let their_reviews = reviews
                .as_mut()
                .map(|groups| groups.remove(&author.id).unwrap_or_default());
            Author::from_row(author, their_reviews)
        }))
    }
}
