//! A database that fails under a call: the client gets only a referenced `Error:`, the cause
//! is logged under that reference, and the server keeps serving.

use serde_json::json;

use crate::StillServing;
use test_support::{Session, TempDir, unexpected_reference, write_by_hand};

/// A database failing under a call: a referenced `Error:`, the cause logged, serving goes on.
#[test]
fn a_database_failure_is_an_unexpected_error_with_a_logged_reference() {
    // The failures (a write refused by a trigger, then a dropped table) are made inside the
    // database through a separate connection. Making the file read-only is no test here: the
    // tests run as root, for whom `chmod 0444` stops nothing, and the server's pooled
    // connections keep their open, writable descriptors anyway.
    let dir = TempDir::new("failure");
    let database = dir.path().join("failing.db");
    let mut session = Session::start(&database, dir.path());
    let movie = session.call_ok("movies_search", json!({"limit": 1}))["items"][0]["id"].clone();
    let author = session.call_ok("authors_search", json!({"limit": 1}))["items"][0]["id"].clone();
    let write = json!({"movieId": movie, "authorId": author, "stars": 4});
    session.call_ok("reviews_write", write.clone());

    // A write the database refuses.
    write_by_hand(
        &database,
        "CREATE TRIGGER injected_failure BEFORE INSERT ON reviews
         BEGIN SELECT RAISE(ABORT, 'injected failure: the disk is on fire'); END",
    );
    let failed = session.call("reviews_write", write.clone());
    let reference = unexpected_reference(&failed, dir.path());
    let logged = session
        .server
        .wait_for_stderr_line(|line| line.contains(&reference));
    assert!(
        logged.contains("ERROR") && logged.contains("injected failure: the disk is on fire"),
        "the log line has the cause: {logged}"
    );
    session.still_serving();
    session.call_ok("reviews_list", json!({"movieId": movie}));
    write_by_hand(&database, "DROP TRIGGER injected_failure");
    session.call_ok("reviews_write", write);

    // A table gone from under a read (its triggers and indexes go with it).
    write_by_hand(&database, "DROP TABLE reviews");
    let failed = session.call("reviews_list", json!({}));
    let second = unexpected_reference(&failed, dir.path());
    assert_ne!(second, reference, "each failure has its own reference");
    let logged = session
        .server
        .wait_for_stderr_line(|line| line.contains(&second));
    assert!(
        logged.contains("ERROR") && logged.contains("no such table: reviews"),
        "the log line has the cause: {logged}"
    );
    session.still_serving();
    session.call_ok("authors_search", json!({"query": "a"}));
    session.stop_with_eof();
}
