//! Loading a whole data set at once: the demo data on a new database, and `seed`. One
//! transaction: another server sees the old data or the new, never a half-loaded database, and
//! a failure leaves the old data as it was.
//!
//! The rows go in with `COPY … FROM STDIN` in PostgreSQL's text format, with the counts, totals
//! and copies worked out here, while `movie_reviews.loading` tells the triggers to leave them
//! be: row by row through the triggers, every review would update its movie, its author and the
//! totals. The secondary indexes and the foreign keys are dropped for the load and made again
//! after it, from the definitions PostgreSQL gives back (so the schema file stays the one place
//! they are written): building an index by sorting once, and checking a foreign key in one
//! join, is far cheaper than keeping them row by row.
//!
//! Each table's rows go in in its order (titles, names, and reviews by movie then author), so
//! that rows next to each other in an order share pages: walking an order, or fetching a
//! term's matches, which gather in runs of that order, or a movie's reviews, reads a few pages
//! rather than a page a row. Rows written later land wherever there is room.

use std::collections::HashMap;
use std::fmt::Write as _;

use sqlx::{Acquire as _, AssertSqlSafe, PgConnection};
use uuid::Uuid;

use crate::{NewAuthor, NewMovie, NewReview, Progress, StoreError, fold};

/// The advisory lock a load holds, so that servers starting on one empty database at once fill
/// it once: the others find it full when they get the lock.
const LOAD_LOCK: i64 = 0x6d6f7669_65726576;

/// For each secondary index of the three tables and each foreign key of `reviews`, the
/// statement that drops it and the one that makes it again, foreign keys first: they are
/// dropped first and, taken in reverse, made last, once the indexes are back.
const SECONDARY_DEFINITIONS: &str = "
    SELECT drop, make FROM (
        SELECT 1 AS step, format('DROP INDEX %s', i.indexrelid::regclass) AS drop,
               pg_get_indexdef(i.indexrelid) AS make
        FROM pg_index i
        WHERE i.indrelid IN ('movies'::regclass, 'authors'::regclass, 'reviews'::regclass)
          AND NOT i.indisprimary
        UNION ALL
        SELECT 2, format('ALTER TABLE reviews DROP CONSTRAINT %I', c.conname),
               format('ALTER TABLE reviews ADD CONSTRAINT %I %s', c.conname,
                      pg_get_constraintdef(c.oid))
        FROM pg_constraint c
        WHERE c.contype = 'f' AND c.conrelid = 'reviews'::regclass
    ) definitions
    ORDER BY step DESC, drop";

/// Rows sent to `COPY` at once, and between two reports to the progress bar.
const ROWS_PER_CHUNK: usize = 10_000;

/// Whether the database holds any movie, author or review.
pub(super) async fn holds_anything(
    connection: impl sqlx::PgExecutor<'_>,
) -> Result<bool, StoreError> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM movies) OR EXISTS (SELECT 1 FROM authors)
             OR EXISTS (SELECT 1 FROM reviews)",
    )
    .fetch_one(connection)
    .await?)
}

