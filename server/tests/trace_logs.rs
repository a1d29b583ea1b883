//! Trace ids in the log, with the built binary: every log line of a tool call carries the trace
//! id of the W3C `traceparent` the client sent, in the request's `_meta` (over stdio or HTTP)
//! or as the HTTP header, and a request id of its own when it sent none; `--log-format json`
//! writes every line on stderr as one JSON object, the id in its `span`.

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use test_support::{HttpServer, Server, TempDir, binary};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const OTHER_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";

fn traceparent(trace: &str) -> String {
    format!("00-{trace}-00f067aa0ba902b7-01")
}

#[test]
fn over_stdio_json_lines_carry_the_clients_trace_id_or_a_request_id() {
    let dir = TempDir::new("trace-stdio");
    let mut command = Command::new(binary());
    command
        .arg("--database")
        .arg(dir.path().join("reviews.db"))
        .args(["--log-format", "json"])
        .env("RUST_LOG", "debug");
    let mut server = Server::start(command, dir.path());
    server.initialize();
    let traced = json!({ "name": "movies_search", "arguments": { "limit": 1 },
        "_meta": { "traceparent": traceparent(TRACE) } });
    let untraced = json!({ "name": "movies_search", "arguments": { "limit": 1 } });
    for (id, params) in [(2, &traced), (3, &untraced), (4, &untraced)] {
        let result = server.result(id, "tools/call", params.clone());
        assert_eq!(result["isError"], false, "{result}");
    }
    server.close_stdin();
    server.wait_for_exit(Duration::from_secs(10));
    let stderr = server.finish();

    let lines: Vec<Value> = stderr
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| panic!("not one JSON object: {line}"))
        })
        .collect();
    let call_ids: Vec<&str> = lines
        .iter()
        .filter(|line| line["fields"]["message"] == "tool call")
        .map(|line| line["span"]["trace_id"].as_str().expect("a trace id"))
        .collect();
    assert_eq!(call_ids.len(), 3, "{stderr}");
    assert_eq!(call_ids[0], TRACE);
    for request_id in &call_ids[1..] {
        assert_eq!(request_id.len(), 16, "{request_id}");
        assert!(request_id.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    assert_ne!(call_ids[1], call_ids[2], "two calls got one request id");
}

#[tokio::test]
async fn over_http_the_header_names_the_trace_unless_meta_does() {
    let dir = TempDir::new("trace-http");
    let server = HttpServer::start(dir.path(), &dir.path().join("reviews.db"), &[]);
    let call = |meta: Option<&str>| {
        let mut params = json!({ "name": "movies_search", "arguments": { "limit": 1 } });
        if let Some(trace) = meta {
            params["_meta"] = json!({ "traceparent": traceparent(trace) });
        }
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params })
    };
    for (header, meta, logged) in [
        (TRACE, None, TRACE),
        (TRACE, Some(OTHER_TRACE), OTHER_TRACE),
    ] {
        let response = test_support::http_client()
            .post(server.url())
            .header("accept", "application/json, text/event-stream")
            .header("traceparent", traceparent(header))
            .json(&call(meta))
            .send()
            .await
            .expect("a tool call");
        let answer: Value = response.json().await.expect("a JSON answer");
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        let line = server
            .logged_line(|line| line.contains("tool call") && line.contains(logged))
            .await;
        assert!(
            line.contains(&format!("tools/call{{trace_id={logged}}}")),
            "{line}"
        );
    }
}
