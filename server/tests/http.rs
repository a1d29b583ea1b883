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
//! Keys are generated once per run; the JWKS URL is served by the test itself on loopback.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use test_support::jwt::{
    JwksServer, TestKey, hs256, jwks_document, keys, now, tamper, unsigned, write_jwks,
};
use test_support::{
    EXIT_TIMEOUT, HttpServer, TempDir, bearer, connect, http_client, http_command, mint,
    read_answer, run, text_of,
};

const ISSUER: &str = "https://login.example.com/";

// ---------------------------------------------------------------------------------------------
// Tests

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_over_http_as_over_stdio() {
    let dir = TempDir::new("http-same");
    let database = dir.path().join("reviews.db");
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    let tokens = dir.path().join("tokens.txt");
    std::fs::write(&tokens, format!("# the team\n{entry}\n")).unwrap();
    let server = HttpServer::start(dir.path(), &database, &["--tokens-file", path(&tokens)]);
    let client = server.client(Some(&token)).await;
    let mut stdio = test_support::Server::spawn(&database, dir.path());
    stdio.initialize();
    let mut next_id = 10;
    let mut both = |tool: &str, arguments: Value| {
        let over_stdio = stdio.result(
            next_id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        next_id += 1;
        (over_stdio, arguments)
    };

    let movies = call(
        &client,
        "movies_search",
        json!({"query": "night", "limit": 3}),
    )
    .await;
    let (over_stdio, _) = both("movies_search", json!({"query": "night", "limit": 3}));
    assert_eq!(movies, over_stdio);
    let movie = movies["structuredContent"]["items"][0]["id"].clone();
    let authors = call(&client, "authors_search", json!({"limit": 2})).await;
    assert_eq!(authors, both("authors_search", json!({"limit": 2})).0);
    let author = authors["structuredContent"]["items"][0]["id"].clone();
    for (tool, arguments) in [
        ("movies_get", json!({"movieId": movie})),
        ("reviews_list", json!({"movieId": movie, "limit": 5})),
        (
            "reviews_list",
            json!({"authorId": "00000000-0000-0000-0000-000000000000"}),
        ),
        ("movies_search", json!({"limit": 0, "movie_id": 1})),
    ] {
        let over_http = call(&client, tool, arguments.clone()).await;
        assert_eq!(over_http, both(tool, arguments).0, "{tool}");
    }

    let written = call(
        &client,
        "reviews_write",
        json!({"stars": 4, "movieId": movie, "authorId": author}),
    )
    .await;
    assert_eq!(written["isError"], false, "{written}");
    let review = written["structuredContent"]["id"].clone();
    let (listed, _) = both("reviews_list", json!({"reviewId": review}));
    assert_eq!(
        listed["structuredContent"]["items"][0],
        written["structuredContent"]
    );
    let changed = call(
        &client,
        "reviews_write",
        json!({"stars": 2, "reviewId": review}),
    )
    .await;
    let (listed, _) = both("reviews_list", json!({"reviewId": review}));
    assert_eq!(
        listed["structuredContent"]["items"][0],
        changed["structuredContent"]
    );
    let deleted = call(&client, "reviews_delete", json!({"reviewId": review})).await;
    assert_eq!(
        deleted["structuredContent"],
        json!({"reviewId": review, "deleted": true})
    );
    let again = call(&client, "reviews_delete", json!({"reviewId": review})).await;
    assert_eq!(again, both("reviews_delete", json!({"reviewId": review})).0);
    assert!(text_of(&again).starts_with("Not Found: "), "{again}");

    client.cancel().await.unwrap();
    stdio.close_stdin();
    stdio.finish();
    server.assert_no_secret_in_logs(&[&token]);
}

#[tokio::test]
async fn a_request_without_a_valid_token_gets_401_and_runs_nothing() {
    let dir = TempDir::new("http-401");
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--tokens",
            &entry,
            "--jwt-issuer",
            ISSUER,
            "--jwks-file",
            path(&write_jwks(
                dir.path(),
                &[&keys().rsa, &keys().ec, &keys().ed],
            )),
        ],
    );
    let audience = server.resource();
    let challenge = format!("Bearer resource_metadata=\"{}\"", server.metadata_url());
    let invalid = format!(
        "Bearer error=\"invalid_token\", resource_metadata=\"{}\"",
        server.metadata_url()
    );
    let now = now();
    let claims = |changes: Value| {
        let mut claims = json!({
            "iss": ISSUER, "aud": audience, "sub": "ada", "exp": now + 600, "nbf": now - 10,
            "scope": "reviews.read reviews.write",
        });
        merge(&mut claims, changes);
        claims
    };
    let ed = &keys().ed;
    let stranger = TestKey::ed25519("ed-1");
    let cases: Vec<(&str, Option<String>, &str)> = vec![
        ("no Authorization header", None, &challenge),
        (
            "another scheme",
            Some("Basic YWRhOmxvdmVsYWNl".to_owned()),
            &challenge,
        ),
        (
            "an empty bearer token",
            Some("Bearer ".to_owned()),
            &invalid,
        ),
        (
            "an unknown static token",
            Some(format!("Bearer mrm_{}", "0".repeat(64))),
            &invalid,
        ),
        (
            "a static token with a byte changed",
            Some(format!("Bearer {}x", &token[..token.len() - 1])),
            &invalid,
        ),
        (
            "an expired JWT",
            Some(bearer(ed.sign(&claims(
                json!({"exp": now - 3600, "nbf": now - 7200}),
            )))),
            &invalid,
        ),
        (
            "a JWT for another audience",
            Some(bearer(ed.sign(&claims(
                json!({"aud": "https://other.example.com/mcp"}),
            )))),
            &invalid,
        ),
        (
            "a JWT without an audience",
            Some(bearer(ed.sign(&claims(json!({"aud": null}))))),
            &invalid,
        ),
        (
            "a JWT from another issuer",
            Some(bearer(
                ed.sign(&claims(json!({"iss": "https://evil.example.com/"}))),
            )),
            &invalid,
        ),
        (
            "a JWT without an expiry",
            Some(bearer(ed.sign(&claims(json!({"exp": null}))))),
            &invalid,
        ),
        (
            "a JWT not valid yet",
            Some(bearer(ed.sign(&claims(json!({"nbf": now + 3600}))))),
            &invalid,
        ),
        (
            "a JWT signed by an unknown key with a known kid",
            Some(bearer(stranger.sign(&claims(json!({}))))),
            &invalid,
        ),
        (
            "a JWT signed by an unknown key",
            Some(bearer(
                TestKey::ed25519("stranger").sign(&claims(json!({}))),
            )),
            &invalid,
        ),
        (
            "an alg none JWT",
            Some(bearer(unsigned(
                &json!({"alg": "none", "typ": "JWT"}),
                &claims(json!({})),
            ))),
            &invalid,
        ),
        (
            "an HS256 JWT keyed with the RSA key's modulus",
            Some(bearer(hs256(&keys().rsa, &claims(json!({}))))),
            &invalid,
        ),
        (
            "an RS256 key's kid on an ES256 signature",
            Some(bearer(
                keys().ec.sign_as(&keys().rsa.kid, &claims(json!({}))),
            )),
            &invalid,
        ),
        (
            "a JWT with its payload changed",
            Some(bearer(tamper(
                &ed.sign(&claims(json!({"scope": "reviews.read"}))),
            ))),
            &invalid,
        ),
    ];
    let movie = first_movie(&server, &token).await;
    let author = first_author(&server, &token).await;
    let before = review_count(&server, &token, &author).await;
    for (case, authorization, expected) in &cases {
        let response = server
            .post(authorization.as_deref(), &write_call(&movie, &author))
            .await;
        assert_eq!(response.status(), 401, "{case}");
        assert_eq!(www_authenticate(&response), *expected, "{case}");
    }
    assert_eq!(
        review_count(&server, &token, &author).await,
        before,
        "a refused write ran"
    );
    // The GET stream and DELETE are behind the same gate.
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = http_client()
            .request(method.clone(), server.url())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{method}");
    }
    let secrets: Vec<String> = cases
        .iter()
        .filter_map(|(_, authorization, _)| authorization.as_deref())
        .filter_map(|header| header.strip_prefix("Bearer "))
        .filter(|secret| secret.len() > 8)
        .map(str::to_owned)
        .chain([token])
        .collect();
    server.assert_no_secret_in_logs(&secrets.iter().map(String::as_str).collect::<Vec<_>>());
    // Anyone can send bad tokens: one info line a minute counts them, each is at debug level.
    let logs = server.logs();
    let counted = logs
        .lines()
        .filter(|line| line.contains("INFO") && line.contains("with an invalid token"))
        .count();
    assert_eq!(counted, 1, "{logs}");
}

