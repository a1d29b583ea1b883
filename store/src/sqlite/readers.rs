//! The store's reading connections: SQLite called directly, on the calling thread.
//!
//! sqlx runs each connection on a thread of its own and hands every statement to it and the
//! answer back through channels. Measured here, each hand-off after an idle moment costs 15 to
//! 35 µs of waking threads, more than most reads take in SQLite itself (whether a movie exists:
//! 4 µs; a movie with its twenty reviews: about 50 µs), and a tool call makes two to five
//! statements. So reads, nine tool calls in ten, are made through rusqlite on connections of
//! their own, in the thread that asks, on the multi-thread runtime (HTTP) too: a worker held
//! for a quick read's tens of microseconds costs less than `block_in_place`'s hand-over of its
//! other tasks to another thread (measured by `bench --transport http`). Reads whose cost grows
//! with the data (a search that must count its matches or walk the rows, pages far in) are
//! handed to a blocking thread instead, so that one long read does not hold up every call
//! behind it on stdio's one thread.
//!
//! Writes are made on a thread of their own (`writer`): a write waits for an fsync, which must
//! not stop the thread that reads requests.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use super::{BUSY_TIMEOUT, StoreError, keep_prepared, run_statement};

/// Statements each connection keeps prepared: every read statement the store makes (about 30),
/// and one per length of a list of movie or author ids (pages hold at most 50).
const PREPARED_STATEMENTS: usize = 160;

/// Reading connections to one database, each opened when first needed: at most `quick` for
/// reads bounded by what they return and `long` more for reads whose cost grows with the data,
/// so that long reads never keep every connection from the quick ones.
pub(super) struct Readers {
    path: PathBuf,
    quick: u32,
    long: u32,
    /// One permit per connection that may be in use by a quick read.
    quick_permits: Semaphore,
    /// One permit per connection that may be in use by a long read. Shared with the blocking
    /// thread that reads, which gives it back when it is done.
    long_permits: Arc<Semaphore>,
    idle: Arc<Idle>,
}

impl Readers {
    pub(super) fn new(path: &Path, quick: u32, long: u32) -> Readers {
        Readers {
            path: path.to_owned(),
            quick,
            long,
            quick_permits: Semaphore::new(quick as usize),
            long_permits: Arc::new(Semaphore::new(long as usize)),
            idle: Arc::default(),
        }
    }

    /// Runs `read` in one read transaction, so every statement in it sees the same data, on
    /// this thread: for reads whose cost is bounded by what they return.
    pub(super) async fn read<T>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let _permit = self
            .quick_permits
            .acquire()
            .await
            .map_err(|_| StoreError::Closed)?;
        let connection = self.connection()?;
        // On the worker that asks, even on the multi-thread runtime: a quick read takes tens of
        // microseconds, about what `block_in_place` costs to hand the worker's other tasks to
        // another thread and back.
        let result = in_transaction(&connection, read);
        // A failed read's transaction was rolled back by `in_transaction`; the connection is as
        // good as before.
        self.idle.put(connection);
        result.map_err(StoreError::from)
    }

    /// Runs `read` as [`Readers::read`] does, but on one of the runtime's blocking threads: for
    /// reads whose cost grows with the data (a common term on a million titles takes tens of
    /// milliseconds), so that on stdio's one thread the calls behind one are not held up. The
    /// hand-off costs tens of microseconds, which such a read can afford.
    pub(super) async fn read_apart<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let permit = Arc::clone(&self.long_permits)
            .acquire_owned()
            .await
            .map_err(|_| StoreError::Closed)?;
        let connection = self.connection()?;
        let idle = Arc::clone(&self.idle);
        // The connection goes back and the permit is released by the thread that read, so even
        // when the caller stops waiting (a cancelled request) the read stays counted until it
        // ends, and `close` waits for it.
        let done = tokio::task::spawn_blocking(move || {
            let result = in_transaction(&connection, read);
            idle.put(connection);
            drop(permit);
            result
        });
        match done.await {
            Ok(result) => result.map_err(StoreError::from),
            Err(error) if error.is_panic() => {
                Err(StoreError::failed("a read of the database panicked"))
            }
            // Only when the runtime is shutting down.
            Err(_) => Err(StoreError::Closed),
        }
    }

    /// An idle connection, or a new one.
    fn connection(&self) -> Result<Connection, StoreError> {
        match self.idle.take() {
            Some(connection) => Ok(connection),
            None => open(&self.path),
        }
    }

    /// Waits for the reads in progress, then closes every reading connection. Later reads fail
    /// with [`StoreError::Closed`].
    pub(super) async fn close(&self) {
        let quick = self.quick_permits.acquire_many(self.quick).await;
        let long = self.long_permits.acquire_many(self.long).await;
        self.quick_permits.close();
        self.long_permits.close();
        drop((quick, long));
        for connection in self.idle.take_all() {
            if let Err((_, error)) = connection.close() {
                tracing::warn!(%error, "closing a database connection failed");
            }
        }
    }
}

/// The reading connections not in use.
#[derive(Default)]
struct Idle(Mutex<Vec<Connection>>);

// The lock is held only to push or pop, neither of which can panic; a poisoned lock would still
// hold a consistent stack.
impl Idle {
    fn take(&self) -> Option<Connection> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    fn put(&self, connection: Connection) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(connection);
    }

    fn take_all(&self) -> Vec<Connection> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// Opens a reading connection to a database the writing side has already created and
/// migrated. `query_only` makes SQLite refuse any write made through it.
fn open(path: &Path) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags(path, flags).map_err(StoreError::from)?;
    connection
        .busy_timeout(BUSY_TIMEOUT)
        .and_then(|()| connection.pragma_update(None, "query_only", true))
        .and_then(|()| keep_prepared(&connection, PREPARED_STATEMENTS))
        .map_err(StoreError::from)?;
    Ok(connection)
}

/// Runs `read` in one read transaction. The transaction's statements are prepared once per
/// connection, like every other.
fn in_transaction<T>(
    connection: &Connection,
    read: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    run_statement(connection, "BEGIN")?;
    let value = read(connection).and_then(|value| {
        run_statement(connection, "COMMIT")?;
        Ok(value)
    });
    if value.is_err() && !connection.is_autocommit() {
        // The connection goes back to the idle ones with no transaction left open. Should the
        // rollback itself fail, the read's own error is still the one reported, and the next
        // read on this connection fails to begin rather than reading stale data.
        let _ = run_statement(connection, "ROLLBACK");
    }
    value
}

#[cfg(test)]
mod tests {
    use rusqlite::config::DbConfig;

    use super::*;

    /// A reading connection plans each statement once, whatever is bound to it (see
    /// `keep_prepared`).
    #[test]
    fn a_reading_connection_plans_each_statement_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("readers.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x INTEGER)")
            .unwrap();
        let connection = open(&path).unwrap();
        let planned_once = connection.db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG);
        assert!(planned_once.unwrap());
    }
}
