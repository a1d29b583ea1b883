//! Descriptions: the struct's doc comment as prose, or `description = "…"` instead; each field's
//! doc comment describes its argument.
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Finds movies whose title contains a search term,
/// ignoring case.
///
/// Leave the query empty to browse:
/// - a page at a time
/// - in title order
#[derive(Tool)]
#[tool(name = "from_doc", title = "From doc", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct FromDoc {
    /// Part of the title
    /// to look for.
    pub query: String,
    pub undocumented: bool,
}

/// Only for the Rust reader.
#[derive(Tool)]
#[tool(name = "overridden", title = "Overridden", description = "For the model.", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Overridden {}

fn main() {
    assert_eq!(
        FromDoc::SPEC.description,
        "Finds movies whose title contains a search term, ignoring case.\n\n\
         Leave the query empty to browse:\n- a page at a time\n- in title order"
    );
    assert_eq!(FromDoc::SPEC.args[0].description, Some("Part of the title to look for."));
    assert_eq!(FromDoc::SPEC.args[1].description, None);
    assert_eq!(Overridden::SPEC.description, "For the model.");
}