#[tokio::test]
async fn rs256_es256_and_eddsa_jwts_are_accepted_from_a_jwks_file() {
    let dir = TempDir::new("http-jwt");
    let keys = keys();
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--jwt-issuer",
            ISSUER,
            "--jwks-file",
            path(&write_jwks(dir.path(), &[&keys.rsa, &keys.ec, &keys.ed])),
        ],
    );
    let now = now();
    let mut secrets = Vec::new();
    for (key, scopes) in [
        (&keys.rsa, json!({"scope": "reviews.read"})),
        (&keys.ec, json!({"scp": ["reviews.read", "other"]})),
        (&keys.ed, json!({"scope": "openid reviews.read"})),
    ] {
        let mut claims = json!({
            // An expiry a little in the past is within the 60 s leeway.
            "iss": ISSUER, "aud": server.resource(), "sub": "ada", "exp": now - 20,
        });
        merge(&mut claims, scopes);
        let jwt = key.sign(&claims);
        let client = server.client(Some(&jwt)).await;
        let page = call(&client, "movies_search", json!({"limit": 1})).await;
        assert_eq!(page["isError"], false, "{}: {page}", key.kid);
        client.cancel().await.unwrap();
        secrets.push(jwt);
    }
    // Over HTTP, in the metadata: the issuer is the authorization server.
    let metadata = server
        .get_json("/.well-known/oauth-protected-resource")
        .await;
    assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
    server.assert_no_secret_in_logs(&secrets.iter().map(String::as_str).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_token_without_the_scope_a_tool_declares_gets_403_and_writes_nothing() {
    let dir = TempDir::new("http-403");
    let (reader, reader_entry) = mint(dir.path(), "reviews.read");
    let (writer, writer_entry) = mint(dir.path(), "reviews.write");
    let (both, both_entry) = mint(dir.path(), "reviews.read,reviews.write");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--tokens",
            &format!("{reader_entry};{writer_entry};{both_entry}"),
            "--jwt-issuer",
            ISSUER,
            "--jwks-file",
            path(&write_jwks(dir.path(), &[&keys().ec])),
        ],
    );
    let movie = first_movie(&server, &both).await;
    let author = first_author(&server, &both).await;
    let before = review_count(&server, &both, &author).await;
    let jwt_reader = keys().ec.sign(&json!({
        "iss": ISSUER, "aud": server.resource(), "exp": now() + 600, "scope": "reviews.read",
    }));
    let write_challenge = format!(
        "Bearer error=\"insufficient_scope\", scope=\"reviews.write\", resource_metadata=\"{}\"",
        server.metadata_url()
    );
    let read_challenge = write_challenge.replace("reviews.write", "reviews.read");
    let delete = json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "reviews_delete", "arguments": {"reviewId": "00000000-0000-0000-0000-000000000000"}},
    });
    let search = json!({
        "jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {}},
    });
    for (case, token, body, expected) in [
        (
            "a read token writing",
            &reader,
            write_call(&movie, &author),
            &write_challenge,
        ),
        (
            "a read JWT writing",
            &jwt_reader,
            write_call(&movie, &author),
            &write_challenge,
        ),
        ("a read token deleting", &reader, delete, &write_challenge),
        (
            "a write token searching",
            &writer,
            search.clone(),
            &read_challenge,
        ),
    ] {
        let response = server.post(Some(&bearer(token.clone())), &body).await;
        assert_eq!(response.status(), 403, "{case}");
        assert_eq!(www_authenticate(&response), *expected, "{case}");
    }
    // A write hidden in a batch runs neither: MCP has no batches, so the whole is refused.
    let batch = json!([search, write_call(&movie, &author)]);
    let response = server.post(Some(&bearer(reader.clone())), &batch).await;
    assert_eq!(response.status(), 400, "a batch");
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(
        review_count(&server, &both, &author).await,
        before,
        "a refused write ran"
    );

    // A write token writes; an unknown tool is the protocol's error, for any valid token.
    let response = server
        .post(Some(&bearer(writer.clone())), &write_call(&movie, &author))
        .await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(review_count(&server, &both, &author).await, before + 1);
    let unknown = json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "reviews_burn", "arguments": {}},
    });
    let answer: Value = server
        .post(Some(&bearer(reader.clone())), &unknown)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    server.assert_no_secret_in_logs(&[&reader, &writer, &both, &jwt_reader]);
}

