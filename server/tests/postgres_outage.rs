//! A server on PostgreSQL whose database goes away and comes back, checked against the built
//! binary serving HTTP on the tests' throwaway PostgreSQL server (`test_support::postgres_cluster`):
//! while the database is away, a read and a write each answer, within the server's connection
//! timeout, with `Error: Something unexpected happened. Reference: …` (the cause logged under
//! that reference), and the server stays up (`/healthz` 200) but says it is not ready
//! (`/readyz` 503); once the database is back, calls succeed again without a restart, `/readyz`
//! answers 200, the failed write left nothing behind, and the server still exits 0.
//!
//! Stopping the cluster stops it for every test of the binary, so this file holds this test
//! alone. It is marked ignored where PostgreSQL is not installed (outside CI).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use test_support::postgres_cluster::cluster;
use test_support::{HttpServer, READ_TIMEOUT, TempDir, http_client, unexpected_reference};

/// How long the server waits for a database connection before a call fails
/// (`ACQUIRE_TIMEOUT` in store/src/postgres/mod.rs).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a call may take to fail while the database is away: the connection timeout, and
/// some slack for a loaded machine.
const FAILURE_TIMEOUT: Duration = Duration::from_secs(20);

/// How soon `/readyz` must answer: it gives the database 2 s.
const READY_ANSWERS_WITHIN: Duration = Duration::from_secs(5);

/// How soon after the database is back calls must succeed again.
const RECOVERY_TIMEOUT: Duration = Duration::from_secs(5);

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_going_away_fails_calls_with_a_reference_and_coming_back_heals_them() {
    let cluster = cluster();
    let dir = TempDir::new("postgres-outage");
    let url = cluster.new_database();
    let mut server = HttpServer::start(dir.path(), Path::new(&url), &[]);
    let movie =
        succeeded(&call(&server, "movies_search", json!({"limit": 1})).await)["items"][0]["id"]
            .clone();
    let author = succeeded(&call(&server, "authors_search", json!({"limit": 1})).await)["items"][0]
        ["id"]
        .clone();
    let reviews = json!({"movieId": movie, "limit": 1});
    let before =
        succeeded(&call(&server, "reviews_list", reviews.clone()).await)["totalCount"].clone();
    assert_eq!(status(&server, "/readyz").await, 200);

    cluster.stop();
    let started = Instant::now();
    let (read, write) = tokio::join!(
        call(&server, "movies_get", json!({"movieId": movie})),
        call(
            &server,
            "reviews_write",
            json!({"movieId": movie, "authorId": author, "stars": 5}),
        ),
    );
    let failed_in = started.elapsed();
    eprintln!("calls failed {failed_in:.1?} after the database went away");
    assert!(
        failed_in < FAILURE_TIMEOUT,
        "calls took {failed_in:?} to fail (the connection timeout is {ACQUIRE_TIMEOUT:?})"
    );
    for answer in [read, write] {
        let reference = unexpected_reference(&answer, dir.path());
        server.logged_line(|line| line.contains(&reference)).await;
    }
    // Still up: its health check, which needs no database, answers; it is not ready.
    assert_eq!(status(&server, "/healthz").await, 200);
    let started = Instant::now();
    assert_eq!(status(&server, "/readyz").await, 503);
    assert!(
        started.elapsed() < READY_ANSWERS_WITHIN,
        "/readyz took {:?} to answer",
        started.elapsed()
    );

    cluster.start();
    let started = Instant::now();
    let healed = loop {
        let answer = call(&server, "movies_get", json!({"movieId": movie})).await;
        if answer["isError"] == false {
            break answer;
        }
        assert!(
            started.elapsed() < RECOVERY_TIMEOUT,
            "calls still fail {RECOVERY_TIMEOUT:?} after the database came back: {answer}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!(
        "calls succeed again {:.1?} after the database came back",
        started.elapsed()
    );
    assert_eq!(status(&server, "/readyz").await, 200);
    assert_eq!(healed["structuredContent"]["id"], movie);
    // The write that failed wrote nothing; a new one goes through.
    let after =
        succeeded(&call(&server, "reviews_list", reviews.clone()).await)["totalCount"].clone();
    assert_eq!(after, before, "the failed write left a review");
    succeeded(
        &call(
            &server,
            "reviews_write",
            json!({"movieId": movie, "authorId": author, "stars": 4}),
        )
        .await,
    );
    server.terminate_and_expect_success();
}

/// The result of a `tools/call` POSTed to the server (no authentication on loopback); the
/// server must answer within `READ_TIMEOUT`.
async fn call(server: &HttpServer, tool: &str, arguments: Value) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let response = tokio::time::timeout(READ_TIMEOUT, server.post(None, &body))
        .await
        .unwrap_or_else(|_| panic!("{tool}: no answer within {READ_TIMEOUT:?}"));
    assert_eq!(response.status(), 200, "{tool}");
    let text = response.text().await.expect("the answer's body");
    let message: Value =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{tool} ({error}): {text}"));
    message["result"].clone()
}

/// The structuredContent of a result that must be a success.
fn succeeded(result: &Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"].clone()
}

/// The status of `GET path`.
async fn status(server: &HttpServer, path: &str) -> u16 {
    http_client()
        .get(format!("{}{path}", server.origin()))
        .send()
        .await
        .unwrap_or_else(|error| panic!("GET {path}: {error}"))
        .status()
        .as_u16()
}
