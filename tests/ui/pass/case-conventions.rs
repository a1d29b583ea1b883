//! `rename_all` with serde's conventions on a tool, an object and a choice; `rename` on one
//! field or variant still wins.
use toolkit::{Args, Choice, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Where logs go.
#[derive(Choice)]
#[choice(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Destination {
    CloudWatch,
    #[choice(rename = "s3")]
    SimpleStorage,
}

/// A filter.
#[derive(Args)]
#[args(rename_all = "kebab-case")]
#[allow(dead_code)]
pub struct Filter {
    pub log_stream: String,
    #[arg(rename = "pattern")]
    pub filter_pattern: Option<String>,
}

/// Reads logs.
#[derive(Tool)]
#[tool(name = "logs", title = "Logs", output = Out, read_only, destructive = false, idempotent,
       open_world = false, rename_all = "snake_case")]
#[allow(dead_code)]
pub struct Logs {
    pub log_group_name: String,
    pub destination: Destination,
    #[arg(rename = "nextToken")]
    pub next_token: Option<String>,
    pub filter: Option<Filter>,
}

fn main() {
    let names: Vec<&str> = Logs::SPEC.args.iter().map(|arg| arg.name).collect();
    assert_eq!(names, ["log_group_name", "destination", "nextToken", "filter"]);
    let fields: Vec<&str> = <Filter as toolkit::Args>::ARGS.iter().map(|arg| arg.name).collect();
    assert_eq!(fields, ["log-stream", "pattern"]);
    assert_eq!(<Destination as toolkit::Choice>::NAMES, ["CLOUD_WATCH", "s3"]);
}
