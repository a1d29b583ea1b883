//! The example file server (`examples/files`) through a real MCP client: the test kit's client
//! over an in-process pipe, against a real directory made for each test. Its own `tools/list`
//! snapshot, every tool's answers, each tool's schema-agreement check, a search's progress and
//! cancellation, and the sandbox: no path leads out of the served directory, through `..`, an
//! absolute path or a symbolic link.
//!
//! The example's modules are compiled into this test as they are into the example, so that
//! the server under test is the example's own code.

#[path = "../../examples/files/sandbox.rs"]
mod sandbox;
#[path = "../../examples/files/server.rs"]
mod server;
#[path = "../../examples/files/tools/mod.rs"]
mod tools;

mod agreement;
mod editing;
mod progress;
mod reading;
mod sandboxing;

use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;
use toolkit::Handler;
use toolkit::testing::{CallResult, TestClient};

use crate::sandbox::Sandbox;

/// A served directory and a client connected to the server.
struct Served {
    directory: TempDir,
    client: TestClient,
}

impl Served {
    /// Serves a new directory holding `files` (path, contents; a path ending in `/` is a
    /// directory).
    async fn with(files: &[(&str, &str)]) -> Served {
        let directory = tempfile::tempdir().expect("a temporary directory");
        for (path, contents) in files {
            let path = directory.path().join(path);
            if path.to_string_lossy().ends_with('/') {
                std::fs::create_dir_all(&path).expect("a directory");
            } else {
                std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
                std::fs::write(&path, contents).expect("a file");
            }
        }
        let client = TestClient::connect(&handler(directory.path())).await;
        Served { directory, client }
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.directory.path().join(relative)
    }

    fn root(&self) -> &Path {
        self.directory.path()
    }

    /// Calls `tool` with `arguments` and returns the result.
    async fn call(&self, tool: &str, arguments: Value) -> CallResult {
        self.client.call(tool, arguments).await
    }

    /// The structured content of a successful call.
    async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments.clone()).await;
        assert!(!result.is_error(), "{tool} {arguments}: {}", result.text());
        (result.structured().cloned())
            .unwrap_or_else(|| panic!("{tool} returns structured content"))
    }

    /// The text of a failed call.
    async fn refused(&self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments.clone()).await;
        assert!(result.is_error(), "{tool} {arguments} succeeds");
        result.text().to_owned()
    }
}

/// The example's tools, serving `directory`.
fn handler(directory: &Path) -> Handler<Sandbox> {
    let sandbox = Sandbox::new(directory).expect("the directory can be served");
    server::files().build(sandbox).expect("the tools assemble")
}

/// `Validation Failed: {violations} Correct the arguments and call the tool again.`
fn invalid(violations: &str) -> String {
    format!("Validation Failed: {violations} Correct the arguments and call the tool again.")
}

/// The same server over Streamable HTTP, as `--http ADDR` serves it: listed and called by
/// the test kit's HTTP client, with no token on a loopback address.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_directory_is_served_over_http_too() {
    use toolkit::http::{self, HttpSettings};

    let directory = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(directory.path().join("hello.txt"), "hi").expect("a file");
    let files = server::files();
    let loopback = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let bound = http::bind(loopback, HttpSettings::default(), &files.declared())
        .await
        .expect("bind a loopback port");
    let url = bound.public_url().to_string();
    let handler = handler(directory.path());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(bound.serve(handler, async {
        let _ = stopped.await;
    }));

    let client = TestClient::builder().connect_http(&url).await;
    let tools = client.list_tools().await;
    assert_eq!(tools.len(), server::files().definitions().len());
    let result = client
        .call("read_text_file", json!({"path": "hello.txt"}))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(
        result.structured().expect("structured content")["content"],
        "hi"
    );
    client.close().await;
    stop.send(()).expect("the server waits for its shutdown");
    assert!(serving.await.expect("the serving task").is_ok());
}

#[tokio::test]
async fn the_tool_list_is_the_snapshot() {
    let served = Served::with(&[]).await;
    let tools = served.client.list_tools().await;
    for tool in &tools {
        for (which, schema) in [
            ("input", Some(&tool.input_schema)),
            ("output", tool.output_schema.as_ref()),
        ] {
            let schema = Value::Object((**schema.expect("every tool has both schemas")).clone());
            if let Err(error) = jsonschema::draft202012::options().build(&schema) {
                panic!(
                    "{}'s {which} schema is not valid draft 2020-12: {error}",
                    tool.name
                );
            }
        }
    }
    let tools = serde_json::to_value(&tools).expect("the tools serialize");
    insta::assert_json_snapshot!("files_tools_list", tools);
}

#[tokio::test]
async fn the_allowed_directory_is_the_served_one() {
    let served = Served::with(&[]).await;
    let root = served.root().canonicalize().unwrap();
    assert_eq!(
        served.ok("list_allowed_directories", json!({})).await,
        json!({ "directories": [root.to_string_lossy()] })
    );
}
