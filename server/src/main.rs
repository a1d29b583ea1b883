//! `movie-reviews-mcp`: parse the command line, log to stderr (stdout belongs to MCP), run.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use movie_reviews_mcp::cli::Cli;
use tracing_subscriber::EnvFilter;

/// Without `RUST_LOG`: our own events at info, the SDK's only when something is wrong, and
/// sqlx's not at all (its one warning, a statement slower than a second, is routine while
/// `seed` builds indexes; failures reach our own log lines as errors).
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn,sqlx=error";

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_FILTER)),
        )
        .init();
    let runtime = if cli.http.is_some() {
        // Many clients at once: HTTP parsing and JSON use every core.
        tokio::runtime::Builder::new_multi_thread()
    } else {
        // One client over stdio: reads call SQLite on this thread and long ones and writes run on
        // other threads (see store/readers.rs); what is left (JSON, the protocol) is cheaper
        // than handing tasks between worker threads, which measured slower here.
        tokio::runtime::Builder::new_current_thread()
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
    let code = match runtime.block_on(movie_reviews_mcp::run(cli)) {
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
