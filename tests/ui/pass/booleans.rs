//! Boolean arguments: required, optional, and with a default.
use toolkit::{Literal, Presence, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Booleans.
#[derive(Tool)]
#[tool(name = "booleans", title = "Booleans", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Booleans {
    #[arg(default = false)]
    pub include_reviews: bool,
    pub confirm: bool,
    pub maybe: Option<bool>,
}

fn main() {
    let args = Booleans::SPEC.args;
    let schema = toolkit::input_schema(Booleans::SPEC);
    assert!(args.iter().all(|arg| schema["properties"][arg.name]["type"] == "boolean"));
    assert_eq!(args[0].presence, Presence::Default(Literal::Boolean(false)));
    assert_eq!(args[1].presence, Presence::Required);
    assert_eq!(args[2].presence, Presence::Optional);
}
