use toolkit::{Args, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Shows a dashboard.
#[derive(Tool)]
#[tool(name = "dashboard_get", title = "Get dashboard", output = Out,
       read_only, destructive = false, idempotent, open_world = false,
       one_of(dashbord, uid), any_of(uid), one_of(uid, uid), any_of(name, limit), one_of = uid)]
pub struct DashboardGet {
    pub dashboard: Option<String>,
    pub uid: Option<String>,
    pub name: String,
    #[arg(default = 10)]
    pub limit: u32,
    #[arg(conflicts_with = panels)]
    pub panels: Option<Vec<u32>>,
    #[arg(requires = "sumary")]
    pub summary: Option<bool>,
}

#[derive(Args)]
#[args(one_of(first, second = 1))]
pub struct Pair {
    pub first: Option<u32>,
    pub second: Option<u32>,
}

#[derive(Args)]
#[args(tag = "type", one_of(a, b))]
pub enum Shape {
    #[args(any_of(a, b))]
    Both { a: Option<u32>, b: Option<u32> },
}

fn main() {}
