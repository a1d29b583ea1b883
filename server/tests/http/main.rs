//! The built binary serving MCP over Streamable HTTP (`--http 127.0.0.1:0`), seen from a real MCP
//! client (rmcp's Streamable HTTP client with a bearer token) and from raw HTTP requests:
//!
//! - every tool answers over HTTP exactly as over stdio, on the same database, with a token the
//!   `token` command minted;
//! - no token, a wrong one, and every kind of bad JWT get 401 with the challenge, and no tool
//!   runs; RS256, ES256 and EdDSA JWTs pass, with keys from a file or from a URL that rotates;
//! - a token without the scope a tool declares gets 403 `insufficient_scope`, and nothing is
//!   written;
//! - the protected-resource metadata (also at the public URL's path), `/healthz`, the Host,
//!   Origin and body-size checks (with and without a Content-Length), odd methods and paths;
//! - CORS: preflights and readable answers (a 401's challenge included) for allowed origins only;
//! - a non-loopback address without authentication is refused unless `--insecure-no-auth`, and
//!   a JWKS URL over plain http is refused; a redirecting JWKS URL is not followed (jwt.rs);
//! - slow clients are cut off (header, body and request deadlines), and an idle connection
//!   gives way to a newcomer when the cap is reached (the attack itself is `http_attack.rs`);
//! - SIGTERM lets a call in flight finish, ends the server with status 0, and is not held up by
//!   a client that never finishes its request; the logs (at trace level) never hold a token.
//!
//! Keys are generated once per run; the JWKS URL is served by the test itself on loopback. One
//! module per concern: [`tools`], [`tokens`], [`requests`], [`connections`]; the calls they
//! share are here.

use std::path::Path;

use serde_json::{Value, json};
use toolkit::testing::TestClient;

use test_support::{HttpServer, bearer};

mod connections;
mod requests;
mod tokens;
mod tools;

/// The issuer the JWT tests' tokens name.
const ISSUER: &str = "https://login.example.com/";

// ---------------------------------------------------------------------------------------------
// Calls

async fn call(client: &TestClient, tool: &str, arguments: Value) -> Value {
    let result = client.call(tool, arguments).await;
    serde_json::to_value(result.raw()).unwrap()
}

fn write_call(movie: &Value, author: &Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "reviews_write", "arguments": {"stars": 5, "movieId": movie, "authorId": author}},
    })
}

/// The result of a `tools/call` posted with `token`.
async fn tool_result(server: &HttpServer, token: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let response = server.post(Some(&bearer(token.to_owned())), &body).await;
    assert_eq!(response.status(), 200, "{tool}");
    let answer: Value = response.json().await.unwrap();
    answer["result"]["structuredContent"].clone()
}

async fn first_movie(server: &HttpServer, token: &str) -> Value {
    tool_result(server, token, "movies_search", json!({"limit": 1})).await["items"][0]["id"].clone()
}

async fn first_author(server: &HttpServer, token: &str) -> Value {
    tool_result(server, token, "authors_search", json!({"limit": 1})).await["items"][0]["id"]
        .clone()
}

async fn review_count(server: &HttpServer, token: &str, author: &Value) -> u64 {
    let page = tool_result(server, token, "reviews_list", json!({"authorId": author})).await;
    page["totalCount"].as_u64().expect("a count")
}

fn www_authenticate(response: &reqwest::Response) -> &str {
    response
        .headers()
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temp path")
}

fn merge(target: &mut Value, changes: Value) {
    if let (Some(target), Value::Object(changes)) = (target.as_object_mut(), changes) {
        for (name, value) in changes {
            if value.is_null() {
                target.remove(&name);
            } else {
                target.insert(name, value);
            }
        }
    }
}
