//! Calls over HTTP answer as over stdio: every tool, on the same database, with a minted
//! token; what rmcp cannot read on its own; and the server run in-process.

use serde_json::{Value, json};

use test_support::{EXIT_TIMEOUT, HttpServer, TempDir, http_client, mint, text_of};

use crate::{call, path};

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

    client.close().await;
    stdio.close_stdin();
    stdio.finish();
    server.assert_no_secret_in_logs(&[&token]);
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

/// The HTTP server runs in-process as well as in its own process: bound, served with a server
/// over a store, and stopped by its shutdown future; the store, opened here, is closed here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_server_runs_in_process_until_its_shutdown_completes() {
    use clap::Parser;
    use movie_reviews_mcp::cli::Cli;
    use movie_reviews_mcp::commands::open_or_create;
    use movie_reviews_mcp::http;
    use movie_reviews_mcp::serve;
    use store::Database;

    let dir = TempDir::new("http-in-process");
    let cli = Cli::parse_from(["movie-reviews-mcp", "--http", "127.0.0.1:0"]);
    let address = cli.http.expect("an address");
    let declared = movie_reviews_mcp::tools::toolbox().specs();
    let bound = http::bind(address, cli.http_options, &declared)
        .await
        .expect("bind");
    let origin = format!("http://{}", bound.local_addr().expect("an address"));
    let store = open_or_create(&Database::Sqlite(dir.path().join("reviews.db")))
        .await
        .expect("a store");
    let server = serve::every_tool(store.clone()).expect("the tools");
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
