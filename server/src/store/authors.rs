//! The `authors` table: search in last-name order, existence.

use sqlx::{Connection as _, FromRow, SqliteConnection};
use uuid::Uuid;

use super::{Rows, Store, StoreError, fold, page_bounds, search_condition, total};

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
    /// `query` (already lowercase and trimmed; `None` for every author), in last-name order. A
    /// substring of either name is also one of "first last", so that one column serves all three.
    pub async fn search_authors(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<AuthorRow>, StoreError> {
        let (offset, limit) = page_bounds(offset, limit);
        let mut connection = self.connection().await?;
        // One read transaction, so that the page and the total see the same data.
        let mut read = connection.begin().await?;
        let (condition, term) = search_condition(query, "full_name_folded", "authors_search");
        let sql = format!(
            "SELECT id, first_name, last_name, review_count, star_total FROM authors {condition}
             ORDER BY last_name_folded, last_name, first_name_folded, first_name, id LIMIT ? OFFSET ?"
        );
        let mut page = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        if let Some(term) = &term {
            page = page.bind(term);
        }
        let items: Vec<AuthorRow> = page.bind(limit).bind(offset).fetch_all(&mut *read).await?;
        let sql = format!("SELECT COUNT(*) FROM authors {condition}");
        let mut count = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
        if let Some(term) = &term {
            count = count.bind(term);
        }
        let total = total(items.len(), offset, limit, count.fetch_one(&mut *read)).await?;
        read.commit().await?;
        Ok(Rows { items, total })
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM authors WHERE id = ?1)")
            .bind(id)
            .fetch_one(&mut *self.connection().await?)
            .await
    }
}

pub(super) async fn insert(
    connection: &mut SqliteConnection,
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
    .execute(connection)
    .await?;
    Ok(())
}
