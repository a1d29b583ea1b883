//! The `authors` table: search in last-name order, existence.

use serde::Deserialize;
use uuid::Uuid;

use super::{Rows, Store, StoreError, fetch_page, page_sql, search_sql};

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
        let search = search_sql(
            query,
            "authors",
            "full_name_folded",
            "authors_search",
            "authors",
        );
        let sql = page_sql(
            &search.with,
            AUTHOR_JSON,
            AUTHOR_ORDER,
            &search.from,
            &search.count,
        );
        let no_value: Option<String> = None;
        fetch_page(
            &mut *self.connection().await?,
            sql,
            (search.term, no_value),
            offset,
            limit,
        )
        .await
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM authors WHERE id = ?1)")
            .bind(id)
            .fetch_one(&mut *self.connection().await?)
            .await
    }
}