#[tokio::test]
async fn the_metadata_healthz_hosts_origins_and_body_limit() {
    let dir = TempDir::new("http-edges");
    let (token, entry) = mint(dir.path(), "reviews.read");
    let (writer, writer_entry) = mint(dir.path(), "reviews.read,reviews.write");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--tokens",
            &format!("{entry};{writer_entry}"),
            "--max-body-bytes",
            "4096",
            "--allowed-origin",
            "http://localhost:6274",
        ],
    );
    let expected = json!({
        "resource": server.resource(),
        "scopes_supported": ["reviews.read", "reviews.write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Movie reviews",
    });
    assert_eq!(
        server
            .get_json("/.well-known/oauth-protected-resource")
            .await,
        expected
    );
    assert_eq!(
        server
            .get_json("/.well-known/oauth-protected-resource/mcp")
            .await,
        expected
    );
    let health = http_client()
        .get(format!("{}/healthz", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.text().await.unwrap(), "ok\n");

    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let post = |headers: &[(&str, &str)]| {
        let mut request = http_client()
            .post(server.url())
            .bearer_auth(&token)
            .header("accept", "application/json, text/event-stream")
            .json(&list);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send()
    };
    let origin = server.origin();
    for (case, headers, status) in [
        ("a plain request", vec![], 200),
        (
            "the server's own origin",
            vec![("origin", origin.as_str())],
            200,
        ),
        (
            "an origin named with --allowed-origin",
            vec![("origin", "http://localhost:6274")],
            200,
        ),
        (
            "a rebound host name",
            vec![("host", "evil.example.com")],
            403,
        ),
        (
            "another origin",
            vec![("origin", "http://evil.example.com")],
            403,
        ),
    ] {
        assert_eq!(post(&headers).await.unwrap().status(), status, "{case}");
    }
    let big = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {"query": "x".repeat(5000)}},
    });
    let response = server.post(Some(&bearer(token.clone())), &big).await;
    assert_eq!(response.status(), 413);

    // Without a Content-Length (chunked), the body is refused once it passes the limit, and
    // the write in it does not run.
    let movie = first_movie(&server, &writer).await;
    let author = first_author(&server, &writer).await;
    let before = review_count(&server, &writer, &author).await;
    let mut body = write_call(&movie, &author).to_string();
    body.insert_str(1, &" ".repeat(6000));
    let mut chunked = String::new();
    for chunk in body.as_bytes().chunks(1000) {
        let chunk = std::str::from_utf8(chunk).unwrap();
        chunked.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    chunked.push_str("0\r\n\r\n");
    let mut connection = connect(server.port).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {writer}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Transfer-Encoding: chunked\r\n\r\n{chunked}"
    );
    connection.write_all(head.as_bytes()).await.unwrap();
    let answer = read_answer(&mut connection).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert_eq!(review_count(&server, &writer, &author).await, before);
    server.assert_no_secret_in_logs(&[&token, &writer]);
}

