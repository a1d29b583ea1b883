//! The `movies` table: search in title order, one movie by id, existence.

use serde::Deserialize;
use uuid::Uuid;

use super::reviews::{REVIEW_JSON, REVIEW_ORDER};
use super::{ReviewRow, Rows, Store, StoreError, from_json, search};

/// A movie with its review aggregates.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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

/// A movie as a JSON array, in [`MovieRow`]'s field order.
const MOVIE_JSON: &str = "json_array(hex(id), title, review_count, star_total)";

/// Title order: ignoring case, then exact, then id (the `movies_by_title` index).
const MOVIE_ORDER: &str = "title_folded, title, id";

/// How [`search::search`] reads this table.
const SEARCHED: search::Searched = search::Searched {
    table: "movies",
    column: "title_folded",
    index: "movies_search",
    total: "movies",
    row: MOVIE_JSON,
    order: MOVIE_ORDER,
};

impl Store {
    /// A page of the movies whose lowercase title contains `query` (already lowercase and
    /// trimmed; `None` for every movie), in title order.
    pub async fn search_movies(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<MovieRow>, StoreError> {
        let mut connection = self.connection().await?;
        search::search(&mut connection, &SEARCHED, query, offset, limit).await
    }

    /// The movie with this id and every review of it in review order, if there is one.
    pub async fn movie_with_reviews(
        &self,
        id: Uuid,
    ) -> Result<Option<(MovieRow, Vec<ReviewRow>)>, StoreError> {
        let sql = format!(
            "SELECT {MOVIE_JSON}, (SELECT json_group_array({REVIEW_JSON} ORDER BY {REVIEW_ORDER})
                                   FROM reviews WHERE movie_id = ?1)
             FROM movies WHERE id = ?1"
        );
        let found: Option<(String, String)> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&mut *self.connection().await?)
            .await?;
        let Some((movie, reviews)) = found else {
            return Ok(None);
        };
        Ok(Some((from_json(&movie)?, from_json(&reviews)?)))
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM movies WHERE id = ?1)")
            .bind(id)
            .fetch_one(&mut *self.connection().await?)
            .await
    }
}
