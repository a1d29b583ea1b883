//! `Option<Option<T>>`: left out is `None`, `null` is `Some(None)`, published as `anyOf` with
//! `null`; with rules, `exists`, `ignored_with` and `required_unless`, and a plain `Option`
//! beside it, whose `null` means left out.
use serde_json::json;
use toolkit::{Context, Entity, Exists, Run, Tool, ToolError, Uuid};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

pub struct Movie;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search"];
}

/// Edits a note.
#[derive(Tool)]
#[tool(name = "notes_edit", title = "Edit a note", output = Out, read_only = false,
       destructive, idempotent, open_world = false)]
pub struct NotesEdit {
    /// The new title, or `null` to remove it.
    #[arg(max_chars = 5)]
    pub title: Option<Option<String>>,
    /// The movie the note is about, or `null` for none.
    #[arg(exists = Movie, ignored_with = reset)]
    pub movie_id: Option<Option<Uuid>>,
    /// Clears everything.
    pub reset: Option<bool>,
    /// A colour, required unless `title` is given (a `null` title is given).
    #[arg(required_unless = title)]
    pub colour: Option<String>,
}

pub struct Server;

impl Exists<Movie> for Server {
    async fn exists(&self, _id: Uuid) -> Result<bool, ToolError> {
        Ok(true)
    }
}

impl Run<Server> for NotesEdit {
    async fn run(self, _server: &Server, _context: &Context) -> Result<Out, ToolError> {
        Ok(Out {})
    }
}

fn parse(arguments: serde_json::Value) -> Result<NotesEdit, ToolError> {
    toolkit::parse::<NotesEdit>(arguments.as_object())
}

fn main() {
    let schema = toolkit::input_schema(NotesEdit::SPEC);
    assert_eq!(
        schema["properties"]["title"],
        json!({
            "anyOf": [{ "type": "string", "maxLength": 5 }, { "type": "null" }],
            "description": "The new title, or `null` to remove it.",
        })
    );
    assert!(NotesEdit::SPEC.args[0].nullable && !NotesEdit::SPEC.args[2].nullable);

    let left_out = parse(json!({ "colour": "red" })).unwrap();
    assert_eq!(left_out.title, None);
    let cleared = parse(json!({ "title": null })).unwrap();
    assert_eq!(cleared.title, Some(None));
    assert_eq!(cleared.colour, None);
    let set = parse(json!({ "title": "Plot", "movieId": null, "reset": null })).unwrap();
    assert_eq!(set.title, Some(Some("Plot".to_owned())));
    assert_eq!(set.movie_id, Some(None));
    assert_eq!(set.reset, None);

    let id = Uuid::nil();
    let ignored = parse(json!({ "title": null, "movieId": id, "reset": true })).unwrap();
    assert_eq!(ignored.movie_id, None);

    let Err(ToolError::Invalid(violations)) = parse(json!({ "title": "Too long" })) else {
        panic!("a title of eight characters is refused");
    };
    assert_eq!(
        violations.to_string(),
        "Validation Failed: title: Must be at most 5 characters long, not 8. Correct the \
         arguments and call the tool again."
    );
    let Err(ToolError::Invalid(violations)) = parse(json!({})) else {
        panic!("a colour is required without a title");
    };
    assert_eq!(
        violations.to_string(),
        "Validation Failed: colour: This argument is required unless title is given. Correct \
         the arguments and call the tool again."
    );
}
