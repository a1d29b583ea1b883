//! The tools that change files: writing, editing with a list of edits (and a dry run),
//! creating directories and moving.

use serde_json::json;

use crate::{Served, invalid};

#[tokio::test]
async fn a_file_is_written_and_replaced() {
    let served = Served::with(&[("sub/", "")]).await;
    assert_eq!(
        served
            .ok(
                "write_file",
                json!({ "path": "sub/new.txt", "content": "héllo" })
            )
            .await,
        json!({ "path": "sub/new.txt", "bytes": 6 })
    );
    served
        .ok(
            "write_file",
            json!({ "path": "sub/new.txt", "content": "bye" }),
        )
        .await;
    assert_eq!(
        std::fs::read_to_string(served.path("sub/new.txt")).unwrap(),
        "bye"
    );
    assert_eq!(
        served
            .ok(
                "write_file",
                json!({ "path": "sub/lines.txt", "content": ["one", "two"] })
            )
            .await,
        json!({ "path": "sub/lines.txt", "bytes": 8 })
    );
    assert_eq!(
        std::fs::read_to_string(served.path("sub/lines.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert_eq!(
        served
            .refused(
                "write_file",
                json!({ "path": "sub/new.txt", "content": ["a", 1] })
            )
            .await,
        invalid(
            "content: Must be one of: a string, or an array ([1]: Must be a string, not a \
             number)."
        )
    );
    assert_eq!(
        served
            .refused(
                "write_file",
                json!({ "path": "nowhere/new.txt", "content": "" })
            )
            .await,
        invalid("path: The directory this path is in does not exist.")
    );
    assert_eq!(
        served
            .refused("write_file", json!({ "path": ".", "content": "" }))
            .await,
        invalid("path: Is the served directory itself: name an entry in it.")
    );
}

#[tokio::test]
async fn edits_are_made_in_order_shown_and_not_made_in_a_dry_run() {
    let served = Served::with(&[("code.rs", "let a = 1;\nlet b = 2;\n")]).await;
    let edits = json!([
        { "oldText": "a = 1", "newText": "a = 10" },
        { "oldText": "let b = 2;", "newText": "let b = 20;\nlet c = 30;" },
    ]);
    let dry = served
        .ok(
            "edit_file",
            json!({ "path": "code.rs", "edits": edits, "dryRun": true }),
        )
        .await;
    assert_eq!(dry["applied"], false);
    assert_eq!(
        dry["diff"],
        "@@ edit 0 @@\n-a = 1\n+a = 10\n@@ edit 1 @@\n-let b = 2;\n+let b = 20;\n+let c = 30;\n"
    );
    assert_eq!(
        std::fs::read_to_string(served.path("code.rs")).unwrap(),
        "let a = 1;\nlet b = 2;\n"
    );

    let applied = served
        .ok("edit_file", json!({ "path": "code.rs", "edits": edits }))
        .await;
    assert_eq!(applied["applied"], true);
    assert_eq!(
        std::fs::read_to_string(served.path("code.rs")).unwrap(),
        "let a = 10;\nlet b = 20;\nlet c = 30;\n"
    );

    assert_eq!(
        served
            .refused(
                "edit_file",
                json!({ "path": "code.rs", "edits": [
                    { "oldText": "let a", "newText": "let x" },
                    { "oldText": "absent", "newText": "" },
                ] })
            )
            .await,
        invalid("edits[1].oldText: Does not occur in the file (after the edits before it).")
    );
    assert_eq!(
        std::fs::read_to_string(served.path("code.rs")).unwrap(),
        "let a = 10;\nlet b = 20;\nlet c = 30;\n",
        "a failed edit changes nothing"
    );
    assert_eq!(
        served
            .refused(
                "edit_file",
                json!({ "path": "code.rs", "edits": [{ "oldText": "", "newTxt": "x" }] })
            )
            .await,
        invalid(
            "edits[0].oldText: Must be at least 1 character long, not 0. \
             edits[0].newText: This field is required. \
             edits[0].newTxt: Not a field of this object. Did you mean newText?"
        )
    );
}

#[tokio::test]
async fn directories_are_created_with_their_parents_and_again_without_harm() {
    let served = Served::with(&[("file.txt", "")]).await;
    assert_eq!(
        served
            .ok("create_directory", json!({ "path": "a/b/c" }))
            .await,
        json!({ "path": "a/b/c" })
    );
    assert!(served.path("a/b/c").is_dir());
    served
        .ok("create_directory", json!({ "path": "a/b/c" }))
        .await;
    assert_eq!(
        served
            .refused("create_directory", json!({ "path": "file.txt" }))
            .await,
        invalid("path: Is a file, not a directory.")
    );
}

#[tokio::test]
async fn a_move_never_replaces_what_is_there() {
    let served = Served::with(&[("a.txt", "A"), ("b.txt", "B"), ("dir/", "")]).await;
    assert_eq!(
        served
            .ok(
                "move_file",
                json!({ "source": "a.txt", "destination": "dir/a.txt" })
            )
            .await,
        json!({ "from": "a.txt", "to": "dir/a.txt" })
    );
    assert_eq!(
        std::fs::read_to_string(served.path("dir/a.txt")).unwrap(),
        "A"
    );
    assert_eq!(
        served
            .refused(
                "move_file",
                json!({ "source": "b.txt", "destination": "dir/a.txt" })
            )
            .await,
        invalid("destination: Already exists: moving would replace it. Choose another name.")
    );
    assert_eq!(std::fs::read_to_string(served.path("b.txt")).unwrap(), "B");
    assert_eq!(
        served
            .refused(
                "move_file",
                json!({ "source": ".", "destination": "elsewhere" })
            )
            .await,
        invalid("source: Is the served directory itself, which cannot be moved.")
    );
}
