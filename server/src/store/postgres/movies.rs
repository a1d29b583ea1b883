//! The `movies` table: search in title order, one movie by id, existence.

use sqlx::AssertSqlSafe;
use uuid::Uuid;

use super::super::{MovieRow, ReviewRow, Rows};
use super::rows::{MOVIE_COLUMNS, REVIEW_COLUMNS};
use super::search::{Identified, Searched};
use super::{PostgresStore, StoreError};

/// How [`PostgresStore::search_with_reviews`] reads this table: title order is the
/// `movies_in_order` index.
const SEARCHED: Searched = Searched {
    table: "movies",
    columns: MOVIE_COLUMNS,
    text: "title_folded",
    order: "title_folded, title, id",
    reviews_by: "movie_id",
};

/// A movie's reviews in review order: they share its title, so the author's names and the id
/// remain (the `reviews_of_movie` index).
pub(super) const OF_MOVIE_ORDER: &str = "author_last_name_folded, author_last_name, \
     author_first_name_folded, author_first_name, id";

impl Identified for MovieRow {
    fn id(&self) -> Uuid {
        self.id
    }
}

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

    /// The movie with this id and every review of it in review order, if there is one.
    pub async fn movie_with_reviews(
        &self,
        id: Uuid,
    ) -> Result<Option<(MovieRow, Vec<ReviewRow>)>, StoreError> {
        self.read(async |connection| {
            let movie_sql = format!("SELECT {MOVIE_COLUMNS} FROM movies WHERE id = $1");
            let movie: Option<MovieRow> = sqlx::query_as(AssertSqlSafe(movie_sql))
                .bind(id)
                .fetch_optional(&mut *connection)
                .await?;
            let Some(movie) = movie else {
                return Ok(None);
            };
            let reviews_sql = format!(
                "SELECT {REVIEW_COLUMNS} FROM reviews WHERE movie_id = $1 ORDER BY {OF_MOVIE_ORDER}"
            );
            let reviews = sqlx::query_as(AssertSqlSafe(reviews_sql))
                .bind(id)
                .fetch_all(&mut *connection)
                .await?;
            Ok(Some((movie, reviews)))
        })
        .await
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM movies WHERE id = $1)", id)
            .await
    }
}
