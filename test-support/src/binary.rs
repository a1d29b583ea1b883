//! What every test of the built binary needs: a temporary folder, the binary run as an MCP
//! server over stdio (every read bounded by a timeout), and the binary run as a command to its
//! end.

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The server's binary, which Cargo builds before the tests of its package: beside the folder
/// the test binary runs from (`target/debug/deps`, so `target/debug/movie-reviews-mcp`).
pub fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let test = std::env::current_exe().expect("the test binary's path");
        let profile = test
            .parent()
            .and_then(Path::parent)
            .expect("the test binary runs from target/<profile>/deps");
        let binary = profile.join("movie-reviews-mcp");
        assert!(
            binary.is_file(),
            "no server binary at {}: run the tests of the movie-reviews-mcp package, for which \
             Cargo builds it",
            binary.display()
        );
        binary
    })
}

/// How long any single read from the server may take before the test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the server may take to exit after its stdin closes (or a signal).
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one command may run before the test fails.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// The names of the tools the server declares, in name order: what it must list when it
/// serves every tool.
pub fn tool_names() -> Vec<&'static str> {
    tool_names_where(|_| true)
}

/// The names of the tools the server declares that `keep` keeps, in name order.
pub fn tool_names_where(keep: impl Fn(&toolkit::ToolSpec) -> bool) -> Vec<&'static str> {
    let tools = movie_reviews_mcp::tools::Tools::every().expect("the server's tools");
    let declared = tools.declared().iter().filter(|spec| keep(spec));
    let mut names: Vec<&str> = declared.map(|spec| spec.name).collect();
    names.sort_unstable();
    names
}

/// A fresh folder under the system temp dir, its name starting with the test's label, removed
/// on drop.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("movie-reviews-mcp-{label}-"))
            .tempdir()
            .expect("create a temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// The server process with its stdout and stderr lines arriving on channels, so every read is
/// bounded by a timeout. Kills the process on drop if it is still running.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
    /// Every line read from stdout so far, in order.
    pub stdout_lines: Vec<String>,
    /// Every line read from stderr so far, each with its newline.
    stderr_text: String,
}

impl Server {
    /// The server on `database`, started in `cwd`.
    pub fn spawn(database: &Path, cwd: &Path) -> Server {
        let mut command = Command::new(binary());
        command
            .arg("--database")
            .arg(database)
            .env_remove("RUST_LOG");
        Server::start(command, cwd)
    }

    /// The server on `database`, started in `cwd`, with `args` on its command line.
    pub fn spawn_with_args(database: &Path, cwd: &Path, args: &[&str]) -> Server {
        let mut command = Command::new(binary());
        command
            .arg("--database")
            .arg(database)
            .args(args)
            .env_remove("RUST_LOG");
        Server::start(command, cwd)
    }

    /// The server on `database`, started in `cwd`, with `RUST_LOG` set to `filter`.
    pub fn spawn_with_log_filter(database: &Path, cwd: &Path, filter: &str) -> Server {
        let mut command = Command::new(binary());
        command
            .arg("--database")
            .arg(database)
            .env("RUST_LOG", filter);
        Server::start(command, cwd)
    }

