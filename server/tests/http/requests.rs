//! Requests as HTTP reads them, before any tool runs: the protected-resource metadata,
//! `/healthz`, the `Host` and `Origin` headers, CORS, the body limit, odd methods and paths.

use serde_json::json;
use tokio::io::AsyncWriteExt;

use test_support::{HttpServer, TempDir, bearer, http_client, mint, raw_connection, read_answer};

use crate::{first_author, first_movie, review_count, write_call, www_authenticate};

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
    let mut connection = raw_connection(server.port).await;
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
        let mut connection = raw_connection(port).await;
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
