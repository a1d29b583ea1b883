//! The `kept_results` table: results kept under call keys (see `crate::kept`). Every write
//! goes through the one writing connection, inside its transaction, so a write that keeps a
//! result looks the key up and keeps it with no other write in between.

use rusqlite::{Connection, OptionalExtension as _, params};

use super::{SqliteStore, StoreError};
use crate::ReviewRow;
use crate::kept::{CallKey, EXPIRED_PER_WRITE, Keep, KeptCall, millis, now};

impl SqliteStore {
    /// What is kept under `key`, unless it has expired.
    pub async fn kept_call(&self, key: &CallKey) -> Result<Option<KeptCall>, StoreError> {
        self.read(|connection| kept(connection, key)).await
    }

    /// Keeps `result` under `key`; false, keeping nothing, when a result that has not expired
    /// is kept under it already.
    pub async fn keep_call(&self, key: &CallKey, result: &str) -> Result<bool, StoreError> {
        let (key, result) = (key.clone(), result.to_owned());
        self.write(move |connection| {
            if kept(connection, &key)?.is_some() {
                return Ok(false);
            }
            keep(connection, &key, &result)?;
            Ok(true)
        })
        .await
    }
}

/// What a write that may keep its result ends in.
pub(super) enum Kept {
    /// The write's outcome; its result kept, if it was to be and it wrote a row.
    Written(Option<ReviewRow>),
    /// The key was taken: nothing was written.
    Taken,
}

impl Kept {
    /// The row written, or [`StoreError::KeyTaken`].
    pub(super) fn row(self) -> Result<Option<ReviewRow>, StoreError> {
        match self {
            Kept::Written(row) => Ok(row),
            Kept::Taken => Err(StoreError::KeyTaken),
        }
    }
}

/// Runs `write`, unless `keep`'s key is taken, and keeps the result made of the row it wrote.
pub(super) fn keeping(
    connection: &Connection,
    keep: Option<Keep>,
    write: impl FnOnce(&Connection) -> rusqlite::Result<Option<ReviewRow>>,
) -> rusqlite::Result<Kept> {
    let Some(keep) = keep else {
        return write(connection).map(Kept::Written);
    };
    if kept(connection, &keep.key)?.is_some() {
        return Ok(Kept::Taken);
    }
    let row = write(connection)?;
    if let Some(row) = &row {
        keep_row(connection, keep, row)?;
    }
    Ok(Kept::Written(row))
}

fn keep_row(connection: &Connection, keep: Keep, row: &ReviewRow) -> rusqlite::Result<()> {
    let result = (keep.result)(row);
    self::keep(connection, &keep.key, &result)
}

/// What is kept under `key`, unless it has expired.
fn kept(connection: &Connection, key: &CallKey) -> rusqlite::Result<Option<KeptCall>> {
    connection
        .prepare_cached(
            "SELECT fingerprint, result FROM kept_results
             WHERE caller = ?1 AND tool = ?2 AND key = ?3 AND expires_ms > ?4",
        )?
        .query_row(params![key.caller, key.tool, key.key, now()], |row| {
            Ok(KeptCall {
                fingerprint: row.get(0)?,
                result: row.get(1)?,
            })
        })
        .optional()
}

/// Keeps `result` under `key`, in place of an expired record, and deletes a few other expired
/// ones.
fn keep(connection: &Connection, key: &CallKey, result: &str) -> rusqlite::Result<()> {
    connection
        .prepare_cached(
            "DELETE FROM kept_results WHERE (caller, tool, key) IN (
                 SELECT caller, tool, key FROM kept_results WHERE expires_ms <= ?1 LIMIT ?2)",
        )?
        .execute(params![now(), EXPIRED_PER_WRITE])?;
    connection
        .prepare_cached(
            "INSERT OR REPLACE INTO kept_results
                 (caller, tool, key, fingerprint, result, expires_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            key.caller,
            key.tool,
            key.key,
            key.fingerprint,
            result,
            millis(key.expires_at)
        ])?;
    Ok(())
}