// Multi-threaded: the JWKS server answers while the test waits for the server to start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_from_a_jwks_url_follow_rotation_and_bogus_kids_do_not_hammer_it() {
    let dir = TempDir::new("http-jwks-url");
    let first = TestKey::ed25519("first");
    let second = TestKey::es256("second");
    let jwks = JwksServer::start(jwks_document(&[&first])).await;
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--jwt-issuer", ISSUER, "--jwks-url", &jwks.url],
    );
    let claims = json!({
        "iss": ISSUER, "aud": server.resource(), "exp": now() + 600, "scope": "reviews.read",
    });
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let status = |jwt: String| {
        let server = &server;
        let list = &list;
        async move { server.post(Some(&bearer(jwt)), list).await.status() }
    };
    assert_eq!(jwks.fetches(), 1, "fetched at start-up");
    assert_eq!(status(first.sign(&claims)).await, 200);
    assert_eq!(jwks.fetches(), 1, "a known key needs no fetch");

    jwks.publish(jwks_document(&[&second]));
    assert_eq!(
        status(second.sign(&claims)).await,
        200,
        "the new key is fetched"
    );
    assert_eq!(jwks.fetches(), 2);
    // The first key is gone from the cache with the document it came in.
    assert_eq!(status(first.sign(&claims)).await, 401);
    for bogus in 0..5 {
        let key = TestKey::ed25519(&format!("bogus-{bogus}"));
        assert_eq!(status(key.sign(&claims)).await, 401);
    }
    assert_eq!(
        jwks.fetches(),
        2,
        "unknown kids within 30 s fetch nothing more"
    );
}

