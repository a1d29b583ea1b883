//! `reviews_write`'s `idempotencyKey`, through real clients of the built binary, on SQLite and
//! on PostgreSQL:
//!
//! - a retry with the same key gets the same review and writes nothing; other arguments under
//!   the key conflict; two callers (tokens) with one key get a review each; sixteen calls at
//!   once with one key write one review;
//! - on PostgreSQL, two replicas share the keys, sixteen calls at once spread over both write
//!   one review;
//! - a server killed (SIGKILL) once it has committed a keyed write, its answer never read: a
//!   new server on the same database answers the retry with the first review and writes
//!   nothing;
//! - a keyed change of stars is answered again, not made again, and conflicts likewise;
//! - in the store itself: an expired record neither answers nor holds its key, a write whose
//!   key is taken writes nothing, while one whose key is free keeps its result with it, and a
//!   load forgets every result kept.
//!
//! The PostgreSQL tests are marked ignored where PostgreSQL is not installed (outside CI).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use store::{CallKey, Database, Keep, NewReview, ReviewFilter, StoreError};
use uuid::Uuid;

use serde_json::{Value, json};
use toolkit::testing::{CallResult, ErrorKind, TestClient};

use test_support::postgres_cluster::cluster;
use test_support::{HttpServer, Server as StdioServer, TempDir, mint};

/// A movie and an author to review, the first of each.
async fn movie_and_author(client: &TestClient) -> (Value, Value) {
    let first = |result: CallResult| result.structured().expect("a page")["items"][0]["id"].clone();
    let movie = first(client.call("movies_search", json!({ "limit": 1 })).await);
    let author = first(client.call("authors_search", json!({ "limit": 1 })).await);
    (movie, author)
}

/// How many reviews `movie` has.
async fn review_count(client: &TestClient, movie: &Value) -> u64 {
    let page = (client.call("reviews_list", json!({ "movieId": movie, "limit": 1 }))).await;
    page.structured().expect("a page")["totalCount"]
        .as_u64()
        .expect("a count")
}

/// The id of the review a write returned.
fn review_id(result: &CallResult) -> Value {
    assert!(!result.is_error(), "{}", result.text());
    result.structured().expect("a review")["id"].clone()
}

/// Two tokens, for two callers, and the servers' `--tokens` value.
fn tokens(dir: &Path) -> (String, String, String) {
    let (alice, alice_entry) = mint(dir, "reviews.read,reviews.write");
    let (bob, bob_entry) = mint(dir, "reviews.read,reviews.write");
    (alice, bob, format!("{alice_entry}\n{bob_entry}"))
}

