//! `read_multiple_files`: several text files at once; one that cannot be read is reported in
//! its place, and the others are still returned.

use toolkit::{Context, Run, Tool, ToolError};

use crate::sandbox::Sandbox;

/// What `read_multiple_files` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Files {
    /// Each file asked for, in the order asked.
    files: Vec<FileContent>,
}

/// One file: its text, or why it could not be read.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct FileContent {
    /// The path, as given.
    path: String,
    /// The text, when the file was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    /// Why the file could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Reads several text files (UTF-8) at once. A file that cannot be read has an `error` in its
/// place; the others are still returned.
#[derive(Tool)]
#[tool(name = "read_multiple_files", title = "Read several files", output = Files,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct ReadMultipleFiles {
    /// The files, relative to the served directory.
    #[arg(min_items = 1, max_items = 50, each(min_chars = 1))]
    paths: Vec<String>,
}

impl Run<Sandbox> for ReadMultipleFiles {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Files, ToolError> {
        let mut files = Vec::with_capacity(self.paths.len());
        for path in self.paths {
            let read = match sandbox.existing(&path) {
                Ok(resolved) => match tokio::fs::read(&resolved).await {
                    Ok(bytes) => {
                        String::from_utf8(bytes).map_err(|_| "Is not a UTF-8 text file.".to_owned())
                    }
                    Err(error) => Err(crate::sandbox::Refusal::from(error).sentence()),
                },
                Err(refusal) => Err(refusal.sentence()),
            };
            let (content, error) = match read {
                Ok(content) => (Some(content), None),
                Err(error) => (None, Some(error)),
            };
            files.push(FileContent {
                path,
                content,
                error,
            });
        }
        Ok(Files { files })
    }
}
