//! The database file changing under the server: deleted or replaced while serving, a write is
//! refused with `Error:` and a log line that says what happened, instead of going to a file no
//! one will open again; damaged at start-up, the server says what to do about it.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use serde_json::{Value, json};

use test_support::{
    Session, TempDir, command, run, structured, unexpected_reference, write_by_hand,
};

#[test]
fn a_write_after_the_database_file_is_deleted_or_replaced_is_refused_and_logged() {
    let dir = TempDir::new("file-changed");
    let database = dir.path().join("reviews.db");
    let elsewhere = dir.path().join("elsewhere.db");
    // A second database, to move in place of the first.
    Session::start(&elsewhere, dir.path()).stop_with_eof();

    for change in ["deleted", "replaced"] {
        let mut session = Session::start(&database, dir.path());
        let create = first_review_arguments(&mut session);
        let id = session.id();
        let saved = session.server.request(
            id,
            "tools/call",
            json!({"name": "reviews_write", "arguments": create.clone()}),
        );
        structured(&saved, "a write before the file changes");
        match change {
            "deleted" => std::fs::remove_file(&database).expect("delete the database file"),
            _ => std::fs::rename(&elsewhere, &database).expect("move another file in its place"),
        }
        let refused = session.call("reviews_write", create);
        let reference = unexpected_reference(&refused, dir.path());
        let logged = session
            .server
            .wait_for_stderr_line(|line| line.contains(&reference));
        assert!(
            logged.contains("was deleted or replaced while the server was running"),
            "{change}: {logged}"
        );
        session.server.close_stdin();
        session.server.wait_for_exit(test_support::EXIT_TIMEOUT);
    }
}

#[test]
fn a_damaged_database_at_start_up_is_explained_in_words_an_operator_can_act_on() {
    let dir = TempDir::new("damaged");
    let database = dir.path().join("reviews.db");
    Session::start(&database, dir.path()).stop_with_eof();
    damage_the_schema(&database);
    expect_refused_at_start_up(
        dir.path(),
        &database,
        &[
            "cannot be read",
            "reviews.db-wal",
            "restore it from a backup",
        ],
    );
}

#[test]
fn a_database_with_another_versions_schema_is_explained_at_start_up() {
    let dir = TempDir::new("other-schema");
    let database = dir.path().join("reviews.db");
    Session::start(&database, dir.path()).stop_with_eof();
    write_by_hand(
        &database,
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (1, 'from another version', TRUE, X'00', 0)",
    );
    expect_refused_at_start_up(
        dir.path(),
        &database,
        &[
            "schema this version of the server does not know",
            "Move it away",
        ],
    );
}

/// Runs one tool call on `database`, which must fail with all of `words` in its message.
fn expect_refused_at_start_up(dir: &Path, database: &Path, words: &[&str]) {
    let mut call = command(dir);
    call.args(["call", "movies_search", "--database"])
        .arg(database);
    let ran = run(call);
    assert!(!ran.status.success(), "{}", ran.stdout);
    for words in words {
        assert!(ran.stderr.contains(words), "{words:?} in: {}", ran.stderr);
    }
}

/// Arguments that create a review of the first movie by the first author.
fn first_review_arguments(session: &mut Session) -> Value {
    let movie = session.call_ok("movies_search", json!({"limit": 1}))["items"][0]["id"].clone();
    let author = session.call_ok("authors_search", json!({"limit": 1}))["items"][0]["id"].clone();
    json!({"movieId": movie, "authorId": author, "stars": 4})
}

/// Overwrites the first page after the file header, where SQLite keeps its schema.
fn damage_the_schema(database: &Path) {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(database)
        .expect("open the database file");
    file.seek(SeekFrom::Start(100))
        .expect("seek past the header");
    file.write_all(&[0xA5; 3996])
        .expect("overwrite the schema page");
}
