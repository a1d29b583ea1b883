//! Loading a whole data set at once: the demo data on a new database, and `seed`, which must
//! load millions of rows in seconds.
//!
//! Row by row through the triggers and indexes, 200,000 reviews took 30 s here: every review
//! updated its movie, its author and the totals, and went into four indexes at a random place.
//! So the load drops the three tables' indexes and triggers (keeping their definitions, read
//! back from `sqlite_master`, so the migrations stay the one place they are written), inserts
//! the rows with the counts worked out here, then creates the indexes again (sorting once is
//! far cheaper than millions of random inserts) and rebuilds the search indexes. All of it is
//! one transaction: another process sees the old data or the new, never a half-loaded
//! database, and a failure leaves the old data as it was.
//!
//! The rows go in through rusqlite, one prepared statement per table: about 3 µs a review here,
//! against 14 µs through sqlx, whose every batch was a new statement bound value by value and
//! handed to its connection thread.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};
use uuid::Uuid;

use super::{BUSY_TIMEOUT, NewAuthor, NewMovie, NewReview, StoreError, fold};

/// Rows between two reports to the progress bar.
const ROWS_PER_REPORT: usize = 10_000;

/// What a load is doing, for a progress bar: `done` of `total` rows of `stage`, or (`total` 0)
/// a stage whose progress cannot be counted.
pub type Progress<'a> = &'a mut (dyn FnMut(&'static str, u64, u64) + Send);

/// Fills the database at `path` with these rows if it holds none, and says whether it did. The
/// check and the load are one write transaction, so two servers starting on a new file at once
/// fill it once, and a database anyone has written to is never refilled.
pub(super) fn fill_if_empty(
    path: &Path,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
) -> Result<bool, StoreError> {
    let mut connection = open(path)?;
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    // Checked again now that no other process can write: another server may have filled it.
    if holds_anything(&transaction)? {
        return Ok(false);
    }
    replace_everything(&transaction, movies, authors, reviews, &mut |_, _, _| {})?;
    transaction.commit()?;
    close(connection);
    Ok(true)
}

/// Replaces every movie, author and review in the database at `path` with these, in one
/// transaction, telling `progress` how far it has got.
pub(super) fn replace_all(
    path: &Path,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
    progress: Progress<'_>,
) -> Result<(), StoreError> {
    let mut connection = open(path)?;
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    replace_everything(&transaction, movies, authors, reviews, progress)?;
    transaction.commit()?;
    close(connection);
    Ok(())
}

/// Whether any movie, author or review exists. EXISTS, not COUNT: this runs at every start,
/// and a count would read every row.
pub(super) fn holds_anything(connection: &Connection) -> rusqlite::Result<bool> {
    connection.query_row(
        "SELECT EXISTS (SELECT 1 FROM movies) OR EXISTS (SELECT 1 FROM authors)
             OR EXISTS (SELECT 1 FROM reviews)",
        [],
        |row| row.get(0),
    )
}

/// A connection of its own for one load, to a database already created and migrated, set up
/// for loading; it is closed afterwards, so its settings reach nothing else.
///
/// - No foreign key checks: the load finds every review's movie and author itself, and
///   SQLite's check would look both up again for each of millions of rows (the setting cannot
///   change inside a transaction).
/// - A bigger page cache, sorting in memory, and up to two helper threads for sorting, for
///   building the indexes.
fn open(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.execute_batch(
        "PRAGMA foreign_keys = OFF;
         PRAGMA cache_size = -262144;
         PRAGMA temp_store = MEMORY;
         PRAGMA threads = 2;",
    )?;
    Ok(connection)
}

/// Closes a load's connection, waiting for SQLite to finish with it. The load is committed by
/// then, so a failure here is only logged: the data is in.
fn close(connection: Connection) {
    if let Err((_, error)) = connection.close() {
        tracing::warn!(%error, "closing the loading connection failed");
    }
}

/// Replaces every movie, author and review with these, inside the caller's write transaction,
/// on a connection from [`open`].
fn replace_everything(
    connection: &Connection,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
    progress: Progress<'_>,
) -> Result<(), StoreError> {
    let started = std::time::Instant::now();
    let schema: Vec<(String, String, String)> = connection
        .prepare(
            "SELECT type, name, sql FROM sqlite_master
             WHERE type IN ('index', 'trigger') AND sql IS NOT NULL
               AND tbl_name IN ('movies', 'authors', 'reviews')
             ORDER BY type, name",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (kind, name, _) in &schema {
        let name = name.replace('"', "\"\"");
        connection.execute_batch(&format!("DROP {} \"{name}\"", kind.to_uppercase()))?;
    }
    connection.execute_batch(
        "DELETE FROM reviews;
         DELETE FROM movies;
         DELETE FROM authors;
         INSERT INTO movies_search (movies_search) VALUES ('delete-all');
         INSERT INTO authors_search (authors_search) VALUES ('delete-all');",
    )?;

    let (movie_counts, author_counts) = counts(reviews);
    // Movies and authors go in in search order, so that their rowids follow it (see the
    // migration that keeps `totals.movies_in_order`). Rust compares strings byte by byte, as
    // SQLite's BINARY collation does, and UUIDs as their 16 bytes. Each title and name is
    // folded once, for its row and for all its reviews.
    let mut movies_in_order: Vec<(&NewMovie, String)> = movies
        .iter()
        .map(|movie| (movie, fold(&movie.title)))
        .collect();
    movies_in_order.sort_unstable_by(|(a, a_folded), (b, b_folded)| {
        (a_folded, &a.title, a.id).cmp(&(b_folded, &b.title, b.id))
    });
    let mut authors_in_order: Vec<(&NewAuthor, String, String)> = authors
        .iter()
        .map(|author| (author, fold(&author.last_name), fold(&author.first_name)))
        .collect();
    authors_in_order.sort_unstable_by(|(a, a_last, a_first), (b, b_last, b_first)| {
        (a_last, &a.last_name, a_first, &a.first_name, a.id).cmp(&(
            b_last,
            &b.last_name,
            b_first,
            &b.first_name,
            b.id,
        ))
    });
    let movies_by_id: HashMap<Uuid, &(&NewMovie, String)> = movies_in_order
        .iter()
        .map(|entry| (entry.0.id, entry))
        .collect();
    let authors_by_id: HashMap<Uuid, &(&NewAuthor, String, String)> = authors_in_order
        .iter()
        .map(|entry| (entry.0.id, entry))
        .collect();

    let mut insert = connection.prepare(
        "INSERT INTO movies (id, title, title_folded, review_count, star_total)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (done, (movie, title_folded)) in movies_in_order.iter().enumerate() {
        let (count, stars) = movie_counts.get(&movie.id).copied().unwrap_or_default();
        insert.execute(params![movie.id, movie.title, title_folded, count, stars])?;
        report(progress, "movies", done, movies_in_order.len());
    }

    let mut insert = connection.prepare(
        "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                              full_name_folded, review_count, star_total)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for (done, (author, last_folded, first_folded)) in authors_in_order.iter().enumerate() {
        let (count, stars) = author_counts.get(&author.id).copied().unwrap_or_default();
        insert.execute(params![
            author.id,
            author.first_name,
            author.last_name,
            first_folded,
            last_folded,
            format!("{first_folded} {last_folded}"),
            count,
            stars,
        ])?;
        report(progress, "authors", done, authors_in_order.len());
    }

    // The order keys are copied from the review's movie and author, as a single insert does in
    // SQL; a review of a movie or by an author not in the set is refused.
    let mut insert = connection.prepare(
        "INSERT INTO reviews (id, movie_id, author_id, stars,
                              movie_title_folded, movie_title,
                              author_last_name_folded, author_last_name,
                              author_first_name_folded, author_first_name)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (done, review) in reviews.iter().enumerate() {
        let (Some((movie, title_folded)), Some((author, last_folded, first_folded))) = (
            movies_by_id.get(&review.movie_id),
            authors_by_id.get(&review.author_id),
        ) else {
            return Err(StoreError::Orphan(review.id));
        };
        insert.execute(params![
            review.id,
            review.movie_id,
            review.author_id,
            review.stars,
            title_folded,
            movie.title,
            last_folded,
            author.last_name,
            first_folded,
            author.first_name,
        ])?;
        report(progress, "reviews", done, reviews.len());
    }

    tracing::debug!(elapsed = ?started.elapsed(), "rows inserted");
    progress("indexes", 0, 0);
    // Indexes first (`ORDER BY type`), then the triggers that keep counts and search indexes.
    for (_, _, definition) in schema {
        connection.execute_batch(&definition)?;
    }
    tracing::debug!(elapsed = ?started.elapsed(), "indexes and triggers made");
    progress("search indexes", 0, 0);
    connection.execute_batch(
        "INSERT INTO movies_search (movies_search) VALUES ('rebuild');
         INSERT INTO authors_search (authors_search) VALUES ('rebuild');
         -- One segment per index: a rebuild leaves several, and a query reads each of them
         -- (counting a common term on a million titles: 7.6 ms before, 5.2 ms after).
         INSERT INTO movies_search (movies_search) VALUES ('optimize');
         INSERT INTO authors_search (authors_search) VALUES ('optimize');
         -- The catalogue's triggers were dropped with the others: it is moved on here, to a
         -- random version rather than the next, so that a database loaded anew and put in
         -- place of another file loaded alike never shows a server the same version with
         -- other titles.
         UPDATE totals SET movies = (SELECT COUNT(*) FROM movies),
                           authors = (SELECT COUNT(*) FROM authors),
                           reviews = (SELECT COUNT(*) FROM reviews),
                           catalogue = random(),
                           movies_in_order = 1,
                           authors_in_order = 1;",
    )?;
    tracing::debug!(elapsed = ?started.elapsed(), "search indexes rebuilt");
    Ok(())
}

/// Tells `progress` that row `done` (0-based) of `total` of `stage` is in, every
/// [`ROWS_PER_REPORT`] rows and at the last.
fn report(progress: Progress<'_>, stage: &'static str, done: usize, total: usize) {
    let done = done + 1;
    if done.is_multiple_of(ROWS_PER_REPORT) || done == total {
        progress(stage, done as u64, total as u64);
    }
}

/// Each movie's and each author's review count and star total.
type Counts = HashMap<Uuid, (i64, i64)>;

fn counts(reviews: &[NewReview]) -> (Counts, Counts) {
    let (mut movies, mut authors) = (Counts::new(), Counts::new());
    for review in reviews {
        for (counts, id) in [
            (&mut movies, review.movie_id),
            (&mut authors, review.author_id),
        ] {
            let (count, stars) = counts.entry(id).or_default();
            *count += 1;
            *stars += review.stars;
        }
    }
    (movies, authors)
}
