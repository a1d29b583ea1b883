use toolkit::Tool;

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// Does one thing.
#[derive(Tool)]
#[tool(name = "t", title = "T", output = Out, read_only = true, destructive = false, idempotent = true, open_world = false)]
pub struct Args {
    #[arg(exclusive_min = 1.0, max = 1.0)]
    pub empty: f64,
    #[arg(min = 0, exclusive_min = 0)]
    pub both_below: f64,
    #[arg(min = 5.5, exclusive_max = 1.5)]
    pub crossed: f64,
    #[arg(max = 1e39)]
    pub too_large_for_f32: f32,
    #[arg(exclusive_min = 0, default = 0.0)]
    pub default_outside: f64,
    #[arg(max = 1e400)]
    pub infinite: f64,
    #[arg(min = 0.5)]
    pub fraction_on_integer: u32,
    #[arg(default = 2.5)]
    pub fractional_default_on_integer: u8,
}

fn main() {}
