//! The SQLite backend: a database file, opened with the settings a server needs and migrated
//! with `migrations/sqlite`, answering the store's questions (see [`super::Store`]).
//!
//! SQLite is called directly, through rusqlite: reads on connections of their own, on the thread
//! that asks (`readers`, which says why), writes on one connection owned by a thread of its own
//! that commits the writes queued together (`writer`), and a load of a whole data set (`load`),
//! millions of inserts, on a connection of its own. Migrations are sqlx's.

mod authors;
mod error;
mod file;
mod kept;
mod load;
mod movies;
mod rank;
mod readers;
mod reviews;
mod search;
mod writer;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Params, Row, ToSql};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{Connection as _, SqliteConnection};
use tokio::runtime::{Handle, RuntimeFlavor};
use uuid::Uuid;

use super::{
    AuthorRow, MovieRow, NewAuthor, NewMovie, NewReview, Progress, ReviewFilter, ReviewRow, Rows,
    StoreError,
};
use file::FileId;
use readers::Readers;
use writer::Writer;

/// How long a statement waits for another connection's write lock (another server process on
/// the same file, say) before giving up with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Reading connections at most for quick reads: on the one-thread stdio runtime they take turns
/// anyway; on HTTP's runtime each worker may be reading.
const QUICK_READERS: u32 = 4;

/// Reading connections at most for long reads (searches, pages far in), beside the quick ones:
/// one per core (each keeps one busy), and never more than this.
const MAX_LONG_READERS: u32 = 16;

/// A movie-review database in one SQLite file.
#[derive(Clone)]
pub struct SqliteStore {
    path: Arc<Path>,
    /// The file `path` named when the store opened it; writes are refused once it names another
    /// or none (see [`SqliteStore::write`]).
    file: Option<FileId>,
    writer: Arc<Writer>,
    readers: Arc<Readers>,
    match_counts: Arc<super::match_counts::MatchCounts>,
}

impl SqliteStore {
    /// Opens the database at `path`, creating it and its folder if missing, and migrates it
    /// forward.
    ///
    /// WAL lets readers and a writer, in this process or another, work at once; the busy
    /// timeout makes a writer wait for another's lock instead of failing; `synchronous = FULL`
    /// makes each acknowledged write durable even if the machine loses power, at the cost of one
    /// fsync per write transaction, which the writes queued at the time share (see [`writer`]).
    pub async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(folder) = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
        {
            std::fs::create_dir_all(folder).map_err(|error| {
                StoreError::failed(format!(
                    "cannot create the database's folder {}: {error}",
                    folder.display()
                ))
            })?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        migrate(&options)
            .await
            .map_err(|error| error::at_open(path, error))?;
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        let long_readers =
            u32::try_from(cores).map_or(MAX_LONG_READERS, |cores| cores.clamp(1, MAX_LONG_READERS));
        let file = FileId::of(path);
        Ok(SqliteStore {
            path: Arc::from(path),
            file,
            writer: Arc::new(Writer::start(path, file)?),
            readers: Arc::new(Readers::new(path, QUICK_READERS, long_readers)),
            match_counts: Arc::default(),
        })
    }

    /// Runs `read` on a reading connection, in one read transaction, on this thread: for reads
    /// whose cost is bounded by what they return (see [`readers`]).
    async fn read<T>(
        &self,
        read: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.readers.read(read).await
    }

