//! A full disk: every write is either durable or refused with `Error:` and a reference that the
//! log explains, and a refused write leaves the data exactly as it was.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use test_support::{EXIT_TIMEOUT, Server, Session, TempDir, unexpected_reference};

/// The file size the server may write up to, in 512-byte blocks: 128 KiB, room for the
/// write-ahead log's shared index (32 KiB) and a few commits in the log, so that the first
/// writes succeed and the later ones meet a full disk.
const FILE_SIZE_LIMIT_BLOCKS: u32 = 256;

/// How many writes of each kind (create, change of stars, delete) must be refused.
const REFUSALS_WANTED: usize = 2;

/// Rounds of one create, one change and one delete, at most.
const MAX_ROUNDS: u64 = 60;

#[test]
fn a_write_on_a_full_disk_is_durable_or_refused_never_acknowledged_and_lost() {
    let dir = TempDir::new("full-disk");
    let database = dir.path().join("full.db");
    let mut session = Session::start(&database, dir.path());
    let movie = first_id(&mut session, "movies_search");
    let author = first_id(&mut session, "authors_search");
    // Exiting checkpoints the log into the database file, so the limit leaves room for it.
    session.stop_with_eof();

    let server = Server::spawn_with_file_size_limit(&database, dir.path(), FILE_SIZE_LIMIT_BLOCKS);
    let mut session = Session::initialize(server);
    let mut expected = reviews_of(&session.call_ok("movies_get", json!({"movieId": movie})));
    let mut acknowledged = [0; 3];
    let mut refused = [0; 3];
    let mut round = 0;
    while refused.iter().any(|&count| count < REFUSALS_WANTED) {
        round += 1;
        assert!(
            round <= MAX_ROUNDS,
            "{MAX_ROUNDS} rounds on a full disk refused only {refused:?} of (create, change, \
             delete)"
        );
        let stars = 1 + round % 5;
        let create = json!({"movieId": movie, "authorId": author, "stars": stars});
        if let Some(saved) = write(&mut session, &movie, "reviews_write", create, dir.path()) {
            expected.insert(id_of(&saved), saved["stars"].as_u64().expect("stars"));
            acknowledged[0] += 1;
        } else {
            refused[0] += 1;
        }

        let (review, old_stars) = expected.first_key_value().expect("the movie has a review");
        let (review, stars) = (review.clone(), old_stars % 5 + 1);
        let change = json!({"reviewId": review, "stars": stars});
        if let Some(saved) = write(&mut session, &movie, "reviews_write", change, dir.path()) {
            assert_eq!(saved["stars"], stars, "{saved}");
            expected.insert(review, stars);
            acknowledged[1] += 1;
        } else {
            refused[1] += 1;
        }

        let review = expected
            .last_key_value()
            .expect("the movie has a review")
            .0
            .clone();
        let delete = json!({"reviewId": review});
        if write(&mut session, &movie, "reviews_delete", delete, dir.path()).is_some() {
            expected.remove(&review);
            acknowledged[2] += 1;
        } else {
            refused[2] += 1;
        }
    }
    println!(
        "on a full disk, acknowledged {acknowledged:?} and refused {refused:?} of (create, \
         change, delete) in {round} rounds"
    );
    assert!(
        acknowledged.iter().sum::<usize>() > 0,
        "no write fitted before the disk filled: the limit leaves no room, the test shows nothing"
    );
    session.server.close_stdin();
    session.server.wait_for_exit(EXIT_TIMEOUT);

    // A server without the limit finds every acknowledged write, and nothing else.
    let mut session = Session::start(&database, dir.path());
    let movie_now = session.call_ok("movies_get", json!({"movieId": movie}));
    assert_eq!(reviews_of(&movie_now), expected, "{movie_now}");
    assert_eq!(movie_now["reviewCount"], expected.len(), "{movie_now}");
    session.stop_with_eof();
}

/// Runs one write of the movie's reviews: its saved value when acknowledged; `None` when
/// refused, after checking that the refusal is the unexpected-error text whose reference the log
/// explains, and that the movie with its reviews, counts and average is exactly as before.
fn write(
    session: &mut Session,
    movie: &str,
    tool: &str,
    arguments: Value,
    dir: &Path,
) -> Option<Value> {
    let before = session.call_ok("movies_get", json!({"movieId": movie}));
    let result = session.call(tool, arguments);
    if result["isError"] == false {
        return Some(result["structuredContent"].clone());
    }
    let reference = unexpected_reference(&result, dir);
    let logged = session
        .server
        .wait_for_stderr_line(|line| line.contains(&reference));
    assert!(logged.contains("ERROR"), "{logged}");
    let after = session.call_ok("movies_get", json!({"movieId": movie}));
    assert_eq!(after, before, "a refused {tool} changed the data");
    None
}

/// The id of the first item `tool` lists that has reviews: the rounds change and delete them.
fn first_id(session: &mut Session, tool: &str) -> String {
    let page = session.call_ok(tool, json!({"limit": 50}));
    let items = page["items"].as_array().expect("items");
    let reviewed = items
        .iter()
        .find(|item| item["reviewCount"].as_u64() > Some(0))
        .expect("an item with reviews on the first page");
    id_of(reviewed)
}

fn id_of(item: &Value) -> String {
    item["id"].as_str().expect("an id").to_owned()
}

/// A movie's reviews, id to stars.
fn reviews_of(movie: &Value) -> BTreeMap<String, u64> {
    movie["reviews"]
        .as_array()
        .expect("the movie's reviews")
        .iter()
        .map(|review| (id_of(review), review["stars"].as_u64().expect("stars")))
        .collect()
}
