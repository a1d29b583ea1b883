//! The `authors` table: search in last-name order, existence.

use sqlx::{FromRow, Sqlite, Transaction};
use uuid::Uuid;

use super::{Rows, Store, StoreError, fold, page_bounds, total};

/// An author with their review aggregates.
#[derive(Debug, Clone, PartialEq, FromRow)]
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

impl Store {
    /// A page of the authors whose lowercase first name, last name or "first last" contains
    /// `query` (already lowercase and trimmed; `None` for every author), in last-name order.
    pub async fn search_authors(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<AuthorRow>, StoreError> {
        let (offset, limit) = page_bounds(offset, limit);
        // A substring of the first or the last name is also a substring of "first last".
        let items: Vec<AuthorRow> = sqlx::query_as(
            "SELECT id, first_name, last_name, review_count, star_total
             FROM authors
             WHERE ?1 IS NULL OR instr(full_name_folded, ?1) > 0
             ORDER BY last_name_folded, last_name, first_name_folded, first_name, id
             LIMIT ?2 OFFSET ?3",
        )
        .bind(query)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        let count = sqlx::query_scalar(
            "SELECT COUNT(*) FROM authors WHERE ?1 IS NULL OR instr(full_name_folded, ?1) > 0",
        )
        .bind(query)
        .fetch_one(&self.pool);
        let total = total(items.len(), offset, limit, count).await?;
        Ok(Rows { items, total })
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM authors WHERE id = ?1)")
            .bind(id)
            .fetch_one(&self.pool)
            .await
    }
}

pub(super) async fn insert(
    transaction: &mut Transaction<'_, Sqlite>,
    author: &NewAuthor,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                              full_name_folded)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(author.id)
    .bind(&author.first_name)
    .bind(&author.last_name)
    .bind(fold(&author.first_name))
    .bind(fold(&author.last_name))
    .bind(fold(&format!("{} {}", author.first_name, author.last_name)))
    .execute(&mut **transaction)
    .await?;
    Ok(())
}
