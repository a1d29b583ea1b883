//! The `movies` table: search in title order, one movie by id, existence.

use sqlx::{Connection as _, FromRow, SqliteConnection};
use uuid::Uuid;

use super::{Rows, Store, StoreError, fold, page_bounds, search_condition, total};

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
        let mut connection = self.connection().await?;
        // One read transaction, so that the page and the total see the same data.
        let mut read = connection.begin().await?;
        let (condition, term) = search_condition(query, "title_folded", "movies_search");
        let sql = format!(
            "SELECT id, title, review_count, star_total FROM movies {condition}
             ORDER BY title_folded, title, id LIMIT ? OFFSET ?"
        );
        let mut page = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        if let Some(term) = &term {
            page = page.bind(term);
        }
        let items: Vec<MovieRow> = page.bind(limit).bind(offset).fetch_all(&mut *read).await?;
        let sql = format!("SELECT COUNT(*) FROM movies {condition}");
        let mut count = sqlx::query_scalar(sqlx::AssertSqlSafe(sql));
        if let Some(term) = &term {
            count = count.bind(term);
        }
        let total = total(items.len(), offset, limit, count.fetch_one(&mut *read)).await?;
        read.commit().await?;
        Ok(Rows { items, total })
    }

    /// The movie with this id, if there is one.
    pub async fn movie(&self, id: Uuid) -> Result<Option<MovieRow>, StoreError> {
        sqlx::query_as("SELECT id, title, review_count, star_total FROM movies WHERE id = ?1")
            .bind(id)
            .fetch_optional(&mut *self.connection().await?)
            .await
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM movies WHERE id = ?1)")
            .bind(id)
            .fetch_one(&mut *self.connection().await?)
            .await
    }
}

pub(super) async fn insert(
    connection: &mut SqliteConnection,
    movie: &NewMovie,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO movies (id, title, title_folded) VALUES (?1, ?2, ?3)")
        .bind(movie.id)
        .bind(&movie.title)
        .bind(fold(&movie.title))
        .execute(connection)
        .await?;
    Ok(())
}
