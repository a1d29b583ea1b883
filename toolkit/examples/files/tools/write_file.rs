//! `write_file`: creates a file, or replaces one's contents, given as a text or as its lines.

use toolkit::{Args, Context, Run, Tool, ToolError};

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
    content: Content,
}

/// What a file is to hold: a text or a list of lines, told apart by their JSON types.
#[derive(Args)]
#[args(untagged)]
pub enum Content {
    /// The text, as it is.
    Text(String),
    /// The lines, each written with a newline after it.
    Lines(#[arg(max_items = 100_000)] Vec<String>),
}

impl Content {
    /// The text the file is to hold.
    fn into_text(self) -> String {
        match self {
            Content::Text(text) => text,
            Content::Lines(lines) => lines.iter().map(|line| format!("{line}\n")).collect(),
        }
    }
}

impl Run<Sandbox> for WriteFile {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Written, ToolError> {
        let path = sandbox
            .new_entry(&self.path)
            .map_err(|refusal| refused::<Self>("path", refusal))?;
        let text = self.content.into_text();
        tokio::fs::write(&path, text.as_bytes())
            .await
            .map_err(|error| refused::<Self>("path", error.into()))?;
        Ok(Written {
            path: sandbox.relative(&path),
            bytes: text.len() as u64,
        })
    }
}