    /// The server on `database`, started in `cwd`, unable to write past the first `blocks` × 512
    /// bytes of any file, as on a full disk: a write beyond fails with an I/O error (the shell
    /// ignores SIGXFSZ, so the server inherits that and gets the error instead of the signal).
    pub fn spawn_with_file_size_limit(database: &Path, cwd: &Path, blocks: u32) -> Server {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!(
                r#"trap '' XFSZ; ulimit -f {blocks}; exec "$0" "$@""#
            ))
            .arg(binary())
            .arg("--database")
            .arg(database)
            .env_remove("RUST_LOG");
        Server::start(command, cwd)
    }

    /// The server `command` starts, in `cwd`.
    pub fn start(mut command: Command, cwd: &Path) -> Server {
        let mut child = command
            .current_dir(cwd)
            .env_remove("MOVIE_REVIEWS_DATABASE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take();
        let stdout = lines_in_background(child.stdout.take().expect("piped stdout"), false);
        let stderr = lines_in_background(child.stderr.take().expect("piped stderr"), true);
        Server {
            child,
            stdin,
            stdout,
            stderr,
            stdout_lines: Vec::new(),
            stderr_text: String::new(),
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, message: &Value) {
        self.send_line(&serde_json::to_string(message).expect("serialize a message"));
    }

    /// Sends one line as written, for JSON that `serde_json` would never produce.
    pub fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// Sends one line of raw bytes (a newline is added), for lines that are not even UTF-8.
    pub fn send_bytes(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        let written = stdin
            .write_all(line)
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if let Err(error) = written {
            panic!(
                "write to the server's stdin: {error}; stderr was:\n{}",
                self.stderr_at_exit()
            );
        }
    }

    /// Sends a `tools/call` request without waiting for its answer.
    pub fn send_call(&mut self, id: u64, tool: &str, arguments: Value) {
        self.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }));
    }

    /// Initializes the session as a client does.
    pub fn initialize(&mut self) {
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
    pub fn read_message(&mut self) -> Value {
        let line = match self.stdout.recv_timeout(READ_TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("the server wrote nothing on stdout within {READ_TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!(
                "the server closed stdout while a response was awaited; stderr was:\n{}",
                self.stderr_at_exit()
            ),
        };
        self.stdout_lines.push(line.clone());
        serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}"))
    }

    /// The next line on stdout, parsed, if one arrives within `timeout`; `None` also when stdout
    /// has closed.
    pub fn try_read_message(&mut self, timeout: Duration) -> Option<Value> {
        let line = self.stdout.recv_timeout(timeout).ok()?;
        self.stdout_lines.push(line.clone());
        Some(
            serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("stdout line is not JSON ({error}): {line}")),
        )
    }

    /// Sends a request and returns the response with its id, skipping any server notification.
    pub fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
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
    pub fn result(&mut self, id: u64, method: &str, params: Value) -> Value {
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

    /// Reads responses until there is one for each of `ids` (in whatever order the server
    /// answers), skipping server notifications; fails on a response to anything else.
    pub fn read_responses(&mut self, ids: &[u64]) -> HashMap<u64, Value> {
        let mut responses = HashMap::with_capacity(ids.len());
        while responses.len() < ids.len() {
            let message = self.read_message();
            let Some(id) = message.get("id").and_then(Value::as_u64) else {
                assert!(
                    message.get("method").is_some(),
                    "a response without a request id: {message}"
                );
                continue;
            };
            assert!(
                ids.contains(&id),
                "a response to a request never sent: {message}"
            );
            let earlier = responses.insert(id, message);
            assert!(earlier.is_none(), "two responses to request {id}");
        }
        responses
    }

    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Kills the process (SIGKILL on Unix) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the process to exit by itself; fails the test after `timeout`.
    pub fn wait_for_exit(&mut self, timeout: Duration) -> ExitStatus {
        exit_within(&mut self.child, timeout)
            .unwrap_or_else(|| panic!("the server did not exit within {timeout:?}"))
    }

    /// What the server has written on stderr so far.
    pub fn stderr_so_far(&mut self) -> &str {
        while let Ok(line) = self.stderr.try_recv() {
            self.stderr_text.push_str(&line);
        }
        &self.stderr_text
    }

    /// Stderr up to the server's exit (or `READ_TIMEOUT`), for the message of a test that fails
    /// because the server went away.
    fn stderr_at_exit(&mut self) -> &str {
        while let Ok(line) = self.stderr.recv_timeout(READ_TIMEOUT) {
            self.stderr_text.push_str(&line);
        }
        &self.stderr_text
    }

    /// Waits until stderr holds a line for which `wanted` is true, and returns that line; fails
    /// the test after `READ_TIMEOUT`.
    pub fn wait_for_stderr_line(&mut self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + READ_TIMEOUT;
        loop {
            if let Some(line) = self.stderr_so_far().lines().find(|line| wanted(line)) {
                return line.to_owned();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => self.stderr_text.push_str(&line),
                Err(_) => panic!(
                    "no such line on stderr within {READ_TIMEOUT:?}; stderr was:\n{}",
                    self.stderr_text
                ),
            }
        }
    }

    /// After exit: the rest of stdout, recorded, and the whole of stderr.
    pub fn finish(&mut self) -> String {
        loop {
            match self.stdout.recv_timeout(READ_TIMEOUT) {
                Ok(line) => self.stdout_lines.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("stdout stayed open after exit"),
            }
        }
        loop {
            match self.stderr.recv_timeout(READ_TIMEOUT) {
                Ok(line) => self.stderr_text.push_str(&line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("stderr stayed open after exit"),
            }
        }
        self.stderr_text.clone()
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

/// Each line of `pipe`, with its newline if `keep_newline`, sent on a channel as it arrives
/// (bytes that are not UTF-8 are replaced, so a line is never lost).
fn lines_in_background(pipe: impl Read + Send + 'static, keep_newline: bool) -> Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            match reader.read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if !keep_newline && bytes.last() == Some(&b'\n') {
                bytes.pop();
            }
            if sender
                .send(String::from_utf8_lossy(&bytes).into_owned())
                .is_err()
            {
                break;
            }
        }
    });
    receiver
}

