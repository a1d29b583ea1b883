// Each tool below gets its output type wrong in one way, and each has a `Run` impl that returns
// the type its author meant: the mistake is one error, on the attribute, and never a second one
// on `run`.
use toolkit::{Run, Tool, ToolError};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Found {
    pub count: u32,
}

pub struct Server;

/// Left out.
#[derive(Tool)]
#[tool(name = "left_out", title = "Left out", read_only, destructive = false, idempotent, open_world = false)]
pub struct LeftOut {
    pub query: String,
}

impl Run<Server> for LeftOut {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Found, ToolError> {
        Ok(Found { count: 1 })
    }
}

/// Not a type.
#[derive(Tool)]
#[tool(name = "not_a_type", title = "Not a type", output = 5, read_only, destructive = false, idempotent, open_world = false)]
pub struct NotAType {
    pub query: String,
}

impl Run<Server> for NotAType {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Found, ToolError> {
        Ok(Found { count: 1 })
    }
}

/// Misspelt key.
#[derive(Tool)]
#[tool(name = "misspelt", title = "Misspelt", outptu = Found, read_only, destructive = false, idempotent, open_world = false)]
pub struct Misspelt {
    pub query: String,
}

impl Run<Server> for Misspelt {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Found, ToolError> {
        Ok(Found { count: 1 })
    }
}

/// No attribute at all.
#[derive(Tool)]
pub struct NoAttribute {
    pub query: String,
}

impl Run<Server> for NoAttribute {
    async fn run(self, _: &Server, _: &toolkit::Context) -> Result<Found, ToolError> {
        Ok(Found { count: 1 })
    }
}

fn main() {}
