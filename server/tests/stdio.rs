//! Runs the built binary as an MCP client application does: spawns it, speaks newline-delimited
//! JSON-RPC on its stdin and stdout, and checks that stdout carries nothing but the protocol.

use serde_json::{Value, json};

use test_support::{EXIT_TIMEOUT, Server, TempDir, text_of, tool_names};

/// A whole client session over stdio: initialize, list tools, call tools (a good call, a
/// validation failure, an unknown tool), close stdin; the server exits 0 and stdout holds only
/// JSON-RPC.
#[test]
fn a_client_session_over_stdio() {
    let dir = TempDir::new("stdio");
    let database = dir.path().join("session.db");
    let mut server = Server::spawn(&database, dir.path());

    // initialize
    let init = server.result(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "stdio-test", "version": "1.0.0"},
        }),
    );
    assert_eq!(init["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["serverInfo"]["name"], "movie-reviews-mcp", "{init}");
    assert_eq!(
        init["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION"),
        "{init}"
    );
    assert!(
        init["serverInfo"]["title"]
            .as_str()
            .is_some_and(|title| !title.is_empty()),
        "serverInfo has a title: {init}"
    );
    assert!(
        init["instructions"]
            .as_str()
            .is_some_and(|text| !text.trim().is_empty()),
        "non-empty instructions: {init}"
    );
    assert!(
        init["capabilities"]["tools"].is_object(),
        "tools capability: {init}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // tools/list
    let listed = server.result(2, "tools/list", json!({}));
    let tools = listed["tools"].as_array().expect("tools is an array");
    let mut names: Vec<&str> = tools
        .iter()
        .map(|tool| tool["name"].as_str().expect("a tool name"))
        .collect();
    names.sort_unstable();
    assert_eq!(names, tool_names(), "exactly the tools the server declares");
    for tool in tools {
        let name = &tool["name"];
        assert_eq!(tool["inputSchema"]["type"], "object", "{name} inputSchema");
        assert_eq!(
            tool["outputSchema"]["type"], "object",
            "{name} outputSchema"
        );
        assert!(
            tool["title"]
                .as_str()
                .is_some_and(|title| !title.is_empty()),
            "{name} has a title"
        );
        assert!(tool["annotations"].is_object(), "{name} has annotations");
        assert_eq!(tool["annotations"]["openWorldHint"], false, "{name}");
    }
    assert!(
        listed.get("nextCursor").is_none(),
        "one page of tools: {listed}"
    );

    // a good call
    let found = server.result(
        3,
        "tools/call",
        json!({"name": "movies_search", "arguments": {"query": "night", "limit": 5}}),
    );
    assert_eq!(found["isError"], false, "{found}");
    let structured = &found["structuredContent"];
    assert!(structured["items"].is_array(), "{found}");
    assert!(
        !structured["items"].as_array().unwrap().is_empty(),
        "the demo data has movies matching \"night\": {found}"
    );
    assert!(structured["totalCount"].is_u64(), "{found}");
    let text: Value = serde_json::from_str(text_of(&found)).expect("the text block is JSON");
    assert_eq!(&text, structured, "the text block equals structuredContent");

    // a validation failure is a tool result, not a protocol error
    let invalid = server.result(
        4,
        "tools/call",
        json!({"name": "movies_search", "arguments": {"limit": 0}}),
    );
    assert_eq!(invalid["isError"], true, "{invalid}");
    assert!(
        text_of(&invalid).starts_with("Validation Failed:"),
        "{invalid}"
    );

    // an unknown tool is a protocol error
    let unknown = server.request(
        5,
        "tools/call",
        json!({"name": "movies_delete_all", "arguments": {}}),
    );
    assert!(
        unknown.get("result").is_none(),
        "no result for an unknown tool: {unknown}"
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    // closing stdin ends the session
    server.close_stdin();
    let status = server.wait_for_exit(EXIT_TIMEOUT);
    let stderr = server.finish();
    assert!(
        status.success(),
        "exit status {status} after stdin closed; stderr:\n{stderr}"
    );

    // stdout belongs to the protocol: every line is a JSON-RPC 2.0 message
    assert!(server.stdout_lines.len() >= 5, "one line per response");
    for line in &server.stdout_lines {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC 2.0: {line}");
        assert!(
            message.get("id").is_some() || message.get("method").is_some(),
            "neither a response nor a notification: {line}"
        );
    }
    // and the logs went to stderr
    assert!(
        stderr.contains("INFO"),
        "log lines on stderr; stderr was:\n{stderr}"
    );
    assert!(database.exists(), "the database file was created");
}

/// A string with an escaped lone surrogate (`"\ud800"`, valid JSON that serde_json refuses) is
/// answered by the request's id, the surrogate read as U+FFFD.
#[test]
fn a_lone_surrogate_escape_is_answered_not_dropped() {
    let dir = TempDir::new("surrogate");
    let mut server = Server::spawn(&dir.path().join("surrogate.db"), dir.path());
    server.initialize();
    server.send_line(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"movies_search","arguments":{"query":"\ud800"}}}"#,
    );
    let response = server.read_message();
    assert_eq!(response["id"], 7, "{response}");
    assert_eq!(response["result"]["isError"], false, "{response}");
    assert_eq!(response["result"]["structuredContent"]["totalCount"], 0);

    server.send_line(
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"movies_search","arguments":{"query":"\udc00\ud800","limit":0}}}"#,
    );
    let response = server.read_message();
    assert_eq!(response["id"], 8, "{response}");
    assert!(
        text_of(&response["result"]).starts_with("Validation Failed: Limit:"),
        "{response}"
    );
    server.close_stdin();
    assert!(server.wait_for_exit(EXIT_TIMEOUT).success());
}