#[test]
fn a_non_loopback_address_without_authentication_needs_the_insecure_flag() {
    let dir = TempDir::new("http-insecure");
    let database = dir.path().join("reviews.db");
    let refused = run(http_command(dir.path(), &database, "0.0.0.0:0", &[]));
    assert!(!refused.status.success());
    assert!(
        refused
            .stderr
            .contains("refusing to serve 0.0.0.0:0 without authentication")
            && refused.stderr.contains("--insecure-no-auth"),
        "{}",
        refused.stderr
    );
    assert!(!database.exists(), "refused before touching the database");

    let mut server = HttpServer::spawn(http_command(
        dir.path(),
        &database,
        "0.0.0.0:0",
        &["--insecure-no-auth"],
    ));
    server.terminate_and_expect_success();
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
    let mut connection = connect(server.port).await;
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

/// A client that sends slowly holds a connection only so long, and an idle one not at all when
/// someone else needs it: with one connection allowed, a head that never ends is closed at its
/// deadline, or at once when a newcomer arrives; a body that never ends keeps its request busy
/// until the body's deadline (408), and meanwhile a newcomer is turned away with 503.
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
    let mut slow = connect(server.port).await;
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
    let mut slow = connect(server.port).await;
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

    let mut slow = connect(server.port).await;
    slow.write_all(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"jsonrpc\":",
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let turned_away = http_client()
        .get(format!("{}/healthz", server.origin()))
        .send()
        .await
        .unwrap();
    assert_eq!(turned_away.status(), 503);
    let answer = read_answer(&mut slow).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn browser_clients_get_cors_headers_from_allowed_origins_only() {
    const ALLOWED: &str = "http://localhost:6274";
    const OTHER: &str = "http://evil.example.com";
    let dir = TempDir::new("http-cors");
    let (token, entry) = mint(dir.path(), "reviews.read");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--tokens", &entry, "--allowed-origin", ALLOWED],
    );
    let header = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let preflight = |origin: &'static str| {
        http_client()
            .request(reqwest::Method::OPTIONS, server.url())
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-protocol-version",
            )
            .send()
    };
    let allowed = preflight(ALLOWED).await.unwrap();
    assert_eq!(allowed.status(), 204);
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    let methods = header(&allowed, "access-control-allow-methods").unwrap_or_default();
    assert!(
        methods.contains("POST") && methods.contains("DELETE"),
        "{methods}"
    );
    let headers = header(&allowed, "access-control-allow-headers").unwrap_or_default();
    for name in [
        "authorization",
        "content-type",
        "mcp-protocol-version",
        "mcp-session-id",
    ] {
        assert!(headers.contains(name), "{name} in {headers}");
    }
    assert_eq!(header(&allowed, "vary").as_deref(), Some("origin"));
    let refused = preflight(OTHER).await.unwrap();
    assert_eq!(refused.status(), 403);
    assert_eq!(header(&refused, "access-control-allow-origin"), None);
    assert_eq!(header(&refused, "access-control-allow-methods"), None);

    // A 401 to an allowed origin can be read, challenge included; to another, not at all.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let post = |origin: &'static str, token: Option<&str>| {
        let mut request = http_client()
            .post(server.url())
            .header("origin", origin)
            .header("accept", "application/json, text/event-stream")
            .json(&list);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let unauthorized = post(ALLOWED, None).await.unwrap();
    assert_eq!(unauthorized.status(), 401);
    assert_eq!(
        header(&unauthorized, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    let exposed = header(&unauthorized, "access-control-expose-headers").unwrap_or_default();
    assert!(exposed.contains("www-authenticate"), "{exposed}");
    assert!(www_authenticate(&unauthorized).starts_with("Bearer resource_metadata="));
    let unauthorized = post(OTHER, None).await.unwrap();
    assert_eq!(unauthorized.status(), 401);
    assert_eq!(header(&unauthorized, "access-control-allow-origin"), None);
    let listed = post(ALLOWED, Some(&token)).await.unwrap();
    assert_eq!(listed.status(), 200);
    assert_eq!(
        header(&listed, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
    let metadata = http_client()
        .get(server.metadata_url())
        .header("origin", ALLOWED)
        .send()
        .await
        .unwrap();
    assert_eq!(metadata.status(), 200);
    assert_eq!(
        header(&metadata, "access-control-allow-origin").as_deref(),
        Some(ALLOWED)
    );
}

#[tokio::test]
async fn the_metadata_is_served_at_the_public_urls_path() {
    const PUBLIC: &str = "https://reviews.example.com/api/{v}/mcp";
    let dir = TempDir::new("http-public-path");
    let (_, entry) = mint(dir.path(), "reviews.read");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--tokens", &entry, "--public-url", PUBLIC],
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let response = server.post(None, &list).await;
    assert_eq!(response.status(), 401);
    let path = "/.well-known/oauth-protected-resource/api/%7Bv%7D/mcp";
    assert_eq!(
        www_authenticate(&response),
        format!("Bearer resource_metadata=\"https://reviews.example.com{path}\"")
    );
    for path in [
        path,
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let metadata = server.get_json(path).await;
        assert_eq!(
            metadata["resource"], "https://reviews.example.com/api/%7Bv%7D/mcp",
            "{path}"
        );
    }
    let missing = http_client()
        .get(format!(
            "{}/.well-known/oauth-protected-resource/api",
            server.origin()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

#[tokio::test]
async fn odd_requests_get_the_answers_they_should() {
    let dir = TempDir::new("http-odd");
    let (token, entry) = mint(dir.path(), "reviews.read");
    let typo = format!("sha256:{} reviews.raed", "0".repeat(64));
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &[
            "--tokens",
            &format!("{entry};{typo}"),
            "--allowed-host",
            "reviews.example.com:8443",
        ],
    );
    assert!(
        server
            .logs()
            .contains("entry 2: no tool needs the scope \"reviews.raed\""),
        "{}",
        server.logs()
    );
    // Without a token (and outside CORS), every method on /mcp meets the gate.
    for method in [reqwest::Method::OPTIONS, reqwest::Method::HEAD] {
        let response = http_client()
            .request(method.clone(), server.url())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{method}");
    }
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let with_slash = http_client()
        .post(format!("{}/", server.url()))
        .bearer_auth(&token)
        .json(&list)
        .send()
        .await
        .unwrap();
    assert_eq!(with_slash.status(), 404, "/mcp/ is not /mcp");
    let evil = format!("evil.example.com:{}", server.port);
    for (host, status) in [
        ("localhost:1", 200),
        ("LOCALHOST", 200),
        ("127.0.0.1:65535", 200),
        ("[::1]:9", 200),
        ("reviews.example.com:8443", 200),
        ("reviews.example.com:8444", 403),
        ("reviews.example.com", 403),
        (evil.as_str(), 403),
    ] {
        let response = http_client()
            .post(server.url())
            .bearer_auth(&token)
            .header("host", host)
            .header("accept", "application/json, text/event-stream")
            .json(&list)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), status, "Host: {host}");
    }
}

/// What rmcp cannot read on its own is answered as on stdio: a malformed envelope is a JSON-RPC
/// error with the request's id (HTTP 400); an argument nested deeper than the JSON parser goes,
/// and arguments that are not an object, are broken rules.
#[tokio::test]
async fn a_malformed_envelope_keeps_its_id_and_a_deep_argument_is_a_broken_rule() {
    let dir = TempDir::new("http-envelopes");
    let server = HttpServer::start(dir.path(), &dir.path().join("reviews.db"), &[]);
    for (body, id, code) in [
        (r#"{"jsonrpc":"2.0","id":5}"#, json!(5), -32600),
        (
            r#"{"jsonrpc":"1.0","id":"six","method":"ping"}"#,
            json!("six"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}"#,
            json!(7),
            -32602,
        ),
    ] {
        let response = server.post_text(None, body.to_owned()).await;
        assert_eq!(response.status(), 400, "{body}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["id"], id, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}: {answer}");
    }
    let deep = "[".repeat(5_000) + &"]".repeat(5_000);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"movies_search","arguments":{{"query":{deep}}}}}}}"#
    );
    let response = server.post_text(None, call).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["id"], 8, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Validation Failed: Query: Must be a string, not an array. Correct the arguments and \
         call the tool again.",
        "{answer}"
    );
    let not_an_object = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": "x"}});
    let response = server.post(None, &not_an_object).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        "Validation Failed: Arguments: Must be an object of named arguments, not a string. \
         Correct the arguments and call the tool again.",
        "{answer}"
    );
}

