//! A stored value the tools' contract cannot hold (stars outside 1 to 5, written past the
//! database's own check by hand) is an unexpected error with a logged reference, never a
//! different value passed off as the stored one.

use serde_json::json;

use test_support::{Session, TempDir, unexpected_reference, write_by_hand};

#[test]
fn stars_outside_one_to_five_in_the_database_are_an_error_not_another_number() {
    let dir = TempDir::new("stored-values");
    let database = dir.path().join("reviews.db");
    let mut session = Session::start(&database, dir.path());
    let review = session.call_ok("reviews_list", json!({"limit": 1}))["items"][0].clone();
    session.stop_with_eof();
    let id = review["id"].as_str().expect("a review id");
    let movie = review["movieId"].clone();
    // Past the table's CHECK, as a hand edit with the sqlite3 shell can be.
    let edit = format!(
        "PRAGMA ignore_check_constraints = ON; UPDATE reviews SET stars = 300 WHERE id = X'{}'",
        id.replace('-', "")
    );
    write_by_hand(&database, &edit);

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
