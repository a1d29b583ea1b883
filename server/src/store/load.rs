//! Loading a whole data set at once: the demo data on a new database, and `seed`, which must
//! load millions of rows in seconds.
//!
//! Row by row through the triggers and indexes, 200,000 reviews took 30 s here: every review
//! updated its movie, its author and the totals, and went into four indexes at a random place.
//! So the load drops the three tables' indexes and triggers (keeping their definitions, read
//! back from `sqlite_master`, so the migrations stay the one place they are written), inserts
//! many rows per statement with the counts worked out here, then creates the indexes again
//! (sorting once is far cheaper than millions of random inserts) and rebuilds the search
//! indexes. All of it is one transaction: another process sees the old data or the new, never
//! a half-loaded database, and a failure leaves the old data as it was.

use std::collections::HashMap;

use sqlx::{QueryBuilder, Sqlite, SqliteConnection};
use uuid::Uuid;

use super::{NewAuthor, NewMovie, NewReview, StoreError, fold};

/// Rows per `INSERT`: many fewer statements, and well under SQLite's 32,766 bound values.
const ROWS_PER_STATEMENT: usize = 1000;

/// What a load is doing, for a progress bar: `done` of `total` rows of `stage`, or (`total` 0)
/// a stage whose progress cannot be counted.
pub type Progress<'a> = &'a mut (dyn FnMut(&'static str, u64, u64) + Send);

/// Sets up a connection, outside any transaction, for loading; it must not be used for
/// anything else afterwards (see `Pooled::discard_after_use`).
///
/// - No foreign key checks: the load finds every review's movie and author itself, and
///   SQLite's check would look both up again for each of millions of rows (the setting cannot
///   change inside a transaction).
/// - A bigger page cache, and sorting in memory, for building the indexes.
pub(super) async fn prepare(connection: &mut SqliteConnection) -> Result<(), StoreError> {
    for pragma in [
        "PRAGMA foreign_keys = OFF",
        "PRAGMA cache_size = -262144",
        "PRAGMA temp_store = MEMORY",
    ] {
        sqlx::query(pragma).execute(&mut *connection).await?;
    }
    Ok(())
}

/// Replaces every movie, author and review with these, inside the caller's write transaction,
/// on a connection set up by [`prepare`].
pub(super) async fn replace_everything(
    connection: &mut SqliteConnection,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
    progress: Progress<'_>,
) -> Result<(), StoreError> {
    let started = std::time::Instant::now();
    let schema: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT type, name, sql FROM sqlite_master
         WHERE type IN ('index', 'trigger') AND sql IS NOT NULL
           AND tbl_name IN ('movies', 'authors', 'reviews')
         ORDER BY type, name",
    )
    .fetch_all(&mut *connection)
    .await?;
    for (kind, name, _) in &schema {
        let drop = format!(
            "DROP {} \"{}\"",
            kind.to_uppercase(),
            name.replace('"', "\"\"")
        );
        sqlx::query(sqlx::AssertSqlSafe(drop))
            .execute(&mut *connection)
            .await?;
    }
    for statement in [
        "DELETE FROM reviews",
        "DELETE FROM movies",
        "DELETE FROM authors",
        "INSERT INTO movies_search (movies_search) VALUES ('delete-all')",
        "INSERT INTO authors_search (authors_search) VALUES ('delete-all')",
    ] {
        sqlx::query(statement).execute(&mut *connection).await?;
    }

    let (movie_counts, author_counts) = counts(reviews);
    // Each title and name folded once, not once per review.
    let movies_by_id: HashMap<Uuid, (&NewMovie, String)> = movies
        .iter()
        .map(|movie| (movie.id, (movie, fold(&movie.title))))
        .collect();
    let authors_by_id: HashMap<Uuid, (&NewAuthor, String, String)> = authors
        .iter()
        .map(|author| {
            let folded = (fold(&author.last_name), fold(&author.first_name));
            (author.id, (author, folded.0, folded.1))
        })
        .collect();

    let total = movies.len() as u64;
    for (batch, chunk) in movies.chunks(ROWS_PER_STATEMENT).enumerate() {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO movies (id, title, title_folded, review_count, star_total) ",
        );
        insert.push_values(chunk, |mut row, movie| {
            let (count, stars) = movie_counts.get(&movie.id).copied().unwrap_or_default();
            row.push_bind(movie.id)
                .push_bind(&movie.title)
                .push_bind(fold(&movie.title))
                .push_bind(count)
                .push_bind(stars);
        });
        insert.build().execute(&mut *connection).await?;
        progress("movies", done(batch, chunk.len()), total);
    }

    let total = authors.len() as u64;
    for (batch, chunk) in authors.chunks(ROWS_PER_STATEMENT).enumerate() {
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                                  full_name_folded, review_count, star_total) ",
        );
        insert.push_values(chunk, |mut row, author| {
            let (count, stars) = author_counts.get(&author.id).copied().unwrap_or_default();
            row.push_bind(author.id)
                .push_bind(&author.first_name)
                .push_bind(&author.last_name)
                .push_bind(fold(&author.first_name))
                .push_bind(fold(&author.last_name))
                .push_bind(fold(&format!("{} {}", author.first_name, author.last_name)))
                .push_bind(count)
                .push_bind(stars);
        });
        insert.build().execute(&mut *connection).await?;
        progress("authors", done(batch, chunk.len()), total);
    }

    let total = reviews.len() as u64;
    for (batch, chunk) in reviews.chunks(ROWS_PER_STATEMENT).enumerate() {
        // The order keys are copied from the review's movie and author, as a single insert
        // does in SQL; a review of a movie or by an author not in the set is refused.
        let mut rows = Vec::with_capacity(chunk.len());
        for review in chunk {
            let (Some(movie), Some(author)) = (
                movies_by_id.get(&review.movie_id),
                authors_by_id.get(&review.author_id),
            ) else {
                return Err(StoreError::Sqlx(sqlx::Error::RowNotFound));
            };
            rows.push((review, movie, author));
        }
        let mut insert = QueryBuilder::<Sqlite>::new(
            "INSERT INTO reviews (id, movie_id, author_id, stars,
                                  movie_title_folded, movie_title,
                                  author_last_name_folded, author_last_name,
                                  author_first_name_folded, author_first_name) ",
        );
        insert.push_values(rows, |mut row, (review, movie, author)| {
            let ((movie, title_folded), (author, last_folded, first_folded)) = (movie, author);
            row.push_bind(review.id)
                .push_bind(review.movie_id)
                .push_bind(review.author_id)
                .push_bind(review.stars)
                .push_bind(title_folded.as_str())
                .push_bind(movie.title.as_str())
                .push_bind(last_folded.as_str())
                .push_bind(author.last_name.as_str())
                .push_bind(first_folded.as_str())
                .push_bind(author.first_name.as_str());
        });
        insert.build().execute(&mut *connection).await?;
        progress("reviews", done(batch, chunk.len()), total);
    }

    tracing::debug!(elapsed = ?started.elapsed(), "rows inserted");
    progress("indexes", 0, 0);
    // Indexes first (`ORDER BY type`), then the triggers that keep counts and search indexes.
    for (_, _, definition) in schema {
        sqlx::query(sqlx::AssertSqlSafe(definition))
            .execute(&mut *connection)
            .await?;
    }
    tracing::debug!(elapsed = ?started.elapsed(), "indexes and triggers made");
    progress("search indexes", 0, 0);
    for statement in [
        "INSERT INTO movies_search (movies_search) VALUES ('rebuild')",
        "INSERT INTO authors_search (authors_search) VALUES ('rebuild')",
        // The catalogue's triggers were dropped with the others: it is moved on here, to a
        // random version rather than the next, so that a database loaded anew and put in place
        // of another file loaded alike never shows a server the same version with other titles.
        "UPDATE totals SET movies = (SELECT COUNT(*) FROM movies),
                           authors = (SELECT COUNT(*) FROM authors),
                           reviews = (SELECT COUNT(*) FROM reviews),
                           catalogue = random()",
    ] {
        sqlx::query(statement).execute(&mut *connection).await?;
    }
    tracing::debug!(elapsed = ?started.elapsed(), "search indexes rebuilt");
    Ok(())
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

/// Rows inserted after batch `batch` (0-based) of which the last held `len` rows.
fn done(batch: usize, len: usize) -> u64 {
    (batch * ROWS_PER_STATEMENT + len) as u64
}
