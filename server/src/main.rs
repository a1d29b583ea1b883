//! `movie-reviews-mcp`: parse the command line, log to stderr (stdout belongs to MCP), run.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use movie_reviews_mcp::cli::Cli;
use tracing_subscriber::EnvFilter;

/// Without `RUST_LOG`: our own events at info, the SDK's only when something is wrong.
const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn";

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_FILTER)),
        )
        .init();
    match movie_reviews_mcp::run(cli).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("movie-reviews-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
