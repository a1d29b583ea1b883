//! SQLite's errors as the store reports them: which of them mean a damaged file, and what an
//! operator reads about a damaged file or another version's schema when the store opens.

use std::path::{Path, PathBuf};

use sqlx::error::DatabaseError as _;
use sqlx::sqlite::SqliteError;

use crate::error::{Explained, StoreError, is_other_versions_schema};

/// An error of sqlx's SQLite driver (opening a connection, migrating): a damaged file is
/// unreadable, a migration another version applied is an unknown schema, and the rest are
/// failures.
pub(super) fn from_sqlx(error: sqlx::Error) -> StoreError {
    if is_damaged(&error) {
        StoreError::Unreadable(Box::new(error))
    } else if is_other_versions_schema(&error) {
        StoreError::UnknownSchema(Box::new(error))
    } else {
        StoreError::Failed(Box::new(error))
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> StoreError {
        if is_damaged(&error) {
            StoreError::Unreadable(Box::new(error))
        } else {
            StoreError::Failed(Box::new(error))
        }
    }
}

/// SQLite's primary result codes for a damaged file (`SQLITE_CORRUPT`) and for one that is not
/// a database at all (`SQLITE_NOTADB`).
const DAMAGED: [i32; 2] = [11, 26];

/// Whether `error`, or an error it was caused by, is SQLite finding the file damaged or not a
/// database.
fn is_damaged(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(cause) = next {
        let code = if let Some(cause) = cause.downcast_ref::<sqlx::Error>() {
            cause
                .as_database_error()
                .and_then(|cause| cause.try_downcast_ref::<SqliteError>())
                .and_then(|cause| cause.code())
                .and_then(|code| code.parse::<i32>().ok())
        } else if let Some(cause) = cause.downcast_ref::<rusqlite::Error>() {
            cause.sqlite_error().map(|cause| cause.extended_code)
        } else {
            None
        };
        // Extended codes keep the primary code in their low byte.
        if code.is_some_and(|code| DAMAGED.contains(&(code & 0xff))) {
            return true;
        }
        next = cause.source();
    }
    false
}

/// `error`, met while opening the database at `path`, with what an operator can do about it
/// when the file is unreadable or has another version's schema.
pub(super) fn at_open(path: &Path, error: StoreError) -> StoreError {
    let shown = path.display();
    match error {
        // The usual cause is a file replaced while the write-ahead log of the one it replaced
        // was left beside it, which SQLite then reads as part of the new file.
        StoreError::Unreadable(cause) => {
            let beside = |suffix: &str| {
                let mut name = path.as_os_str().to_owned();
                name.push(suffix);
                PathBuf::from(name).display().to_string()
            };
            StoreError::Unreadable(Explained::boxed(
                format!(
                    "the database {shown} cannot be read ({cause}). If the file was replaced \
                     (moved or copied over) while the write-ahead log of the database it \
                     replaced was left beside it, SQLite read that log as part of the new file: \
                     stop every server using the file, move {wal} and {shm} away, copy in again \
                     the file you meant to use (the log may have been written into it) and start \
                     again. Otherwise the file is damaged or is not a movie-reviews database: \
                     restore it from a backup",
                    wal = beside("-wal"),
                    shm = beside("-shm"),
                ),
                cause,
            ))
        }
        StoreError::UnknownSchema(cause) => StoreError::UnknownSchema(Explained::boxed(
            format!(
                "the database {shown} has a schema this version of the server does not know \
                 ({cause}): it was made by another version. Move it away (a new one is then \
                 made, with the demo data)"
            ),
            cause,
        )),
        other => other,
    }
}
