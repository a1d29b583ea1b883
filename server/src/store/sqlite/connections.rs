//! The store's writing connections: sqlx connections, handed out one per store call that
//! migrates or writes (reads and loads have connections of their own, see `readers` and
//! `load`; a load holds one of these meanwhile, to take its turn among the writes).
//!
//! sqlx's `SqlitePool` is not used because of what it costs per call: measured here, taking a
//! connection from it and giving it back costs about 30 µs, more than most statements. A
//! semaphore and a stack of idle connections cost well under a microsecond.
//!
//! Writes in this process take turns here before they take a connection. SQLite lets one
//! connection write at a time, and a connection that finds the write lock taken sleeps in its
//! busy handler (for a millisecond and more) before trying again; queued here, the next write
//! starts the moment the last one commits. Other processes on the same file still meet the
//! busy timeout.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection as _, SqliteConnection};
use tokio::sync::{Mutex as AsyncMutex, MutexGuard, Semaphore, SemaphorePermit};

use super::StoreError;

/// At most `size` connections to one database, each opened when first needed.
pub(super) struct Connections {
    /// How a new connection is opened: changed once, when writes are refused.
    options: Mutex<SqliteConnectOptions>,
    size: u32,
    /// One permit per connection that may be in use: whoever holds a permit may take an idle
    /// connection or open a new one, so there are never more than `size`.
    permits: Semaphore,
    idle: Mutex<Vec<SqliteConnection>>,
    /// Held by the one store call that may write.
    writing: AsyncMutex<()>,
}

/// A connection for one store call; it goes back to the idle ones when dropped. A call dropped
/// half-way (a cancelled request) leaves nothing behind: sqlx rolls back an unfinished
/// transaction on the connection's next use.
pub(super) struct Pooled<'a> {
    connection: Option<SqliteConnection>,
    connections: &'a Connections,
    _permit: SemaphorePermit<'a>,
    _writing: Option<MutexGuard<'a, ()>>,
}

impl Connections {
    pub(super) fn new(options: SqliteConnectOptions, size: u32) -> Connections {
        Connections {
            options: Mutex::new(options),
            size,
            permits: Semaphore::new(size as usize),
            idle: Mutex::new(Vec::with_capacity(size as usize)),
            writing: AsyncMutex::new(()),
        }
    }

    /// Waits for a free connection, for a job that does not write (migrating takes its own
    /// locks).
    pub(super) async fn get(&self) -> Result<Pooled<'_>, StoreError> {
        self.take(None).await
    }

    /// Waits for the other writes in this process to finish, then for a free connection.
    pub(super) async fn get_for_writing(&self) -> Result<Pooled<'_>, StoreError> {
        let writing = self.writing.lock().await;
        self.take(Some(writing)).await
    }

    async fn take<'a>(
        &'a self,
        writing: Option<MutexGuard<'a, ()>>,
    ) -> Result<Pooled<'a>, StoreError> {
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| StoreError::Closed)?;
        let idle = self.take_idle();
        let connection = match idle {
            Some(connection) => connection,
            None => {
                let options = self
                    .options
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                SqliteConnection::connect_with(&options).await?
            }
        };
        Ok(Pooled {
            connection: Some(connection),
            connections: self,
            _permit: permit,
            _writing: writing,
        })
    }

    /// How many connections are lent out, and how many wait idle.
    pub(super) fn in_use_and_idle(&self) -> (usize, usize) {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        let in_use = (self.size as usize).saturating_sub(self.permits.available_permits());
        (in_use, idle)
    }

    /// From now on every connection refuses to write (`query_only`): waits until no call is
    /// using a connection, closes the idle ones, and opens the next ones so.
    pub(super) async fn refuse_writes(&self) -> Result<(), StoreError> {
        let all = self
            .permits
            .acquire_many(self.size)
            .await
            .map_err(|_| StoreError::Closed)?;
        {
            let mut options = self.options.lock().unwrap_or_else(PoisonError::into_inner);
            *options = options.clone().pragma("query_only", "ON");
        }
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        drop(all);
        for connection in idle {
            connection.close().await?;
        }
        Ok(())
    }

    /// Waits until no call is using a connection, then closes every connection (the last one
    /// to close checkpoints the write-ahead log into the database file). Later calls fail with
    /// [`StoreError::Closed`].
    pub(super) async fn close(&self) {
        // Holding every permit means every connection is idle.
        let all = self.permits.acquire_many(self.size).await;
        self.permits.close();
        drop(all);
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        for connection in idle {
            if let Err(error) = connection.close().await {
                tracing::warn!(%error, "closing a database connection failed");
            }
        }
    }

    // The lock is held only to push or pop, neither of which can panic; a poisoned lock would
    // still hold a consistent stack.
    fn take_idle(&self) -> Option<SqliteConnection> {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
    }

    fn put_idle(&self, connection: SqliteConnection) {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(connection);
    }
}

impl Pooled<'_> {
    /// Closes the connection instead of giving it back, after a write that failed (an I/O
    /// error, a full disk): the next write starts on a fresh connection rather than on one whose
    /// state after the failure no one has checked.
    pub(super) fn discard(mut self) {
        drop(self.connection.take());
    }
}

impl Deref for Pooled<'_> {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        // Set in `get`, taken only in `drop`.
        self.connection.as_ref().unwrap_or_else(|| unreachable!())
    }
}

impl DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.connection.as_mut().unwrap_or_else(|| unreachable!())
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        // Back on the stack before the permit is released (fields drop after this body), so
        // the next holder of that permit finds it.
        if let Some(connection) = self.connection.take() {
            self.connections.put_idle(connection);
        }
    }
}
