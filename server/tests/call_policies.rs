//! The server's call policies, through real clients of the built binary:
//!
//! - a write held up past `--timeout` is answered `Timed Out` and leaves the reviews as they
//!   were, on SQLite (a writer of the test's holds the file's write lock) and on PostgreSQL (a
//!   transaction of the test's holds the table's lock), once the lock is let go as well;
//! - `--rate-limit` limits each token on its own over HTTP, a tool's value wins over the one
//!   for every tool whatever their order, the limit fills again after its period, and `/metrics` counts the refusals, and every call in OpenTelemetry's
//!   `mcp_server_operation_duration` with tool errors as failures.
//!
//! The PostgreSQL test is marked ignored where PostgreSQL is not installed (outside CI).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::testing::{ErrorKind, TestClient};

use test_support::postgres_cluster::cluster;
use test_support::{HttpServer, TempDir, http_client, mint};

/// The time limit the timeout tests set.
const TIMEOUT: &str = "1s";

/// A movie and an author to review, the first of each.
async fn movie_and_author(client: &TestClient) -> (Value, Value) {
    let first = |result: toolkit::testing::CallResult| {
        result.structured().expect("a page")["items"][0]["id"].clone()
    };
    let movie = first(client.call("movies_search", json!({ "limit": 1 })).await);
    let author = first(client.call("authors_search", json!({ "limit": 1 })).await);
    (movie, author)
}

/// How many reviews `movie` has, as `reviews_list` counts them.
async fn review_count(client: &TestClient, movie: &Value) -> Value {
    let page = client
        .call("reviews_list", json!({ "movieId": movie, "limit": 1 }))
        .await;
    page.structured().expect("a page")["totalCount"].clone()
}

/// Writes a review while `hold` holds the database's lock for longer than the time limit,
/// and checks that the call timed out and, once the lock is let go, nothing was written.
async fn a_write_past_the_time_limit_changes_nothing(
    database: &Path,
    hold: impl FnOnce() -> std::thread::JoinHandle<()>,
) {
    let dir = TempDir::new("call-timeout");
    let server = HttpServer::start(dir.path(), database, &["--timeout", TIMEOUT]);
    let client = server.client(None).await;
    let (movie, author) = movie_and_author(&client).await;
    let before = review_count(&client, &movie).await;

    let holding = hold();
    let started = Instant::now();
    let write = json!({ "movieId": movie, "authorId": author, "stars": 4 });
    let result = client.call("reviews_write", write).await;
    let answered_in = started.elapsed();
    assert_eq!(
        result.error_kind(),
        Some(ErrorKind::TimedOut),
        "{}",
        result.text()
    );
    assert_eq!(
        result.text(),
        "Timed Out: reviews_write did not finish within 1 s, and changed nothing. Call it again."
    );
    assert!(answered_in < Duration::from_secs(3), "{answered_in:?}");

    holding.join().expect("the lock was held and let go");
    // The write could go through now, if anything still meant to make it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(review_count(&client, &movie).await, before);
    // And the server writes as before.
    let write = json!({ "movieId": movie, "authorId": author, "stars": 4 });
    assert!(!client.call("reviews_write", write).await.is_error());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_write_on_sqlite_is_rolled_back() {
    let dir = TempDir::new("call-timeout-sqlite");
    let database = dir.path().join("reviews.db");
    // A server creates the database with its demo data, then goes.
    let mut first = HttpServer::start(dir.path(), &database, &[]);
    first.terminate_and_expect_success();

    let file = database.clone();
    a_write_past_the_time_limit_changes_nothing(&database, move || {
        let (locked, is_locked) = std::sync::mpsc::channel();
        let holding = std::thread::spawn(move || {
            test_support::hold_write_lock(&file, Duration::from_secs(3), || {
                let _ = locked.send(());
            });
        });
        is_locked
            .recv_timeout(Duration::from_secs(10))
            .expect("the write lock is taken");
        holding
    })
    .await;
}

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_write_on_postgres_is_rolled_back() {
    let url = cluster().new_database();
    let holder = url.clone();
    let database = url.clone();
    a_write_past_the_time_limit_changes_nothing(Path::new(&database), move || {
        let holding = std::thread::spawn(move || {
            let sql = "BEGIN; LOCK TABLE reviews IN ACCESS EXCLUSIVE MODE; \
                       SELECT pg_sleep(3); COMMIT;";
            cluster().query(&holder, sql).expect("the lock is held");
        });
        let held = "SELECT count(*) FROM pg_locks \
                    WHERE relation = 'reviews'::regclass AND mode = 'AccessExclusiveLock'";
        let started = Instant::now();
        while cluster().query(&url, held).as_deref() != Ok("1") {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the lock is never held"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        holding
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_token_has_its_own_rate_limit_which_fills_again() {
    let dir = TempDir::new("rate-limits");
    let (alice, alice_entry) = mint(dir.path(), "reviews.read,reviews.write");
    let (bob, bob_entry) = mint(dir.path(), "reviews.read,reviews.write");
    let tokens = format!("{alice_entry}\n{bob_entry}");
    let metrics_address = "127.0.0.1:0";
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--tokens",
            &tokens,
            "--rate-limit",
            "movies_get=3/2s,1/hour",
            "--metrics-address",
            metrics_address,
        ],
    );
    let alice = server.client(Some(&alice)).await;
    let bob = server.client(Some(&bob)).await;
    let (movie, _) = movie_and_author(&alice).await;
    let get = json!({ "movieId": movie });

    for _ in 0..3 {
        let result = alice.call("movies_get", get.clone()).await;
        assert!(!result.is_error(), "{}", result.text());
    }
    let refused = alice.call("movies_get", get.clone()).await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::RateLimited));
    assert!(
        refused
            .text()
            .starts_with("Rate Limited: movies_get may be called 3 times every 2 s; try again in "),
        "{}",
        refused.text()
    );
    // Bob's token has a limit of its own, and other tools keep their own limits.
    assert!(!bob.call("movies_get", get.clone()).await.is_error());
    assert!(
        !alice
            .call("reviews_list", json!({ "movieId": movie }))
            .await
            .is_error()
    );
    // The value for every tool limits the others, though written after `movies_get`'s.
    let again = alice.call("movies_search", json!({ "limit": 1 })).await;
    assert_eq!(
        again.text(),
        "Rate Limited: movies_search may be called once an hour; try again in 3600 s."
    );

    // Two seconds fill Alice's bucket again.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    for _ in 0..3 {
        assert!(!alice.call("movies_get", get.clone()).await.is_error());
    }

    let scrape = scrape_metrics(&server).await;
    let refusals = "movie_reviews_tool_calls_total{tool=\"movies_get\",outcome=\"rate_limited\"} 1";
    assert!(scrape.contains(refusals), "{scrape}");
    let failed = "mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\",\
                  gen_ai_tool_name=\"movies_get\",gen_ai_operation_name=\"execute_tool\",\
                  error_type=\"tool_error\"} 1";
    assert!(scrape.contains(failed), "{scrape}");
    let succeeded = "mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\",\
                     gen_ai_tool_name=\"movies_get\",gen_ai_operation_name=\"execute_tool\",\
                     error_type=\"\"} 7";
    assert!(scrape.contains(succeeded), "{scrape}");
}

/// The text of `/metrics`, at the address the server's log names.
async fn scrape_metrics(server: &HttpServer) -> String {
    let line = server
        .logged_line(|line| line.contains("serving metrics on http://"))
        .await;
    let url = line
        .split("serving metrics on ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the metrics URL");
    let response = http_client().get(url).send().await.expect("a scrape");
    response.text().await.expect("the scrape's text")
}
