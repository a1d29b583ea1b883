//! The `reviews` table: pages in review order (movie title, author last name, first name, id),
//! the reviews of a set of movies or authors, and writes.

use rusqlite::{Row, params};
use uuid::Uuid;

use crate::Keep;
use crate::columns::REVIEW_COLUMNS;

use super::kept::keeping;
use super::{
    NewReview, ReviewFilter, ReviewRow, Rows, SqliteStore, StoreError, TableRow, page_sql,
    read_number, read_page, read_rows,
};

impl TableRow for ReviewRow {
    const COLUMNS: &'static str = REVIEW_COLUMNS;

    fn from_row(row: &Row<'_>) -> rusqlite::Result<ReviewRow> {
        Ok(ReviewRow {
            id: row.get(0)?,
            stars: row.get(1)?,
            movie_id: row.get(2)?,
            movie_title: row.get(3)?,
            author_id: row.get(4)?,
            author_first_name: row.get(5)?,
            author_last_name: row.get(6)?,
        })
    }

    fn id(&self) -> Uuid {
        self.id
    }
}

/// Review order: movie title, then author last name, then first name (each ignoring case, then
/// exact), then id. A review holds its movie's and its author's ranks in those orders, and the
/// table is kept in this order (see the schema's rules 7 and 8).
pub(super) const REVIEW_ORDER: &str = "movie_rank, author_rank, id";

/// The reviews of the movie bound as `?1`: a range of the table, the reviews with its title's
/// rank, of which those of other movies with the same title are passed over.
pub(super) const OF_MOVIE: &str =
    "movie_rank = (SELECT title_rank FROM movies WHERE id = ?1) AND movie_id = ?1";

/// From this offset on, a page of reviews is read on a blocking thread (see `readers`): SQLite
/// steps over the rows before the offset at about 0.06 µs each (measured on 200,000 reviews),
/// so a page this far in takes 60 µs and more before its first row, and one at the end of
/// millions, a fraction of a second.
const FAR_OFFSET: u32 = 1000;

/// Whether the movie bound as `?1` and the author bound as `?2` exist, each when given.
const FILTER_EXISTS: &str = "SELECT (?1 IS NULL OR EXISTS (SELECT 1 FROM movies WHERE id = ?1))
     AND (?2 IS NULL OR EXISTS (SELECT 1 FROM authors WHERE id = ?2))";

impl SqliteStore {
    /// A page of reviews, filtered by movie and/or author, in review order; `None` when the
    /// movie or the author filtered by does not exist.
    pub async fn list_reviews(
        &self,
        filter: ReviewFilter,
        offset: u32,
        limit: u32,
    ) -> Result<Option<Rows<ReviewRow>>, StoreError> {
        // One statement per filter (never `? IS NULL OR …`), so SQLite reads that filter's
        // range of the table or of the author index in order; the text is fixed, only the
        // values are bound. The total of a movie's or an author's reviews is kept on it. The
        // page binds the movie as `?1` and the author as `?2`; the count binds the ids given,
        // in that order.
        let (condition, count) = match (filter.movie_id, filter.author_id) {
            (None, None) => (String::new(), "SELECT reviews FROM totals".to_owned()),
            (Some(_), None) => (
                format!("WHERE {OF_MOVIE}"),
                "SELECT review_count FROM movies WHERE id = ?1".to_owned(),
            ),
            (None, Some(_)) => (
                "WHERE author_id = ?2".to_owned(),
                "SELECT review_count FROM authors WHERE id = ?1".to_owned(),
            ),
            (Some(_), Some(_)) => (
                format!("WHERE {OF_MOVIE} AND author_id = ?2"),
                format!("SELECT COUNT(*) FROM reviews WHERE {OF_MOVIE} AND author_id = ?2"),
            ),
        };
        let sql = page_sql::<ReviewRow>(&format!("reviews {condition}"), REVIEW_ORDER);
        let given = [filter.movie_id, filter.author_id].into_iter().flatten();
        let read = move |connection: &rusqlite::Connection| {
            let values = (filter.movie_id, filter.author_id);
            let count = || read_number(connection, &count, rusqlite::params_from_iter(given));
            match read_page(connection, &sql, values, offset, limit, count) {
                // A review's movie and author exist, so a page with a review shows they do.
                Ok(page) if !page.items.is_empty() => Ok(Some(page)),
                // Otherwise the page is empty, or its count found no movie or author to read
                // the count from.
                outcome => match read_number(connection, FILTER_EXISTS, values)? {
                    0 => Ok(None),
                    _ => outcome.map(Some),
                },
            }
        };
        // SQLite steps over the rows before the offset one by one.
        if offset < FAR_OFFSET {
            self.read(read).await
        } else {
            self.read_apart(read).await
        }
    }