/// The one text block of a tool result.
pub fn text_of(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content is an array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text", "a text block: {result}");
    content[0]["text"].as_str().expect("text is a string")
}

/// The names of an object's fields, to compare the shapes of two answers.
pub fn keys(value: &Value) -> BTreeSet<&str> {
    let object = value.as_object().expect("an object");
    object.keys().map(String::as_str).collect()
}

/// What a finished command left behind.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The whole of stdout as one JSON value: nothing else may be printed there.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not one JSON value ({error}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// The binary, run in `cwd` with a clean environment for the variables it reads.
pub fn command(cwd: &Path) -> Command {
    let mut command = Command::new(binary());
    command
        .current_dir(cwd)
        .env_remove("MOVIE_REVIEWS_DATABASE")
        .env_remove("RUST_LOG");
    command
}

/// The status `child` exits with, polled until `timeout`; `None` if it is still running then.
pub fn exit_within(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("poll the process") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `command` to its end, failing the test (and killing it) after `RUN_TIMEOUT`.
pub fn run(mut command: Command) -> Run {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the binary");
    let stdout = read_in_background(child.stdout.take().expect("piped stdout"));
    let stderr = read_in_background(child.stderr.take().expect("piped stderr"));
    let Some(status) = exit_within(&mut child, RUN_TIMEOUT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{command:?} did not finish within {RUN_TIMEOUT:?}");
    };
    let collect = |receiver: Receiver<String>| {
        receiver
            .recv_timeout(RUN_TIMEOUT)
            .expect("output closes after exit")
    };
    Run {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
    }
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receiver
}

/// The server's peak resident set size, in KiB, from `/proc/PID/status` (`VmHWM`).
pub fn peak_memory_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("read /proc/PID/status of the server");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    line.trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .expect("VmHWM is a number of kB")
}

/// Runs `sql` (one statement or several) on the database through a connection of its own, as a
/// person with the sqlite3 shell would.
pub fn write_by_hand(database: &Path, sql: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        use sqlx::Connection;
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(database)
            .busy_timeout(Duration::from_secs(30));
        let mut connection = sqlx::SqliteConnection::connect_with(&options)
            .await
            .expect("open the database");
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("{sql}: {error}"));
        connection.close().await.expect("close the connection");
    });
}
