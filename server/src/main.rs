//! `movie-reviews-mcp`: parse the command line, log to stderr (stdout belongs to MCP), run.

#![forbid(unsafe_code)]

use std::io::IsTerminal;
use std::process::ExitCode;

use movie_reviews_mcp::cli::{self, LogFormat};
use movie_reviews_mcp::logs;
use movie_reviews_mcp::tools;
use tracing_subscriber::EnvFilter;

/// A call allocates hundreds of small strings and maps (its result as JSON, twice), which
/// mimalloc serves in less time than glibc's allocator: on the benchmark's large set, 3 to 31%
/// less server CPU per call with 16 calls in flight, in six runs beside the same build on glibc.
/// Its build-time setting is in `.cargo/config.toml`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Without `RUST_LOG`: our own events at info, the SDK's only when something is wrong, and
/// sqlx's not at all (its one warning, a statement slower than a second, is routine while
/// `seed` builds indexes; failures reach our own log lines as errors).
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn,sqlx=error";

/// rmcp logs every request's arguments and every answer in full below warn (and client
/// notifications at info). Those hold what users typed and what they read, so rmcp stays at
/// warn unless `RUST_LOG` names its target itself (`RUST_LOG=rmcp=debug`, to debug the
/// protocol).
const PAYLOAD_TARGET: &str = "rmcp";
const PAYLOAD_CAP: &str = "rmcp=warn";

/// The log filter: `RUST_LOG` if set (with rmcp held at warn unless it is named), else
/// [`DEFAULT_LOG_FILTER`].
fn log_filter() -> EnvFilter {
    let directives = std::env::var("RUST_LOG").unwrap_or_default();
    let filter = match EnvFilter::try_new(&directives) {
        Ok(filter) if !directives.trim().is_empty() => filter,
        _ => return EnvFilter::new(DEFAULT_LOG_FILTER),
    };
    if directives.split(',').any(names_payload_target) {
        return filter;
    }
    match PAYLOAD_CAP.parse() {
        Ok(cap) => filter.add_directive(cap),
        Err(_) => filter,
    }
}

/// Whether a `RUST_LOG` directive (`level`, `target=level`, `target[span]=level`) is about
/// rmcp's target or one inside it.
fn names_payload_target(directive: &str) -> bool {
    let target = directive
        .split(['=', '['])
        .next()
        .unwrap_or_default()
        .trim();
    target == PAYLOAD_TARGET || target.starts_with(&format!("{PAYLOAD_TARGET}::"))
}

fn main() -> ExitCode {
    // The one assembly of the server's tools: the help reads what they declare, and the
    // command serves them.
    let toolbox = tools::toolbox();
    let cli = cli::parse(&toolbox.specs());
    let logs = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(log_filter());
    match cli.log_format {
        LogFormat::Text => logs
            .with_ansi(std::io::stderr().is_terminal())
            .fmt_fields(logs::TextFields)
            .init(),
        LogFormat::Json => logs.json().init(),
    }
    let runtime = if cli.http.is_some() {
        // Many clients at once: HTTP parsing and JSON use every core.
        tokio::runtime::Builder::new_multi_thread()
    } else {
        // One client over stdio: reads call SQLite on this thread and long ones and writes run
        // on other threads (see store/src/sqlite/readers.rs); what is left (JSON, the protocol)
        // is cheaper than handing tasks between worker threads, which measured slower here.
        let mut builder = tokio::runtime::Builder::new_current_thread();
        // A call woken by another thread (a write once committed, a long read once done) goes
        // on first, instead of behind up to 30 tasks queued here (tokio's default): with 16
        // calls in flight, a write's p50 fell by a fifth to two fifths, and calls per second
        // did not drop.
        builder.global_queue_interval(1);
        builder
    }
    .enable_all()
    .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("movie-reviews-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let code = match runtime.block_on(movie_reviews_mcp::commands::run(cli, toolbox)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("movie-reviews-mcp: {error}");
            ExitCode::FAILURE
        }
    };
    // After a signal, a read of stdin may still be pending on a blocking thread, and it cannot
    // be cancelled; everything the server owes is done by now, so don't wait for it.
    runtime.shutdown_background();
    code
}
