//! Connections and stopping: slow clients cut off at their deadlines, an idle connection giving
//! way to a newcomer, and SIGTERM letting a call in flight finish.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::AsyncWriteExt;

use test_support::{EXIT_TIMEOUT, HttpServer, TempDir, http_client, raw_connection, read_answer};

/// A client that sends slowly holds a connection only so long, and an idle one not at all when
/// someone else needs it: with one connection allowed, a head that never ends is closed at its
/// deadline, or at once when a newcomer arrives; a body that never ends keeps its request busy
/// until the body's deadline (408), and meanwhile a newcomer is turned away with 503 and
/// `Retry-After`, except a probe of `/healthz`, answered at once: the server is alive.
#[tokio::test]
async fn slow_clients_are_cut_off_and_idle_ones_give_way() {
    let dir = TempDir::new("http-slow");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--header-read-timeout",
            "1",
            "--body-read-timeout",
            "1",
            "--request-timeout",
            "5",
            "--max-connections",
            "1",
        ],
    );
    let half_head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    let started = Instant::now();
    let mut slow = raw_connection(server.port).await;
    slow.write_all(half_head).await.unwrap();
    let answer = read_answer(&mut slow).await;
    assert!(
        !answer.starts_with("HTTP/1.1 200"),
        "a head sent in part was answered: {answer}"
    );
    let closed_after = started.elapsed();
    assert!(
        closed_after >= Duration::from_millis(900) && closed_after < Duration::from_secs(5),
        "{closed_after:?}"
    );

    let started = Instant::now();
    let mut slow = raw_connection(server.port).await;
    slow.write_all(half_head).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let health = http_client()
        .get(format!("{}/healthz", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let answer = read_answer(&mut slow).await;
    assert!(!answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "the newcomer waited for the deadline"
    );
    drop(health);

    let mut slow = raw_connection(server.port).await;
    slow.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"jsonrpc\":",
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let turned_away = http_client()
        .get(format!("{}/readyz", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(turned_away.status(), 503);
    assert_eq!(turned_away.headers()["retry-after"], "1");
    let probed = Instant::now();
    let alive = http_client()
        .get(format!("{}/healthz", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(alive.status(), 200);
    assert_eq!(alive.text().await.unwrap(), "ok\n");
    assert!(
        probed.elapsed() < Duration::from_millis(500),
        "a probe turned away waited {:?}",
        probed.elapsed()
    );
    let answer = read_answer(&mut slow).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn a_call_in_flight_at_sigterm_gets_its_answer_then_the_server_exits_0() {
    let dir = TempDir::new("http-sigterm");
    let mut server = HttpServer::start(dir.path(), &dir.path().join("reviews.db"), &[]);
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {"limit": 1}},
    })
    .to_string();
    let (first, rest) = body.split_at(body.len() / 2);
    let mut connection = raw_connection(server.port).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{first}",
        body.len()
    );
    connection.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.signal_term();
    tokio::time::sleep(Duration::from_millis(300)).await;
    connection.write_all(rest.as_bytes()).await.unwrap();
    let answer = read_answer(&mut connection).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(r#""isError":false"#), "{answer}");
    server.expect_exit_success(EXIT_TIMEOUT);
    assert!(
        server.logs().contains("stopped serving"),
        "{}",
        server.logs()
    );
}

/// Past `--max-requests-in-flight`, a request to MCP is answered 503 with `Retry-After: 1` at
/// once, on a connection that stays open: once the request holding the place is done, the next
/// call on that same connection is served. `/healthz` and `/readyz` are answered meanwhile.
#[tokio::test]
async fn past_the_requests_in_flight_a_call_is_told_to_retry_on_a_connection_kept_open() {
    let dir = TempDir::new("http-in-flight");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--max-requests-in-flight", "1"],
    );
    // A request whose body never ends holds the one place.
    let mut holding = raw_connection(server.port).await;
    holding
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Content-Length: 100\r\n\r\n{\"jsonrpc\":",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {"limit": 1}},
    })
    .to_string();
    let call = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut connection = raw_connection(server.port).await;
    connection.write_all(call.as_bytes()).await.unwrap();
    let (head, _) = read_one_answer(&mut connection).await;
    assert!(head.starts_with("http/1.1 503"), "{head}");
    assert!(head.contains("\r\nretry-after: 1\r\n"), "{head}");
    assert!(!head.contains("connection: close"), "{head}");

    for probe in ["/healthz", "/readyz"] {
        let answer = http_client()
            .get(format!("{}{probe}", server.origin()))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{probe}");
    }

    // The place is free once the holding request goes away.
    drop(holding);
    tokio::time::sleep(Duration::from_millis(200)).await;
    connection.write_all(call.as_bytes()).await.unwrap();
    let (head, body) = read_one_answer(&mut connection).await;
    assert!(head.starts_with("http/1.1 200"), "{head}\n{body}");
    assert!(body.contains(r#""isError":false"#), "{body}");
}

/// One answer read off a kept-alive connection: its head, in lowercase, and its body (by its
/// `content-length`).
async fn read_one_answer(connection: &mut tokio::net::TcpStream) -> (String, String) {
    use tokio::io::AsyncReadExt;

    let mut read = Vec::new();
    let mut buffer = [0u8; 4096];
    let answer = async {
        loop {
            if let Some(end) = read.windows(4).position(|window| window == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&read[..end]).to_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length: "))
                    .and_then(|length| length.trim().parse().ok())
                    .unwrap_or(0);
                if read.len() >= end + 4 + length {
                    let body = String::from_utf8_lossy(&read[end + 4..end + 4 + length]);
                    return (head, body.into_owned());
                }
            }
            let count = connection.read(&mut buffer).await.unwrap();
            assert!(count > 0, "the connection closed mid-answer");
            read.extend_from_slice(&buffer[..count]);
        }
    };
    tokio::time::timeout(Duration::from_secs(10), answer)
        .await
        .expect("an answer within 10 s")
}
