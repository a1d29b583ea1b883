use toolkit::{Context, Run, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Deletes everything.
#[derive(Tool)]
#[tool(name = "everything_delete", title = "Delete everything", output = Out,
       read_only = false, destructive, idempotent, open_world = false, confirm)]
pub struct EverythingDelete {}

pub struct Server;

impl Run<Server> for EverythingDelete {
    async fn run(self, _server: &Server, _context: &Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn main() {}