    /// The review with this id, if there is one.
    pub async fn review(&self, id: Uuid) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("SELECT {REVIEW_COLUMNS} FROM reviews WHERE id = ?1");
        self.read(|connection| Ok(read_rows(connection, &sql, [id])?.pop()))
            .await
    }

    /// Whether a review has this id.
    pub async fn review_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        self.exists("SELECT EXISTS (SELECT 1 FROM reviews WHERE id = ?1)", id)
            .await
    }

    /// Saves a new review and returns it as saved, in one statement; `None` when its movie or
    /// author is gone. With `keep`, its result is kept in the same transaction
    /// ([`StoreError::KeyTaken`] when the key is taken).
    pub async fn create_review(
        &self,
        review: &NewReview,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("{INSERT_REVIEW} RETURNING {REVIEW_COLUMNS}");
        let values = (review.id, review.movie_id, review.author_id, review.stars);
        let written = self.write(move |connection| {
            keeping(connection, keep, |connection| {
                let (id, movie_id, author_id, stars) = values;
                let mut saved: Vec<ReviewRow> =
                    read_rows(connection, &sql, params![id, movie_id, author_id, stars])?;
                Ok(saved.pop())
            })
        });
        written.await?.row()
    }

    /// Changes a review's stars and returns it as saved; `None` when no review has this id.
    /// `keep` as for `create_review`.
    pub async fn set_review_stars(
        &self,
        id: Uuid,
        stars: u8,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("UPDATE reviews SET stars = ?2 WHERE id = ?1 RETURNING {REVIEW_COLUMNS}");
        let written = self.write(move |connection| {
            keeping(connection, keep, |connection| {
                let mut saved: Vec<ReviewRow> = read_rows(connection, &sql, params![id, stars])?;
                Ok(saved.pop())
            })
        });
        written.await?.row()
    }

    /// Deletes a review; false when no review has this id.
    pub async fn delete_review(&self, id: Uuid) -> Result<bool, StoreError> {
        self.write(move |connection| {
            let deleted = connection
                .prepare_cached("DELETE FROM reviews WHERE id = ?1")?
                .execute([id])?;
            Ok(deleted > 0)
        })
        .await
    }
}

/// Inserts a review with its ranks, title and names copied from its movie and author; inserts
/// nothing when either does not exist.
const INSERT_REVIEW: &str = "INSERT INTO reviews (movie_rank, author_rank, id, movie_id, author_id,
                          stars, movie_title, author_first_name, author_last_name)
     SELECT m.title_rank, a.name_rank, ?1, m.id, a.id, ?4, m.title, a.first_name, a.last_name
     FROM movies m, authors a
     WHERE m.id = ?2 AND a.id = ?3";

/// Whose reviews to read at once.
#[derive(Debug, Clone, Copy)]
pub(super) enum ReviewsOf {
    Movies,
    Authors,
}

/// Every review of the movies or by the authors with these ids, in review order.
pub(super) fn reviews_of(
    connection: &rusqlite::Connection,
    of: ReviewsOf,
    ids: &[Uuid],
) -> rusqlite::Result<Vec<ReviewRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    // Numbered, so that the list can be used twice.
    let list = (1..=ids.len())
        .map(|number| format!("?{number}"))
        .collect::<Vec<_>>()
        .join(", ");
    let condition = match of {
        // Each movie's reviews are a range of the table (see `OF_MOVIE`).
        ReviewsOf::Movies => format!(
            "movie_rank IN (SELECT title_rank FROM movies WHERE id IN ({list}))
             AND movie_id IN ({list})"
        ),
        ReviewsOf::Authors => format!("author_id IN ({list})"),
    };
    let sql =
        format!("SELECT {REVIEW_COLUMNS} FROM reviews WHERE {condition} ORDER BY {REVIEW_ORDER}");
    read_rows(connection, &sql, rusqlite::params_from_iter(ids))
}
