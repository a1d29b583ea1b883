//! Runs the built binary as an MCP client application does: spawns it, speaks newline-delimited
//! JSON-RPC on its stdin and stdout, and checks that stdout carries nothing but the protocol.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

const BINARY: &str = env!("CARGO_BIN_EXE_movie-reviews-mcp");

/// How long any single read from the server may take before the test fails.
const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the server may take to exit after its stdin closes.
const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

const TOOLS: [&str; 6] = [
    "authors_search",
    "movies_get",
    "movies_search",
    "reviews_delete",
    "reviews_list",
    "reviews_write",
];

/// A fresh folder under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| since.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "movie-reviews-mcp-{label}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
        ));
        std::fs::create_dir_all(&path).expect("create a temp dir");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The server process with its stdout lines and stderr text arriving on channels, so every read
/// is bounded by a timeout. Kills the process on drop if it is still running.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    /// Every line read from stdout so far, in order.
    stdout_lines: Vec<String>,
}

impl Server {
    fn spawn(database: &Path, cwd: &Path) -> Server {
        let mut child = Command::new(BINARY)
            .arg("--database")
            .arg(database)
            .current_dir(cwd)
            .env_remove("RUST_LOG")
            .env_remove("MOVIE_REVIEWS_DATABASE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take();
        let child_stdout = child.stdout.take().expect("piped stdout");
        let mut child_stderr = child.stderr.take().expect("piped stderr");

        let (line_sender, stdout) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(child_stdout).lines() {
                let Ok(line) = line else { break };
                if line_sender.send(line).is_err() {
                    break;
                }
            }
        });
        let (text_sender, stderr) = mpsc::channel();
        thread::spawn(move || {
            let mut text = String::new();
            let _ = child_stderr.read_to_string(&mut text);
            let _ = text_sender.send(text);
        });
        Server {
            child,
            stdin,
            stdout,
            stderr,
            stdout_lines: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&serde_json::to_string(message).expect("serialize a message"));
    }

    /// Sends one line as written, for JSON that `serde_json` would never produce.
    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .expect("write to the server's stdin");
    }

    /// Initializes the session as a client does.
    fn initialize(&mut self) {
        self.result(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "stdio-test", "version": "1.0.0"},
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// The next line on stdout, parsed; fails the test after `READ_TIMEOUT`.
    fn read_message(&mut self) -> Value {
        let line = match self.stdout.recv_timeout(READ_TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("the server wrote nothing on stdout within {READ_TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server closed stdout while a response was awaited")
            }
        };
        self.stdout_lines.push(line.clone());
        serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}"))
    }

    /// Sends a request and returns the response with its id, skipping any server notification.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.read_message();
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert!(
                message.get("method").is_some(),
                "a response to a request never sent: {message}"
            );
        }
    }

    /// The `result` of a successful response.
    fn result(&mut self, id: u64, method: &str, params: Value) -> Value {
        let response = self.request(id, method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{method} response has no result: {response}"))
    }

    fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits for the process to exit by itself; fails the test after `timeout`.
    fn wait_for_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("poll the server") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {timeout:?} of its stdin closing"
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// After exit: the rest of stdout, recorded, and the whole of stderr.
    fn finish(&mut self) -> String {
        loop {
            match self.stdout.recv_timeout(READ_TIMEOUT) {
                Ok(line) => self.stdout_lines.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("stdout stayed open after exit"),
            }
        }
        self.stderr
            .recv_timeout(READ_TIMEOUT)
            .expect("stderr closes after exit")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The one text block of a tool result.
fn text_of(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content is an array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text", "a text block: {result}");
    content[0]["text"].as_str().expect("text is a string")
}

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
    assert_eq!(names, TOOLS, "exactly the six tools");
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
        json!({"name": "movies_search", "arguments": {"query": "global", "limit": 5}}),
    );
    assert_eq!(found["isError"], false, "{found}");
    let structured = &found["structuredContent"];
    assert!(structured["items"].is_array(), "{found}");
    assert!(
        !structured["items"].as_array().unwrap().is_empty(),
        "the demo data has movies matching \"global\": {found}"
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
