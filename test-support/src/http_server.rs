//! The built binary serving MCP over Streamable HTTP on a free loopback port, and what the HTTP
//! tests talk to it with: the test kit's client, an HTTP client, raw connections, minted tokens.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;
use toolkit::testing::{Protocol, TestClient};

use crate::binary::{EXIT_TIMEOUT, READ_TIMEOUT, command, exit_within, run};

/// The binary serving HTTP on a free loopback port, its stderr collected as it arrives (at trace
/// level, so the no-token-in-logs check sees everything). Killed on drop if still running.
pub struct HttpServer {
    child: Child,
    pub port: u16,
    logs: Arc<Mutex<String>>,
}

pub fn http_command(dir: &Path, database: &Path, address: &str, args: &[&str]) -> Command {
    let mut command = command(dir);
    command
        .arg("--database")
        .arg(database)
        .arg("--http")
        .arg(address)
        .args(args)
        .env("RUST_LOG", "trace");
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("MOVIE_REVIEWS_")) {
        command.env_remove(name);
    }
    command
}

impl HttpServer {
    pub fn start(dir: &Path, database: &Path, args: &[&str]) -> HttpServer {
        HttpServer::spawn(http_command(dir, database, "127.0.0.1:0", args))
    }

    /// Spawns `command` and waits for the line that names the bound address.
    pub fn spawn(mut command: Command) -> HttpServer {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the server");
        let logs = Arc::new(Mutex::new(String::new()));
        let (port_sender, port_receiver) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("piped stderr");
        let collected = Arc::clone(&logs);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(port) = bound_port(&line) {
                    let _ = port_sender.send(port);
                }
                let mut logs = collected.lock().unwrap();
                logs.push_str(&line);
                logs.push('\n');
            }
        });
        let port = port_receiver
            .recv_timeout(READ_TIMEOUT)
            .unwrap_or_else(|_| {
                let _ = child.kill();
                panic!(
                    "the server did not say where it listens:\n{}",
                    logs.lock().unwrap()
                )
            });
        HttpServer { child, port, logs }
    }

    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn url(&self) -> String {
        format!("{}/mcp", self.origin())
    }

    /// The resource URL: what a JWT's audience must be.
    pub fn resource(&self) -> String {
        self.url()
    }

    pub fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource/mcp", self.origin())
    }

    pub fn logs(&self) -> String {
        self.logs.lock().unwrap().clone()
    }

    /// The first line of the log that `wanted` picks, waiting up to [`READ_TIMEOUT`] for it:
    /// the log is read from stderr as it comes, so a line the server wrote before it answered
    /// may not be here yet when the answer is.
    pub async fn logged_line(&self, wanted: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + READ_TIMEOUT;
        loop {
            if let Some(line) = self.logs().lines().find(|line| wanted(line)) {
                return line.to_owned();
            }
            if tokio::time::Instant::now() >= deadline {
                panic!("no such line in the log:\n{}", self.logs());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The test kit's client connected over Streamable HTTP on 2025-11-25, with `token` as its
    /// bearer token.
    pub async fn client(&self, token: Option<&str>) -> TestClient {
        let mut client = TestClient::builder().protocol(Protocol::V2025_11_25);
        if let Some(token) = token {
            client = client.bearer(token);
        }
        client.connect_http(&self.url()).await
    }

    /// A raw JSON-RPC POST with an `Authorization` header of `authorization`.
    pub async fn post(&self, authorization: Option<&str>, body: &Value) -> reqwest::Response {
        self.post_text(authorization, body.to_string()).await
    }

    /// POSTs `body` as it is, for JSON that `serde_json` would not write.
    pub async fn post_text(&self, authorization: Option<&str>, body: String) -> reqwest::Response {
        let mut request = http_client()
            .post(self.url())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body);
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        request.send().await.expect("POST /mcp")
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let response = http_client()
            .get(format!("{}{path}", self.origin()))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.unwrap()
    }

    pub fn terminate_and_expect_success(&mut self) {
        self.signal_term();
        self.expect_exit_success(EXIT_TIMEOUT);
    }

    pub fn signal_term(&self) {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Waits up to `timeout` for the server to exit, and expects status 0.
    pub fn expect_exit_success(&mut self, timeout: Duration) {
        let Some(status) = exit_within(&mut self.child, timeout) else {
            panic!("no exit after SIGTERM:\n{}", self.logs());
        };
        assert!(status.success(), "{status}:\n{}", self.logs());
    }

    pub fn assert_no_secret_in_logs(&self, secrets: &[&str]) {
        let logs = self.logs();
        assert!(logs.lines().count() > 5, "the logs were captured:\n{logs}");
        for secret in secrets {
            assert!(!logs.contains(secret), "a token is in the logs:\n{logs}");
            // Nor the signature part of a JWT on its own.
            if let Some(signature) = secret.rsplit('.').next().filter(|part| part.len() > 16) {
                assert!(
                    !logs.contains(signature),
                    "a signature is in the logs:\n{logs}"
                );
            }
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port in the line `serving MCP over HTTP on http://ADDRESS/mcp`.
fn bound_port(line: &str) -> Option<u16> {
    let rest = line.split("serving MCP over HTTP on http://").nth(1)?;
    let address = rest.split("/mcp").next()?;
    address.rsplit(':').next()?.parse().ok()
}

/// An HTTP client. reqwest is built without a TLS provider of its own (as in the server); the
/// tests speak plain HTTP, but a client cannot be built without one.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// A raw connection to the server, for requests no HTTP client would send.
pub async fn raw_connection(port: u16) -> tokio::net::TcpStream {
    tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect to the server")
}

/// Everything the server sends until it closes the connection (an error ends the reading too).
pub async fn read_answer(connection: &mut tokio::net::TcpStream) -> String {
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let read = async {
        while let Ok(count) = connection.read(&mut buffer).await {
            if count == 0 {
                break;
            }
            answer.extend_from_slice(&buffer[..count]);
        }
    };
    tokio::time::timeout(READ_TIMEOUT, read)
        .await
        .expect("the server closes the connection");
    String::from_utf8_lossy(&answer).into_owned()
}

pub fn bearer(token: String) -> String {
    format!("Bearer {token}")
}

/// `token --scopes SCOPES`: the token and its tokens-file line.
pub fn mint(dir: &Path, scopes: &str) -> (String, String) {
    let mut command = command(dir);
    command.args(["token", "--scopes", scopes]);
    let minted = run(command);
    assert!(minted.status.success(), "{}", minted.stderr);
    let lines: Vec<&str> = minted
        .stdout
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(lines.len(), 2, "{}", minted.stdout);
    (lines[0].to_owned(), lines[1].to_owned())
}
