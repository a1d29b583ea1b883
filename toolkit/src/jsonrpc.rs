//! One JSON-RPC message as the server reads it, from a line of stdin or an HTTP body, before
//! rmcp sees it: made readable, parsed, and checked to be a message rmcp can take, so that
//! whatever rmcp would refuse is answered here as JSON-RPC 2.0 prescribes, with the request's
//! `id` (rmcp answers such messages without one, or drops them).
//!
//! Made readable means:
//!
//! - a lone UTF-16 surrogate escape (`"\ud800"`), valid JSON that serde_json refuses, becomes
//!   `\ufffd` (U+FFFD);
//! - a number beyond `f64` (`1e400`), also refused by serde_json, becomes `±1e308`, which a tool
//!   reports as a broken rule;
//! - a container nested [`MAX_DEPTH`] levels deep is emptied, since serde_json (and so rmcp)
//!   refuses to nest past 128 levels. No tool argument is a container, so an argument that was
//!   nested that deeply is still refused as a value of the wrong type, by its name.
//!
//! Then a message that is still not JSON is a Parse error (-32700); one that is not a JSON-RPC
//! 2.0 request, notification or response is an Invalid Request (-32600); `params` that are not
//! an object are Invalid params (-32602). A notification is never answered, as JSON-RPC
//! requires, so one that cannot be read is dropped.

mod readable;
mod tool_call;

pub use readable::make_readable;

use std::borrow::Cow;

use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ClientRequest, JsonRpcMessage};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// How deep containers may nest in a message; one this deep is emptied (see the module's
/// documentation). MCP's own messages nest a handful of levels.
pub const MAX_DEPTH: usize = 64;

/// A message rmcp can take.
pub struct Incoming {
    /// The message as JSON.
    pub json: Value,
    /// The message as rmcp reads it.
    pub message: ClientJsonRpcMessage,
}

/// What to do with one message read.
pub enum Read<T> {
    /// Hand it to rmcp.
    Forward(T),
    /// Answer it with this JSON-RPC error response; rmcp never sees it.
    Refuse(Value),
    /// A notification that cannot be read: drop it (notifications are never answered).
    Drop,
}

impl<T> Read<T> {
    /// The same outcome, with what is forwarded changed by `change`.
    pub fn map_forward<U>(self, change: impl FnOnce(T) -> U) -> Read<U> {
        match self {
            Read::Forward(message) => Read::Forward(change(message)),
            Read::Refuse(answer) => Read::Refuse(answer),
            Read::Drop => Read::Drop,
        }
    }
}

/// Reads one message, as JSON and as rmcp reads it; see the module's documentation.
pub fn read(bytes: &[u8]) -> Read<Box<Incoming>> {
    read_readable(bytes, &make_readable(bytes))
}

/// [`read`], given `text`, the message `bytes` made readable: only a message that does not
/// parse is looked at as it was sent, for its `id`.
fn read_readable(bytes: &[u8], text: &[u8]) -> Read<Box<Incoming>> {
    let json: Value = match serde_json::from_slice(text) {
        Ok(json) => json,
        Err(error) => {
            let message = format!("Parse error: {error}.");
            return Read::Refuse(error_response(top_level_id(bytes), -32700, &message));
        }
    };
    match ClientJsonRpcMessage::deserialize(&json) {
        Ok(message) => Read::Forward(Box::new(Incoming { json, message })),
        Err(_) => refuse(&json),
    }
}

/// Reads one message as rmcp reads it, as [`read`] does. A message rmcp can take is parsed
/// straight into rmcp's types (a `tools/call` request by `tool_call`, which is quicker than
/// rmcp at it); only one it cannot take is read again as JSON, to say what is wrong with it.
pub fn read_message(bytes: &[u8]) -> Read<ClientJsonRpcMessage> {
    let text = make_readable(bytes);
    read_either_way(bytes, &text).map_forward(|read| match read {
        Reading::Direct(message) => message,
        Reading::AsJson(incoming) => incoming.message,
    })
}

/// Reads one message as [`read_message`] does, for rmcp to read again from bytes (its HTTP
/// service parses the body itself): the message, and the bytes that rmcp reads as that very
/// message. They are the bytes sent, unless they had to be made readable or a key was given
/// twice (rmcp and a JSON value read those two ways): then the message written out again.
pub fn read_for_rmcp(bytes: &[u8]) -> Read<(ClientJsonRpcMessage, Cow<'_, [u8]>)> {
    let text = make_readable(bytes);
    match read_either_way(bytes, &text) {
        Read::Forward(Reading::Direct(message)) => Read::Forward((message, text)),
        Read::Forward(Reading::AsJson(incoming)) => match serde_json::to_vec(&incoming.json) {
            Ok(written) => Read::Forward((incoming.message, Cow::Owned(written))),
            // Writing a `Value` fails only for a map with non-string keys, which JSON cannot
            // have.
            Err(_) => Read::Refuse(error_response(None, -32603, "Internal error.")),
        },
        Read::Refuse(answer) => Read::Refuse(answer),
        Read::Drop => Read::Drop,
    }
}

