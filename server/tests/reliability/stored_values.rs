//! A stored value the tools' contract cannot hold (stars outside 1 to 5, written past the
//! database's own check by hand) is an unexpected error with a logged reference, never a
//! different value passed off as the stored one.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

use crate::common::{Session, TempDir, unexpected_reference};

#[test]
fn stars_outside_one_to_five_in_the_database_are_an_error_not_another_number() {
    let dir = TempDir::new("stored-values");
    let database = dir.path().join("reviews.db");
    let mut session = Session::start(&database, dir.path());
    let review = session.call_ok("reviews_list", json!({"limit": 1}))["items"][0].clone();
    session.stop_with_eof();
    let id = review["id"].as_str().expect("a review id");
    let movie = review["movieId"].clone();
    write_by_hand(
        &database,
        &format!(
            "UPDATE reviews SET stars = 300 WHERE id = X'{}'",
            id.replace('-', "")
        ),
    );

    let mut session = Session::start(&database, dir.path());
    for (tool, arguments) in [
        ("movies_get", json!({"movieId": movie})),
        ("reviews_list", json!({"reviewId": id})),
    ] {
        let result = session.call(tool, arguments);
        let reference = unexpected_reference(&result, dir.path());
        let logged = session
            .server
            .wait_for_stderr_line(|line| line.contains(&reference));
        assert!(logged.contains("out of range"), "{tool}: {logged}");
    }
    session.stop_with_eof();
}

/// Runs `sql` on the database with its CHECK constraints off, as a hand edit might.
fn write_by_hand(database: &Path, sql: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let options = SqliteConnectOptions::new()
            .filename(database)
            .busy_timeout(Duration::from_secs(30));
        let mut connection = SqliteConnection::connect_with(&options)
            .await
            .expect("open the database");
        let sql = format!("PRAGMA ignore_check_constraints = ON; {sql}");
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut connection)
            .await
            .expect("write by hand");
        connection.close().await.expect("close the connection");
    });
}
