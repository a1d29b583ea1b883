//! The `movies` table: search in title order, one movie by id, existence.

use sqlx::{FromRow, Sqlite, Transaction};
use uuid::Uuid;

use super::{Rows, Store, StoreError, fold, page_bounds, total};

/// A movie with its review aggregates.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct MovieRow {
    pub id: Uuid,
    pub title: String,
    pub review_count: i64,
    pub star_total: i64,
}

/// A movie to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMovie {
    pub id: Uuid,
    pub title: String,
}

impl Store {
    /// A page of the movies whose lowercase title contains `query` (already lowercase and
    /// trimmed; `None` for every movie), in title order.
    pub async fn search_movies(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<MovieRow>, StoreError> {
        let (offset, limit) = page_bounds(offset, limit);
        let items: Vec<MovieRow> = sqlx::query_as(
            "SELECT id, title, review_count, star_total
             FROM movies
             WHERE ?1 IS NULL OR instr(title_folded, ?1) > 0
             ORDER BY title_folded, title, id
             LIMIT ?2 OFFSET ?3",
        )
        .bind(query)
        .bind(limit)
        .bind(offset)
        .fetch_all(&self.pool)
        .await?;
        let count = sqlx::query_scalar(
            "SELECT COUNT(*) FROM movies WHERE ?1 IS NULL OR instr(title_folded, ?1) > 0",
        )
        .bind(query)
        .fetch_one(&self.pool);
        let total = total(items.len(), offset, limit, count).await?;
        Ok(Rows { items, total })
    }

    /// The movie with this id, if there is one.
    pub async fn movie(&self, id: Uuid) -> Result<Option<MovieRow>, StoreError> {
        sqlx::query_as("SELECT id, title, review_count, star_total FROM movies WHERE id = ?1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM movies WHERE id = ?1)")
            .bind(id)
            .fetch_one(&self.pool)
            .await
    }
}

pub(super) async fn insert(
    transaction: &mut Transaction<'_, Sqlite>,
    movie: &NewMovie,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO movies (id, title, title_folded) VALUES (?1, ?2, ?3)")
        .bind(movie.id)
        .bind(&movie.title)
        .bind(fold(&movie.title))
        .execute(&mut **transaction)
        .await?;
    Ok(())
}
