//! Hostile protocol input: each line is answered as JSON-RPC prescribes or ignored, memory
//! stays bounded, and the next request is still answered.

use serde_json::{Value, json};
use toolkit::stdio::MAX_MESSAGE_BYTES;

use crate::StillServing;
use test_support::{Session, TempDir, peak_memory_kib, text_of};

/// The peak resident memory the server may reach while refusing huge messages (a debug build).
const PEAK_MEMORY_LIMIT_KIB: u64 = 150 * 1024;

/// Hostile lines (bad JSON, batch, unknowns, 10 MB, bad UTF-8, oversized) are each answered as
/// JSON-RPC prescribes (notifications excepted), and serving goes on.
#[test]
fn hostile_protocol_input_is_answered_or_ignored_and_serving_goes_on() {
    // After each input the server still answers a ping and a tool call.
    let dir = TempDir::new("hostile");
    let mut session = Session::start(&dir.path().join("hostile.db"), dir.path());
    session.still_serving();

    // Malformed JSON: Parse error, with the id read from what could be read.
    session
        .server
        .send_line(r#"{"jsonrpc":"2.0","id":900,"method":"ping""#);
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(refused["id"], 900, "{refused}");
    session.server.send_line("not json at all");
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    session.still_serving();

    // Valid JSON serde_json would refuse: a number beyond f64 is read as ±1e308, a broken rule.
    let id = session.id();
    session.server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"movies_search","arguments":{{"offset":1e400}}}}}}"#
    ));
    let answer = session.server.read_message();
    assert_eq!(answer["id"], id, "{answer}");
    assert!(
        text_of(&answer["result"]).starts_with("Validation Failed: Offset:"),
        "{answer}"
    );
    session.still_serving();

    // A batch (an array): MCP no longer allows batches; rmcp answers Invalid Request.
    session
        .server
        .send_line(r#"[{"jsonrpc":"2.0","id":901,"method":"ping"}]"#);
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused.get("result").is_none(), "{refused}");
    session.still_serving();

    // A notification (no id) for an unknown method: notifications are never answered.
    for method in ["notifications/no_such_thing", "no_such_method"] {
        session
            .server
            .send(&json!({"jsonrpc": "2.0", "method": method, "params": {}}));
    }
    session.still_serving();

    // A request for an unknown method: Method Not Found.
    let id = session.id();
    let unknown = session.server.request(id, "movies/delete_all", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(unknown.get("result").is_none(), "{unknown}");
    session.still_serving();

    // A tools/call for an unknown tool: Invalid Params, as the MCP specification prescribes.
    let id = session.id();
    let unknown = session.server.request(
        id,
        "tools/call",
        json!({"name": "movies_delete_all", "arguments": {}}),
    );
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown.get("result").is_none(), "{unknown}");
    session.still_serving();

    // A 10 MB argument string: read whole (it is under the limit) and refused by validation.
    let before = peak_memory_kib(session.server.pid());
    let huge = "x".repeat(10_000_000);
    let refused = session.call("movies_search", json!({"query": huge}));
    assert_eq!(refused["isError"], true, "a 10 MB query is refused");
    let text = text_of(&refused);
    assert!(
        text.starts_with("Validation Failed: Query:") && text.len() < 1000,
        "{}",
        &text[..text.len().min(300)]
    );
    let after_10_mb = peak_memory_kib(session.server.pid());
    session.still_serving();

    // A line that is not UTF-8: Parse error, with the id when it can be read.
    session
        .server
        .send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":902,\"method\":\"ping\",\"x\":\"\xff\xfe\xc0\"}");
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    assert_eq!(refused["id"], 902, "{refused}");
    session.server.send_bytes(b"\xff\xfe\xfd\x80\x80");
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    session.still_serving();

    // A line over the limit: skipped as it arrives, never held whole, and answered with
    // Invalid Request, carrying the id read from the line's start.
    send_oversized(&mut session, MAX_MESSAGE_BYTES + 1);
    let after_oversized = peak_memory_kib(session.server.pid());
    session.still_serving();
    session.stop_with_eof();

    // The same alone in a fresh server, four times the limit: the peak does not grow with the
    // line, since no more than the limit of it is ever held.
    let mut fresh = Session::start(&dir.path().join("hostile.db"), dir.path());
    let fresh_before = peak_memory_kib(fresh.server.pid());
    send_oversized(&mut fresh, 4 * MAX_MESSAGE_BYTES);
    let fresh_after = peak_memory_kib(fresh.server.pid());
    fresh.still_serving();
    fresh.stop_with_eof();

    println!(
        "peak memory (VmHWM): {before} KiB before the huge messages, {after_10_mb} KiB after \
         the 10 MB argument, {after_oversized} KiB after a {} MiB + 1 byte line; a fresh server: \
         {fresh_before} KiB, then {fresh_after} KiB after a {} MiB line (limit \
         {PEAK_MEMORY_LIMIT_KIB} KiB)",
        MAX_MESSAGE_BYTES >> 20,
        (4 * MAX_MESSAGE_BYTES) >> 20,
    );
    for peak in [after_10_mb, after_oversized, fresh_after] {
        assert!(
            peak <= PEAK_MEMORY_LIMIT_KIB,
            "peak memory {peak} KiB is over {PEAK_MEMORY_LIMIT_KIB} KiB"
        );
    }
    // Holding the whole line would add four times the limit; at most the limit is held. The
    // allocator keeps what it frees for up to a second before giving it back, so the smaller
    // buffers the line grew through, as much again as the last, may still count: three times
    // the limit is the bound.
    let grown = fresh_after.saturating_sub(fresh_before);
    let held_at_most = 3 * (MAX_MESSAGE_BYTES as u64 >> 10);
    assert!(
        grown < held_at_most,
        "a {} MiB line grew the peak by {grown} KiB: more than the limit of it was held",
        (4 * MAX_MESSAGE_BYTES) >> 20
    );
}

/// Sends a tools/call line of `payload` bytes and more, which the server must answer with
/// Invalid Request and the request's id.
fn send_oversized(session: &mut Session, payload: usize) {
    let mut line = br#"{"jsonrpc":"2.0","id":903,"method":"tools/call","#.to_vec();
    line.extend_from_slice(br#""params":{"name":"movies_search","arguments":{"query":""#);
    line.resize(line.len() + payload, b'y');
    line.extend_from_slice(br#""}}}"#);
    assert!(line.len() > MAX_MESSAGE_BYTES + 1);
    session.server.send_bytes(&line);
    drop(line);
    let refused = session.server.read_message();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], 903, "{refused}");
}
