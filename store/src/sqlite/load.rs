//! Loading a whole data set at once: the demo data on a new database, and `seed`, which must
//! load millions of rows in seconds.
//!
//! Row by row through the triggers and indexes, 200,000 reviews took 30 s here: every review
//! updated its movie, its author and the totals, and went into four indexes at a random place.
//! So the load drops the three tables' indexes and triggers (keeping their definitions, read
//! back from `sqlite_master`, so the migrations stay the one place they are written), inserts
//! the rows with the counts and ranks worked out in `rank`, then creates the indexes again
//! (sorting once is far cheaper than millions of random inserts) and rebuilds the search
//! indexes. All of it is one transaction: another process sees the old data or the new, never
//! a half-loaded database, and a failure leaves the old data as it was.
//!
//! The rows go in through rusqlite, one prepared statement per table (14 µs a review through
//! sqlx, whose every batch was a new statement bound value by value and handed to its
//! connection thread), and each table's rows in its own order: movies and authors in search
//! order, reviews in review order, which is the reviews table's key, so that they are appended
//! rather than put at random places. On the huge data set (1,000,000 / 200,000 / 5,000,000),
//! measured on busy days of this VM: 12 s to insert the rows and 8 s for the reviews' two
//! indexes, where rows inserted at random places took 34 s, three review-order indexes of
//! copied titles and names 60 s, and the two indexes sorted in one run in memory 25 s.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};

use super::rank::{authors_in_order, movies_in_order, reviews_in_order};
use super::{BUSY_TIMEOUT, NewAuthor, NewMovie, NewReview, Progress, StoreError};

/// The page cache while the indexes are built, in KiB as a negative `cache_size` wants it.
/// SQLite's sorter takes runs as big as the page cache, sorts each in memory, and merges them
/// from temporary files. A run of 4 MB sorts within the processor's caches, and a helper thread
/// sorts one while this one reads the table on; one run of 256 MB was sorted by chasing
/// pointers across all of it. On the huge data set, the author index took 5 s instead of 16 s,
/// and the id index 3 s instead of 10 s.
const SORTING_CACHE_SIZE: i64 = -4096;

/// Rows between two reports to the progress bar.
const ROWS_PER_REPORT: usize = 10_000;

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
/// - A 256 MB page cache while the rows go in, so that few pages are written out twice.
/// - Up to two helper threads for the sorts that build the indexes (see
///   [`SORTING_CACHE_SIZE`]). `temp_store` stays at its default, files: SQLite runs no sorting
///   threads when temporary data must stay in memory.
fn open(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags)?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.execute_batch(
        "PRAGMA foreign_keys = OFF;
         PRAGMA cache_size = -262144;
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
        "DELETE FROM kept_results;
         DELETE FROM reviews;
         DELETE FROM movies;
         DELETE FROM authors;
         INSERT INTO movies_search (movies_search) VALUES ('delete-all');
         INSERT INTO authors_search (authors_search) VALUES ('delete-all');",
    )?;

    // Movies and authors go in in search order, so that their rowids follow it (see the
    // schema's rule 6, `totals.movies_in_order`), reviews in review order, which is their
    // table's key, so that each is added at the end of the table rather than at a random place.
    let mut movies = movies_in_order(movies);
    let mut authors = authors_in_order(authors);
    let reviews = reviews_in_order(reviews, &mut movies, &mut authors)?;
    tracing::debug!(elapsed = ?started.elapsed(), "rows ranked and sorted");

    let mut insert = connection.prepare(
        "INSERT INTO movies (id, title, title_folded, title_rank, review_count, star_total)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (done, ranked) in movies.iter().enumerate() {
        let movie = ranked.movie;
        insert.execute(params![
            movie.id,
            movie.title,
            ranked.title_folded,
            ranked.rank,
            ranked.counts.reviews,
            ranked.counts.stars,
        ])?;
        report(progress, "movies", done, movies.len());
    }

    let mut insert = connection.prepare(
        "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                              full_name_folded, name_rank, review_count, star_total)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (done, ranked) in authors.iter().enumerate() {
        let author = ranked.author;
        insert.execute(params![
            author.id,
            author.first_name,
            author.last_name,
            ranked.first_folded,
            ranked.last_folded,
            format!("{} {}", ranked.first_folded, ranked.last_folded),
            ranked.rank,
            ranked.counts.reviews,
            ranked.counts.stars,
        ])?;
        report(progress, "authors", done, authors.len());
    }

    // Each review's ranks, title and names are its movie's and its author's, as the insert of a
    // single review copies them in SQL.
    let mut insert = connection.prepare(
        "INSERT INTO reviews (movie_rank, author_rank, id, movie_id, author_id, stars,
                              movie_title, author_first_name, author_last_name)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (done, placed) in reviews.iter().enumerate() {
        let (movie, author) = (movies[placed.movie].movie, authors[placed.author].author);
        insert.execute(params![
            placed.movie_rank,
            placed.author_rank,
            placed.id,
            movie.id,
            author.id,
            placed.stars,
            movie.title,
            author.first_name,
            author.last_name,
        ])?;
        report(progress, "reviews", done, reviews.len());
    }

    tracing::debug!(elapsed = ?started.elapsed(), "rows inserted");
    progress("indexes", 0, 0);
    connection.pragma_update(None, "cache_size", SORTING_CACHE_SIZE)?;
    // Indexes first (`ORDER BY type`), then the triggers that keep counts and search indexes.
    for (kind, name, definition) in schema {
        connection.execute_batch(&definition)?;
        if kind == "index" {
            tracing::debug!(elapsed = ?started.elapsed(), name, "index made");
        }
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
