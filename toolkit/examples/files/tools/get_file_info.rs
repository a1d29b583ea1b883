//! `get_file_info`: what a path is, its size, when it last changed and whether it is read-only.

use std::time::UNIX_EPOCH;

use toolkit::{Context, Run, Tool, ToolError};

use super::list_directory::Kind;
use super::refused;
use crate::sandbox::Sandbox;

/// What `get_file_info` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    /// The path, relative to the served directory, links resolved.
    path: String,
    /// What it is.
    kind: Kind,
    /// Its size in bytes.
    size: u64,
    /// When it last changed, in seconds since 1970-01-01 UTC.
    modified_seconds: u64,
    /// Whether it cannot be written to.
    read_only: bool,
}

/// Tells what a path is: a file or a directory, its size, when it last changed, and whether it
/// is read-only.
#[derive(Tool)]
#[tool(name = "get_file_info", title = "Get file info", output = Info,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct GetFileInfo {
    /// The path, relative to the served directory.
    #[arg(min_chars = 1)]
    path: String,
}

impl Run<Sandbox> for GetFileInfo {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Info, ToolError> {
        let path = sandbox
            .existing(&self.path)
            .map_err(|refusal| refused::<Self>("path", refusal))?;
        let metadata = tokio::fs::metadata(&path)
            .await
            .map_err(|error| refused::<Self>("path", error.into()))?;
        let modified_seconds = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_secs());
        Ok(Info {
            path: sandbox.relative(&path),
            kind: if metadata.is_dir() {
                Kind::Directory
            } else {
                Kind::File
            },
            size: metadata.len(),
            modified_seconds,
            read_only: metadata.permissions().readonly(),
        })
    }
}
