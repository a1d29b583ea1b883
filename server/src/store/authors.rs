//! The `authors` table: search in last-name order, existence.

use serde::Deserialize;
use uuid::Uuid;

use super::{Rows, Store, StoreError, search};

/// An author with their review aggregates.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AuthorRow {
    pub id: Uuid,
    pub first_name: String,
    pub last_name: String,
    pub review_count: i64,
    pub star_total: i64,
}

/// An author to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAuthor {
    pub id: Uuid,
    pub first_name: String,
    pub last_name: String,
}

/// An author as a JSON array, in [`AuthorRow`]'s field order.
const AUTHOR_JSON: &str = "json_array(hex(id), first_name, last_name, review_count, star_total)";

/// Last-name order: last name, then first name (each ignoring case, then exact), then id (the
/// `authors_by_name` index).
const AUTHOR_ORDER: &str = "last_name_folded, last_name, first_name_folded, first_name, id";

/// How [`search::search`] reads this table.
const SEARCHED: search::Searched = search::Searched {
    table: "authors",
    column: "full_name_folded",
    index: "authors_search",
    total: "authors",
    row: AUTHOR_JSON,
    order: AUTHOR_ORDER,
};

impl Store {
    /// A page of the authors whose lowercase first name, last name or "first last" contains
    /// `query` (already lowercase and trimmed; `None` for every author), in last-name order. A
    /// substring of either name is also one of "first last", so that one column serves all three.
    pub async fn search_authors(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<AuthorRow>, StoreError> {
        let mut connection = self.connection().await?;
        search::search(&mut connection, &SEARCHED, query, offset, limit).await
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM authors WHERE id = ?1)")
            .bind(id)
            .fetch_one(&mut *self.connection().await?)
            .await
    }
}
