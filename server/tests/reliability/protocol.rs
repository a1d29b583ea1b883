//! Messages rmcp cannot read on its own: a malformed JSON-RPC envelope is answered as JSON-RPC
//! prescribes, with the request's id, and an argument nested deeper than the JSON parser goes
//! is a broken rule that names the argument, like any value of the wrong type.

use serde_json::{Value, json};

use test_support::{Session, TempDir, keys, text_of};

/// JSON nested this deep cannot be parsed by serde_json (its limit is 128 levels).
const TOO_DEEP: usize = 5_000;

#[test]
fn a_malformed_envelope_is_an_invalid_request_answered_with_its_id() {
    let dir = TempDir::new("envelopes");
    let mut session = Session::start(&dir.path().join("envelopes.db"), dir.path());
    for (line, id, code) in [
        (r#"{"jsonrpc":"2.0","id":5}"#, json!(5), -32600),
        (r#"{"jsonrpc":"2.0","id":6,"method":42}"#, json!(6), -32600),
        (
            r#"{"jsonrpc":"2.0","id":"seven","method":"ping","params":"x"}"#,
            json!("seven"),
            -32600,
        ),
        (
            r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
            json!(8),
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":[]}"#,
            json!(9),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            Value::Null,
            -32600,
        ),
        (
            r#"[{"jsonrpc":"2.0","id":10,"method":"ping"}]"#,
            Value::Null,
            -32600,
        ),
    ] {
        session.server.send_line(line);
        let answer = session.server.read_message();
        assert_eq!(answer["jsonrpc"], "2.0", "{line}: {answer}");
        assert!(
            answer.get("id").is_some(),
            "{line}: no id member in {answer}"
        );
        assert_eq!(answer["id"], id, "{line}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{line}: {answer}");
        assert!(answer.get("result").is_none(), "{line}: {answer}");
    }
    let id = session.id();
    assert_eq!(session.server.result(id, "ping", json!({})), json!({}));
    session.stop_with_eof();
}

#[test]
fn an_argument_nested_past_the_parsers_limit_is_a_broken_rule_named_by_the_argument() {
    let dir = TempDir::new("deep");
    let mut session = Session::start(&dir.path().join("deep.db"), dir.path());
    let id = session.id();
    session.server.send_line(&deep_call(id));
    let answer = session.server.read_message();
    assert_eq!(answer["id"], id, "{answer}");
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert_eq!(
        text_of(result),
        "Validation Failed: Query: Must be a string, not an array. Limit: Must be an integer, \
         not an object. Correct the arguments and call the tool again."
    );
    session.stop_with_eof();
}

/// A `movies_search` call whose `query` is arrays and whose `limit` is objects, each nested
/// [`TOO_DEEP`] levels.
pub fn deep_call(id: u64) -> String {
    let arrays = format!("{}{}", "[".repeat(TOO_DEEP), "]".repeat(TOO_DEEP));
    let objects = format!("{}1{}", r#"{"a":"#.repeat(TOO_DEEP), "}".repeat(TOO_DEEP));
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"movies_search","arguments":{{"query":{arrays},"limit":{objects}}}}}}}"#
    )
}

#[test]
fn a_call_whose_arguments_are_not_an_object_is_a_broken_rule_and_one_without_a_tool_invalid_params()
{
    let dir = TempDir::new("not-an-object");
    let mut session = Session::start(&dir.path().join("not-an-object.db"), dir.path());
    let ordinary_failure = session.call("movies_search", json!({ "limit": 0 }));
    for (arguments, kind) in [
        (json!("x"), "a string"),
        (json!([1]), "an array"),
        (json!(5), "a number"),
        (json!(true), "a boolean"),
    ] {
        let result = session.call("movies_search", arguments.clone());
        assert_eq!(result["isError"], true, "{arguments}: {result}");
        assert_eq!(
            keys(&result),
            keys(&ordinary_failure),
            "shaped as any failed call: {result}"
        );
        assert_eq!(
            text_of(&result),
            format!(
                "Validation Failed: Arguments: Must be an object of named arguments, not {kind}. \
                 Correct the arguments and call the tool again."
            )
        );
    }
    for (params, words) in [
        (json!({"arguments": {}}), "params.name"),
        (json!({"name": 5, "arguments": "x"}), "params.name"),
        (
            json!({"name": "movies_delete_all", "arguments": "x"}),
            "tool not found",
        ),
    ] {
        let id = session.id();
        let answer = session.server.request(id, "tools/call", params.clone());
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        let message = answer["error"]["message"].as_str().expect("a message");
        assert!(message.contains(words), "{params}: {message}");
    }
    let id = session.id();
    session.server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call"}}"#
    ));
    let answer = session.server.read_message();
    assert_eq!(answer["id"], id, "{answer}");
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    session.stop_with_eof();
}
