//! `read_text_file`: a text file's contents, or its first or last lines.

use toolkit::{Context, Run, Tool, ToolError};

use super::read_text;
use crate::sandbox::Sandbox;

/// What `read_text_file` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct TextFile {
    /// The text: the whole file, or the lines asked for.
    content: String,
}

/// Reads a text file (UTF-8). Give `head` for only its first lines, or `tail` for only its
/// last ones.
#[derive(Tool)]
#[tool(name = "read_text_file", title = "Read text file", output = TextFile,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct ReadTextFile {
    /// The file, relative to the served directory.
    #[arg(min_chars = 1)]
    path: String,
    /// Only this many lines from the start.
    #[arg(min = 1, conflicts_with = tail)]
    head: Option<u32>,
    /// Only this many lines from the end.
    #[arg(min = 1)]
    tail: Option<u32>,
}

impl Run<Sandbox> for ReadTextFile {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<TextFile, ToolError> {
        let (_, text) = read_text::<Self>(sandbox, "path", &self.path).await?;
        let content = match (self.head, self.tail) {
            (Some(head), _) => text.split_inclusive('\n').take(head as usize).collect(),
            (None, Some(tail)) => {
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                lines[lines.len().saturating_sub(tail as usize)..].concat()
            }
            (None, None) => text,
        };
        Ok(TextFile { content })
    }
}
