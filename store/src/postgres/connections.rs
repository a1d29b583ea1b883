//! The connections a server holds to its PostgreSQL database, lent to one statement (or one
//! load) at a time.
//!
//! sqlx has a pool of its own, but it checks a connection with a round trip when it lends it
//! and another when it takes it back: three round trips for a one-statement call, which on one
//! machine cost more than the statement. Here a connection is lent as it is, and taken back
//! only when its statement ran to the end, or failed with an error PostgreSQL sent (after
//! which the connection is ready for the next); after any other error, or when the call was
//! dropped halfway, the connection is closed, and the next call opens a new one. A connection
//! that sat idle for a while is checked before it is lent, so that a restarted database costs
//! a call only on connections used in the moment it went away; one opened half an hour ago is
//! replaced by a new one.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::Connection as _;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::StoreError;

/// How long a connection may sit idle and still be lent without first checking, with a round
/// trip, that the database still answers on it.
const TRUSTED_IDLE: Duration = Duration::from_millis(500);

/// How long a connection is used before it is closed and a new one opened in its place, so
/// that what a server session gathers over time (cached plans, memory) is given back.
const LIFETIME: Duration = Duration::from_secs(30 * 60);

/// A server's connections to one database: at most `size` at once.
pub(super) struct Connections {
    /// How a new connection is opened: changed once, when writes are refused.
    options: Mutex<PgConnectOptions>,
    /// One permit for each connection that may be open at once.
    slots: Semaphore,
    size: u32,
    idle: Mutex<Vec<Idle>>,
    /// How long a call waits for a connection before it fails.
    wait: Duration,
    /// The database as errors name it.
    shown: String,
}

/// A connection not lent to anyone, since when, and when it was opened.
struct Idle {
    connection: PgConnection,
    since: Instant,
    opened: Instant,
}

impl Connections {
    pub(super) fn new(
        options: PgConnectOptions,
        size: u32,
        wait: Duration,
        shown: String,
    ) -> Connections {
        let size = size.max(1);
        Connections {
            options: Mutex::new(options),
            slots: Semaphore::new(size as usize),
            size,
            idle: Mutex::new(Vec::new()),
            wait,
            shown,
        }
    }

    /// How a new connection is opened.
    fn options(&self) -> PgConnectOptions {
        // The lock is held only to clone or replace the options, neither of which can panic.
        self.options
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many connections are lent out, and how many wait idle.
    pub(super) fn in_use_and_idle(&self) -> (usize, usize) {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        let in_use = (self.size as usize).saturating_sub(self.slots.available_permits());
        (in_use, idle)
    }

    /// From now on every transaction is read-only (`default_transaction_read_only`): waits
    /// until no call is using a connection, closes the idle ones, and opens the next ones so.
    pub(super) async fn refuse_writes(&self) -> Result<(), StoreError> {
        let all = self
            .slots
            .acquire_many(self.size)
            .await
            .map_err(|_| StoreError::Closed)?;
        {
            let mut options = self.options.lock().unwrap_or_else(PoisonError::into_inner);
            *options = options
                .clone()
                .options([("default_transaction_read_only", "on")]);
        }
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        drop(all);
        for Idle { connection, .. } in idle {
            connection.close().await?;
        }
        Ok(())
    }

    /// Opens one connection and keeps it, to learn at start-up whether the database answers.
    pub(super) async fn connect(&self) -> Result<(), sqlx::Error> {
        let connection = PgConnection::connect_with(&self.options()).await?;
        self.give_back(connection, Instant::now());
        Ok(())
    }

    /// Runs `statement` on a connection, waiting for one if all are lent.
    pub(super) async fn run<T>(
        &self,
        statement: impl AsyncFnOnce(&mut PgConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let (mut connection, opened, _slot) = self.lend().await?;
        // Dropped halfway (the call was cancelled), the connection is closed with it.
        let result = statement(&mut connection).await;
        if result.as_ref().err().is_none_or(leaves_usable) {
            self.give_back(connection, opened);
        }
        result
    }

    /// Runs `statement` in a transaction of its own, committed once it succeeds. Dropped
    /// halfway (the call was cancelled), the connection is closed without a commit, so
    /// PostgreSQL rolls the transaction back, even a statement that was already running (one
    /// waiting for a lock, say) when the call stopped.
    pub(super) async fn write<T>(
        &self,
        statement: impl AsyncFnOnce(&mut PgConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.run(async |connection| {
            let mut transaction = sqlx::Connection::begin(connection).await?;
            // On an error the transaction is dropped, which rolls it back.
            let value = statement(&mut transaction).await?;
            transaction.commit().await?;
            Ok(value)
        })
        .await
    }

    /// A connection, when it was opened, and the slot it holds until it is given back or
    /// closed.
    async fn lend(&self) -> Result<(PgConnection, Instant, SemaphorePermit<'_>), StoreError> {
        let lent = tokio::time::timeout(self.wait, async {
            let slot = self.slots.acquire().await.map_err(|_| StoreError::Closed)?;
            loop {
                let idle = self
                    .idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .pop();
                let Some(Idle {
                    mut connection,
                    since,
                    opened,
                }) = idle
                else {
                    let connection = PgConnection::connect_with(&self.options()).await?;
                    return Ok((connection, Instant::now(), slot));
                };
                if opened.elapsed() > LIFETIME {
                    // Closing says goodbye to the server; a failure to changes nothing.
                    let _ = connection.close().await;
                    continue;
                }
                // A connection the database has closed fails its check, and is dropped.
                if since.elapsed() < TRUSTED_IDLE || connection.ping().await.is_ok() {
                    return Ok((connection, opened, slot));
                }
            }
        })
        .await;
        lent.unwrap_or_else(|_| {
            Err(StoreError::failed(format!(
                "no connection to the PostgreSQL database {} within {:?}",
                self.shown, self.wait
            )))
        })
    }

    fn give_back(&self, connection: PgConnection, opened: Instant) {
        let since = Instant::now();
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        idle.push(Idle {
            connection,
            since,
            opened,
        });
    }

    /// Waits for the statements in progress, then closes every connection; later calls fail
    /// with [`StoreError::Closed`].
    pub(super) async fn close(&self) {
        if let Ok(every_slot) = self.slots.acquire_many(self.size).await {
            every_slot.forget();
        }
        self.slots.close();
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        for Idle { connection, .. } in idle {
            // Closing says goodbye to the server; a failure to, on a connection about to be
            // dropped anyway, changes nothing.
            let _ = connection.close().await;
        }
    }
}

/// Whether a connection can be lent again after a statement on it failed with `error`: yes
/// when PostgreSQL itself answered with the error (it is then ready for the next statement,
/// and a transaction left open is rolled back when the connection is next used), or when the
/// error is not the connection's at all; not after a lost connection, a protocol error or
/// anything else sqlx met on the way.
fn leaves_usable(error: &StoreError) -> bool {
    super::error::sqlx_error(error).is_none_or(|error| matches!(error, sqlx::Error::Database(_)))
}
