//! The user's confirmation of a deletion, through the built binary, with the wire messages a
//! client sends and with the test kit's HTTP client: over stdio on 2025-11-25 the server sends
//! `elicitation/create` and waits for the answer; on 2026-07-28, over stdio and HTTP, it
//! answers `input_required` with a sealed state that a retry brings back, accepted by a replica
//! with the same key file and refused by one with another. A client that cannot ask meets
//! `--confirm`. Every call logs one audit event.

use serde_json::{Value, json};
use toolkit::testing::{Answer, ErrorKind, TestClient};

use test_support::{HttpServer, Server, TempDir, bearer, http_client, mint};

const KEY: &str = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const OTHER_KEY: &str = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";
const DECLINED: &str = "Cancelled: the review was not deleted.";

/// The first review of the demo data, and the question its deletion asks.
fn first_review(server: &mut Server) -> (Value, String) {
    first_review_with(server, json!({}))
}

/// [`first_review`], asked with `meta` as the request's `_meta`.
fn first_review_with(server: &mut Server, meta: Value) -> (Value, String) {
    let page = server.result(
        50,
        "tools/call",
        json!({"name": "reviews_list", "arguments": {"limit": 1}, "_meta": meta}),
    );
    let review = page["structuredContent"]["items"][0].clone();
    let question = question(&review);
    (review["id"].clone(), question)
}

fn question(review: &Value) -> String {
    format!(
        "Delete the {}-star review of \"{}\" by {}? This can't be undone.",
        review["stars"],
        review["movieTitle"].as_str().expect("a title"),
        review["authorName"].as_str().expect("a name"),
    )
}

/// Whether review `id` is still there.
fn still_there(server: &mut Server, id: &Value) -> bool {
    still_there_with(server, id, json!({}))
}

/// [`still_there`], asked with `meta` as the request's `_meta`.
fn still_there_with(server: &mut Server, id: &Value, meta: Value) -> bool {
    let found = server.result(
        51,
        "tools/call",
        json!({"name": "reviews_list", "arguments": {"reviewId": id}, "_meta": meta}),
    );
    found["isError"] == false
}

/// A server on stdio whose client initialized on 2025-11-25 declaring form elicitation.
fn asking_server(dir: &TempDir, args: &[&str]) -> Server {
    let mut server = Server::spawn_with_args(&dir.path().join("reviews.db"), dir.path(), args);
    let capabilities = json!({"elicitation": {"form": {}}});
    server.result(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "confirming-test", "version": "1.0.0"},
        }),
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server
}

/// Sends the deletion of `review` as request `id`, answers the server's question with
/// `answer`, and returns the question asked and the call's result.
fn delete_answering(server: &mut Server, id: u64, review: &Value, answer: Value) -> (Value, Value) {
    server.send_call(id, "reviews_delete", json!({"reviewId": review}));
    let asked = server.read_message();
    assert_eq!(
        asked["method"], "elicitation/create",
        "the server asks: {asked}"
    );
    server.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}));
    let answered = server.read_message();
    assert_eq!(answered["id"], json!(id), "{answered}");
    (asked["params"].clone(), answered["result"].clone())
}

#[test]
fn over_stdio_the_user_is_asked_and_a_yes_deletes() {
    let dir = TempDir::new("confirm-stdio-yes");
    let mut server = asking_server(&dir, &[]);
    let (review, question) = first_review(&mut server);

    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let (asked, result) = delete_answering(&mut server, 2, &review, yes);
    assert_eq!(asked["message"], question.as_str());
    assert_eq!(asked["mode"], "form", "{asked}");
    assert_eq!(asked["requestedSchema"]["required"], json!(["confirm"]));
    assert_eq!(
        asked["requestedSchema"]["properties"]["confirm"],
        json!({"type": "boolean", "title": "Confirm"})
    );
    assert_eq!(result["isError"], false, "{result}");
    assert!(!still_there(&mut server, &review));

    let audit = server.wait_for_stderr_line(|line| line.contains("destructive call"));
    for part in [
        "caller=\"stdio\"",
        "tool=\"reviews_delete\"",
        "outcome=\"confirmed\"",
    ] {
        assert!(audit.contains(part), "{part} in {audit}");
    }
    assert!(audit.contains(review.as_str().unwrap()), "{audit}");
}

#[test]
fn over_stdio_a_no_or_a_dismissal_deletes_nothing() {
    let dir = TempDir::new("confirm-stdio-no");
    let mut server = asking_server(&dir, &[]);
    let (review, _) = first_review(&mut server);
    let answers = [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ];
    for (id, answer) in (2..).zip(answers) {
        let (_, result) = delete_answering(&mut server, id, &review, answer.clone());
        assert_eq!(result["isError"], true, "{answer}");
        assert_eq!(result["content"][0]["text"], DECLINED, "{answer}");
        assert!(still_there(&mut server, &review), "{answer}");
    }
    let audit = server.wait_for_stderr_line(|line| line.contains("outcome=\"declined\""));
    assert!(audit.contains("caller=\"stdio\""), "{audit}");
}

