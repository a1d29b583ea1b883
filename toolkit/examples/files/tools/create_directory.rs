//! `create_directory`: makes a directory, and any missing above it.

use toolkit::{Context, Run, Tool, ToolError};

use super::refused;
use crate::sandbox::{Refusal, Sandbox};

/// What `create_directory` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Created {
    /// The directory, relative to the served directory.
    path: String,
}

/// Creates a directory, with any missing directories above it. One that already exists is
/// left as it is.
#[derive(Tool)]
#[tool(name = "create_directory", title = "Create directory", output = Created,
       read_only = false, destructive = false, idempotent, open_world = false)]
pub struct CreateDirectory {
    /// The directory, relative to the served directory.
    #[arg(min_chars = 1)]
    path: String,
}

impl Run<Sandbox> for CreateDirectory {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Created, ToolError> {
        // Each directory is made inside the sandbox checked so far, so that no step can be a
        // link that leads out.
        let mut made = sandbox.root().to_path_buf();
        for part in std::path::Path::new(&self.path).components() {
            let step = made.join(part);
            let step = match sandbox.existing(&step.to_string_lossy()) {
                Ok(existing) => existing,
                Err(Refusal::Missing) => {
                    let entry = sandbox
                        .new_entry(&step.to_string_lossy())
                        .map_err(|refusal| refused::<Self>("path", refusal))?;
                    tokio::fs::create_dir(&entry)
                        .await
                        .map_err(|error| refused::<Self>("path", error.into()))?;
                    entry
                }
                Err(refusal) => return Err(refused::<Self>("path", refusal)),
            };
            made = step;
        }
        if !made.is_dir() {
            return Err(ToolError::invalid::<Self>(
                "path",
                "Is a file, not a directory.",
            ));
        }
        Ok(Created {
            path: sandbox.relative(&made),
        })
    }
}
