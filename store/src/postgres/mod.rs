//! The PostgreSQL backend: one database that any number of servers share, migrated with
//! `migrations/postgres`, answering the store's questions (see [`super::Store`]) through a pool
//! of sqlx connections. sqlx speaks PostgreSQL's protocol on the runtime's own tasks, with no
//! thread hand-off, so every call is async all the way down.
//!
//! Every read is one statement (a page with its total and its reviews, a movie with its
//! reviews), so it sees one snapshot without a transaction, whose `BEGIN` and `COMMIT` would
//! each cost a round trip; a write is one statement in autocommit, which PostgreSQL makes
//! durable before it answers (`synchronous_commit` on). The data rules are the schema's triggers
//! (`migrations/postgres`), which hold whoever writes.

mod authors;
mod connections;
mod error;
mod kept;
mod load;
mod movies;
mod reviews;
mod rows;
mod search;

use std::sync::Arc;
use std::time::Duration;

use sqlx::Postgres;
use sqlx::postgres::{PgArguments, PgConnectOptions, PgRow};
use sqlx::query::Query;
use uuid::Uuid;

use super::match_counts::MatchCounts;
use super::{NewAuthor, NewMovie, NewReview, Progress, StoreError};
use connections::Connections;

/// How many times a load is tried when PostgreSQL ends it to resolve a deadlock.
const LOAD_ATTEMPTS: u32 = 3;

/// How long a call waits for a connection before it fails, when the pool is busy or the
/// database is away.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// Which PostgreSQL database to use, how many connections to it a server may hold, and how
/// long a statement may run on one.
#[derive(Clone)]
pub struct PostgresDatabase {
    pub options: PgConnectOptions,
    pub pool_size: u32,
    /// How long a statement may run before PostgreSQL cancels it, so that one slow query (or
    /// one waiting on a lock) cannot hold a connection for ever.
    pub statement_timeout: Duration,
}

impl PostgresDatabase {
    /// The pool size when none is named.
    pub const DEFAULT_POOL_SIZE: u32 = 10;

    /// The statement timeout when none is named.
    pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

    /// The database a `postgres://` or `postgresql://` URL names; sqlx also reads `sslmode`
    /// and the other parameters from it, and the usual `PG*` environment variables.
    pub fn from_url(url: &str) -> Result<PostgresDatabase, String> {
        let options = url.parse::<PgConnectOptions>().map_err(|error| {
            // The URL may hold a password, so it is not repeated.
            format!("the PostgreSQL URL given with --database cannot be read: {error}")
        })?;
        Ok(PostgresDatabase {
            options,
            pool_size: PostgresDatabase::DEFAULT_POOL_SIZE,
            statement_timeout: PostgresDatabase::DEFAULT_STATEMENT_TIMEOUT,
        })
    }
}

/// The database as logs and errors show it: user, host, port and name, never the password.
impl std::fmt::Display for PostgresDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let options = &self.options;
        write!(
            f,
            "postgres://{}@{}:{}/{}",
            options.get_username(),
            options.get_host(),
            options.get_port(),
            options.get_database().unwrap_or(options.get_username())
        )
    }
}

/// As [`Display`](std::fmt::Display) shows it: sqlx's options would show the password.
impl std::fmt::Debug for PostgresDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PostgresDatabase({self}, pool size {}, statement timeout {:?})",
            self.pool_size, self.statement_timeout
        )
    }
}

/// A movie-review database on a PostgreSQL server.
#[derive(Clone)]
pub struct PostgresStore {
    connections: Arc<Connections>,
    match_counts: Arc<MatchCounts>,
    /// The database as errors name it.
    shown: Arc<str>,
}

