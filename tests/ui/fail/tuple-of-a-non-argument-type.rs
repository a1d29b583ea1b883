use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Wait {
    /// A name and how long: a `Duration` is no argument type.
    pub pair: (String, std::time::Duration),
}

fn main() {}
