//! The `authors` table: search in last-name order, existence.

use rusqlite::Row;
use uuid::Uuid;

use crate::columns::{AUTHOR_COLUMNS, AUTHOR_ORDER};

use super::reviews::ReviewsOf;
use super::{AuthorRow, ReviewRow, Rows, SqliteStore, StoreError, TableRow, search};

impl TableRow for AuthorRow {
    const COLUMNS: &'static str = AUTHOR_COLUMNS;

    fn from_row(row: &Row<'_>) -> rusqlite::Result<AuthorRow> {
        Ok(AuthorRow {
            id: row.get(0)?,
            first_name: row.get(1)?,
            last_name: row.get(2)?,
            review_count: row.get(3)?,
            star_total: row.get(4)?,
        })
    }

    fn id(&self) -> Uuid {
        self.id
    }
}

/// How [`search::search`] reads this table: name order is the `authors_by_name` index.
const SEARCHED: search::Searched = search::Searched {
    table: "authors",
    // "first last" as `full_name_folded` holds it (folding is letter by letter, so folding the
    // parts and joining them is the same), from the columns of the order's index.
    text: "first_name_folded || ' ' || last_name_folded",
    index: "authors_search",
    total: "authors",
    in_order: "authors_in_order",
    order: AUTHOR_ORDER,
    leading: "last_name_folded",
    reviews_of: ReviewsOf::Authors,
};

impl SqliteStore {
    /// A page of the authors whose folded text contains `term` (already trimmed and folded;
    /// `None`: every one), and, if asked for, every review of them.
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
        self.exists("SELECT EXISTS (SELECT 1 FROM authors WHERE id = ?1)", id)
            .await
    }
}
