//! The store's rows read from PostgreSQL's: counts are `bigint` and stars `smallint`, so each is
//! checked into the row type's range (invariant 9 on `Store`), never wrapped or clamped.

use sqlx::postgres::PgRow;
use sqlx::{FromRow, Row};

use super::super::{AuthorRow, MovieRow, ReviewRow};

/// The columns a [`MovieRow`] is read from, in its fields' order.
pub(super) const MOVIE_COLUMNS: &str = "id, title, review_count, star_total";

/// The columns an [`AuthorRow`] is read from.
pub(super) const AUTHOR_COLUMNS: &str = "id, first_name, last_name, review_count, star_total";

/// The columns a [`ReviewRow`] is read from.
pub(super) const REVIEW_COLUMNS: &str =
    "id, stars, movie_id, movie_title, author_id, author_first_name, author_last_name";

impl FromRow<'_, PgRow> for MovieRow {
    fn from_row(row: &PgRow) -> Result<MovieRow, sqlx::Error> {
        Ok(MovieRow {
            id: row.try_get(0)?,
            title: row.try_get(1)?,
            review_count: unsigned(row, 2)?,
            star_total: unsigned(row, 3)?,
        })
    }
}

impl FromRow<'_, PgRow> for AuthorRow {
    fn from_row(row: &PgRow) -> Result<AuthorRow, sqlx::Error> {
        Ok(AuthorRow {
            id: row.try_get(0)?,
            first_name: row.try_get(1)?,
            last_name: row.try_get(2)?,
            review_count: unsigned(row, 3)?,
            star_total: unsigned(row, 4)?,
        })
    }
}

impl FromRow<'_, PgRow> for ReviewRow {
    fn from_row(row: &PgRow) -> Result<ReviewRow, sqlx::Error> {
        let stars: i16 = row.try_get(1)?;
        Ok(ReviewRow {
            id: row.try_get(0)?,
            stars: u8::try_from(stars).map_err(|_| out_of_range(1, stars))?,
            movie_id: row.try_get(2)?,
            movie_title: row.try_get(3)?,
            author_id: row.try_get(4)?,
            author_first_name: row.try_get(5)?,
            author_last_name: row.try_get(6)?,
        })
    }
}

/// A `bigint` column that holds a count.
fn unsigned(row: &PgRow, index: usize) -> Result<u64, sqlx::Error> {
    let value: i64 = row.try_get(index)?;
    u64::try_from(value).map_err(|_| out_of_range(index, value))
}

/// A count a statement returned, as one.
pub(super) fn count(value: i64) -> Result<u64, sqlx::Error> {
    u64::try_from(value).map_err(|_| out_of_range(0, value))
}

fn out_of_range(index: usize, value: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: index.to_string(),
        source: format!("{value} is out of range for the column's type").into(),
    }
}
