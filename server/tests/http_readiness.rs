//! Readiness against liveness over HTTP, with the built binary on a SQLite file: `/readyz`
//! answers 200 while the database answers and 503 once it cannot serve calls (its file was
//! deleted: writes would be lost) or once the server is stopping, while `/healthz` answers 200
//! as long as the process serves. `--shutdown-delay` keeps the server serving calls for that
//! long after SIGTERM, `/readyz` answering 503, and then it stops. (PostgreSQL stopped and
//! restarted under a server: `postgres_outage.rs`.)

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use test_support::{HttpServer, TempDir, http_client};

/// How long `--shutdown-delay` keeps the server serving in the test below.
const DELAY: Duration = Duration::from_secs(2);

#[tokio::test]
async fn readyz_answers_503_once_the_database_file_is_gone_and_healthz_still_200() {
    let dir = TempDir::new("readiness-file");
    let database = dir.path().join("reviews.db");
    let mut server = HttpServer::start(dir.path(), &database, &[]);
    assert_eq!(get(&server, "/readyz").await, (200, "ready\n".to_owned()));

    std::fs::remove_file(&database).expect("delete the database file");
    assert_eq!(
        get(&server, "/readyz").await,
        (503, "not ready: the database does not answer\n".to_owned())
    );
    assert_eq!(get(&server, "/healthz").await.0, 200);
    // The log says why.
    server
        .logged_line(|line| line.contains("not ready") && line.contains("deleted or replaced"))
        .await;
    server.terminate_and_expect_success();
}

#[tokio::test]
async fn after_sigterm_a_shutdown_delay_serves_on_with_readyz_503_then_stops() {
    let dir = TempDir::new("readiness-stopping");
    let delay = DELAY.as_secs().to_string();
    let mut server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--shutdown-delay", &delay],
    );
    assert_eq!(get(&server, "/readyz").await.0, 200);

    let signalled = Instant::now();
    server.signal_term();
    let stopping = loop {
        let answer = get(&server, "/readyz").await;
        if answer.0 != 200 {
            break answer;
        }
        assert!(
            signalled.elapsed() < DELAY,
            "/readyz still 200 after the signal"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(stopping, (503, "not ready: stopping\n".to_owned()));
    // Still serving calls, and still alive, until the delay is over.
    assert_eq!(get(&server, "/healthz").await.0, 200);
    let answer = call(&server, "movies_search", json!({ "limit": 1 })).await;
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        signalled.elapsed() < DELAY,
        "the checks took longer than the delay"
    );
    server.expect_exit_success(DELAY + Duration::from_secs(10));
    let stopped_after = signalled.elapsed();
    assert!(
        stopped_after >= DELAY,
        "stopped {stopped_after:?} after the signal, before the delay"
    );
}

/// The status and body of `GET path`.
async fn get(server: &HttpServer, path: &str) -> (u16, String) {
    let response = http_client()
        .get(format!("{}{path}", server.origin()))
        .send()
        .await
        .unwrap_or_else(|error| panic!("GET {path}: {error}"));
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

/// A `tools/call` POSTed to the server (no authentication on loopback).
async fn call(server: &HttpServer, tool: &str, arguments: Value) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments },
    });
    server
        .post(None, &body)
        .await
        .json()
        .await
        .expect("a JSON answer")
}
