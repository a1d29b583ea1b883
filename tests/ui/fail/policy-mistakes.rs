use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A timeout without a unit, and a rate without a period.
#[derive(Tool)]
#[tool(name = "a", title = "A", output = Out, read_only, destructive = false, idempotent,
       open_world = false, timeout = "30", rate_limit = "60")]
pub struct Unitless {}

/// No time, and no calls.
#[derive(Tool)]
#[tool(name = "b", title = "B", output = Out, read_only, destructive = false, idempotent,
       open_world = false, timeout = "0s", rate_limit = "0/min")]
pub struct Nothing {}

/// A timeout that is not a string, and a misspelt key.
#[derive(Tool)]
#[tool(name = "c", title = "C", output = Out, read_only, destructive = false, idempotent,
       open_world = false, timeout = 30, rate_limt = "60/min")]
pub struct Misspelt {}

/// More than a day, and a period that is no unit.
#[derive(Tool)]
#[tool(name = "d", title = "D", output = Out, read_only, destructive = false, idempotent,
       open_world = false, timeout = "2days", rate_limit = "60/fortnight")]
pub struct TooLong {}

fn main() {}
