//! A tool may declare the one OAuth scope a caller's token needs; without one it needs none.
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Reads.
#[derive(Tool)]
#[tool(name = "read", title = "Read", output = Out, scope = "reviews.read", read_only, destructive = false, idempotent, open_world = false)]
pub struct Read {}

/// A scope may use any printable ASCII but space, `"` and `\`, as OAuth allows.
#[derive(Tool)]
#[tool(name = "write", title = "Write", output = Out, read_only = false, destructive, idempotent = false, open_world = false, scope = "https://api.example.com/reviews:write")]
pub struct Write {}

/// No scope.
#[derive(Tool)]
#[tool(name = "open", title = "Open", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Open {}

fn main() {
    assert_eq!(Read::SPEC.scope, Some("reviews.read"));
    assert_eq!(Write::SPEC.scope, Some("https://api.example.com/reviews:write"));
    assert_eq!(Open::SPEC.scope, None);
}