/// Retries, conflicts, callers and concurrent duplicates against `servers` (one, or replicas on
/// one database), each call going to the next server in turn.
async fn keys_hold(servers: &[HttpServer], alice: &str, bob: &str) {
    let mut alices = Vec::new();
    for server in servers {
        alices.push(server.client(Some(alice)).await);
    }
    let bob = servers[0].client(Some(bob)).await;
    let next = |index: usize| &alices[index % alices.len()];
    let (movie, author) = movie_and_author(next(0)).await;
    let before = review_count(next(0), &movie).await;

    let write = json!({ "movieId": movie, "authorId": author, "stars": 4, "idempotencyKey": "k1" });
    let first = next(0).call("reviews_write", write.clone()).await;
    let created = review_id(&first);
    let retry = next(1).call("reviews_write", write.clone()).await;
    assert_eq!(review_id(&retry), review_id(&first));
    assert_eq!(retry.structured(), first.structured());
    assert_eq!(review_count(next(0), &movie).await, before + 1);

    let other = json!({ "movieId": movie, "authorId": author, "stars": 2, "idempotencyKey": "k1" });
    let conflict = next(1).call("reviews_write", other).await;
    assert_eq!(conflict.error_kind(), Some(ErrorKind::Conflict));
    assert_eq!(
        conflict.text(),
        "Conflict: this idempotencyKey was used for a different call; use a new key for a new \
         call."
    );

    let bobs = bob.call("reviews_write", write.clone()).await;
    assert_ne!(review_id(&bobs), review_id(&first), "a key is its caller's");
    assert_eq!(review_count(next(0), &movie).await, before + 2);

    let burst = json!({ "movieId": movie, "authorId": author, "stars": 5, "idempotencyKey": "b" });
    let calls = (0..16).map(|index| next(index).call("reviews_write", burst.clone()));
    let results = futures::future::join_all(calls).await;
    let first = review_id(&results[0]);
    for result in &results {
        assert_eq!(review_id(result), first);
    }
    assert_eq!(review_count(next(0), &movie).await, before + 3);

    // A change of stars keeps its result too: its retry answers it and writes nothing, even
    // once the stars were changed again in between.
    let stars = async |client: &TestClient| {
        let page = client
            .call("reviews_list", json!({ "reviewId": created }))
            .await;
        page.structured().expect("a page")["items"][0]["stars"].clone()
    };
    let change = json!({ "reviewId": created, "stars": 2, "idempotencyKey": "s1" });
    let changed = next(0).call("reviews_write", change.clone()).await;
    assert_eq!(changed.structured().expect("a review")["stars"], 2);
    let unkeyed = json!({ "reviewId": created, "stars": 5 });
    review_id(&next(1).call("reviews_write", unkeyed).await);
    let retry = next(1).call("reviews_write", change).await;
    assert_eq!(retry.structured(), changed.structured());
    assert_eq!(stars(next(0)).await, 5, "the retry wrote nothing");
    let other = json!({ "reviewId": created, "stars": 3, "idempotencyKey": "s1" });
    let conflict = next(0).call("reviews_write", other).await;
    assert_eq!(conflict.error_kind(), Some(ErrorKind::Conflict));
    assert_eq!(stars(next(0)).await, 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_hold_on_sqlite() {
    let dir = TempDir::new("idempotency-sqlite");
    let (alice, bob, tokens) = tokens(dir.path());
    let database = dir.path().join("reviews.db");
    let server = HttpServer::start(dir.path(), &database, &["--tokens", &tokens]);
    keys_hold(&[server], &alice, &bob).await;
}

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_postgres_share_their_keys() {
    let dir = TempDir::new("idempotency-postgres");
    let (alice, bob, tokens) = tokens(dir.path());
    let url = cluster().new_database();
    let database = Path::new(&url);
    let first = HttpServer::start(dir.path(), database, &["--tokens", &tokens]);
    let second = HttpServer::start(dir.path(), database, &["--tokens", &tokens]);
    keys_hold(&[first, second], &alice, &bob).await;
}

/// A keyed write whose server is killed once it has answered, the answer never read; a new
/// server on `database` answers the retry with the same review, and nothing more is written.
fn a_retry_after_a_kill_writes_nothing(database: &Path, cwd: &Path) {
    let mut server = StdioServer::spawn(database, cwd);
    server.initialize();
    let first = |page: Value| page["structuredContent"]["items"][0]["id"].clone();
    let movie = first(server.result(2, "tools/call", search("movies_search")));
    let author = first(server.result(3, "tools/call", search("authors_search")));
    let count = |server: &mut StdioServer, id: u64| {
        let list = json!({ "name": "reviews_list", "arguments": { "movieId": movie, "limit": 1 } });
        server.result(id, "tools/call", list)["structuredContent"]["totalCount"].clone()
    };
    let before = count(&mut server, 4);

    let write = json!({ "movieId": movie, "authorId": author, "stars": 3,
                        "idempotencyKey": "after-the-crash" });
    server.send_call(5, "reviews_write", write.clone());
    // The answer is on its way: the write is committed. The client never reads it.
    let answered = server.read_message();
    assert_eq!(answered["id"], 5, "{answered}");
    server.kill();

    let mut again = StdioServer::spawn(database, cwd);
    again.initialize();
    let retried = again.result(
        2,
        "tools/call",
        json!({ "name": "reviews_write", "arguments": write }),
    );
    assert_ne!(retried["isError"], true, "{retried}");
    assert_eq!(
        retried["structuredContent"], answered["result"]["structuredContent"],
        "the retry gets the first review"
    );
    let after = count(&mut again, 3);
    assert_eq!(after, json!(before.as_u64().expect("a count") + 1));
}

fn search(tool: &str) -> Value {
    json!({ "name": tool, "arguments": { "limit": 1 } })
}

#[test]
fn a_retry_after_a_kill_writes_nothing_on_sqlite() {
    let dir = TempDir::new("idempotency-kill-sqlite");
    let database = dir.path().join("reviews.db");
    a_retry_after_a_kill_writes_nothing(&database, dir.path());
}

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[test]
fn a_retry_after_a_kill_writes_nothing_on_postgres() {
    let dir = TempDir::new("idempotency-kill-postgres");
    let url = cluster().new_database();
    a_retry_after_a_kill_writes_nothing(Path::new(&url), dir.path());
}

/// A key of the caller `ada` for `reviews_write`, with a `fingerprint`, expiring at `expires_at`.
fn call_key(key: &str, fingerprint: &str, expires_at: SystemTime) -> CallKey {
    CallKey {
        caller: "ada".to_owned(),
        tool: "reviews_write".to_owned(),
        key: key.to_owned(),
        fingerprint: fingerprint.to_owned(),
        expires_at,
    }
}

/// What the store keeps under keys, and the writes that keep their results, on `database`.
async fn the_store_uses_a_key_once_until_it_expires(database: &Database) {
    let store = movie_reviews_mcp::commands::open_or_create(database)
        .await
        .expect("the store opens and fills the demo data");
    let later = SystemTime::now() + Duration::from_secs(3600);
    let past = SystemTime::now() - Duration::from_secs(1);

    // An expired record neither answers nor holds its key.
    assert!(
        store
            .keep_call(&call_key("old", "f1", past), "{}")
            .await
            .unwrap()
    );
    assert_eq!(
        store
            .kept_call(&call_key("old", "f1", later))
            .await
            .unwrap(),
        None
    );
    assert!(
        store
            .keep_call(&call_key("old", "f2", later), "[2]")
            .await
            .unwrap()
    );
    let kept = store
        .kept_call(&call_key("old", "f9", later))
        .await
        .unwrap();
    assert_eq!(
        kept.map(|kept| (kept.fingerprint, kept.result)),
        Some(("f2".into(), "[2]".into()))
    );
    assert!(
        !store
            .keep_call(&call_key("old", "f3", later), "[3]")
            .await
            .unwrap()
    );

    let (movies, _) = store.search_movies(None, 0, 1, false).await.unwrap();
    let (authors, _) = store.search_authors(None, 0, 1, false).await.unwrap();
    let review = || NewReview {
        id: Uuid::new_v4(),
        movie_id: movies.items[0].id,
        author_id: authors.items[0].id,
        stars: 4,
    };
    let total = async || {
        let page = store
            .list_reviews(ReviewFilter::default(), 0, 1)
            .await
            .unwrap();
        page.expect("every review").total
    };
    let before = total().await;

    // A write whose key is taken writes nothing.
    let keep = Keep {
        key: call_key("old", "f4", later),
        result: Box::new(|_| "[4]".to_owned()),
    };
    let taken = store.create_review(&review(), Some(keep)).await;
    assert!(matches!(taken, Err(StoreError::KeyTaken)), "{taken:?}");
    assert_eq!(total().await, before);

    // One whose key is free keeps its result, made of the row written, with it.
    let keep = Keep {
        key: call_key("new", "f5", later),
        result: Box::new(|row| row.id.to_string()),
    };
    let written = store.create_review(&review(), Some(keep)).await.unwrap();
    let written = written.expect("the movie and the author exist");
    let kept = store
        .kept_call(&call_key("new", "f5", later))
        .await
        .unwrap();
    assert_eq!(kept.map(|kept| kept.result), Some(written.id.to_string()));
    assert_eq!(total().await, before + 1);

    // A load replaces every review, so it forgets every result kept: none would name a review
    // that still exists.
    store
        .replace_all(&[], &[], &[], &mut |_, _, _| {})
        .await
        .unwrap();
    let forgotten = store.kept_call(&call_key("new", "f5", later)).await;
    assert_eq!(forgotten.unwrap(), None);
    store.close().await;
}

#[tokio::test]
async fn the_sqlite_store_uses_a_key_once_until_it_expires() {
    let dir = TempDir::new("idempotency-store-sqlite");
    let database = Database::named(dir.path().join("reviews.db")).expect("a SQLite path");
    the_store_uses_a_key_once_until_it_expires(&database).await;
}

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test]
async fn the_postgres_store_uses_a_key_once_until_it_expires() {
    let url = PathBuf::from(cluster().new_database());
    let database = Database::named(url).expect("a PostgreSQL URL");
    the_store_uses_a_key_once_until_it_expires(&database).await;
}
