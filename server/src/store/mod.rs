//! The SQLite store: the one place that knows SQL. It opens the database with the settings a
//! server needs, applies the migrations, and offers one function per question the tools ask.
//! Nothing here sees JSON or MCP types; callers get plain row structs.

mod authors;
mod connections;
mod load;
mod movies;
mod reviews;
mod search;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection as _, Sqlite, SqliteConnection};
use uuid::Uuid;

use connections::{Connections, Pooled};

pub use authors::{AuthorRow, NewAuthor};
pub use load::Progress;
pub use movies::{MovieRow, NewMovie};
pub use reviews::{NewReview, ReviewFilter, ReviewRow};

/// How long a statement waits for another connection's write lock (another server process on
/// the same file, say) before giving up with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections at most: WAL lets readers run beside the one writer.
const MAX_CONNECTIONS: u32 = 4;

/// Why a store call failed. Every variant is unexpected from a tool's point of view.
pub type StoreError = sqlx::Error;

/// The movie-review database.
#[derive(Clone)]
pub struct Store {
    connections: Arc<Connections>,
}

/// One page of rows and the number of rows across every page.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows<T> {
    pub items: Vec<T>,
    pub total: u64,
}

impl Store {
    /// Opens (creating if missing) the database at `path`, and migrates it forward.
    ///
    /// WAL lets readers and a writer, in this process or another, work at once; the busy
    /// timeout makes a writer wait for another's lock instead of failing; `synchronous = FULL`
    /// makes each acknowledged write durable even if the machine loses power, at the cost of one
    /// fsync per write transaction (writes here are single reviews, so the cost is small).
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        let store = Store {
            connections: Arc::new(Connections::new(options, MAX_CONNECTIONS)),
        };
        migrate(&mut *store.connection().await?).await?;
        Ok(store)
    }

    /// A connection for one store call. A call takes one and never a second while it holds
    /// it, so calls cannot wait on each other for connections.
    async fn connection(&self) -> Result<Pooled<'_>, StoreError> {
        self.connections.get().await
    }

    /// A connection for one store call that writes, once the other writes in this process are
    /// done.
    async fn writer(&self) -> Result<Pooled<'_>, StoreError> {
        self.connections.get_for_writing().await
    }

    /// A connection to load a whole data set with, set up for it (see [`load::prepare`]) and
    /// closed afterwards.
    async fn loader(&self) -> Result<Pooled<'_>, StoreError> {
        let mut connection = self.writer().await?;
        connection.discard_after_use();
        load::prepare(&mut connection).await?;
        Ok(connection)
    }

    /// Fills the database with these rows if it holds none yet, and says whether it did. The
    /// check and the inserts are one write transaction, so two servers starting on a new file
    /// at once fill it once, and a database anyone has written to is never refilled.
    pub async fn fill_if_empty(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<bool, StoreError> {
        // The usual start, on a database in use, is answered without a write lock.
        if holds_anything(&mut *self.connection().await?).await? {
            return Ok(false);
        }
        let mut connection = self.loader().await?;
        let mut transaction = connection.begin_with("BEGIN IMMEDIATE").await?;
        // Again, now that no other process can write: another server may have filled it.
        let filled = if holds_anything(&mut transaction).await? {
            // Ended here, not on drop: a dropped transaction is rolled back only when its
            // connection is next used, and until then it would keep the write lock from every
            // other process.
            transaction.rollback().await?;
            false
        } else {
            let nothing = &mut |_, _, _| {};
            load::replace_everything(&mut transaction, movies, authors, reviews, nothing).await?;
            transaction.commit().await?;
            true
        };
        connection.close().await?;
        Ok(filled)
    }

    /// Replaces everything in the database with the given rows, in one transaction, telling
    /// `progress` how far it has got.
    pub async fn replace_all(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
        progress: Progress<'_>,
    ) -> Result<(), StoreError> {
        let mut connection = self.loader().await?;
        let mut transaction = connection.begin_with("BEGIN IMMEDIATE").await?;
        load::replace_everything(&mut transaction, movies, authors, reviews, progress).await?;
        transaction.commit().await?;
        connection.close().await
    }

    /// Waits for the calls in progress, then closes every connection, checkpointing the WAL
    /// into the database file.
    pub async fn close(&self) {
        self.connections.close().await;
    }
}

