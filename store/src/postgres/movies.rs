//! The `movies` table: search in title order, one movie by id, existence.

use sqlx::AssertSqlSafe;
use uuid::Uuid;

use super::rows::{prefixed, review_at};
use super::search::PageRow as _;
use super::search::Searched;
use super::{PostgresStore, StoreError};
use crate::columns::{MOVIE_COLUMNS, MOVIE_ORDER, REVIEW_COLUMNS};
use crate::{MovieRow, ReviewRow, Rows};

/// How [`PostgresStore::search_with_reviews`] reads this table: title order is the
/// `movies_in_order` index.
const SEARCHED: Searched = Searched {
    table: "movies",
    columns: MOVIE_COLUMNS,
    text: "title_folded",
    order: MOVIE_ORDER,
    reviews_by: "movie_id",
};

/// A movie's reviews in review order: they share its title, so the author's names and the id
/// remain (the `reviews_of_movie` index).
pub(super) const OF_MOVIE_ORDER: &str = "author_last_name_folded, author_last_name, \
     author_first_name_folded, author_first_name, id";

impl PostgresStore {
    /// A page of the movies whose folded title contains `term` (already trimmed and folded;
    /// `None`: every one), and, if asked for, every review of them.
    pub async fn search_movies(
        &self,
        term: Option<String>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<MovieRow>, Option<Vec<ReviewRow>>), StoreError> {
        self.search_with_reviews(&SEARCHED, term, offset, limit, with_reviews)
            .await
    }

    /// The movie with this id and every review of it in review order, if there is one: one
    /// statement, so one snapshot without a transaction's two round trips.
    pub async fn movie_with_reviews(
        &self,
        id: Uuid,
    ) -> Result<Option<(MovieRow, Vec<ReviewRow>)>, StoreError> {
        let sql = format!(
            "SELECT m.id, m.title, m.review_count, m.star_total, {reviews}
             FROM movies m LEFT JOIN reviews r ON r.movie_id = m.id
             WHERE m.id = $1 ORDER BY {order}",
            reviews = prefixed("r", REVIEW_COLUMNS),
            order = prefixed("r", OF_MOVIE_ORDER),
        );
        let query = sqlx::query(AssertSqlSafe(sql)).bind(id);
        let rows = self.fetch_all(query).await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let Some(movie) = MovieRow::at(first, 0)? else {
            return Ok(None);
        };
        let mut reviews = Vec::with_capacity(rows.len());
        for row in &rows {
            // A movie without reviews comes back as one row with no review in it.
            if let Some(review) = review_at(row, 4)? {
                reviews.push(review);
            }
        }
        Ok(Some((movie, reviews)))
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM movies WHERE id = $1)", id)
            .await
    }
}
