//! The `kept_results` table: results kept under call keys (see `crate::kept`). A write keeps
//! its result with an `INSERT … ON CONFLICT` in its own transaction: a second call with the key,
//! on any replica, waits at that statement for the first's transaction, then finds the key
//! taken and rolls its own write back.

use sqlx::PgConnection;

use super::{PostgresStore, StoreError};
use crate::ReviewRow;
use crate::kept::{CallKey, EXPIRED_PER_WRITE, Keep, KeptCall, millis, now};

impl PostgresStore {
    /// What is kept under `key`, unless it has expired.
    pub async fn kept_call(&self, key: &CallKey) -> Result<Option<KeptCall>, StoreError> {
        let query = sqlx::query_as::<_, (String, String)>(
            "SELECT fingerprint, result FROM kept_results
             WHERE caller = $1 AND tool = $2 AND key = $3 AND expires_ms > $4",
        )
        .bind(&key.caller)
        .bind(&key.tool)
        .bind(&key.key)
        .bind(now());
        let kept = self
            .connections
            .run(async |connection| Ok(query.fetch_optional(connection).await?))
            .await?;
        Ok(kept.map(|(fingerprint, result)| KeptCall {
            fingerprint,
            result,
        }))
    }

    /// Keeps `result` under `key`; false, keeping nothing, when a result that has not expired
    /// is kept under it already.
    pub async fn keep_call(&self, key: &CallKey, result: &str) -> Result<bool, StoreError> {
        self.connections
            .write(async |connection| keep(connection, key, result).await)
            .await
    }
}

/// Keeps the result made of the row a write returned under `keep`'s key, in the write's
/// transaction: [`StoreError::KeyTaken`] when the key is taken, which rolls the write back.
pub(super) async fn keep_row(
    connection: &mut PgConnection,
    keep: Option<Keep>,
    row: Option<&ReviewRow>,
) -> Result<(), StoreError> {
    let (Some(keep), Some(row)) = (keep, row) else {
        return Ok(());
    };
    let result = (keep.result)(row);
    match self::keep(connection, &keep.key, &result).await? {
        true => Ok(()),
        false => Err(StoreError::KeyTaken),
    }
}

/// Keeps `result` under `key`, in place of an expired record, then deletes a few other expired
/// ones (those no other transaction holds); false when a record that has not expired holds
/// the key.
async fn keep(
    connection: &mut PgConnection,
    key: &CallKey,
    result: &str,
) -> Result<bool, StoreError> {
    let now = now();
    // The insert first: it is the one statement here that waits (for a transaction holding the
    // key), and it waits before this transaction holds any other record. Were the clean-up
    // first, two writes could each lock the other's expired record and wait on each other.
    let kept = sqlx::query(
        "INSERT INTO kept_results (caller, tool, key, fingerprint, result, expires_ms)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (caller, tool, key) DO UPDATE
             SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result,
                 expires_ms = EXCLUDED.expires_ms
             WHERE kept_results.expires_ms <= $7",
    )
    .bind(&key.caller)
    .bind(&key.tool)
    .bind(&key.key)
    .bind(&key.fingerprint)
    .bind(result)
    .bind(millis(key.expires_at))
    .bind(now)
    .execute(&mut *connection)
    .await?;
    sqlx::query(
        "DELETE FROM kept_results WHERE ctid IN (
             SELECT ctid FROM kept_results WHERE expires_ms <= $1
             LIMIT $2 FOR UPDATE SKIP LOCKED)",
    )
    .bind(now)
    .bind(EXPIRED_PER_WRITE)
    .execute(&mut *connection)
    .await?;
    Ok(kept.rows_affected() == 1)
}
