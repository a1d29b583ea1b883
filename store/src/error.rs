//! Why a store call failed, in terms that hold for every backend. A backend's own error (a
//! SQLite result code, a lost PostgreSQL connection) travels inside, as the source to log.

use sqlx::migrate::MigrateError;
use uuid::Uuid;

/// A backend's own error.
pub type Source = Box<dyn std::error::Error + Send + Sync>;

/// Why a store call failed. Every variant but [`KeyTaken`](Self::KeyTaken) is unexpected from a
/// tool's point of view.
#[derive(Debug)]
pub enum StoreError {
    /// The database failed the call: an I/O error, a full disk, a lock not granted in time, a
    /// lost connection, a stored value outside its range. The source says which.
    Failed(Source),
    /// The database cannot be read as a movie-reviews database: it is damaged, or not a
    /// database at all. The source says what an operator can do about it.
    Unreadable(Source),
    /// The database's schema was made by another version of this server, which this one does
    /// not know how to read. The source names the difference.
    UnknownSchema(Source),
    /// The store was closed: the server is shutting down.
    Closed,
    /// A review to load names a movie or an author that is not in the data set.
    Orphan(Uuid),
    /// A write was to keep its result under a call key that a result, not yet expired, holds
    /// already (another call with the key ran meanwhile): nothing was written.
    KeyTaken,
}

impl StoreError {
    /// A failure described only by a message.
    pub(super) fn failed(message: impl Into<String>) -> StoreError {
        StoreError::Failed(message.into().into())
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Failed(source)
            | StoreError::Unreadable(source)
            | StoreError::UnknownSchema(source) => source.fmt(f),
            StoreError::Closed => f.write_str("the database is closed"),
            StoreError::KeyTaken => f.write_str("a result is kept under this call key already"),
            StoreError::Orphan(id) => {
                write!(
                    f,
                    "review {id} names a movie or an author not in the data set"
                )
            }
        }
    }
}

// The backend's error is shown as this one's message, so the error it was caused by comes next
// in the chain.
impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StoreError::Failed(source)
            | StoreError::Unreadable(source)
            | StoreError::UnknownSchema(source) => source.source(),
            StoreError::Closed | StoreError::Orphan(_) | StoreError::KeyTaken => None,
        }
    }
}

/// An error in the words an operator needs (which database, what to do), with the error it
/// explains as its source: how each backend words an unreadable database or another version's
/// schema.
#[derive(Debug)]
pub(super) struct Explained {
    text: String,
    cause: Source,
}

impl Explained {
    /// The explanation `text` of `cause`, as a source for a [`StoreError`].
    pub(super) fn boxed(text: String, cause: Source) -> Source {
        Box::new(Explained { text, cause })
    }
}

impl std::fmt::Display for Explained {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for Explained {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.cause.as_ref())
    }
}

/// Whether `error` is sqlx finding migrations in the database that this version does not have,
/// or has otherwise: a schema another version made. Both backends migrate through sqlx.
pub(crate) fn is_other_versions_schema(error: &sqlx::Error) -> bool {
    matches!(
        error,
        sqlx::Error::Migrate(migrate)
            if matches!(**migrate, MigrateError::VersionMissing(_) | MigrateError::VersionMismatch(_))
    )
}
