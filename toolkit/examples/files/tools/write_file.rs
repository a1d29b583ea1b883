//! `write_file`: creates a file, or replaces one's contents.

use toolkit::{Context, Run, Tool, ToolError};

use super::refused;
use crate::sandbox::Sandbox;

/// What `write_file` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Written {
    /// The file, relative to the served directory.
    path: String,
    /// How many bytes it now holds.
    bytes: u64,
}

/// Writes a text file: creates it, or replaces what it holds. The directory it is in must
/// exist.
#[derive(Tool)]
#[tool(name = "write_file", title = "Write file", output = Written,
       read_only = false, destructive, idempotent, open_world = false)]
pub struct WriteFile {
    /// The file, relative to the served directory.
    #[arg(min_chars = 1)]
    path: String,
    /// What the file is to hold.
    content: String,
}

impl Run<Sandbox> for WriteFile {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Written, ToolError> {
        let path = sandbox
            .new_entry(&self.path)
            .map_err(|refusal| refused::<Self>("path", refusal))?;
        tokio::fs::write(&path, self.content.as_bytes())
            .await
            .map_err(|error| refused::<Self>("path", error.into()))?;
        Ok(Written {
            path: sandbox.relative(&path),
            bytes: self.content.len() as u64,
        })
    }
}
