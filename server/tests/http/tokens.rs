//! Who may call: static tokens and JWTs (401 without a valid one, and nothing runs), scopes
//! (403 without the one a tool declares, and nothing is written), the issuer's keys from a file
//! or a rotating URL, and authentication's checks at start-up.

use serde_json::{Value, json};

use test_support::jwt::{
    JwksServer, TestKey, hs256, jwks_document, keys, now, tamper, unsigned, write_jwks,
};
use test_support::{HttpServer, TempDir, bearer, http_client, http_command, mint, run};

use crate::{
    ISSUER, call, first_author, first_movie, merge, path, review_count, write_call,
    www_authenticate,
};

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
        client.close().await;
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
