//! The tools that read: text files whole or in part, several at once, directory listings,
//! searches and file information.

use serde_json::json;

use crate::{Served, invalid};

#[tokio::test]
async fn a_text_file_is_read_whole_or_by_its_first_or_last_lines() {
    let served = Served::with(&[("notes.txt", "one\ntwo\nthree\n")]).await;
    let read = |arguments| served.ok("read_text_file", arguments);
    assert_eq!(
        read(json!({ "path": "notes.txt" })).await["content"],
        "one\ntwo\nthree\n"
    );
    assert_eq!(
        read(json!({ "path": "notes.txt", "head": 2 })).await["content"],
        "one\ntwo\n"
    );
    assert_eq!(
        read(json!({ "path": "notes.txt", "tail": 1 })).await["content"],
        "three\n"
    );
    assert_eq!(
        read(json!({ "path": "notes.txt", "tail": 10 })).await["content"],
        "one\ntwo\nthree\n"
    );
    assert_eq!(
        served
            .refused(
                "read_text_file",
                json!({ "path": "notes.txt", "head": 1, "tail": 1 })
            )
            .await,
        invalid("Give at most one of head or tail.")
    );
    assert_eq!(
        served
            .refused("read_text_file", json!({ "path": "notes.txt", "head": 0 }))
            .await,
        invalid("head: Must be 1 or more, not 0.")
    );
    assert_eq!(
        served
            .refused("read_text_file", json!({ "path": "gone.txt" }))
            .await,
        invalid("path: Nothing exists at this path.")
    );
}

#[tokio::test]
async fn several_files_are_read_at_once_each_failure_in_its_place() {
    let served = Served::with(&[("a.txt", "A"), ("b.txt", "B")]).await;
    let answer = served
        .ok(
            "read_multiple_files",
            json!({ "paths": ["a.txt", "missing.txt", "b.txt"] }),
        )
        .await;
    assert_eq!(
        answer,
        json!({ "files": [
            { "path": "a.txt", "content": "A" },
            { "path": "missing.txt", "error": "Nothing exists at this path." },
            { "path": "b.txt", "content": "B" },
        ] })
    );
    assert_eq!(
        served
            .refused("read_multiple_files", json!({ "paths": [] }))
            .await,
        invalid("paths: Must have between 1 and 50 items, not 0.")
    );
    assert_eq!(
        served
            .refused("read_multiple_files", json!({ "paths": ["a.txt", ""] }))
            .await,
        invalid("paths[1]: Must be at least 1 character long, not 0.")
    );
}

#[tokio::test]
async fn a_directory_is_listed_by_name_or_by_size() {
    let served = Served::with(&[("small.txt", "x"), ("big.txt", "xxxxx"), ("sub/", "")]).await;
    let by_name = served.ok("list_directory", json!({})).await;
    assert_eq!(
        by_name,
        json!({ "entries": [
            { "name": "big.txt", "kind": "file", "size": 5 },
            { "name": "small.txt", "kind": "file", "size": 1 },
            { "name": "sub", "kind": "directory" },
        ] })
    );
    let by_size = served
        .ok("list_directory", json!({ "sortBy": "size" }))
        .await;
    let names: Vec<&str> = by_size["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["big.txt", "small.txt", "sub"]);
    assert_eq!(
        served
            .refused("list_directory", json!({ "sortBy": "sise" }))
            .await,
        invalid("sortBy: Must be one of name, size, not \"sise\". Did you mean size?")
    );
}

#[tokio::test]
async fn a_search_finds_names_and_leaves_out_what_is_excluded() {
    let served = Served::with(&[
        ("src/report.rs", "fn main() {}"),
        ("src/report.txt", "a long report, more than a kibibyte? no"),
        ("target/report.rs", ""),
        ("logs/report.log", ""),
        ("REPORTS/", ""),
    ])
    .await;
    let search = |arguments| served.ok("search_files", arguments);
    assert_eq!(
        search(json!({ "query": "report" })).await,
        json!({
            "paths": ["REPORTS", "logs/report.log", "src/report.rs", "src/report.txt",
                      "target/report.rs"],
            "truncated": false,
        })
    );
    assert_eq!(
        search(json!({ "query": "report", "excludePatterns": ["target", "*.log"] })).await,
        json!({ "paths": ["REPORTS", "src/report.rs", "src/report.txt"], "truncated": false })
    );
    assert_eq!(
        search(json!({ "query": "report", "extension": "rs", "path": "src" })).await,
        json!({ "paths": ["src/report.rs"], "truncated": false })
    );
    assert_eq!(
        search(json!({ "query": "report", "maxResults": 1 })).await,
        json!({ "paths": ["REPORTS"], "truncated": true })
    );
    assert_eq!(
        search(json!({ "query": "report", "largerThanKib": 0.01 })).await,
        json!({ "paths": ["src/report.rs", "src/report.txt"], "truncated": false })
    );
    assert_eq!(
        served
            .refused(
                "search_files",
                json!({ "query": "", "extension": ".rs", "excludePatterns": [""],
                        "largerThanKib": -1 })
            )
            .await,
        invalid(
            "query: Must be between 1 and 200 characters long, not 0. \
             excludePatterns[0]: Must be between 1 and 200 characters long, not 0. \
             extension: Must match the pattern ^[A-Za-z0-9]{1,10}$, not \".rs\". \
             largerThanKib: Must be 0.0 or more, not -1."
        )
    );
}

#[tokio::test]
async fn file_information_tells_kind_size_and_time() {
    let served = Served::with(&[("a.txt", "hello"), ("dir/", "")]).await;
    let info = served.ok("get_file_info", json!({ "path": "a.txt" })).await;
    assert_eq!(
        (&info["path"], &info["kind"], &info["size"]),
        (&json!("a.txt"), &json!("file"), &json!(5))
    );
    assert_eq!(info["readOnly"], false);
    assert!(info["modifiedSeconds"].as_u64().unwrap() > 1_600_000_000);
    let info = served.ok("get_file_info", json!({ "path": "dir" })).await;
    assert_eq!(info["kind"], "directory");
}
