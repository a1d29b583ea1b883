//! `edit_file`: replaces pieces of a text file, one edit after another, and shows what changed;
//! with `dryRun`, only shows it.

use toolkit::{Args, Context, Run, Tool, ToolError, Violations};

use super::{read_text, refused};
use crate::sandbox::Sandbox;

/// What `edit_file` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Edited {
    /// Each edit's lines, removed (`-`) and added (`+`).
    diff: String,
    /// Whether the file was changed (false for a dry run).
    applied: bool,
}

/// One replacement.
#[derive(Args)]
pub struct Edit {
    /// The text to replace: its first occurrence, exactly as it is in the file.
    #[arg(min_chars = 1)]
    old_text: String,
    /// The text to put in its place.
    new_text: String,
}

/// Edits a text file: each edit replaces the first occurrence of its `oldText`, in order, and
/// the answer shows the lines changed. Nothing is written if any edit's text is not found, or
/// with `dryRun`.
#[derive(Tool)]
#[tool(name = "edit_file", title = "Edit file", output = Edited,
       read_only = false, destructive, idempotent = false, open_world = false)]
pub struct EditFile {
    /// The file, relative to the served directory.
    #[arg(min_chars = 1)]
    path: String,
    /// The edits, made in order.
    #[arg(min_items = 1, max_items = 100)]
    edits: Vec<Edit>,
    /// Show the changes without making them.
    #[arg(default = false)]
    dry_run: bool,
}

impl Run<Sandbox> for EditFile {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Edited, ToolError> {
        let (path, mut text) = read_text::<Self>(sandbox, "path", &self.path).await?;
        let mut diff = String::new();
        let mut missing = Violations::default();
        for (index, edit) in self.edits.iter().enumerate() {
            let Some(at) = text.find(&edit.old_text) else {
                missing.push(
                    format!("edits[{index}].oldText"),
                    "Does not occur in the file (after the edits before it).",
                );
                continue;
            };
            text.replace_range(at..at + edit.old_text.len(), &edit.new_text);
            diff.push_str(&format!("@@ edit {index} @@\n"));
            for line in edit.old_text.lines() {
                diff.push_str(&format!("-{line}\n"));
            }
            for line in edit.new_text.lines() {
                diff.push_str(&format!("+{line}\n"));
            }
        }
        if !missing.is_empty() {
            return Err(ToolError::Invalid(missing));
        }
        if !self.dry_run {
            tokio::fs::write(&path, text.as_bytes())
                .await
                .map_err(|error| refused::<Self>("path", error.into()))?;
        }
        Ok(Edited {
            diff,
            applied: !self.dry_run,
        })
    }
}
