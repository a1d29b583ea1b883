//! An initialized MCP session with the server over stdio, numbering its requests, and what the
//! tests read from tool results.

use std::path::Path;

use serde_json::{Value, json};

use crate::binary::{EXIT_TIMEOUT, text_of};
use crate::stdio_server::Server;

/// An initialized MCP session with a server process, numbering its requests.
pub struct Session {
    pub server: Server,
    pub next_id: u64,
}

impl Session {
    /// A server on `database`, initialized.
    pub fn start(database: &Path, cwd: &Path) -> Session {
        Session::initialize(Server::spawn(database, cwd))
    }

    pub fn initialize(mut server: Server) -> Session {
        server.initialize();
        Session { server, next_id: 1 }
    }

    pub fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A tool's result, whatever it is.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let id = self.id();
        self.server.result(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
    }

    /// A tool's structuredContent; the call must succeed.
    pub fn call_ok(&mut self, tool: &str, arguments: Value) -> Value {
        let id = self.id();
        let response = self.server.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        structured(&response, tool)
    }

    /// Sends every call before reading any answer; the responses, in call order.
    pub fn pipeline(&mut self, calls: &[(&str, Value)]) -> Vec<Value> {
        let ids: Vec<u64> = calls.iter().map(|_| self.id()).collect();
        for ((tool, arguments), id) in calls.iter().zip(&ids) {
            self.server.send_call(*id, tool, arguments.clone());
        }
        let mut responses = self.server.read_responses(&ids);
        ids.iter()
            .map(|id| responses.remove(id).expect("a response to every call"))
            .collect()
    }

    /// Every item of a search tool, page by page.
    pub fn all_pages(&mut self, tool: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut offset = 0;
        loop {
            let page = self.call_ok(tool, json!({"offset": offset, "limit": 50}));
            items.extend(page["items"].as_array().expect("items").iter().cloned());
            match page.get("nextOffset").and_then(Value::as_u64) {
                Some(next) => offset = next,
                None => break,
            }
        }
        items
    }

    /// Closes stdin; the server exits with status 0.
    pub fn stop_with_eof(mut self) {
        self.server.close_stdin();
        let status = self.server.wait_for_exit(EXIT_TIMEOUT);
        let stderr = self.server.finish();
        assert!(status.success(), "exit {status}; stderr:\n{stderr}");
    }
}

/// The structuredContent of a successful tool call's response: no protocol error, no isError.
pub fn structured(response: &Value, what: &str) -> Value {
    assert!(
        response.get("error").is_none(),
        "{what}: a protocol error: {response}"
    );
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{what} failed: {response}");
    result["structuredContent"].clone()
}

/// The reference in an unexpected-error result, which must be exactly
/// `Error: Something unexpected happened. Reference: <8 hex>.`: no SQL, no path, nothing else.
pub fn unexpected_reference(result: &Value, dir: &Path) -> String {
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text = text_of(result);
    for leak in ["SELECT", "INSERT", "sqlite", "table", "trigger", "reviews"] {
        assert!(
            !text.to_lowercase().contains(&leak.to_lowercase()),
            "{leak} in: {text}"
        );
    }
    assert!(!text.contains(&*dir.to_string_lossy()), "a path in: {text}");
    let reference = text
        .strip_prefix("Error: Something unexpected happened. Reference: ")
        .and_then(|rest| rest.strip_suffix('.'))
        .unwrap_or_else(|| panic!("not the unexpected-error text: {text}"));
    assert!(
        reference.len() == 8
            && reference
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
        "the reference is 8 lowercase hex digits: {text}"
    );
    reference.to_owned()
}
