//! String arguments with lengths in characters and string defaults.
use toolkit::rule::{Length, Range};
use toolkit::{Literal, Presence, Tool};

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
    let schema = toolkit::input_schema(Strings::SPEC);
    assert!(args.iter().all(|arg| schema["properties"][arg.name]["type"] == "string"));
    assert!(args.iter().all(|arg| arg.rule::<Range>().is_none()));
    assert_eq!(args[0].rule::<Length>(), Some(&Length { min: None, max: Some(100) }));
    assert_eq!(args[1].rule::<Length>(), Some(&Length { min: Some(1), max: None }));
    assert_eq!(args[2].rule::<Length>(), Some(&Length { min: Some(2), max: Some(8) }));
    assert_eq!(args[2].presence, Presence::Default(Literal::String("title")));
    assert!(args[3].rules.own.is_empty());
}
