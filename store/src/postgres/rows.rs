//! The store's rows read from PostgreSQL's: counts are `bigint` and stars `smallint`, so each is
//! checked into the row type's range (invariant 9 on `Store`), never wrapped or clamped.

use sqlx::postgres::PgRow;
use sqlx::{FromRow, Row};
use uuid::Uuid;

use super::search::PageRow;
use crate::{AuthorRow, MovieRow, ReviewRow};

impl PageRow for MovieRow {
    const WIDTH: usize = 4;

    fn at(row: &PgRow, first: usize) -> Result<Option<MovieRow>, sqlx::Error> {
        let Some(id) = row.try_get(first)? else {
            return Ok(None);
        };
        Ok(Some(MovieRow {
            id,
            title: row.try_get(first + 1)?,
            review_count: count_at(row, first + 2)?,
            star_total: count_at(row, first + 3)?,
        }))
    }

    fn id(&self) -> Uuid {
        self.id
    }
}

impl PageRow for AuthorRow {
    const WIDTH: usize = 5;

    fn at(row: &PgRow, first: usize) -> Result<Option<AuthorRow>, sqlx::Error> {
        let Some(id) = row.try_get(first)? else {
            return Ok(None);
        };
        Ok(Some(AuthorRow {
            id,
            first_name: row.try_get(first + 1)?,
            last_name: row.try_get(first + 2)?,
            review_count: count_at(row, first + 3)?,
            star_total: count_at(row, first + 4)?,
        }))
    }

    fn id(&self) -> Uuid {
        self.id
    }
}

impl FromRow<'_, PgRow> for ReviewRow {
    fn from_row(row: &PgRow) -> Result<ReviewRow, sqlx::Error> {
        review_at(row, 0)?.ok_or_else(|| out_of_range(0, "NULL"))
    }
}

/// `columns`, a comma-separated list, each qualified with `table`.
pub(super) fn prefixed(table: &str, columns: &str) -> String {
    columns
        .split(',')
        .map(|column| format!("{table}.{}", column.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The review in the [`REVIEW_COLUMNS`] that start at column `first`; `None` when they are all
/// NULL, as a `LEFT JOIN` that found no review leaves them.
pub(super) fn review_at(row: &PgRow, first: usize) -> Result<Option<ReviewRow>, sqlx::Error> {
    let Some(id) = row.try_get(first)? else {
        return Ok(None);
    };
    let stars: i16 = row.try_get(first + 1)?;
    Ok(Some(ReviewRow {
        id,
        stars: u8::try_from(stars).map_err(|_| out_of_range(first + 1, stars))?,
        movie_id: row.try_get(first + 2)?,
        movie_title: row.try_get(first + 3)?,
        author_id: row.try_get(first + 4)?,
        author_first_name: row.try_get(first + 5)?,
        author_last_name: row.try_get(first + 6)?,
    }))
}

/// A `bigint` column that holds a count.
pub(super) fn count_at(row: &PgRow, index: usize) -> Result<u64, sqlx::Error> {
    let value: i64 = row.try_get(index)?;
    u64::try_from(value).map_err(|_| out_of_range(index, value))
}

/// A count that is NULL when what it counts is missing.
pub(super) fn optional_count_at(row: &PgRow, index: usize) -> Result<Option<u64>, sqlx::Error> {
    let value: Option<i64> = row.try_get(index)?;
    value
        .map(|value| u64::try_from(value).map_err(|_| out_of_range(index, value)))
        .transpose()
}

fn out_of_range(index: usize, value: impl std::fmt::Display) -> sqlx::Error {
    sqlx::Error::ColumnDecode {
        index: index.to_string(),
        source: format!("{value} is out of range for the column's type").into(),
    }
}