    /// Runs `read` as [`SqliteStore::read`] does, on a blocking thread: for reads whose cost grows
    /// with the data.
    async fn read_apart<T: Send + 'static>(
        &self,
        read: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.readers.read_apart(read).await
    }

    /// Whether `sql`, a `SELECT EXISTS (… WHERE id = ?1)`, finds `id`.
    async fn exists(&self, sql: &'static str, id: Uuid) -> Result<bool, StoreError> {
        self.read(|connection| read_number(connection, sql, [id]))
            .await
            .map(|exists| exists != 0)
    }

    /// Runs `write` on the writing connection and gives its value once it is committed (see
    /// [`writer`], which also refuses writes once the file is replaced). Each statement must be
    /// stepped to its end (`read_rows`, `execute`), not read for its first row only: a statement
    /// left unfinished keeps the transaction from committing.
    async fn write<T: Send + 'static>(
        &self,
        write: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.writer.write(write).await
    }

    /// The writing connection: (1, 0) while it writes, (0, 1) while it waits, (0, 0) when it is
    /// not open.
    pub fn connections_in_use_and_idle(&self) -> (usize, usize) {
        self.writer.in_use_and_idle()
    }

    /// From now on the writing connection refuses to write, as the readers always do.
    pub async fn refuse_writes(&self) -> Result<(), StoreError> {
        self.writer.refuse_writes().await
    }

    /// Whether the file is still the one opened, and a reader answers `SELECT 1`.
    pub async fn answers(&self) -> Result<(), StoreError> {
        self.check_file()?;
        self.read(|connection| read_number(connection, "SELECT 1", []))
            .await
            .map(drop)
    }

    /// Fails when the database's path no longer names the file the store opened (see
    /// [`file::check`]).
    fn check_file(&self) -> Result<(), StoreError> {
        file::check(&self.path, self.file).map_err(|changed| StoreError::Failed(Box::new(changed)))
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
        let holds_anything = self.read(load::holds_anything).await;
        if holds_anything.map_err(|error| error::at_open(&self.path, error))? {
            return Ok(false);
        }
        // The load writes through a connection of its own, but takes its turn among the writes,
        // and `close` waits for it.
        let _turn = self.writer.take_turn().await?;
        run_blocking(|| load::fill_if_empty(&self.path, movies, authors, reviews))
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
        let _turn = self.writer.take_turn().await?;
        run_blocking(|| load::replace_all(&self.path, movies, authors, reviews, progress))
    }

    /// Waits for the calls in progress, then closes every connection, checkpointing the WAL
    /// into the database file (the last connection to close does it, and that is the writing
    /// one).
    pub async fn close(&self) {
        self.readers.close().await;
        self.writer.close().await;
    }
}

/// Runs `work`, which blocks on SQLite, where the current runtime allows it: inside
/// `block_in_place` on the multi-thread runtime, so that the worker's other tasks move on
/// meanwhile; as it is on a one-thread runtime, whose thread has nothing else to do meanwhile
/// that could not wait.
fn run_blocking<T>(work: impl FnOnce() -> T) -> T {
    match Handle::try_current().map(|handle| handle.runtime_flavor()) {
        Ok(RuntimeFlavor::MultiThread) => tokio::task::block_in_place(work),
        _ => work(),
    }
}

/// Applies the migrations. Servers starting on one new file at once race to migrate it: a
/// loser fails on what a winner just created (each migration is its own transaction, so
/// nothing is half done), and its next attempt finds that migration applied and goes on. A
/// process that keeps losing fails once per migration, so it tries twice as many times as there
/// are migrations before giving up. Opening the connection is part of each attempt: in that
/// race SQLite may also answer "database is locked" at once, where waiting could deadlock,
/// instead of waiting out the busy timeout (seen in the robustness test of several processes
/// on one new file).
async fn migrate(options: &SqliteConnectOptions) -> Result<(), StoreError> {
    let migrator = sqlx::migrate!("../migrations/sqlite");
    let attempts = 2 * migrator.iter().count() + 2;
    let mut attempt = 1;
    loop {
        let migrated = match SqliteConnection::connect_with(options).await {
            Ok(mut connection) => {
                let migrated = migrator.run(&mut connection).await;
                // Closed either way; a failure to close after migrating changes nothing saved.
                let _ = connection.close().await;
                migrated.map_err(|error| error::from_sqlx(error.into()))
            }
            Err(error) => Err(error::from_sqlx(error)),
        };
        match migrated {
            Ok(()) => return Ok(()),
            Err(error) if attempt < attempts => {
                tracing::debug!(%error, attempt, "migrating again after a failed attempt");
                // Never longer than 100 ms between attempts.
                let wait = 20 * attempt.min(5) as u64;
                tokio::time::sleep(Duration::from_millis(wait)).await;
                attempt += 1;
            }
            Err(error) => return Err(error),
        }
    }
}

