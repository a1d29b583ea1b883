//! `bundle`: this very binary as an MCP Bundle (`.mcpb`), the archive Claude Desktop installs
//! with one click. The archive is a zip holding `manifest.json` (what the server is, the tools
//! it serves, how to start it, and the one setting a user may change: where the database is)
//! and the binary itself under `server/`. The binary needs nothing beside it: its migrations
//! are compiled in.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use rmcp::model::Tool;
use serde_json::{Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use crate::error::Error;
use toolkit::Selection;

/// The version of the bundle manifest format written.
const MANIFEST_VERSION: &str = "0.3";

/// Where the binary sits inside the bundle.
fn entry_point() -> String {
    format!("server/movie-reviews-mcp{}", std::env::consts::EXE_SUFFIX)
}

/// Writes the bundle of the running binary to `output`: serving `tools`, the tools `selection`
/// chose, which the bundle's command line chooses again.
pub fn write(output: &Path, tools: &[Tool], selection: &Selection) -> Result<(), Error> {
    let binary = std::fs::read(std::env::current_exe()?)?;
    let manifest = serde_json::to_vec_pretty(&manifest(tools, selection))?;
    let mut archive = ZipWriter::new(File::create(output)?);
    let file = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    archive.start_file("manifest.json", file.unix_permissions(0o644))?;
    archive.write_all(&manifest)?;
    archive.start_file(entry_point(), file.unix_permissions(0o755))?;
    archive.write_all(&binary)?;
    archive.finish()?;
    Ok(())
}

/// The bundle's `manifest.json`.
pub fn manifest(tools: &[Tool], selection: &Selection) -> Value {
    let mut args = vec![
        "--database".to_owned(),
        "${user_config.database}".to_owned(),
    ];
    if selection.read_only {
        args.push("--read-only".to_owned());
    }
    if let Some(names) = &selection.names {
        args.extend(["--tools".to_owned(), names.join(",")]);
    }
    let tools: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description.as_deref().map(first_paragraph).unwrap_or_default(),
            })
        })
        .collect();
    json!({
        "manifest_version": MANIFEST_VERSION,
        "name": "movie-reviews-mcp",
        "display_name": "Movie reviews",
        "version": env!("CARGO_PKG_VERSION"),
        "description": env!("CARGO_PKG_DESCRIPTION"),
        "long_description": "Search a catalogue of movies and authors, read every review of a \
            movie, and write, change and delete star-rating reviews. The catalogue is kept in a \
            SQLite file on this computer; a new file starts with a demo catalogue.",
        "author": { "name": "The movie-reviews-mcp authors" },
        "license": env!("CARGO_PKG_LICENSE"),
        "server": {
            "type": "binary",
            "entry_point": entry_point(),
            "mcp_config": {
                "command": format!("${{__dirname}}/{}", entry_point()),
                "args": args,
            },
        },
        "tools": tools,
        "user_config": {
            "database": {
                "type": "file",
                "title": "Database file",
                "description": "The SQLite file that holds the catalogue and the reviews. It is \
                    created, with a demo catalogue, if it does not exist.",
                "required": false,
                "default": "${HOME}/movie-reviews.db",
            },
        },
        // The binary runs on the platform it was built for only.
        "compatibility": { "platforms": [platform()] },
    })
}

/// This platform as bundles name it (Node.js's `process.platform`).
fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// The first paragraph of a tool's description: what the tool does, without the details of its
/// result.
fn first_paragraph(description: &str) -> String {
    description
        .split("\n\n")
        .next()
        .unwrap_or(description)
        .trim()
        .to_owned()
}
