//! `list_allowed_directories`: the directory the server serves.

use toolkit::{Context, Run, Tool, ToolError};

use crate::sandbox::Sandbox;

/// What `list_allowed_directories` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Allowed {
    /// The directories every path must stay in, as absolute paths.
    directories: Vec<String>,
}

/// Names the directory this server serves. Every path the other tools take is relative to it
/// and must stay inside it.
#[derive(Tool)]
#[tool(name = "list_allowed_directories", title = "List allowed directories", output = Allowed,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct ListAllowedDirectories {}

impl Run<Sandbox> for ListAllowedDirectories {
    async fn run(self, sandbox: &Sandbox, _context: &Context) -> Result<Allowed, ToolError> {
        Ok(Allowed {
            directories: vec![sandbox.root().to_string_lossy().into_owned()],
        })
    }
}
