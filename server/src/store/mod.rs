//! The SQLite store: the one place that knows SQL. It opens the database with the settings a
//! server needs, applies the migrations, and offers one function per question the tools ask.
//! Nothing here sees JSON or MCP types; callers get plain row structs.

mod authors;
mod connections;
mod movies;
mod reviews;

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection as _, SqliteConnection};

use connections::{Connections, Pooled};

pub use authors::{AuthorRow, NewAuthor};
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

    /// Fills the database with these rows if it holds none yet, and says whether it did. The
    /// check and the inserts are one write transaction, so two servers starting on a new file
    /// at once fill it once, and a database anyone has written to is never refilled.
    pub async fn fill_if_empty(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<bool, StoreError> {
        let mut connection = self.connection().await?;
        let mut transaction = connection.begin_with("BEGIN IMMEDIATE").await?;
        // EXISTS, not COUNT: this runs at every start, and a count would read every row.
        let filled: bool = sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM movies) OR EXISTS (SELECT 1 FROM authors)
                 OR EXISTS (SELECT 1 FROM reviews)",
        )
        .fetch_one(&mut *transaction)
        .await?;
        if filled {
            // Ended here, not on drop: a dropped transaction is rolled back only when its
            // connection is next used, and until then it would keep the write lock from every
            // other process.
            transaction.rollback().await?;
            return Ok(false);
        }
        insert_all(&mut transaction, movies, authors, reviews).await?;
        transaction.commit().await?;
        Ok(true)
    }

    /// Replaces everything in the database with the given rows, in one transaction.
    pub async fn replace_all(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<(), StoreError> {
        let mut connection = self.connection().await?;
        let mut transaction = connection.begin_with("BEGIN IMMEDIATE").await?;
        for table in ["reviews", "movies", "authors"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table}")))
                .execute(&mut *transaction)
                .await?;
        }
        insert_all(&mut transaction, movies, authors, reviews).await?;
        transaction.commit().await
    }

    /// Waits for the calls in progress, then closes every connection, checkpointing the WAL
    /// into the database file.
    pub async fn close(&self) {
        self.connections.close().await;
    }
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

async fn insert_all(
    transaction: &mut SqliteConnection,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    reviews: &[NewReview],
) -> Result<(), StoreError> {
    for movie in movies {
        movies::insert(&mut *transaction, movie).await?;
    }
    for author in authors {
        authors::insert(&mut *transaction, author).await?;
    }
    for review in reviews {
        if !reviews::insert(&mut *transaction, review).await? {
            return Err(StoreError::RowNotFound);
        }
    }
    Ok(())
}

/// The `WHERE` clause that finds `query` (lowercase and trimmed; `None` to browse) inside
/// `column`, and the value it binds. Three characters or more are looked up in the trigram
/// index `index` (see the migrations); a shorter term, which no trigram index can serve, scans.
/// Both find exactly the rows whose `column` contains the term.
fn search_condition(query: Option<&str>, column: &str, index: &str) -> (String, Option<String>) {
    match query {
        None => (String::new(), None),
        Some(term) if term.chars().count() >= 3 => (
            format!("WHERE rowid IN (SELECT rowid FROM {index} WHERE {column} GLOB ?)"),
            Some(glob_containing(term)),
        ),
        Some(term) => (
            format!("WHERE instr({column}, ?) > 0"),
            Some(term.to_owned()),
        ),
    }
}

/// A GLOB pattern matching any text that contains `term` literally: `*`, `?` and `[` are put
/// in brackets, which GLOB reads as the character itself.
fn glob_containing(term: &str) -> String {
    let mut pattern = String::with_capacity(term.len() + 2);
    pattern.push('*');
    for c in term.chars() {
        match c {
            '*' | '?' | '[' => {
                pattern.push('[');
                pattern.push(c);
                pattern.push(']');
            }
            _ => pattern.push(c),
        }
    }
    pattern.push('*');
    pattern
}

/// `LIMIT` and `OFFSET` as SQLite integers; tool bounds keep both far below `i64::MAX`.
fn page_bounds(offset: u32, limit: u32) -> (i64, i64) {
    (i64::from(offset), i64::from(limit))
}

/// The number of rows across every page. A page that is neither full nor past the end is the
/// last one and shows the total itself; only otherwise is `count` run.
///
/// The total is a query of its own because `COUNT(*) OVER ()` beside the page would make
/// SQLite collect and sort every match instead of reading the first ones from an index.
async fn total(
    page_len: usize,
    offset: i64,
    limit: i64,
    count: impl Future<Output = Result<i64, StoreError>>,
) -> Result<u64, StoreError> {
    let page_len = page_len as i64;
    let counted = if page_len < limit && (page_len > 0 || offset == 0) {
        offset + page_len
    } else {
        count.await?
    };
    Ok(u64::try_from(counted).unwrap_or(0))
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
    fn glob_patterns_take_the_term_literally() {
        assert_eq!(glob_containing("abc"), "*abc*");
        assert_eq!(glob_containing("a*b?c[d]"), "*a[*]b[?]c[[]d]*");
        assert_eq!(glob_containing("100%_x"), "*100%_x*");
    }

    #[test]
    fn folding_is_the_same_wherever_a_letter_stands() {
        assert!(fold("ΟΔΟΣΗΜΟ").contains(&fold("ΟΔΟΣ")));
        assert_eq!(fold("ÉCOLE Straße"), "école straße");
    }
}
