//! A cross-check with another SDK's client: the MCP Python SDK 2.x over stdio, its elicitation
//! callback answering the server's question. It runs where that SDK is installed (see
//! `build.rs`: `python3`, or the interpreter `MOVIE_REVIEWS_PYTHON` names, imports `mcp` 2.x),
//! and is marked ignored elsewhere.

use std::process::Command;

use serde_json::Value;
use test_support::{TempDir, binary};

/// What the script printed after deleting the first review, its user answering `answer`.
fn deleted_by_python(answer: &str) -> Value {
    let dir = TempDir::new("python-client");
    let python = std::env::var("MOVIE_REVIEWS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/confirm_delete.py"
    );
    let database = dir.path().join("reviews.db");
    let output = Command::new(python)
        .arg(script)
        .arg(binary())
        .arg(&database)
        .arg(answer)
        .output()
        .expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = stdout
        .lines()
        .last()
        .expect("the script prints its findings");
    serde_json::from_str(printed).expect("JSON")
}

#[test]
#[cfg_attr(python_mcp_missing, ignore = "the MCP Python SDK 2.x is not installed")]
fn the_python_sdk_asks_its_user_and_a_yes_deletes_and_a_no_does_not() {
    let yes = deleted_by_python("accept");
    let review = &yes["review"];
    let question = format!(
        "Delete the {}-star review of \"{}\" by {}? This can't be undone.",
        review["stars"],
        review["movieTitle"].as_str().unwrap(),
        review["authorName"].as_str().unwrap()
    );
    assert_eq!(yes["asked"][0]["message"], question.as_str(), "{yes}");
    assert_eq!(
        yes["asked"][0]["schema"]["required"],
        serde_json::json!(["confirm"])
    );
    assert_eq!(yes["isError"], false, "{yes}");
    assert_eq!(yes["stillThere"], false, "{yes}");

    let no = deleted_by_python("decline");
    assert_eq!(no["isError"], true, "{no}");
    assert_eq!(no["text"], "Cancelled: the review was not deleted.");
    assert_eq!(no["stillThere"], true, "{no}");
}
