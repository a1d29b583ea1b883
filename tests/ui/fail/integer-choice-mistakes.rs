use toolkit::{Choice, Tool};

#[derive(Choice)]
pub enum Mixed {
    Low = 1,
    Medium,
    High = 3,
}

#[derive(Choice)]
#[choice(rename_all = "kebab-case")]
pub enum Renamed {
    #[choice(rename = "low")]
    Low = 1,
    High = 1 + 2,
    Huge = 9007199254740992,
}

#[derive(Choice)]
pub enum Priority {
    Low = 1,
    High = 3,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Files an issue.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = false, destructive = false, idempotent = false, open_world = false)]
pub struct IssuesFile {
    /// Not one of its numbers.
    #[arg(default = 2)]
    pub priority: Priority,
    /// An integer choice's default is a number.
    #[arg(default = "low")]
    pub other: Priority,
}

fn main() {}
