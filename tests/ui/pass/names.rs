//! Wire names: camelCase from snake_case, raw identifiers, `rename`, and the labels messages use.
use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Names.
#[derive(Tool)]
#[tool(name = "names.v2-beta", title = "Names", output = Out, read_only, destructive = false, idempotent, open_world = false)]
pub struct Names {
    pub include_reviews: bool,
    pub r#type: String,
    #[arg(rename = "q")]
    pub query: String,
}

fn main() {
    let names: Vec<(&str, &str)> =
        Names::SPEC.args.iter().map(|arg| (arg.field, arg.name)).collect();
    assert_eq!(names, [
        ("include_reviews", "includeReviews"),
        ("type", "type"),
        ("query", "q"),
    ]);
    assert_eq!(Names::SPEC.name, "names.v2-beta");
}
