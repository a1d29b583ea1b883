//! A notebook served over MCP, written as someone who adopts `toolkit` would write it, with
//! nothing of the movie-review server: two tools, one of which asks the user before it deletes,
//! and the server that serves them. `main.rs` serves it over stdio, or over HTTP to callers
//! with a token; the tests drive it with the toolkit's test kit.

use std::collections::BTreeMap;
use std::sync::Mutex;

use toolkit::{Confirm, Context, Entity, Exists, Run, Server, Tool, ToolError, Uuid};

/// The notes, by id.
#[derive(Default)]
pub struct Notebook {
    notes: Mutex<BTreeMap<Uuid, String>>,
}

impl Notebook {
    /// The text of every note, in id order.
    pub fn texts(&self) -> Vec<String> {
        self.notes().values().cloned().collect()
    }

    fn notes(&self) -> std::sync::MutexGuard<'_, BTreeMap<Uuid, String>> {
        // A panic while the lock was held left the map whole: every change is one call.
        self.notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A note, as ids name it.
pub struct Note;

impl Entity for Note {
    const NAME: &'static str = "note";
    const LISTED_BY: &'static [&'static str] = &["notes_add"];
}

impl Exists<Note> for Notebook {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(self.notes().contains_key(&id))
    }
}

/// What `notes_add` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    /// The new note's id.
    pub note_id: Uuid,
}

/// Adds a note to the notebook.
#[derive(Tool)]
#[tool(name = "notes_add", title = "Add note", output = Added, ability = "add notes",
       scope = "notes.write", read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct NotesAdd {
    /// What the note says.
    #[arg(min_chars = 1, max_chars = 500)]
    text: String,
}

impl Run<Notebook> for NotesAdd {
    async fn run(self, notebook: &Notebook, _context: &Context) -> Result<Added, ToolError> {
        let note_id = Uuid::new_v4();
        notebook.notes().insert(note_id, self.text);
        Ok(Added { note_id })
    }
}

/// What `notes_delete` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Deleted {
    /// Always true.
    pub deleted: bool,
}

/// Deletes a note, once the user says yes.
#[derive(Tool)]
#[tool(name = "notes_delete", title = "Delete note", output = Deleted, ability = "delete them",
       caution = "Deleting asks the user first.", confirm, scope = "notes.delete",
       read_only = false, destructive, idempotent, open_world = false)]
pub struct NotesDelete {
    /// The note to delete.
    #[arg(exists = Note)]
    note_id: Uuid,
}

impl Run<Notebook> for NotesDelete {
    async fn run(self, notebook: &Notebook, _context: &Context) -> Result<Deleted, ToolError> {
        notebook.notes().remove(&self.note_id);
        Ok(Deleted { deleted: true })
    }
}

impl Confirm<Notebook> for NotesDelete {
    const DECLINED: &'static str = "the note was kept.";

    async fn confirmation(
        &self,
        notebook: &Notebook,
        _context: &Context,
    ) -> Result<String, ToolError> {
        let text = notebook
            .notes()
            .get(&self.note_id)
            .cloned()
            .unwrap_or_default();
        Ok(format!("Delete the note \"{text}\"?"))
    }
}

/// The notebook's server.
pub fn server() -> Server<Notebook> {
    Server::new("notebook", env!("CARGO_PKG_VERSION"))
        .title("Notebook")
        .tool::<NotesAdd>()
        .tool::<NotesDelete>()
}