impl PostgresStore {
    /// Connects to `database` and migrates it forward. Servers starting at once on a new
    /// database migrate it once: sqlx holds an advisory lock while it migrates.
    pub async fn open(database: &PostgresDatabase) -> Result<PostgresStore, StoreError> {
        let shown: Arc<str> = Arc::from(database.to_string());
        let statement_timeout = format!("{}ms", database.statement_timeout.as_millis());
        let options = database
            .options
            .clone()
            .application_name("movie-reviews-mcp")
            .options([
                ("statement_timeout", statement_timeout.as_str()),
                // Every statement here is planned once per connection, not at every call: a
                // search's plan takes longer to make than to run, and each one's plan fits
                // every value (a search chooses between walking and sorting itself).
                ("plan_cache_mode", "force_generic_plan"),
            ]);
        let connections = Connections::new(
            options,
            database.pool_size,
            ACQUIRE_TIMEOUT,
            shown.to_string(),
        );
        connections
            .connect()
            .await
            .map_err(|error| error::unreachable(&shown, error))?;
        let migrated = connections
            .run(async |connection| {
                sqlx::migrate!("../migrations/postgres")
                    .run(connection)
                    .await
                    .map_err(|error| StoreError::from(sqlx::Error::from(error)))
            })
            .await;
        migrated.map_err(|error| error::at_open(&shown, error))?;
        Ok(PostgresStore {
            connections: Arc::new(connections),
            match_counts: Arc::default(),
            shown,
        })
    }

    /// The connections in use and idle.
    pub fn connections_in_use_and_idle(&self) -> (usize, usize) {
        self.connections.in_use_and_idle()
    }

    /// From now on every transaction on this store's connections is read-only.
    pub async fn refuse_writes(&self) -> Result<(), StoreError> {
        self.connections.refuse_writes().await
    }

    /// Whether a connection answers `SELECT 1`.
    pub async fn answers(&self) -> Result<(), StoreError> {
        self.connections
            .run(async |connection| {
                sqlx::query("SELECT 1").execute(connection).await?;
                Ok(())
            })
            .await
    }

    /// Whether `sql`, a `SELECT EXISTS (… WHERE id = $1)`, finds `id`.
    async fn exists(&self, sql: &'static str, id: Uuid) -> Result<bool, StoreError> {
        self.connections
            .run(async |connection| {
                let query = sqlx::query_scalar(sql).bind(id);
                Ok(query.fetch_one(connection).await?)
            })
            .await
    }

    /// Runs a statement and returns every row it answers.
    async fn fetch_all(
        &self,
        query: Query<'_, Postgres, PgArguments>,
    ) -> Result<Vec<PgRow>, StoreError> {
        self.connections
            .run(async |connection| Ok(query.fetch_all(connection).await?))
            .await
    }

    /// Fills the database with these rows if it holds none yet, and says whether it did.
    pub async fn fill_if_empty(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<bool, StoreError> {
        // The usual start, on a database in use, takes no lock.
        let held = self
            .connections
            .run(async |connection| load::holds_anything(connection).await)
            .await;
        if held? {
            return Ok(false);
        }
        let loaded = self
            .connections
            .run(async |connection| load::load(connection, movies, authors, reviews, None).await)
            .await;
        loaded.map_err(|error| error::at_open(&self.shown, error))
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
        // The load locks the three tables while servers read them, each statement taking its
        // tables in its own order; PostgreSQL ends a deadlock by failing one side, and when that
        // is the load, it starts again.
        let mut attempt = 1;
        loop {
            let loaded = self
                .connections
                .run(async |connection| {
                    load::load(connection, movies, authors, reviews, Some(&mut *progress)).await
                })
                .await;
            match loaded {
                Err(error) if attempt < LOAD_ATTEMPTS && error::is_deadlock(&error) => {
                    tracing::info!(attempt, "loading again after a deadlock with a reader");
                    attempt += 1;
                }
                loaded => return loaded.map(|_| ()),
            }
        }
    }

    /// Waits for the calls in progress, then closes every connection.
    pub async fn close(&self) {
        self.connections.close().await;
    }
}
