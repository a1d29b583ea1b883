use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Edits a note.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = false, destructive, idempotent, open_world = false)]
pub struct NotesEdit {
    /// A nullable argument has no default: left out, it is `None`.
    #[arg(default = "x")]
    pub title: Option<Option<String>>,
    /// Three levels of `Option` mean nothing more than two.
    pub colour: Option<Option<Option<String>>>,
}

fn main() {}
