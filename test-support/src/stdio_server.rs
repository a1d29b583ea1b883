//! The built binary serving MCP over stdio, as a test drives it: its stdout and stderr lines
//! arriving on channels so that every read is bounded by a timeout, and the process killed on
//! drop if it is still running.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::binary::{READ_TIMEOUT, binary, exit_within};

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
