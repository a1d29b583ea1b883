//! Requests as MCP's 2026-07-28 revision sends them, with no `initialize` before: each carries
//! its protocol version and the client's capabilities in its own `_meta`. Over stdio and over
//! HTTP, the built binary answers them, says how long a client may keep the tool list and the
//! discovery result and that anyone may share them (`ttlMs`, `cacheScope`: both are fixed while
//! the server runs and the same for every caller), and names itself in the `_meta` of each of
//! those results and of every tool call's.

use std::collections::HashMap;

use serde_json::{Value, json};

use test_support::{HttpServer, Server, TempDir, bearer, http_client, mint};

/// How long the tool list and the discovery result may be kept: an hour, in milliseconds.
const FRESH_FOR_MS: u64 = 3_600_000;

/// The requests sent, by id: discovery, the tool list, a call that succeeds, one that fails and
/// one whose arguments are not an object.
fn requests() -> Vec<(u64, Value)> {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let request = |id: u64, method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = meta.clone();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, request)
    };
    vec![
        request(1, "server/discover", json!({})),
        request(2, "tools/list", json!({})),
        request(
            3,
            "tools/call",
            json!({"name": "movies_search", "arguments": {"limit": 1}}),
        ),
        request(
            4,
            "tools/call",
            json!({"name": "movies_get", "arguments": {"movieId": "not an id"}}),
        ),
        request(
            5,
            "tools/call",
            json!({"name": "movies_get", "arguments": "not an object"}),
        ),
    ]
}

/// Checks the answers to [`requests`], by id.
fn check(answers: &HashMap<u64, Value>) {
    let identity = json!({
        "name": "movie-reviews-mcp",
        "title": "Movie reviews",
        "version": env!("CARGO_PKG_VERSION"),
    });
    for id in 1..=5 {
        let answer = &answers[&id];
        let result = &answer["result"];
        assert!(
            result.is_object(),
            "request {id} answered with a result: {answer}"
        );
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"], identity,
            "request {id}'s result names the server: {answer}"
        );
    }
    for id in [1, 2] {
        let result = &answers[&id]["result"];
        assert_eq!(result["ttlMs"], FRESH_FOR_MS, "request {id}: {result}");
        assert_eq!(result["cacheScope"], "public", "request {id}: {result}");
    }
    let tools = answers[&2]["result"]["tools"].as_array().expect("tools");
    assert_eq!(
        tools.len(),
        test_support::tool_names().len(),
        "every tool is listed"
    );
    assert_eq!(answers[&3]["result"]["isError"], false, "{}", answers[&3]);
    assert_eq!(answers[&4]["result"]["isError"], true, "{}", answers[&4]);
    assert_eq!(answers[&4]["result"]["resultType"], "complete");
    assert_eq!(
        test_support::keys(&answers[&5]["result"]),
        test_support::keys(&answers[&4]["result"]),
        "arguments that are not an object fail as any call does: {}",
        answers[&5]
    );
}

#[test]
fn over_stdio_requests_without_initialize_get_caching_hints_and_the_servers_name() {
    let dir = TempDir::new("stateless-stdio");
    let mut server = Server::spawn(&dir.path().join("stateless.db"), dir.path());
    let requests = requests();
    for (_, request) in &requests {
        server.send(request);
    }
    let ids: Vec<u64> = requests.iter().map(|(id, _)| *id).collect();
    let answers = server.read_responses(&ids);
    check(&answers);
}

#[test]
fn over_http_requests_without_initialize_get_caching_hints_and_the_servers_name() {
    let dir = TempDir::new("stateless-http");
    let (token, entry) = mint(dir.path(), "reviews.read");
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("{entry}\n")).expect("write the tokens file");
    let tokens = tokens.to_str().expect("a UTF-8 path");
    let database = dir.path().join("stateless.db");
    let mut server = HttpServer::start(dir.path(), &database, &["--tokens-file", tokens]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let answers = runtime.block_on(async {
        let mut answers = HashMap::new();
        for (id, request) in requests() {
            // Over HTTP the revision also names itself, the method and the tool called in
            // headers of each request.
            let mut post = http_client()
                .post(server.url())
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", request["method"].as_str().expect("a method"))
                .header("authorization", bearer(token.clone()));
            if let Some(tool) = request["params"]["name"].as_str() {
                post = post.header("mcp-name", tool);
            }
            let response = post
                .body(request.to_string())
                .send()
                .await
                .expect("POST /mcp");
            let status = response.status();
            if status != 200 {
                panic!(
                    "request {id}: {status}: {}",
                    response.text().await.unwrap_or_default()
                );
            }
            answers.insert(id, response.json::<Value>().await.expect("a JSON answer"));
        }
        answers
    });
    check(&answers);
    server.terminate_and_expect_success();
}
