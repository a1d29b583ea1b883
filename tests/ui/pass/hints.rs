//! Hints may be bare flags (true) or stated with `= true` / `= false`.
use toolkit::{Hints, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Bare flags.
#[derive(Tool)]
#[tool(name = "flags", title = "Flags", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Flags {}

/// Every hint stated with a value.
#[derive(Tool)]
#[tool(name = "stated", title = "Stated", output = Out, read_only = false, destructive = true, idempotent = false, open_world = true)]
pub struct Stated {}

fn main() {
    let flags = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
    assert_eq!(Flags::SPEC.hints, flags);
    let stated = Hints { read_only: false, destructive: true, idempotent: false, open_world: true };
    assert_eq!(Stated::SPEC.hints, stated);
}
