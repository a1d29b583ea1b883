//! The toolkit's call policies, each a [`Layer`](crate::Layer) of its own: how often a caller
//! may call a tool ([`RateLimit`]), how long a call may run, how large a result may be, and
//! whether a retried call runs again ([`idempotency`]). A tool declares its own in
//! `#[tool(timeout = "30s", rate_limit = "60/min", idempotency_key)]`; a server sets defaults
//! for the others on its [`Toolbox`](crate::Toolbox) or [`Server`](crate::Server).

pub mod idempotency;
pub(crate) mod rate_limit;
pub(crate) mod result_size;
pub(crate) mod timeout;

use std::time::Duration;

pub use rate_limit::RateLimit;

/// Reads a duration as `#[tool(timeout = "…")]` takes it, humantime's way (`30s`, `500ms`,
/// `2min`, `1h 30min`): what a server's command line reads a `--timeout` with. Zero and more
/// than a day are refused; the error says what to write.
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(toolkit::policy::parse_duration("2min"), Ok(Duration::from_secs(120)));
/// assert!(toolkit::policy::parse_duration("30").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    policy_syntax::duration(text)
}

/// How long a call that carries a `progressToken` may go without a progress notification
/// before the toolkit sends one of its own, by default: clients that reset their time-out on
/// progress (about 60 s for most) then keep waiting for a slow call.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(5);

/// The most bytes a result may have, by default: a megabyte of text (about 250,000 tokens) is
/// more than a model can read in one answer, and a result that large is better asked for in
/// pages.
pub const MAX_RESULT_BYTES: usize = 1024 * 1024;
