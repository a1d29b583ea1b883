//! `bundle` writes an MCP Bundle (`.mcpb`) that Claude Desktop can install: a zip holding a
//! `manifest.json` that names the tools served and how to start the binary, and the binary
//! itself, which runs from the bundle with nothing beside it. Where Node.js is installed, the
//! official bundle tool (`@anthropic-ai/mcpb` from the npm registry) validates the manifest.

use std::io::Read;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use zip::ZipArchive;

use test_support::{TempDir, command, run};

/// The version of the official bundle tool the manifest is checked with.
const MCPB_CLI: &str = "@anthropic-ai/mcpb@2.1.2";

#[test]
fn a_bundle_holds_a_valid_manifest_and_a_binary_that_runs_on_its_own() {
    let dir = TempDir::new("bundle");
    let bundle = dir.path().join("movie-reviews.mcpb");
    let mut write = command(dir.path());
    write
        .arg("--read-only")
        .arg("bundle")
        .arg("--output")
        .arg(&bundle);
    let written = run(write);
    assert!(written.status.success(), "{}", written.stderr);

    let mut archive = ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let mut names: Vec<String> = archive
        .file_names()
        .map(|name| name.expect("a file name").into_owned())
        .collect();
    names.sort();
    let entry = format!("server/movie-reviews-mcp{}", std::env::consts::EXE_SUFFIX);
    assert_eq!(names, ["manifest.json".to_owned(), entry.clone()]);
    let manifest: Value = serde_json::from_reader(archive.by_name("manifest.json").unwrap())
        .expect("the manifest is JSON");

    // What Claude Desktop reads: a binary server, started with the database the user chose and
    // the tools chosen when bundling, listing exactly the tools served.
    assert_eq!(manifest["server"]["type"], "binary", "{manifest}");
    assert_eq!(manifest["server"]["entry_point"], entry.as_str());
    assert_eq!(
        manifest["server"]["mcp_config"]["command"],
        format!("${{__dirname}}/{entry}")
    );
    assert_eq!(
        manifest["server"]["mcp_config"]["args"],
        serde_json::json!(["--database", "${user_config.database}", "--read-only"])
    );
    assert_eq!(manifest["user_config"]["database"]["type"], "file");
    let listed: Vec<&str> = manifest["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect();
    let read_only = test_support::tool_names_where(|spec| spec.hints.read_only);
    assert_eq!(
        listed, read_only,
        "the read-only tools, as the bundle was made"
    );

    // The binary in the bundle is this one, and runs from where it is unpacked.
    let unpacked = dir.path().join("unpacked");
    std::fs::create_dir(&unpacked).unwrap();
    let binary = unpacked.join("movie-reviews-mcp");
    let mut file = archive.by_name(&entry).unwrap();
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes, std::fs::read(test_support::binary()).unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(file.unix_mode().map(|mode| mode & 0o111), Some(0o111));
        std::fs::write(&binary, &bytes).unwrap();
        std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut call = Command::new(&binary);
        call.current_dir(&unpacked)
            .env_remove("MOVIE_REVIEWS_DATABASE")
            .args(["--database", "catalogue.db", "call", "movies_search"])
            .arg(r#"{"query":"night","limit":1}"#);
        let called = run(call);
        assert!(called.status.success(), "{}", called.stderr);
        assert!(
            called.stdout.contains("\"isError\": false"),
            "{}",
            called.stdout
        );
    }

    validate_with_the_official_tool(&manifest, dir.path());
}

/// Runs `mcpb validate` on `manifest` where `npx` is installed; says loudly when it is not, or
/// when the npm registry cannot be reached (under `CI`, that fails the test instead).
fn validate_with_the_official_tool(manifest: &Value, dir: &Path) {
    let npx_found = Command::new("npx").arg("--version").output().is_ok();
    if !npx_found {
        eprintln!("bundle: npx not found, so the official tool did not validate the manifest");
        return;
    }
    let path = dir.join("manifest.json");
    std::fs::write(&path, serde_json::to_vec_pretty(manifest).unwrap()).unwrap();
    let mut validate = Command::new("npx");
    validate
        .current_dir(dir)
        .args(["--yes", MCPB_CLI, "validate"])
        .arg(&path);
    let validated = run(validate);
    let offline = ["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT"]
        .iter()
        .any(|code| validated.stderr.contains(code));
    if offline && std::env::var_os("CI").is_none() {
        eprintln!(
            "bundle: the npm registry is out of reach, so the official tool did not validate \
             the manifest:\n{}",
            validated.stderr
        );
        return;
    }
    assert!(
        validated.status.success() && validated.stdout.contains("validation passes"),
        "mcpb validate:\n{}\n{}",
        validated.stdout,
        validated.stderr
    );
}
