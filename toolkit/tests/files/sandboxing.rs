//! No path leads out of the served directory: not through `..`, not as an absolute path, not
//! through a symbolic link, whether the tool reads, writes, creates or moves.

use std::os::unix::fs::symlink;

use serde_json::json;

use crate::{Served, invalid};

const OUTSIDE: &str = "Leads outside the served directory: give a path inside it.";

#[tokio::test]
async fn dot_dot_and_absolute_paths_outside_are_refused() {
    let served = Served::with(&[("inside.txt", "in"), ("sub/", "")]).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    let secret = outside.path().join("secret.txt");
    let parent_relative = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    for path in [
        secret.to_string_lossy().into_owned(),
        parent_relative,
        "/etc/passwd".into(),
    ] {
        assert_eq!(
            served
                .refused("read_text_file", json!({ "path": path }))
                .await,
            invalid(&format!("path: {OUTSIDE}")),
            "{path}"
        );
    }
    assert_eq!(
        served
            .refused(
                "write_file",
                json!({ "path": "../escaped.txt", "content": "x" })
            )
            .await,
        invalid(&format!("path: {OUTSIDE}"))
    );
    assert!(!served.root().parent().unwrap().join("escaped.txt").exists());
    // Inside, `..` is fine.
    let inside = served
        .ok("read_text_file", json!({ "path": "sub/../inside.txt" }))
        .await;
    assert_eq!(inside["content"], "in");
}

#[tokio::test]
async fn links_that_lead_outside_are_refused_and_links_inside_are_followed() {
    let served = Served::with(&[("real.txt", "real"), ("dir/", "")]).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    symlink(outside.path().join("secret.txt"), served.path("leak.txt")).unwrap();
    symlink(outside.path(), served.path("out")).unwrap();
    symlink(served.path("real.txt"), served.path("alias.txt")).unwrap();

    let outside_path = invalid(&format!("path: {OUTSIDE}"));
    assert_eq!(
        served
            .refused("read_text_file", json!({ "path": "leak.txt" }))
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused("read_text_file", json!({ "path": "out/secret.txt" }))
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused("write_file", json!({ "path": "leak.txt", "content": "x" }))
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused(
                "write_file",
                json!({ "path": "out/new.txt", "content": "x" })
            )
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused("create_directory", json!({ "path": "out/made" }))
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused("list_directory", json!({ "path": "out" }))
            .await,
        outside_path
    );
    assert_eq!(
        served
            .refused(
                "move_file",
                json!({ "source": "real.txt", "destination": "out/real.txt" })
            )
            .await,
        invalid(&format!("destination: {OUTSIDE}"))
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "secret"
    );
    assert!(!outside.path().join("new.txt").exists());
    assert!(!outside.path().join("made").exists());

    let alias = served
        .ok("read_text_file", json!({ "path": "alias.txt" }))
        .await;
    assert_eq!(alias["content"], "real");
    // A search does not follow links, so it never lists what lies outside.
    let found = served
        .ok("search_files", json!({ "query": "secret" }))
        .await;
    assert_eq!(found["paths"], json!([]));
}
