//! `move_file`: moves or renames a file or directory, never over an existing one.

use toolkit::{Context, Run, Tool, ToolError};

use super::refused;
use crate::sandbox::Sandbox;

/// What `move_file` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Moved {
    /// Where it was, relative to the served directory.
    from: String,
    /// Where it is now.
    to: String,
}

/// Moves or renames a file or directory. The destination must not exist: nothing is replaced.
#[derive(Tool)]
#[tool(name = "move_file", title = "Move file", output = Moved,
       read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct MoveFile {
    /// What to move, relative to the served directory.
    #[arg(min_chars = 1)]
    source: String,
    /// Where to, relative to the served directory.
    #[arg(min_chars = 1)]
    destination: String,
}

impl Run<Sandbox> for MoveFile {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Moved, ToolError> {
        let from = sandbox
            .existing(&self.source)
            .map_err(|refusal| refused::<Self>("source", refusal))?;
        if from == sandbox.root() {
            return Err(ToolError::invalid::<Self>(
                "source",
                "Is the served directory itself, which cannot be moved.",
            ));
        }
        let to = sandbox
            .new_entry(&self.destination)
            .map_err(|refusal| refused::<Self>("destination", refusal))?;
        if to.symlink_metadata().is_ok() {
            return Err(ToolError::invalid::<Self>(
                "destination",
                "Already exists: moving would replace it. Choose another name.",
            ));
        }
        tokio::fs::rename(&from, &to)
            .await
            .map_err(|error| refused::<Self>("destination", error.into()))?;
        Ok(Moved {
            from: sandbox.relative(&from),
            to: sandbox.relative(&to),
        })
    }
}
