//! `/metrics` with the built binary serving HTTP: served on `--metrics-address` only (the MCP
//! address answers 404 there), in the Prometheus text format, and counting exactly what was
//! done: tool calls by tool and outcome, their durations, HTTP answers by status, and
//! authentication refusals by reason, with nothing left in flight.

use serde_json::{Value, json};

use test_support::{HttpServer, TempDir, http_client, mint};

const NOBODY: &str = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

#[tokio::test]
async fn a_scrape_counts_exactly_the_calls_answers_and_refusals_made() {
    let dir = TempDir::new("metrics");
    let (token, entry) = mint(dir.path(), "reviews.read");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--tokens", &entry, "--metrics-address", "127.0.0.1:0"],
    );
    let scrape_url = metrics_url(&server).await;
    let bearer = format!("Bearer {token}");

    let calls = [
        ("movies_search", json!({ "limit": 1 })),
        ("movies_search", json!({ "query": "a" })),
        ("movies_search", json!({ "limit": 0 })),
        ("movies_get", json!({ "movieId": NOBODY })),
    ];
    for (tool, arguments) in calls {
        let status = post(&server, Some(&bearer), tool, arguments).await;
        assert_eq!(status, 200, "{tool}");
    }
    let write = json!({ "stars": 3, "reviewId": NOBODY });
    assert_eq!(
        post(&server, Some(&bearer), "reviews_write", write).await,
        403
    );
    assert_eq!(post(&server, None, "movies_search", json!({})).await, 401);
    let wrong = "Bearer not-a-token";
    assert_eq!(
        post(&server, Some(wrong), "movies_search", json!({})).await,
        401
    );

    let response = http_client().get(&scrape_url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text"),
        "{:?}",
        response.headers()
    );
    let scraped = response.text().await.unwrap();
    for line in [
        r#"movie_reviews_tool_calls_total{tool="movies_search",outcome="ok"} 2"#,
        r#"movie_reviews_tool_calls_total{tool="movies_search",outcome="validation"} 1"#,
        r#"movie_reviews_tool_calls_total{tool="movies_get",outcome="not_found"} 1"#,
        r#"movie_reviews_tool_call_seconds_count{tool="movies_search"} 3"#,
        r#"movie_reviews_tool_call_seconds_count{tool="movies_get"} 1"#,
        r#"movie_reviews_auth_refusals_total{reason="missing"} 1"#,
        r#"movie_reviews_auth_refusals_total{reason="invalid"} 1"#,
        r#"movie_reviews_auth_refusals_total{reason="insufficient_scope"} 1"#,
        r#"movie_reviews_http_responses_total{status="200"} 4"#,
        r#"movie_reviews_http_responses_total{status="401"} 2"#,
        r#"movie_reviews_http_responses_total{status="403"} 1"#,
        "movie_reviews_http_requests_in_flight 0",
        r#"movie_reviews_database_connections{state="in_use"} 0"#,
        &format!(
            r#"movie_reviews_build_info{{version="{}"}} 1"#,
            env!("CARGO_PKG_VERSION")
        ),
    ] {
        assert!(
            scraped.lines().any(|scraped| scraped == line),
            "no line {line:?} in the scrape:\n{scraped}"
        );
    }
    // A write was refused before it ran, so no call of it was counted.
    assert!(!scraped.contains(r#"tool="reviews_write""#), "{scraped}");

    let on_mcp_address = http_client()
        .get(format!("{}/metrics", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(on_mcp_address.status(), 404);
}

/// A `tools/call` of `tool` POSTed with `authorization`; its HTTP status.
async fn post(
    server: &HttpServer,
    authorization: Option<&str>,
    tool: &str,
    arguments: Value,
) -> u16 {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments } });
    server.post(authorization, &body).await.status().as_u16()
}

/// Where the server says it serves its metrics.
async fn metrics_url(server: &HttpServer) -> String {
    const SAYS: &str = "serving metrics on ";
    let line = server.logged_line(|line| line.contains(SAYS)).await;
    let url = line
        .split(SAYS)
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next());
    url.unwrap_or_else(|| panic!("no address after {SAYS:?}: {line}"))
        .to_owned()
}
