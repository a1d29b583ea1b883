use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Sends a message.
#[derive(Tool)]
#[tool(name = "send", title = "Send", output = Out, read_only = false, destructive = false, idempotent = false, open_world = true)]
pub struct Send {
    /// Where to.
    #[arg(format = "email")]
    pub to: String,
}

fn main() {}
