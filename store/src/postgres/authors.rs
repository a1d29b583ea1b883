//! The `authors` table: search in name order, existence.

use uuid::Uuid;

use super::search::Searched;
use super::{PostgresStore, StoreError};
use crate::columns::{AUTHOR_COLUMNS, AUTHOR_ORDER};
use crate::{AuthorRow, ReviewRow, Rows};

/// How [`PostgresStore::search_with_reviews`] reads this table: name order is the
/// `authors_in_order` index, and "first last" (`name_folded`) holds a substring of either name.
const SEARCHED: Searched = Searched {
    table: "authors",
    columns: AUTHOR_COLUMNS,
    text: "name_folded",
    order: AUTHOR_ORDER,
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