/// Replaces everything in the database with these rows, telling `progress` how far it has got;
/// with no `progress`, fills it only if it holds nothing. Says whether it loaded them.
///
/// A replacement locks the three tables at once, before anything else, empties them and drops
/// their secondary indexes and foreign keys. A fill does none of that: the demo data is small,
/// and an empty database has nothing to remove, so the filler takes no table lock that another
/// server starting beside it (checking whether the database is empty) could wait for in
/// another order, which would deadlock.
pub(super) async fn load(
    connection: &mut PgConnection,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
    mut progress: Option<Progress<'_>>,
) -> Result<bool, StoreError> {
    let counts = Counts::of(movies, authors, reviews)?;
    let (movies, authors, reviews) = in_order(movies, authors, reviews);
    let mut transaction = connection.begin().await?;
    let connection = transaction.acquire().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(LOAD_LOCK)
        .execute(&mut *connection)
        .await?;
    let replacing = progress.is_some();
    if !replacing && holds_anything(&mut *connection).await? {
        return Ok(false);
    }
    let mut report = |stage, done, total| {
        if let Some(progress) = progress.as_mut() {
            progress(stage, done, total);
        }
    };
    sqlx::query("SET LOCAL movie_reviews.loading = 'on'")
        .execute(&mut *connection)
        .await?;
    // A load of millions of rows runs for minutes, far past a call's statement timeout.
    sqlx::query("SET LOCAL statement_timeout = 0")
        .execute(&mut *connection)
        .await?;
    let mut rebuilt: Vec<(String, String)> = Vec::new();
    if replacing {
        sqlx::query("LOCK TABLE reviews, movies, authors IN ACCESS EXCLUSIVE MODE")
            .execute(&mut *connection)
            .await?;
        sqlx::query("TRUNCATE kept_results, reviews, movies, authors")
            .execute(&mut *connection)
            .await?;
        rebuilt = sqlx::query_as(SECONDARY_DEFINITIONS)
            .fetch_all(&mut *connection)
            .await?;
        for (drop, _) in &rebuilt {
            sqlx::query(AssertSqlSafe(drop.as_str()))
                .execute(&mut *connection)
                .await?;
        }
    }
    copy(
        connection,
        "COPY movies (id, title, title_folded, review_count, star_total) FROM STDIN",
        "movies",
        &movies,
        &mut report,
        |line, movie| {
            let (count, total) = counts.movies.get(&movie.id).copied().unwrap_or_default();
            fields(
                line,
                &[&movie.id, &movie.title, &fold(&movie.title), &count, &total],
            );
        },
    )
    .await?;
    copy(
        connection,
        "COPY authors (id, first_name, last_name, first_name_folded, last_name_folded,
                       review_count, star_total) FROM STDIN",
        "authors",
        &authors,
        &mut report,
        |line, author| {
            let (count, total) = counts.authors.get(&author.id).copied().unwrap_or_default();
            let folded = (fold(&author.first_name), fold(&author.last_name));
            fields(
                line,
                &[
                    &author.id,
                    &author.first_name,
                    &author.last_name,
                    &folded.0,
                    &folded.1,
                    &count,
                    &total,
                ],
            );
        },
    )
    .await?;
    let movie_of: HashMap<Uuid, &NewMovie> =
        movies.iter().map(|movie| (movie.id, *movie)).collect();
    let author_of: HashMap<Uuid, &NewAuthor> =
        authors.iter().map(|author| (author.id, *author)).collect();
    copy(
        connection,
        "COPY reviews (id, movie_id, author_id, stars, movie_title, movie_title_folded,
                       author_first_name, author_last_name, author_first_name_folded,
                       author_last_name_folded) FROM STDIN",
        "reviews",
        &reviews,
        &mut report,
        |line, review| {
            // Every review names a movie and an author of the set: `Counts::of` checked.
            let (Some(movie), Some(author)) = (
                movie_of.get(&review.movie_id),
                author_of.get(&review.author_id),
            ) else {
                return;
            };
            fields(
                line,
                &[
                    &review.id,
                    &review.movie_id,
                    &review.author_id,
                    &review.stars,
                    &movie.title,
                    &fold(&movie.title),
                    &author.first_name,
                    &author.last_name,
                    &fold(&author.first_name),
                    &fold(&author.last_name),
                ],
            );
        },
    )
    .await?;
    if !rebuilt.is_empty() {
        report("indexes", 0, 0);
        sqlx::query("SET LOCAL maintenance_work_mem = '256MB'")
            .execute(&mut *connection)
            .await?;
    }
    for (_, create) in rebuilt.iter().rev() {
        sqlx::query(AssertSqlSafe(create.as_str()))
            .execute(&mut *connection)
            .await?;
    }
    sqlx::query("UPDATE totals SET movies = $1, authors = $2, reviews = $3")
        .bind(row_count(movies.len()))
        .bind(row_count(authors.len()))
        .bind(row_count(reviews.len()))
        .execute(&mut *connection)
        .await?;
    // Statistics for the planner, which would otherwise plan the first searches on a loaded
    // database as if its tables were empty, until autovacuum came by.
    report("statistics", 0, 0);
    sqlx::query("ANALYZE movies, authors, reviews")
        .execute(&mut *connection)
        .await?;
    report("committing", 0, 0);
    transaction.commit().await?;
    Ok(true)
}

