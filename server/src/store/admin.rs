//! Running a store rather than asking it questions: which database to open, opening it, loading
//! a whole data set, closing it. The server calls these at start-up and shutdown, and `seed`
//! calls them; the tools never do.

use std::fmt;
use std::path::PathBuf;

use super::sqlite::SqliteStore;
use super::{Backend, NewAuthor, NewMovie, NewReview, Store, StoreError, on_backend};

/// What a load is doing, for a progress bar: `done` of `total` rows of `stage` (a name the
/// backend gives), or (`total` 0) a stage whose progress cannot be counted.
pub type Progress<'a> = &'a mut (dyn FnMut(&'static str, u64, u64) + Send);

/// Which database a store keeps its data in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite database file, created (with its folder) if missing.
    Sqlite(PathBuf),
}

impl Database {
    /// The database a `--database` value names: a path to a SQLite file. A PostgreSQL URL is
    /// refused, with a message that says so, rather than taken for a path.
    pub fn named(value: PathBuf) -> Result<Database, String> {
        let text = value.to_string_lossy();
        if ["postgres://", "postgresql://"]
            .iter()
            .any(|scheme| text.starts_with(scheme))
        {
            return Err(
                "this server keeps its data in a SQLite file, not in PostgreSQL: \
                        name a file path with --database"
                    .to_owned(),
            );
        }
        Ok(Database::Sqlite(value))
    }
}

impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(path) => path.display().fmt(f),
        }
    }
}

impl Store {
    /// Opens `database`, creating it if missing, and brings its schema up to this version's.
    pub async fn open(database: &Database) -> Result<Store, StoreError> {
        let backend = match database {
            Database::Sqlite(path) => Backend::Sqlite(SqliteStore::open(path).await?),
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

    /// Waits for the calls in progress, then closes every connection. Later calls fail with
    /// [`StoreError::Closed`].
    pub async fn close(&self) {
        on_backend!(self, backend => backend.close().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_a_sqlite_file_and_a_postgres_url_is_refused() {
        assert_eq!(
            Database::named(PathBuf::from("data/reviews.db")),
            Ok(Database::Sqlite(PathBuf::from("data/reviews.db")))
        );
        for url in ["postgres://reviews@db/reviews", "postgresql://db/reviews"] {
            let refused = Database::named(PathBuf::from(url)).unwrap_err();
            assert!(refused.contains("not in PostgreSQL"), "{refused}");
            assert!(
                !refused.contains("db/reviews"),
                "the URL may hold a password"
            );
        }
    }
}
