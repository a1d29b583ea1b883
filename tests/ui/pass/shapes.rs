//! A tool with no arguments may be a unit struct or an empty braced struct; argument types may
//! be written with paths; the output may be a generic type.
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Page<T> {
    pub items: Vec<T>,
}

/// A unit struct.
#[derive(Tool)]
#[tool(name = "unit", title = "Unit", output = Page<u32>, read_only, destructive = false, idempotent, open_world = false)]
pub struct Unit;

/// Paths.
#[derive(Tool)]
#[tool(name = "paths", title = "Paths", output = Page<String>, read_only, destructive = false, idempotent, open_world = false)]
pub struct Paths {
    pub text: std::string::String,
    pub id: ::uuid::Uuid,
    pub maybe: core::option::Option<toolkit::Uuid>,
}

fn main() {
    assert!(Unit::SPEC.args.is_empty());
    assert_eq!(Paths::SPEC.args.len(), 3);
}
