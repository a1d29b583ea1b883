use toolkit::{Run, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Found {
    pub count: u32,
}

pub struct Server;

/// Counts things.
#[derive(Tool)]
#[tool(name = "count", title = "Count", output = Found, read_only, destructive = false, idempotent, open_world = false)]
pub struct Count<'a> {
    pub query: &'a str,
}

impl Run<Server> for Count<'static> {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Found, ToolError> {
        Ok(Found { count: self.query.len() as u32 })
    }
}

fn main() {}
