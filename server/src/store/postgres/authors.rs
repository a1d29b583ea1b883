//! The `authors` table: search in name order, existence.

use uuid::Uuid;

use super::super::{AuthorRow, ReviewRow, Rows};
use super::rows::AUTHOR_COLUMNS;
use super::search::Searched;
use super::{PostgresStore, StoreError};

/// How [`PostgresStore::search_with_reviews`] reads this table: name order is the
/// `authors_in_order` index, and "first last" (`name_folded`) holds a substring of either name.
const SEARCHED: Searched = Searched {
    table: "authors",
    columns: AUTHOR_COLUMNS,
    text: "name_folded",
    order: "last_name_folded, last_name, first_name_folded, first_name, id",
    reviews_by: "author_id",
};

impl PostgresStore {
    /// A page of the authors whose folded "first last" contains `term` (already trimmed and
    /// folded; `None`: every one), and, if asked for, every review they wrote.
    pub async fn search_authors(
        &self,
        term: Option<String>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<AuthorRow>, Option<Vec<ReviewRow>>), StoreError> {
        self.search_with_reviews(&SEARCHED, term, offset, limit, with_reviews)
            .await
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM authors WHERE id = $1)", id)
            .await
    }
}
