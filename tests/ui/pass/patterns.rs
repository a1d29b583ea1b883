//! Patterns: on a string, an optional string with a default, and each element of a list.
use serde_json::json;
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Patterns.
#[derive(Tool)]
#[tool(name = "patterns", title = "Patterns", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Patterns {
    #[arg(pattern = "^[A-Z]{2}-\\d+$")]
    pub ticket: String,
    #[arg(pattern = "^(main|dev)$", default = "main")]
    pub branch: String,
    #[arg(max_items = 3, each(pattern = "^\\w+$", max_chars = 10))]
    pub words: Vec<String>,
}

fn main() {
    let schema = toolkit::input_schema(Patterns::SPEC);
    assert_eq!(schema["properties"]["ticket"], json!({ "type": "string", "pattern": "^[A-Z]{2}-\\d+$" }));
    assert_eq!(schema["properties"]["words"]["items"], json!({
        "type": "string", "pattern": "^\\w+$", "maxLength": 10,
    }));
    let ok: Patterns = toolkit::parse(json!({ "ticket": "AB-12", "words": ["a_1"] }).as_object()).unwrap();
    assert_eq!((ok.branch.as_str(), ok.words.len()), ("main", 1));
    // ECMA-262's `\d` and `\w` are ASCII: an Arabic-Indic digit and `é` do not match.
    let refused = json!({ "ticket": "AB-١٢", "branch": "prod", "words": ["é"] });
    assert_eq!(
        toolkit::parse::<Patterns>(refused.as_object()).err().unwrap().to_string(),
        "Validation Failed: \
         ticket: Must match the pattern ^[A-Z]{2}-\\d+$, not \"AB-١٢\". \
         branch: Must match the pattern ^(main|dev)$, not \"prod\". \
         words[0]: Must match the pattern ^\\w+$, not \"é\". \
         Correct the arguments and call the tool again."
    );
}