/// A row a read returns, as SQLite gives it: `COLUMNS` are selected, `from_row` reads them in
/// that order.
trait TableRow: Sized {
    const COLUMNS: &'static str;
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self>;
    /// The row's id.
    fn id(&self) -> Uuid;
}

/// A statement for one page: the `T::COLUMNS` of `from` (a table and `WHERE` clause whose
/// values are bound as `?1` and `?2`) in `order`, `?3` rows from offset `?4`.
fn page_sql<T: TableRow>(from: &str, order: &str) -> String {
    format!(
        "SELECT {columns} FROM {from} ORDER BY {order} LIMIT ?3 OFFSET ?4",
        columns = T::COLUMNS
    )
}

/// Runs a statement (prepared once per connection) and reads every row it returns.
fn read_rows<T: TableRow>(
    connection: &rusqlite::Connection,
    sql: &str,
    values: impl Params,
) -> rusqlite::Result<Vec<T>> {
    let mut statement = connection.prepare_cached(sql)?;
    let rows = statement.query_map(values, T::from_row)?;
    rows.collect()
}

/// Reads a page with a statement made by [`page_sql`], and the number of rows across every
/// page: the page shows it when it is neither full nor past the end (it is the last one);
/// otherwise `count` counts them.
fn read_page<T: TableRow>(
    connection: &rusqlite::Connection,
    sql: &str,
    values: (impl ToSql, impl ToSql),
    offset: u32,
    limit: u32,
    count: impl FnOnce() -> rusqlite::Result<u64>,
) -> rusqlite::Result<Rows<T>> {
    let items: Vec<T> = read_rows(connection, sql, (values.0, values.1, limit, offset))?;
    let total = match Rows::<T>::total_from_page(offset, limit, items.len()) {
        Some(total) => total,
        None => count()?,
    };
    Ok(Rows { items, total })
}

/// Keeps `capacity` statements prepared on `connection`, each planned once. Without the query
/// planner stability guarantee, SQLite plans a statement with `LIMIT ?` for the number bound,
/// so it parses and plans the statement again each time it runs with a new binding, which is
/// every page read: measured at a tenth of the server's time on the large data set. The store's
/// statements are written so that one plan suits every value.
fn keep_prepared(connection: &rusqlite::Connection, capacity: usize) -> rusqlite::Result<()> {
    connection.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    connection.set_prepared_statement_cache_capacity(capacity);
    Ok(())
}

/// Runs a statement without parameters or rows (`BEGIN`, `COMMIT`), prepared once per
/// connection.
fn run_statement(connection: &rusqlite::Connection, sql: &str) -> rusqlite::Result<()> {
    connection.prepare_cached(sql)?.execute([]).map(drop)
}

/// Runs a statement that returns one number.
fn read_number(
    connection: &rusqlite::Connection,
    sql: &str,
    values: impl Params,
) -> rusqlite::Result<u64> {
    connection
        .prepare_cached(sql)?
        .query_row(values, |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, StatementStatus};

    use super::keep_prepared;

    #[test]
    fn a_page_statement_is_planned_once_whatever_its_limit() {
        let connection = Connection::open_in_memory().unwrap();
        keep_prepared(&connection, 8).unwrap();
        connection
            .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
            .unwrap();
        let sql = "SELECT x FROM t ORDER BY x LIMIT ?1 OFFSET ?2";
        for (limit, offset) in [(1, 0), (2, 1), (3, 0), (1, 2)] {
            let mut statement = connection.prepare_cached(sql).unwrap();
            let rows = statement
                .query_map([limit, offset], |row| row.get::<_, i64>(0))
                .unwrap()
                .collect::<rusqlite::Result<Vec<_>>>()
                .unwrap();
            assert_eq!(
                rows,
                (offset + 1..=(offset + limit).min(3)).collect::<Vec<_>>()
            );
        }
        let statement = connection.prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
    }
}