/// The rows in the order each table is read in: movies by title, authors by name (each folded,
/// then as written, then by id), reviews by their movie's place in that order, then their
/// author's, then id. Reviews are sorted by those places rather than by their texts, which
/// would take a copy of each review's texts.
fn in_order<'a>(
    movies: &'a [NewMovie],
    authors: &'a [NewAuthor],
    reviews: &'a [NewReview],
) -> (Vec<&'a NewMovie>, Vec<&'a NewAuthor>, Vec<&'a NewReview>) {
    let mut movies: Vec<&NewMovie> = movies.iter().collect();
    movies.sort_by_cached_key(|movie| (fold(&movie.title), movie.title.clone(), movie.id));
    let mut authors: Vec<&NewAuthor> = authors.iter().collect();
    authors.sort_by_cached_key(|author| {
        (
            fold(&author.last_name),
            author.last_name.clone(),
            fold(&author.first_name),
            author.first_name.clone(),
            author.id,
        )
    });
    let movie_place: HashMap<Uuid, usize> = (movies.iter().enumerate())
        .map(|(place, movie)| (movie.id, place))
        .collect();
    let author_place: HashMap<Uuid, usize> = (authors.iter().enumerate())
        .map(|(place, author)| (author.id, place))
        .collect();
    let mut reviews: Vec<&NewReview> = reviews.iter().collect();
    // Every review names a movie and an author of the set: `Counts::of` checked.
    reviews.sort_by_cached_key(|review| {
        (
            movie_place.get(&review.movie_id).copied(),
            author_place.get(&review.author_id).copied(),
            review.id,
        )
    });
    (movies, authors, reviews)
}

/// Each movie's and author's review count and star total in the data set.
struct Counts {
    movies: HashMap<Uuid, (u64, u64)>,
    authors: HashMap<Uuid, (u64, u64)>,
}

impl Counts {
    /// The counts, or [`StoreError::Orphan`] for a review whose movie or author is not in the
    /// set.
    fn of(
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<Counts, StoreError> {
        let mut counts = Counts {
            movies: movies.iter().map(|movie| (movie.id, (0, 0))).collect(),
            authors: authors.iter().map(|author| (author.id, (0, 0))).collect(),
        };
        for review in reviews {
            let stars = u64::from(review.stars);
            for (counted, id) in [
                (&mut counts.movies, review.movie_id),
                (&mut counts.authors, review.author_id),
            ] {
                let (count, total) = counted.get_mut(&id).ok_or(StoreError::Orphan(review.id))?;
                *count += 1;
                *total += stars;
            }
        }
        Ok(counts)
    }
}

/// Sends `rows` to `statement`, a `COPY … FROM STDIN`, a chunk at a time, each row written as a
/// line by `line`, telling `report` how many of `stage` are in.
async fn copy<T>(
    connection: &mut PgConnection,
    statement: &str,
    stage: &'static str,
    rows: &[T],
    report: &mut impl FnMut(&'static str, u64, u64),
    mut line: impl FnMut(&mut String, &T),
) -> Result<(), StoreError> {
    let total = rows.len() as u64;
    let mut copy = connection.copy_in_raw(statement).await?;
    let mut chunk = String::new();
    let mut done = 0;
    for part in rows.chunks(ROWS_PER_CHUNK) {
        chunk.clear();
        for row in part {
            line(&mut chunk, row);
        }
        if let Err(error) = copy.send(chunk.as_bytes()).await {
            // Ended, so that the connection can roll the transaction back.
            copy.abort(error.to_string()).await?;
            return Err(error.into());
        }
        done += part.len() as u64;
        report(stage, done, total);
    }
    copy.finish().await?;
    Ok(())
}

/// Appends one line of `COPY`'s text format: the values, tab-separated, each escaped so that a
/// backslash, tab, newline or carriage return in a text is read as itself.
fn fields(line: &mut String, values: &[&dyn std::fmt::Display]) {
    for (index, value) in values.iter().enumerate() {
        if index > 0 {
            line.push('\t');
        }
        let start = line.len();
        // Writing to a String cannot fail.
        let _ = write!(line, "{value}");
        if line[start..].contains(['\\', '\t', '\n', '\r']) {
            let escaped = line[start..]
                .replace('\\', "\\\\")
                .replace('\t', "\\t")
                .replace('\n', "\\n")
                .replace('\r', "\\r");
            line.truncate(start);
            line.push_str(&escaped);
        }
    }
    line.push('\n');
}

/// A number of rows as PostgreSQL's `bigint`; a slice never holds more than `i64::MAX`.
fn row_count(rows: usize) -> i64 {
    i64::try_from(rows).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_lines_escape_what_the_text_format_reads_specially() {
        let mut line = String::new();
        fields(&mut line, &[&"a\tb", &"c\\d\ne", &7]);
        assert_eq!(line, "a\\tb\tc\\\\d\\ne\t7\n");
    }
}
