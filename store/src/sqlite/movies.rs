//! The `movies` table: search in title order, one movie by id, existence.

use rusqlite::Row;
use uuid::Uuid;

use crate::columns::{MOVIE_COLUMNS, MOVIE_ORDER};

use super::reviews::{OF_MOVIE, REVIEW_ORDER, ReviewsOf};
use super::{MovieRow, ReviewRow, Rows, SqliteStore, StoreError, TableRow, read_rows, search};

impl TableRow for MovieRow {
    const COLUMNS: &'static str = MOVIE_COLUMNS;

    fn from_row(row: &Row<'_>) -> rusqlite::Result<MovieRow> {
        Ok(MovieRow {
            id: row.get(0)?,
            title: row.get(1)?,
            review_count: row.get(2)?,
            star_total: row.get(3)?,
        })
    }

    fn id(&self) -> Uuid {
        self.id
    }
}

/// How [`search::search`] reads this table: title order is the `movies_by_title` index.
const SEARCHED: search::Searched = search::Searched {
    table: "movies",
    text: "title_folded",
    index: "movies_search",
    total: "movies",
    in_order: "movies_in_order",
    order: MOVIE_ORDER,
    leading: "title_folded",
    reviews_of: ReviewsOf::Movies,
};

impl SqliteStore {
    /// A page of the movies whose folded text contains `term` (already trimmed and folded;
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
        self.read(|connection| {
            let movie_sql = format!("SELECT {} FROM movies WHERE id = ?1", MovieRow::COLUMNS);
            let Some(movie) = read_rows(connection, &movie_sql, [id])?.pop() else {
                return Ok(None);
            };
            let reviews_sql = format!(
                "SELECT {} FROM reviews WHERE {OF_MOVIE} ORDER BY {REVIEW_ORDER}",
                ReviewRow::COLUMNS
            );
            Ok(Some((movie, read_rows(connection, &reviews_sql, [id])?)))
        })
        .await
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM movies WHERE id = ?1)", id)
            .await
    }
}
