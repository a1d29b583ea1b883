use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A read-only tool is safe to call again already.
#[derive(Tool)]
#[tool(name = "a", title = "A", output = Out, read_only, destructive = false, idempotent,
       open_world = false, idempotency_key)]
pub struct Reads {}

/// Declares the argument the key would add.
#[derive(Tool)]
#[tool(name = "b", title = "B", output = Out, read_only = false, destructive = false,
       idempotent = false, open_world = false, idempotency_key)]
pub struct Writes {
    /// A key of its own.
    pub idempotency_key: String,
}

/// Misspells it.
#[derive(Tool)]
#[tool(name = "c", title = "C", output = Out, read_only = false, destructive = false,
       idempotent = false, open_world = false, idempotency_keys)]
pub struct Misspelt {}

fn main() {}
