use std::time::Duration;

use toolkit::{RateLimit, Tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A time limit and a rate limit, as humantime and an operator write them.
#[derive(Tool)]
#[tool(name = "a", title = "A", output = Out, read_only, destructive = false, idempotent,
       open_world = false, timeout = "1m 30s", rate_limit = "5/30s")]
pub struct Limited {}

/// Neither.
#[derive(Tool)]
#[tool(name = "b", title = "B", output = Out, read_only, destructive = false, idempotent,
       open_world = false)]
pub struct Free {}

/// Takes an idempotency key, written bare or as a flag.
#[derive(Tool)]
#[tool(name = "c", title = "C", output = Out, read_only = false, destructive = false,
       idempotent = false, open_world = false, idempotency_key)]
pub struct Keyed {
    /// What to do.
    pub what: String,
}

/// Says it takes none.
#[derive(Tool)]
#[tool(name = "d", title = "D", output = Out, read_only = false, destructive = false,
       idempotent = false, open_world = false, idempotency_key = false)]
pub struct Unkeyed {}

fn main() {
    assert!(Keyed::SPEC.idempotency_key);
    let names: Vec<&str> = Keyed::SPEC.args.iter().map(|arg| arg.name).collect();
    assert_eq!(names, ["what", "idempotencyKey"]);
    assert!(!Unkeyed::SPEC.idempotency_key);
    assert!(Unkeyed::SPEC.args.is_empty());
    assert!(!Free::SPEC.idempotency_key);
    assert_eq!(Limited::SPEC.timeout, Some(Duration::from_secs(90)));
    assert_eq!(
        Limited::SPEC.rate_limit,
        Some(RateLimit::new(5, Duration::from_secs(30)))
    );
    assert_eq!(Free::SPEC.timeout, None);
    assert_eq!(Free::SPEC.rate_limit, None);
}
