//! Serving some of the tools, with the built binary: `--read-only` serves only the tools
//! declared read-only, `--tools` (or `MOVIE_REVIEWS_TOOLS`) only those named; the others are
//! neither listed nor callable, over stdio and over HTTP. A name no tool has, or a tool that
//! changes data named with `--read-only`, stops the server at start-up with the name meant,
//! before it touches the database.

use serde_json::{Value, json};

use test_support::{HttpServer, Server, TempDir, command, mint, run, tool_names, tool_names_where};

/// The tools declared read-only, in name order.
fn read_only_tools() -> Vec<&'static str> {
    tool_names_where(|spec| spec.hints.read_only)
}

/// The names `tools` lists with `args`, sorted.
fn listed_with(args: &[&str], environment: &[(&str, &str)]) -> Vec<String> {
    let dir = TempDir::new("tools-listed");
    let mut command = command(dir.path());
    command
        .args(args)
        .arg("tools")
        .envs(environment.iter().copied());
    let run = run(command);
    assert!(run.status.success(), "tools failed: {}", run.stderr);
    names(&run.json()["tools"])
}

fn names(tools: &Value) -> Vec<String> {
    let mut names: Vec<String> = tools
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn read_only_and_named_selections_list_only_their_tools() {
    assert_eq!(listed_with(&["--read-only"], &[]), read_only_tools());
    assert_eq!(
        listed_with(&["--tools", "reviews_write,movies_get"], &[]),
        ["movies_get", "reviews_write"]
    );
    assert_eq!(
        listed_with(&[], &[("MOVIE_REVIEWS_TOOLS", "movies_search")]),
        ["movies_search"]
    );
    assert_eq!(
        listed_with(&["--read-only", "--tools", "movies_get,reviews_list"], &[]),
        ["movies_get", "reviews_list"]
    );
    assert_eq!(listed_with(&[], &[]), tool_names(), "every tool by default");
}

#[test]
fn a_selection_that_names_no_tool_or_a_writing_one_stops_the_server_before_the_database() {
    // Every tool, in the order the server declares them: "a, b and c".
    let declared = movie_reviews_mcp::tools::toolbox().specs();
    let names: Vec<&str> = declared.iter().map(|spec| spec.name).collect();
    let (last, rest) = names.split_last().expect("the server has tools");
    let every_tool_named = format!(
        "no tool is named `everything`; the tools are {} and {last}",
        rest.join(", ")
    );
    for (args, message) in [
        (
            vec!["--tools", "movies_serch,reviews_list"],
            "no tool is named `movies_serch`: did you mean `movies_search`?",
        ),
        (vec!["--tools", "everything"], every_tool_named.as_str()),
        (
            vec!["--read-only", "--tools", "movies_get,reviews_delete"],
            "`reviews_delete` is not read-only, and only read-only tools are served",
        ),
    ] {
        let dir = TempDir::new("tools-refused");
        let database = dir.path().join("never.db");
        let mut command = command(dir.path());
        command.arg("--database").arg(&database).args(&args);
        let run = run(command);
        assert!(!run.status.success(), "{args:?} started");
        assert!(
            run.stderr.contains(message),
            "{args:?}: stderr does not say {message:?}:\n{}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(!database.exists(), "{args:?} created the database");
    }
}

#[test]
fn over_stdio_a_tool_left_out_is_neither_listed_nor_callable() {
    let dir = TempDir::new("tools-stdio");
    let mut server =
        Server::spawn_with_args(&dir.path().join("reviews.db"), dir.path(), &["--read-only"]);
    server.initialize();
    let listed = server.result(2, "tools/list", json!({}));
    assert_eq!(names(&listed["tools"]), read_only_tools());
    let search = server.result(
        3,
        "tools/call",
        json!({ "name": "movies_search", "arguments": { "limit": 1 } }),
    );
    assert_eq!(search["isError"], false, "{search}");
    let write = server.request(
        4,
        "tools/call",
        json!({ "name": "reviews_delete",
                "arguments": { "reviewId": "3f2504e0-4f89-41d3-9a0c-0305e82c3301" } }),
    );
    let unknown = server.request(
        4,
        "tools/call",
        json!({ "name": "no_such_tool", "arguments": {} }),
    );
    assert_same_as_unknown(&write, &unknown);
}

#[tokio::test]
async fn over_http_a_tool_left_out_needs_no_scope_and_is_unknown() {
    let dir = TempDir::new("tools-http");
    let (token, entry) = mint(dir.path(), "reviews.read,reviews.write");
    let server = HttpServer::start(
        dir.path(),
        &dir.path().join("reviews.db"),
        &["--tokens", &entry, "--tools", "movies_search"],
    );
    let metadata = server
        .get_json("/.well-known/oauth-protected-resource")
        .await;
    assert_eq!(metadata["scopes_supported"], json!(["reviews.read"]));
    let bearer = format!("Bearer {token}");
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let listed: Value = server
        .post(Some(&bearer), &list)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(names(&listed["result"]["tools"]), ["movies_search"]);
    let mut answers = Vec::new();
    for tool in ["movies_get", "no_such_tool"] {
        let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": tool, "arguments": {} } });
        let response = server.post(Some(&bearer), &call).await;
        assert_eq!(response.status(), 200, "{tool}");
        answers.push(response.json::<Value>().await.unwrap());
    }
    assert_same_as_unknown(&answers[0], &answers[1]);
}

/// A call of a tool left out is answered as a call of a name no tool has: an error.
fn assert_same_as_unknown(left_out: &Value, unknown: &Value) {
    assert!(unknown.get("error").is_some(), "{unknown}");
    assert_eq!(left_out, unknown, "the tool left out was served");
}