/// The `Host` and `Origin` headers are read strictly, before any check that relies on them: one
/// well-formed value each, the host a request target in absolute form names, and an origin
/// only as a browser writes it, echoed only then.
#[tokio::test]
async fn hosts_and_origins_are_read_strictly() {
    let dir = TempDir::new("http-head");
    let server = HttpServer::start(dir.path(), &dir.path().join("reviews.db"), &[]);
    let port = server.port;
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let origin = format!("http://127.0.0.1:{port}");
    let cases: Vec<(&str, String, String, u16)> = vec![
        ("one allowed Host", "/mcp".into(), host.clone(), 200),
        ("no Host", "/mcp".into(), String::new(), 400),
        (
            "two Hosts",
            "/mcp".into(),
            format!("{host}Host: evil.example.com\r\n"),
            400,
        ),
        (
            "a port that is not a number",
            "/mcp".into(),
            "Host: localhost:evil\r\n".into(),
            400,
        ),
        (
            "an absolute target elsewhere",
            "http://evil.example.com/mcp".into(),
            host.clone(),
            403,
        ),
        (
            "an absolute target here",
            format!("http://127.0.0.1:{port}/mcp"),
            host.clone(),
            200,
        ),
        (
            "an allowed Origin",
            "/mcp".into(),
            format!("{host}Origin: {origin}\r\n"),
            200,
        ),
        (
            "an Origin with a path",
            "/mcp".into(),
            format!("{host}Origin: {origin}/\r\n"),
            403,
        ),
        (
            "an Origin in capitals",
            "/mcp".into(),
            format!("{host}Origin: HTTP://127.0.0.1:{port}\r\n"),
            403,
        ),
        (
            "two Origins",
            "/mcp".into(),
            format!("{host}Origin: {origin}\r\nOrigin: http://evil.example.com\r\n"),
            403,
        ),
    ];
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for (case, target, headers, status) in cases {
        let mut connection = connect(port).await;
        let request = format!(
            "POST {target} HTTP/1.1\r\n{headers}Content-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        connection.write_all(request.as_bytes()).await.unwrap();
        let answer = read_answer(&mut connection).await;
        let first_line = answer.lines().next().unwrap_or_default();
        assert!(
            first_line.starts_with(&format!("HTTP/1.1 {status}")),
            "{case}: {first_line}"
        );
        let echoed = answer.lines().find(|line| {
            line.to_ascii_lowercase()
                .starts_with("access-control-allow-origin:")
        });
        if case == "an allowed Origin" {
            assert_eq!(
                echoed,
                Some(format!("access-control-allow-origin: {origin}").as_str())
            );
        } else {
            assert_eq!(echoed, None, "{case}: {answer}");
        }
    }
}

/// The HTTP server runs in-process as well as in its own process: bound, served with a server
/// over a store, and stopped by its shutdown future; the store, opened here, is closed here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_server_runs_in_process_until_its_shutdown_completes() {
    use clap::Parser;
    use movie_reviews_mcp::cli::Cli;
    use movie_reviews_mcp::tools::Tools;
    use movie_reviews_mcp::{MovieReviews, http, open_or_create};
    use store::Database;

    let dir = TempDir::new("http-in-process");
    let cli = Cli::parse_from(["movie-reviews-mcp", "--http", "127.0.0.1:0"]);
    let address = cli.http.expect("an address");
    let tools = Tools::every().expect("the tools");
    let bound = http::bind(address, cli.http_options, tools.declared())
        .await
        .expect("bind");
    let origin = format!("http://{}", bound.local_addr().expect("an address"));
    let store = open_or_create(&Database::Sqlite(dir.path().join("reviews.db")))
        .await
        .expect("a store");
    let server = MovieReviews::new(store.clone(), tools);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(http::run(bound, server, async {
        let _ = stopped.await;
    }));
    let health = http_client()
        .get(format!("{origin}/healthz"))
        .send()
        .await
        .expect("GET /healthz");
    assert_eq!(health.status(), 200);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {"limit": 1}}});
    let answer: Value = http_client()
        .post(format!("{origin}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&call)
        .send()
        .await
        .expect("POST /mcp")
        .json()
        .await
        .expect("a JSON answer");
    assert_eq!(
        answer["result"]["structuredContent"]["totalCount"], 200,
        "{answer}"
    );
    stop.send(()).expect("the server waits for its shutdown");
    let served = tokio::time::timeout(EXIT_TIMEOUT, serving)
        .await
        .expect("the server stops after its shutdown");
    assert!(served.expect("the serving task").is_ok());
    store.close().await;
}

#[test]
fn a_jwks_url_over_plain_http_is_refused_at_start_up() {
    let dir = TempDir::new("http-jwks-http");
    let database = dir.path().join("reviews.db");
    let refused = run(http_command(
        dir.path(),
        &database,
        "127.0.0.1:0",
        &[
            "--jwt-issuer",
            ISSUER,
            "--jwks-url",
            "http://example.com/jwks.json",
        ],
    ));
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains("the JWKS URL must be https"),
        "{}",
        refused.stderr
    );
    assert!(
        !refused.stderr.contains("fetch the JWKS"),
        "{}",
        refused.stderr
    );
    assert!(!database.exists(), "refused before touching the database");
}

// ---------------------------------------------------------------------------------------------
// Calls

async fn call(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> Value {
    let mut request = CallToolRequestParams::new(tool.to_owned());
    request.arguments = arguments.as_object().cloned();
    let result = client.call_tool(request).await.expect("tools/call");
    serde_json::to_value(result).unwrap()
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
