//! A tool may say what it lets a model do, and warn about it, for a server's instructions.
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Deletes a thing.
#[derive(Tool)]
#[tool(name = "delete", title = "Delete", output = Out, read_only = false, destructive, idempotent, open_world = false,
       ability = "delete a thing", caution = "Deleting is permanent. Ask the user first!")]
pub struct Delete {}

/// Says nothing for the instructions.
#[derive(Tool)]
#[tool(name = "read", title = "Read", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Read {}

fn main() {
    assert_eq!(Delete::SPEC.ability, Some("delete a thing"));
    assert_eq!(Delete::SPEC.caution, Some("Deleting is permanent. Ask the user first!"));
    assert_eq!((Read::SPEC.ability, Read::SPEC.caution), (None, None));
}
