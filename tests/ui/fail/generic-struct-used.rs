use toolkit::{Run, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Server;

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args<T> {
    pub query: T,
}

impl<T: Send + 'static> Run<Server> for Args<T> {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn main() {}
