//! String arguments with lengths in characters and string defaults.
use toolkit::{DefaultValue, Kind, Presence, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Strings.
#[derive(Tool)]
#[tool(name = "strings", title = "Strings", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Strings {
    #[arg(max_chars = 100)]
    pub query: Option<String>,
    #[arg(min_chars = 1)]
    pub name: String,
    #[arg(min_chars = 2, max_chars = 8, default = "title")]
    pub order: String,
    pub free: String,
}

fn main() {
    let args = Strings::SPEC.args;
    assert_eq!(args[0].kind, Kind::String { min_chars: None, max_chars: Some(100) });
    assert_eq!(args[1].kind, Kind::String { min_chars: Some(1), max_chars: None });
    assert_eq!(args[2].presence, Presence::Default(DefaultValue::String("title")));
    assert_eq!(args[3].kind, Kind::String { min_chars: None, max_chars: None });
}