/// How a message was read: straight into rmcp's types, or through a JSON value.
#[expect(
    clippy::large_enum_variant,
    reason = "it lives on the stack only while a message is read; boxing the common variant \
              would cost an allocation per message"
)]
enum Reading {
    Direct(ClientJsonRpcMessage),
    AsJson(Box<Incoming>),
}

/// Reads `text`, the message `bytes` made readable, into rmcp's types, through a JSON value only
/// when rmcp would not read it as it is.
fn read_either_way(bytes: &[u8], text: &[u8]) -> Read<Reading> {
    if let Some(call) = tool_call::read(text) {
        return Read::Forward(Reading::Direct(call));
    }
    // rmcp takes any method it does not know as a custom one, and so also a known method whose
    // params it could not read (a key given twice, say), where a `Value` keeps the last: such a
    // message is read again through `read`, so that stdio reads it as HTTP does.
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(text)
        && !is_custom(&message)
    {
        return Read::Forward(Reading::Direct(message));
    }
    read_readable(bytes, text).map_forward(Reading::AsJson)
}

/// Whether rmcp read `message` as a method it does not know.
fn is_custom(message: &ClientJsonRpcMessage) -> bool {
    match message {
        JsonRpcMessage::Request(request) => {
            matches!(request.request, ClientRequest::CustomRequest(_))
        }
        JsonRpcMessage::Notification(notification) => matches!(
            notification.notification,
            ClientNotification::CustomNotification(_)
        ),
        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => false,
    }
}

/// The answer to a message rmcp cannot read, naming the first thing wrong with it.
fn refuse<T>(json: &Value) -> Read<T> {
    let Value::Object(message) = json else {
        let problem = if json.is_array() {
            "Invalid Request: batches are not supported; send one message at a time."
        } else {
            "Invalid Request: a message must be a JSON object."
        };
        return Read::Refuse(error_response(None, -32600, problem));
    };
    let id = message.get("id").filter(|id| is_valid_id(id)).cloned();
    let (code, problem) = match envelope_problem(message) {
        Some(problem) => (-32600, problem),
        // A notification rmcp cannot read (an unknown one, or one whose params it does not
        // expect): never answered.
        None if !message.contains_key("id") && message.contains_key("method") => {
            tracing::debug!("dropped a notification that cannot be read");
            return Read::Drop;
        }
        None if message
            .get("params")
            .is_some_and(|params| !params.is_object()) =>
        {
            (-32602, "Invalid params: \"params\" must be an object.")
        }
        None => {
            tracing::debug!("refused a message rmcp cannot read");
            (
                -32600,
                "Invalid Request: not a JSON-RPC 2.0 request, notification or response the \
                 server can read.",
            )
        }
    };
    Read::Refuse(error_response(id, code, problem))
}

/// What makes `message` something other than a JSON-RPC 2.0 request, notification or response,
/// if anything.
fn envelope_problem(message: &Map<String, Value>) -> Option<&'static str> {
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some("Invalid Request: \"jsonrpc\" must be \"2.0\".");
    }
    if message.get("id").is_some_and(|id| !is_valid_id(id)) {
        return Some("Invalid Request: \"id\" must be a string or an integer.");
    }
    let is_response = message.contains_key("result") || message.contains_key("error");
    match message.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return Some("Invalid Request: \"method\" must be a string."),
        None if is_response => {}
        None => return Some("Invalid Request: a request needs a \"method\"."),
    }
    match message.get("params") {
        None | Some(Value::Object(_) | Value::Array(_)) => None,
        Some(_) => Some("Invalid Request: \"params\" must be an object."),
    }
}

/// Whether `id` is one a request may carry: a string or an integer that rmcp can hold.
fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64()
}

/// A JSON-RPC error response; `id` is `null` when the request's could not be read.
pub fn error_response(id: Option<Value>, code: i64, message: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    })
}

