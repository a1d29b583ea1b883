//! Running a store rather than asking it questions: which database to open, opening it, loading
//! a whole data set, closing it. The server calls these at start-up and shutdown, and `seed`
//! calls them; the tools never do.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::postgres::{PostgresDatabase, PostgresStore};
use crate::sqlite::SqliteStore;
use crate::{Backend, NewAuthor, NewMovie, NewReview, Store, StoreError, on_backend};

/// What a load is doing, for a progress bar: `done` of `total` rows of `stage` (a name the
/// backend gives), or (`total` 0) a stage whose progress cannot be counted.
pub type Progress<'a> = &'a mut (dyn FnMut(&'static str, u64, u64) + Send);

/// Which database a store keeps its data in.
#[derive(Debug, Clone)]
pub enum Database {
    /// A SQLite database file, created (with its folder) if missing.
    Sqlite(PathBuf),
    /// A PostgreSQL database, which must exist; its tables are created if missing. Boxed: its
    /// connection options are ten times the size of a path.
    Postgres(Box<PostgresDatabase>),
}

impl Database {
    /// The database a `--database` value names: a PostgreSQL database when it starts with
    /// `postgres://` or `postgresql://`, otherwise the path of a SQLite file.
    pub fn named(value: PathBuf) -> Result<Database, String> {
        match value.to_str() {
            Some(url)
                if ["postgres://", "postgresql://"]
                    .iter()
                    .any(|scheme| url.starts_with(scheme)) =>
            {
                let database = PostgresDatabase::from_url(url)?;
                Ok(Database::Postgres(Box::new(database)))
            }
            _ => Ok(Database::Sqlite(value)),
        }
    }

    /// The same database, reached through at most `connections` connections where the backend
    /// keeps a pool of them (PostgreSQL); a SQLite file is unchanged.
    pub fn with_pool_size(self, connections: u32) -> Database {
        match self {
            Database::Postgres(mut database) => {
                database.pool_size = connections;
                Database::Postgres(database)
            }
            sqlite => sqlite,
        }
    }

    /// The same database, on which the server cancels a statement that runs longer than
    /// `timeout` where the backend can (PostgreSQL); a SQLite file is unchanged.
    pub fn with_statement_timeout(self, timeout: Duration) -> Database {
        match self {
            Database::Postgres(mut database) => {
                database.statement_timeout = timeout;
                Database::Postgres(database)
            }
            sqlite => sqlite,
        }
    }
}

/// The database as logs and errors show it: a path, or a URL without its password.
impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(path) => path.display().fmt(f),
            Database::Postgres(database) => database.fmt(f),
        }
    }
}

impl Store {
    /// Opens `database`, creating it if missing, and brings its schema up to this version's.
    pub async fn open(database: &Database) -> Result<Store, StoreError> {
        let backend = match database {
            Database::Sqlite(path) => Backend::Sqlite(SqliteStore::open(path).await?),
            Database::Postgres(database) => Backend::Postgres(PostgresStore::open(database).await?),
        };
        Ok(Store(backend))
    }

    /// Fills the database with these rows if it holds none yet, and says whether it did
    /// (invariant 11). A database anyone has written to is never refilled.
    pub async fn fill_if_empty(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.fill_if_empty(movies, authors, reviews).await)
    }

    /// Replaces everything in the database with these rows, in one transaction (invariant 11),
    /// telling `progress` how far it has got. A review whose movie or author is not among the
    /// rows fails the load with [`StoreError::Orphan`].
    pub async fn replace_all(
        &self,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
        progress: Progress<'_>,
    ) -> Result<(), StoreError> {
        on_backend!(self, backend => backend.replace_all(movies, authors, reviews, progress).await)
    }

    /// How many of the store's connections to the database are in use, and how many idle
    /// (SQLite: the connections that write; reads have their own).
    pub fn connections_in_use_and_idle(&self) -> (usize, usize) {
        on_backend!(self, backend => backend.connections_in_use_and_idle())
    }

    /// Whether the database answers a trivial query now: for a readiness probe. A SQLite
    /// store also fails when its path no longer names the file it opened (writes would be
    /// lost).
    pub async fn answers(&self) -> Result<(), StoreError> {
        on_backend!(self, backend => backend.answers().await)
    }

    /// From now on the database refuses every write made through this store, whatever asks
    /// (SQLite `query_only`, PostgreSQL `default_transaction_read_only`): for a read-only
    /// deployment, once the database is migrated and filled.
    pub async fn refuse_writes(&self) -> Result<(), StoreError> {
        on_backend!(self, backend => backend.refuse_writes().await)
    }

    /// Waits for the calls in progress, then closes every connection. Later calls fail with
    /// [`StoreError::Closed`].
    pub async fn close(&self) {
        on_backend!(self, backend => backend.close().await)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn a_postgres_url_names_postgresql_and_anything_else_a_sqlite_file() {
        assert!(matches!(
            Database::named(PathBuf::from("data/reviews.db")),
            Ok(Database::Sqlite(path)) if path == Path::new("data/reviews.db")
        ));
        for url in [
            "postgres://reviews:secret@db.internal:6543/reviews",
            "postgresql://reviews:secret@db.internal:6543/reviews?sslmode=require",
        ] {
            let database = Database::named(PathBuf::from(url)).unwrap();
            assert!(matches!(database, Database::Postgres(_)), "{url}");
            let shown = database.with_pool_size(3).to_string();
            assert_eq!(shown, "postgres://reviews@db.internal:6543/reviews");
        }
        let refused = Database::named(PathBuf::from("postgres://a:secret@db:port/x")).unwrap_err();
        assert!(!refused.contains("secret"), "{refused}");
        let database = Database::named(PathBuf::from("postgres://a:secret@db/x")).unwrap();
        assert!(!format!("{database:?}").contains("secret"), "{database:?}");
    }
}
