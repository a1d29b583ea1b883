//! The `reviews` table: pages in review order, one review by id, and writes. Each write is one
//! statement in a transaction of its own, so that a write whose call is cancelled is rolled back
//! (see `Connections::write`); the schema's triggers fill a new review's copies and move the
//! counts in the same transaction.

use sqlx::AssertSqlSafe;
use uuid::Uuid;

use super::kept::keep_row;
use super::movies::OF_MOVIE_ORDER;
use super::rows::{optional_count_at, prefixed, review_at};
use super::search::REVIEW_ORDER;
use super::{PostgresStore, StoreError};
use crate::columns::REVIEW_COLUMNS;
use crate::{Keep, NewReview, ReviewFilter, ReviewRow, Rows};
use sqlx::Postgres;
use sqlx::postgres::PgArguments;
use sqlx::query::QueryAs;

/// An author's reviews in review order: they share the author's names, so the movie's title and
/// the id remain (the `reviews_of_author` index).
const OF_AUTHOR_ORDER: &str = "movie_title_folded, movie_title, id";

impl PostgresStore {
    /// A page of reviews, filtered by movie and/or author, in review order; `None` when the
    /// movie or the author filtered by does not exist.
    pub async fn list_reviews(
        &self,
        filter: ReviewFilter,
        offset: u32,
        limit: u32,
    ) -> Result<Option<Rows<ReviewRow>>, StoreError> {
        // One statement per filter, each in the order its index keeps, with the total kept
        // on the movie or author (or the totals) where there is one: the page and its total in
        // one statement, so from one snapshot, and a row with the total even when the page is
        // empty. The total is NULL when the movie or the author is missing. The ids given are
        // bound first, movie before author, then the limit and the offset.
        let (condition, order, total) = match (filter.movie_id, filter.author_id) {
            (None, None) => ("TRUE", REVIEW_ORDER, "SELECT reviews FROM totals"),
            (Some(_), None) => (
                "movie_id = $1",
                OF_MOVIE_ORDER,
                "SELECT review_count FROM movies WHERE id = $1",
            ),
            (None, Some(_)) => (
                "author_id = $1",
                OF_AUTHOR_ORDER,
                "SELECT review_count FROM authors WHERE id = $1",
            ),
            (Some(_), Some(_)) => (
                "movie_id = $1 AND author_id = $2",
                "id",
                "SELECT CASE WHEN EXISTS (SELECT 1 FROM movies WHERE id = $1)
                     AND EXISTS (SELECT 1 FROM authors WHERE id = $2)
                     THEN (SELECT count(*) FROM reviews WHERE movie_id = $1 AND author_id = $2)
                     END",
            ),
        };
        let ids: Vec<Uuid> = [filter.movie_id, filter.author_id]
            .into_iter()
            .flatten()
            .collect();
        let sql = format!(
            "SELECT ({total}), {columns}
             FROM (SELECT 1) one LEFT JOIN LATERAL (
                 SELECT * FROM reviews WHERE {condition} ORDER BY {order}
                 LIMIT ${limit_at} OFFSET ${offset_at}) r ON TRUE
             ORDER BY {outer_order}",
            columns = prefixed("r", REVIEW_COLUMNS),
            outer_order = prefixed("r", order),
            limit_at = ids.len() + 1,
            offset_at = ids.len() + 2,
        );
        let mut query = sqlx::query(AssertSqlSafe(sql));
        for id in &ids {
            query = query.bind(id);
        }
        let query = query.bind(i64::from(limit)).bind(i64::from(offset));
        let rows = self.fetch_all(query).await?;
        let mut page = Rows {
            items: Vec::with_capacity(rows.len()),
            total: 0,
        };
        for row in &rows {
            let Some(total) = optional_count_at(row, 0)? else {
                return Ok(None);
            };
            page.total = total;
            // An empty page comes back as one row with the total and no review.
            if let Some(review) = review_at(row, 1)? {
                page.items.push(review);
            }
        }
        Ok(Some(page))
    }

    /// The review with this id, if there is one.
    pub async fn review(&self, id: Uuid) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("SELECT {REVIEW_COLUMNS} FROM reviews WHERE id = $1");
        let query = sqlx::query_as(AssertSqlSafe(sql)).bind(id);
        self.connections
            .run(async |connection| Ok(query.fetch_optional(connection).await?))
            .await
    }

    /// Whether a review has this id.
    pub async fn review_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM reviews WHERE id = $1)", id)
            .await
    }

    /// Saves a new review and returns it as saved; `None` when its movie or author is gone.
    /// With `keep`, its result is kept in the same transaction ([`StoreError::KeyTaken`] when
    /// the key is taken, saving nothing).
    pub async fn create_review(
        &self,
        review: &NewReview,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!(
            "INSERT INTO reviews (id, movie_id, author_id, stars)
             SELECT $1, m.id, a.id, $4 FROM movies m, authors a WHERE m.id = $2 AND a.id = $3
             RETURNING {REVIEW_COLUMNS}"
        );
        let query = sqlx::query_as(AssertSqlSafe(sql))
            .bind(review.id)
            .bind(review.movie_id)
            .bind(review.author_id)
            .bind(i16::from(review.stars));
        self.write_keeping(query, keep).await
    }

    /// Changes a review's stars and returns it as saved; `None` when no review has this id.
    /// `keep` as for `create_review`.
    pub async fn set_review_stars(
        &self,
        id: Uuid,
        stars: u8,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("UPDATE reviews SET stars = $2 WHERE id = $1 RETURNING {REVIEW_COLUMNS}");
        let query = sqlx::query_as(AssertSqlSafe(sql))
            .bind(id)
            .bind(i16::from(stars));
        self.write_keeping(query, keep).await
    }

    /// Runs the write `query`, which returns the review it wrote, and keeps its result under
    /// `keep`'s key in the same transaction.
    async fn write_keeping(
        &self,
        query: QueryAs<'_, Postgres, ReviewRow, PgArguments>,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        self.connections
            .write(async |connection| {
                let mut saved: Vec<ReviewRow> = query.fetch_all(&mut *connection).await?;
                let row = saved.pop();
                keep_row(connection, keep, row.as_ref()).await?;
                Ok(row)
            })
            .await
    }

    /// Deletes a review; false when no review has this id.
    pub async fn delete_review(&self, id: Uuid) -> Result<bool, StoreError> {
        let query = sqlx::query("DELETE FROM reviews WHERE id = $1").bind(id);
        let deleted = self
            .connections
            .write(async |connection| Ok(query.execute(connection).await?))
            .await?;
        Ok(deleted.rows_affected() > 0)
    }
}