/// The `id` of a JSON-RPC message that could not be parsed whole (or only its start is at
/// hand): the value of the key `"id"` of the outermost object, if it is a string, a number or
/// null and can be read.
pub fn top_level_id(line: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut last_string_is_id = false;
    let mut index = 0;
    while index < line.len() {
        match line[index] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = readable::string_end(line, index)?;
                // Keys come just before their colon, so at the colon this tells whether the
                // key was "id".
                last_string_is_id = depth == 1 && &line[index..=end] == b"\"id\"";
                index = end;
            }
            b':' if depth == 1 && last_string_is_id => {
                let start = index
                    + 1
                    + line[index + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                let end = match line.get(start) {
                    Some(b'"') => readable::string_end(line, start)? + 1,
                    _ => {
                        start
                            + line[start..]
                                .iter()
                                .take_while(|b| {
                                    !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace()
                                })
                                .count()
                    }
                };
                let id: Value = serde_json::from_slice(&line[start..end]).ok()?;
                return (id.is_string() || id.is_number() || id.is_null()).then_some(id);
            }
            _ => {}
        }
        index += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer to `line`, which must be refused.
    fn refusal(line: &str) -> Value {
        match read(line.as_bytes()) {
            Read::Refuse(answer) => answer,
            Read::Forward(_) => panic!("forwarded: {line}"),
            Read::Drop => panic!("dropped: {line}"),
        }
    }

    /// What a line reads as: the message rmcp gets (its debug form, which names the variant:
    /// a custom request serialises as the known one would), or the answer given instead.
    fn outcome<T: std::fmt::Debug>(read: Read<T>) -> String {
        match read {
            Read::Forward(message) => format!("{message:?}"),
            Read::Refuse(answer) => answer.to_string(),
            Read::Drop => "dropped".to_owned(),
        }
    }

    #[test]
    fn stdio_reads_every_line_as_http_does() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","name":"b","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"made/up","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"id":5,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"a","arguments":{"q":"\ud800","n":1e400}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}"#,
        ];
        for line in lines {
            let http = outcome(read(line.as_bytes()).map_forward(|incoming| incoming.message));
            assert_eq!(outcome(read_message(line.as_bytes())), http, "{line}");
        }
    }

    #[test]
    fn the_id_is_read_from_a_line_that_does_not_parse() {
        let id = |line: &str| top_level_id(line.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"#),
            Some(json!(7))
        );
        assert_eq!(
            id(r#"{"params":{"id":1},"id":"a\"b"} trailing"#),
            Some(json!("a\"b"))
        );
        assert_eq!(id(r#"{"method":"id","params":[1,2,"#), None);
        assert_eq!(id(r#"{"id":{"x":1}}"#), None);
        assert_eq!(id("not json at all"), None);
    }

    #[test]
    fn what_is_not_json_is_a_parse_error_with_the_id_when_it_can_be_read() {
        let answer = refusal(r#"{"jsonrpc":"2.0","id":3,"method":"ping""#);
        assert_eq!(answer["id"], 3);
        assert_eq!(answer["error"]["code"], -32700);
        let answer = refusal("\"\u{ff}");
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], -32700);
    }

    #[test]
    fn envelopes_rmcp_cannot_read_are_invalid_requests_with_their_id() {
        for (line, id, code, words) in [
            (
                r#"{"jsonrpc":"2.0","id":5}"#,
                json!(5),
                -32600,
                "needs a \"method\"",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":42}"#,
                json!("a"),
                -32600,
                "\"method\" must",
            ),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":"x"}"#,
                json!(7),
                -32600,
                "\"params\" must",
            ),
            (
                r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
                json!(8),
                -32600,
                "\"jsonrpc\" must",
            ),
            (
                r#"{"id":9,"method":"ping"}"#,
                json!(9),
                -32600,
                "\"jsonrpc\" must",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Value::Null,
                -32600,
                "\"id\" must",
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                Value::Null,
                -32600,
                "\"id\" must",
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"ping","params":[]}"#,
                json!(10),
                -32602,
                "\"params\" must",
            ),
            (
                r#"[{"jsonrpc":"2.0","id":11,"method":"ping"}]"#,
                Value::Null,
                -32600,
                "batches",
            ),
            ("12", Value::Null, -32600, "a JSON object"),
        ] {
            let answer = refusal(line);
            assert_eq!(answer["jsonrpc"], "2.0", "{line}");
            assert_eq!(answer["id"], id, "{line}: {answer}");
            assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(words), "{line}: {message}");
        }
    }

    #[test]
    fn requests_notifications_and_responses_rmcp_reads_are_forwarded() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
        ] {
            assert!(matches!(read(line.as_bytes()), Read::Forward(_)), "{line}");
        }
        let notification = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}"#;
        assert!(matches!(read(notification.as_bytes()), Read::Drop));
    }

    #[test]
    fn a_line_cut_short_inside_an_escape_does_not_panic() {
        for line in [
            r#"{"q":"\ud8"#,
            r#"{"q":"\ud800\"#,
            r#"{"q":"\"#,
            r#""\ud800\udc"#,
        ] {
            let _ = make_readable(line.as_bytes());
            let _ = top_level_id(line.as_bytes());
        }
    }
}