#[test]
fn a_client_that_cannot_ask_meets_the_confirm_mode() {
    for (mode, deletes) in [("ask", true), ("require", false), ("off", true)] {
        let dir = TempDir::new("confirm-modes");
        let database = dir.path().join("reviews.db");
        let mut server = Server::spawn_with_args(&database, dir.path(), &["--confirm", mode]);
        server.initialize();
        let (review, _) = first_review(&mut server);
        let result = server.result(
            2,
            "tools/call",
            json!({"name": "reviews_delete", "arguments": {"reviewId": review}}),
        );
        assert_eq!(result["isError"], !deletes, "{mode}: {result}");
        if !deletes {
            assert_eq!(
                result["content"][0]["text"],
                "Error: this client can't ask the user to confirm, and this server requires it."
            );
        }
        assert_eq!(still_there(&mut server, &review), !deletes, "{mode}");
        let outcome = if deletes { "not asked" } else { "refused" };
        server.wait_for_stderr_line(|line| line.contains(&format!("outcome=\"{outcome}\"")));
    }
}

/// `_meta` of a 2026-07-28 request from a client that declares form elicitation.
fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "confirming-test", "version": "1.0.0"},
    })
}

/// A 2026-07-28 `tools/call` of `reviews_delete` for `review`, retried with `retry` (the
/// state and the user's answer) when given.
fn modern_delete(id: u64, review: &Value, retry: Option<(&Value, Value)>) -> Value {
    let mut params = json!({
        "name": "reviews_delete",
        "arguments": {"reviewId": review},
        "_meta": modern_meta(),
    });
    if let Some((state, answer)) = retry {
        params["requestState"] = state.clone();
        params["inputResponses"] = json!({"confirm": answer});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[test]
fn over_stdio_on_2026_07_28_the_call_asks_for_input_and_its_retry_deletes() {
    let dir = TempDir::new("confirm-stdio-modern");
    let mut server = Server::spawn(&dir.path().join("reviews.db"), dir.path());
    let (review, question) = first_review_with(&mut server, modern_meta());

    server.send(&modern_delete(2, &review, None));
    let asked = server.read_message();
    let asked = &asked["result"];
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let request = &asked["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    assert_eq!(request["params"]["message"], question.as_str());
    let state = asked["requestState"].clone();
    assert!(state.is_string(), "{asked}");
    assert!(
        still_there_with(&mut server, &review, modern_meta()),
        "nothing is deleted before the answer"
    );

    let no = json!({"action": "decline"});
    server.send(&modern_delete(3, &review, Some((&state, no))));
    let declined = server.read_message();
    assert_eq!(
        declined["result"]["content"][0]["text"], DECLINED,
        "{declined}"
    );
    assert!(still_there_with(&mut server, &review, modern_meta()));

    let yes = json!({"action": "accept", "content": {"confirm": true}});
    server.send(&modern_delete(4, &review, Some((&state, yes))));
    let deleted = server.read_message();
    assert_eq!(deleted["result"]["isError"], false, "{deleted}");
    assert!(!still_there_with(&mut server, &review, modern_meta()));
}

/// An HTTP server on its own copy of the demo data (the same reviews, by the same ids) whose
/// key file holds `keys`, and which accepts the tokens of `tokens`.
fn replica(dir: &TempDir, name: &str, tokens: &std::path::Path, keys: &str) -> HttpServer {
    let key_file = dir.path().join(format!("{name}.key"));
    std::fs::write(&key_file, keys).unwrap();
    let database = dir.path().join(format!("{name}.db"));
    let args = [
        "--tokens-file",
        tokens.to_str().unwrap(),
        "--state-key-file",
        key_file.to_str().unwrap(),
    ];
    HttpServer::start(dir.path(), &database, &args)
}

async fn post(server: &HttpServer, token: &str, request: &Value) -> Value {
    let response = http_client()
        .post(server.url())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", request["params"]["name"].as_str().unwrap())
        .header("authorization", bearer(token.to_owned()))
        .body(request.to_string())
        .send()
        .await
        .expect("POST /mcp");
    assert_eq!(response.status(), 200);
    response.json().await.expect("a JSON answer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_with_one_key_file_accept_each_others_confirmations() {
    let dir = TempDir::new("confirm-replicas");
    // One caller, known to every replica: a confirmation is the caller's own.
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    // A static token's subject: `token:` and the start of its hash.
    let hash = entry.trim_start_matches("sha256:");
    let subject = format!("token:{}", &hash[..8]);
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("{entry}\n")).unwrap();
    let asking = replica(&dir, "a", &tokens, &format!("{KEY}\n"));
    // Rotating: a new key first, the one the other replica signs with second.
    let same = replica(
        &dir,
        "b",
        &tokens,
        &format!("# rotated\n{OTHER_KEY}\n{KEY}\n"),
    );
    let other = replica(&dir, "c", &tokens, &format!("{OTHER_KEY}\n"));

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "reviews_list", "arguments": {"limit": 1}, "_meta": modern_meta(),
    }});
    let page = post(&asking, &token, &list).await;
    let review = page["result"]["structuredContent"]["items"][0].clone();
    let asked = post(&asking, &token, &modern_delete(2, &review["id"], None)).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    assert_eq!(
        asked["result"]["inputRequests"]["confirm"]["params"]["message"],
        question(&review).as_str()
    );
    let state = asked["result"]["requestState"].clone();
    let yes = json!({"action": "accept", "content": {"confirm": true}});

    let refused = post(
        &other,
        &token,
        &modern_delete(3, &review["id"], Some((&state, yes.clone()))),
    )
    .await;
    assert_eq!(
        refused["result"]["content"][0]["text"],
        "Error: the confirmation has expired or does not match this call; call the tool again.",
        "{refused}"
    );
    let still = post(&other, &token, &list).await;
    assert_eq!(
        still["result"]["structuredContent"]["items"][0]["id"],
        review["id"]
    );

    let deleted = post(
        &same,
        &token,
        &modern_delete(4, &review["id"], Some((&state, yes))),
    )
    .await;
    assert_eq!(deleted["result"]["isError"], false, "{deleted}");
    let after = post(&same, &token, &list).await;
    assert_ne!(
        after["result"]["structuredContent"]["items"][0]["id"],
        review["id"]
    );

    let audit = same
        .logged_line(|line| line.contains("destructive call"))
        .await;
    assert!(audit.contains("outcome=\"confirmed\""), "{audit}");
    assert!(audit.contains(&format!("caller=\"{subject}\"")), "{audit}");
    for mut server in [asking, same, other] {
        server.terminate_and_expect_success();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stateless_http_before_2026_07_28_no_one_can_be_asked() {
    let dir = TempDir::new("confirm-http-legacy");
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("{entry}\n")).unwrap();
    let tokens = tokens.to_str().unwrap();
    let database = dir.path().join("reviews.db");
    let args = ["--tokens-file", tokens, "--confirm", "require"];
    let mut server = HttpServer::start(dir.path(), &database, &args);
    // On 2025-11-25 each POST is served on its own: the server cannot ask and wait.
    let client = server.client(Some(&token)).await;
    let page = client.call("reviews_list", json!({"limit": 1})).await;
    let review = page.structured().unwrap()["items"][0]["id"].clone();
    let refused = client
        .call("reviews_delete", json!({"reviewId": review}))
        .await;
    assert_eq!(refused.error_kind(), Some(ErrorKind::Refused));
    assert_eq!(
        refused.text(),
        "Error: this client can't ask the user to confirm, and this server requires it."
    );
    assert!(client.asked().is_empty());
    let still = client
        .call("reviews_list", json!({"reviewId": review}))
        .await;
    assert!(!still.is_error(), "the review is still there");
    server.terminate_and_expect_success();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_on_2026_07_28_the_user_is_asked() {
    let dir = TempDir::new("confirm-http-rmcp");
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    let tokens = dir.path().join("tokens");
    std::fs::write(&tokens, format!("{entry}\n")).unwrap();
    let database = dir.path().join("reviews.db");
    let args = ["--tokens-file", tokens.to_str().unwrap()];
    let mut server = HttpServer::start(dir.path(), &database, &args);

    for answer in [Answer::Decline, Answer::Cancel, Answer::Accept] {
        let client = (TestClient::builder().bearer(&token).answer(answer))
            .connect_http(&server.url())
            .await;
        let page = client.call("reviews_list", json!({"limit": 1})).await;
        let review = page.structured().unwrap()["items"][0].clone();
        let result = client
            .call("reviews_delete", json!({"reviewId": review["id"]}))
            .await;
        assert_eq!(client.asked(), [question(&review)], "{answer:?}");
        let still = client
            .call("reviews_list", json!({"reviewId": review["id"]}))
            .await;
        let deleted = answer == Answer::Accept;
        assert_eq!(result.is_error(), !deleted, "{answer:?}");
        assert_eq!(
            still.is_error(),
            deleted,
            "{answer:?}: deleted only on a yes"
        );
        if !deleted {
            assert_eq!(result.text(), DECLINED);
        }
    }
    server.terminate_and_expect_success();
}