/// A client that starts the server and closes stdin before initializing gets a clean exit.
#[test]
fn closing_stdin_before_initializing_is_a_clean_exit() {
    let dir = TempDir::new("early-eof");
    let mut server = Server::spawn(&dir.path().join("early.db"), dir.path());
    server.close_stdin();
    let status = server.wait_for_exit(EXIT_TIMEOUT);
    let stderr = server.finish();
    assert!(status.success(), "exit {status:?}; stderr: {stderr}");
    assert!(server.stdout_lines.is_empty(), "{:?}", server.stdout_lines);
}

/// Argument values and results never reach the log, at the default level nor at debug or
/// trace: a model's arguments may hold what a user typed. At debug, each tool call has a line
/// with its duration.
#[test]
fn argument_values_and_results_stay_out_of_the_log_at_every_level() {
    let dir = TempDir::new("log-privacy");
    let database = dir.path().join("private.db");
    for filter in [None, Some("debug"), Some("trace")] {
        let mut server = match filter {
            None => Server::spawn(&database, dir.path()),
            Some(filter) => Server::spawn_with_log_filter(&database, dir.path(), filter),
        };
        server.initialize();
        let secret = "needle-7f3a9c2e";
        let result = server.result(
            5,
            "tools/call",
            json!({"name": "movies_search", "arguments": {"query": secret}}),
        );
        assert_eq!(result["isError"], false, "{result}");
        let refused = server.result(
            6,
            "tools/call",
            json!({"name": "movies_search", "arguments": {"query": secret, "limit": 0}}),
        );
        assert_eq!(refused["isError"], true, "{refused}");
        let found = server.result(
            7,
            "tools/call",
            json!({"name": "movies_search", "arguments": {"limit": 1}}),
        );
        let title = found["structuredContent"]["items"][0]["title"]
            .as_str()
            .expect("a title")
            .to_owned();
        server.close_stdin();
        assert!(server.wait_for_exit(EXIT_TIMEOUT).success());
        let stderr = server.finish();
        assert!(!stderr.is_empty(), "{filter:?}: the server logs at info");
        assert!(
            !stderr.contains(secret),
            "{filter:?}: an argument value in the log: {stderr}"
        );
        assert!(
            !stderr.contains(&title),
            "{filter:?}: a result in the log: {stderr}"
        );
        if filter.is_some() {
            assert!(
                stderr.contains("tool call") && stderr.contains("elapsed"),
                "{filter:?}: no timing line per call: {stderr}"
            );
        }
    }
}

/// stdin and stdout need not be pipes: requests read from a file (`movie-reviews-mcp <
/// requests.jsonl`), and a socket for both (what some clients hand a server), are served too,
/// and the server exits 0 at the end of its input.
#[test]
fn a_file_or_a_socket_serves_as_well_as_a_pipe() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixStream;
    use std::process::Stdio;

    let dir = TempDir::new("stdin-kinds");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "movies_search", "arguments": {"limit": 1}}}),
    ];
    let text: String = requests
        .iter()
        .map(|request| format!("{request}\n"))
        .collect();
    let check = |answers: Vec<Value>, how: &str| {
        assert_eq!(answers.len(), 2, "{how}: {answers:?}");
        assert_eq!(
            answers[0]["result"]["serverInfo"]["name"], "movie-reviews-mcp",
            "{how}"
        );
        let items = &answers[1]["result"]["structuredContent"]["items"];
        assert_eq!(
            items.as_array().map(Vec::len),
            Some(1),
            "{how}: {answers:?}"
        );
    };
    let wait = |child: &mut std::process::Child, how: &str| {
        let deadline = std::time::Instant::now() + EXIT_TIMEOUT * 4;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "{how}: exit {status:?}");
                return;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{how}: the server did not exit at the end of its input");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };

    // Requests from a file, answers to a pipe.
    let file = dir.path().join("requests.jsonl");
    std::fs::write(&file, &text).unwrap();
    let mut child = test_support::command(dir.path())
        .arg("--database")
        .arg(dir.path().join("file.db"))
        .stdin(std::fs::File::open(&file).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Two short answers fit in the pipe's buffer, so the server can exit before they are read.
    wait(&mut child, "from a file");
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let answers = stdout
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    check(answers, "from a file");

    // Requests and answers over one socket.
    let (mut ours, theirs) = UnixStream::pair().unwrap();
    let mut child = test_support::command(dir.path())
        .arg("--database")
        .arg(dir.path().join("socket.db"))
        .stdin(std::os::fd::OwnedFd::from(theirs.try_clone().unwrap()))
        .stdout(std::os::fd::OwnedFd::from(theirs))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    ours.set_read_timeout(Some(test_support::READ_TIMEOUT))
        .unwrap();
    ours.write_all(text.as_bytes()).unwrap();
    ours.shutdown(std::net::Shutdown::Write).unwrap();
    let answers = BufReader::new(ours)
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    wait(&mut child, "over a socket");
    check(answers, "over a socket");
}
