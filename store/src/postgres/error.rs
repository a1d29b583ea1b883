//! What an operator reads when the PostgreSQL database cannot be reached, or has another
//! version's schema, as the store opens.

use crate::error::{Explained, StoreError, is_other_versions_schema};

/// sqlx's errors, as the PostgreSQL backend meets them: a migration another version applied is
/// an unknown schema, and the rest are failures. (The SQLite backend sorts its own: only it can
/// tell a damaged file.)
impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        if is_other_versions_schema(&error) {
            StoreError::UnknownSchema(Box::new(error))
        } else {
            StoreError::Failed(Box::new(error))
        }
    }
}

/// A database that could not be reached at start-up: its host and name, and sqlx's reason.
pub(super) fn unreachable(shown: &str, cause: sqlx::Error) -> StoreError {
    StoreError::Failed(Explained::boxed(
        format!("cannot reach the PostgreSQL database {shown}: {cause}"),
        Box::new(cause),
    ))
}

/// `error`, met while opening the database `shown`, with what an operator can do about it when
/// the schema is another version's.
pub(super) fn at_open(shown: &str, error: StoreError) -> StoreError {
    match error {
        StoreError::UnknownSchema(cause) => StoreError::UnknownSchema(Explained::boxed(
            format!(
                "the database {shown} has a schema this version of the server does not know \
                 ({cause}): it was made by another version. Use a database of its own for this \
                 version"
            ),
            cause,
        )),
        other => other,
    }
}

/// The sqlx error a failure carries, if it carries one.
pub(super) fn sqlx_error(error: &StoreError) -> Option<&sqlx::Error> {
    match error {
        StoreError::Failed(source) => source.downcast_ref::<sqlx::Error>(),
        _ => None,
    }
}

/// Whether PostgreSQL failed the call to end a deadlock (SQLSTATE 40P01).
pub(super) fn is_deadlock(error: &StoreError) -> bool {
    sqlx_error(error)
        .and_then(sqlx::Error::as_database_error)
        .and_then(|error| error.code())
        .is_some_and(|code| code == "40P01")
}