/// Whether any movie, author or review exists. EXISTS, not COUNT: this runs at every start,
/// and a count would read every row.
async fn holds_anything(connection: &mut SqliteConnection) -> Result<bool, StoreError> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM movies) OR EXISTS (SELECT 1 FROM authors)
             OR EXISTS (SELECT 1 FROM reviews)",
    )
    .fetch_one(connection)
    .await
}

/// How many times start-up tries to migrate before giving up.
const MIGRATION_ATTEMPTS: u32 = 8;

/// Applies the migrations. Servers starting on one new file at once race to migrate it: a
/// loser fails on what a winner just created (each migration is its own transaction, so
/// nothing is half done), and its next attempt finds that migration applied and goes on.
async fn migrate(connection: &mut SqliteConnection) -> Result<(), StoreError> {
    let migrator = sqlx::migrate!("../migrations");
    let mut attempt = 1;
    loop {
        match migrator.run(&mut *connection).await {
            Ok(()) => return Ok(()),
            Err(error) if attempt < MIGRATION_ATTEMPTS => {
                tracing::debug!(%error, attempt, "migrating again after a failed attempt");
                tokio::time::sleep(Duration::from_millis(20 * u64::from(attempt))).await;
                attempt += 1;
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// One statement that reads a page and the number of rows across every page, so both see the
/// same data in one round trip.
///
/// `with` is a common table expression or nothing; `row`, `order` and `from` are as for
/// [`page_rows_sql`]; `count` is a statement that counts every row (a kept total where there is
/// one). The count runs only when the page does not show the total itself (a page that is
/// neither full nor past the end is the last one); it is not a `COUNT(*) OVER ()` beside the
/// page, which would make SQLite collect and sort every match instead of reading the first ones
/// from an index.
fn page_sql(with: &str, row: &str, order: &str, from: &str, count: &str) -> String {
    let page = page_rows_sql(row, order, from);
    format!(
        "{with}SELECT rows, CASE WHEN n < ?3 AND (n > 0 OR ?4 = 0) THEN ?4 + n ELSE ({count}) END
         FROM ({page})"
    )
}

/// A query for one page as `rows`, a JSON array, and `n`, how many rows it holds.
///
/// `row` is a JSON array of one row's columns, in the order of the fields of the row struct it
/// decodes into; `order` the ORDER BY keys; `from` the table and `WHERE` clause, whose values
/// are bound as `?1` and `?2`. Bind `?3` to the limit and `?4` to the offset.
///
/// The page comes back as one JSON array rather than a row per row: sqlx hands each row over
/// from its worker thread on its own, which cost about 4 µs a row here, against under one for
/// SQLite's JSON functions and serde.
fn page_rows_sql(row: &str, order: &str, from: &str) -> String {
    format!(
        "SELECT json_group_array({row} ORDER BY {order}) AS rows, COUNT(*) AS n
         FROM (SELECT * FROM {from} ORDER BY {order} LIMIT ?3 OFFSET ?4)"
    )
}

/// Reads a page with a statement made by [`page_sql`].
async fn fetch_page<T: DeserializeOwned>(
    connection: &mut SqliteConnection,
    sql: String,
    values: (Option<impl PageValue>, Option<impl PageValue>),
    offset: u32,
    limit: u32,
) -> Result<Rows<T>, StoreError> {
    let (rows, total): (String, i64) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(values.0)
        .bind(values.1)
        .bind(i64::from(limit))
        .bind(i64::from(offset))
        .fetch_one(connection)
        .await?;
    Ok(Rows {
        items: from_json(&rows)?,
        total: u64::try_from(total).unwrap_or(0),
    })
}

/// What a page's statement binds as `?1` and `?2`: a search term, an id, a count.
trait PageValue: for<'q> sqlx::Encode<'q, Sqlite> + sqlx::Type<Sqlite> + Send {}
impl PageValue for String {}
impl PageValue for Uuid {}
impl PageValue for i64 {}

/// A row, or rows, that SQLite assembled as JSON arrays (ids as hex, which `Uuid` reads).
fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, StoreError> {
    serde_json::from_str(json).map_err(|error| StoreError::Decode(error.into()))
}

/// The Unicode lowercase form used for case-insensitive search and order, character by
/// character: `str::to_lowercase` lowers a final Σ to ς but an inner one to σ, so "ΟΔΟΣ" would
/// not be found inside "ΟΔΟΣΗΜΟ".
pub fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_is_the_same_wherever_a_letter_stands() {
        assert!(fold("ΟΔΟΣΗΜΟ").contains(&fold("ΟΔΟΣ")));
        assert_eq!(fold("ÉCOLE Straße"), "école straße");
    }
}
