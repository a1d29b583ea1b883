//! The movie-review MCP server: six tools over SQLite, declared with `toolkit`.
//!
//! # Layout
//!
//! - [`cli`]: the command line.
//! - [`http`]: serving on Streamable HTTP, with the bearer-token gate.
//! - [`auth`]: who may call over HTTP: static tokens and JWT access tokens.
//! - [`serve`]: the rmcp `ServerHandler` ([`MovieReviews`]).
//! - `tools`: one module per tool; each declares its arguments and runs against the store.
//! - [`model`]: what the tools return, as clients see it.
//! - [`store`]: the SQLite store, the only code that knows SQL.
//! - [`demo`]: the deterministic demo data.
//! - [`stdio`]: serving on stdin and stdout.
//! - [`jsonrpc`]: one JSON-RPC message as either transport reads it, before rmcp does.

#![forbid(unsafe_code)]

pub mod auth;
pub mod cli;
pub mod demo;
pub mod http;
pub mod jsonrpc;
pub mod model;
mod progress;
pub mod serve;
pub mod stdio;
pub mod store;
mod tools;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;

pub use serve::MovieReviews;
pub use tools::router;

use cli::{Cli, Command};
use demo::{DEMO_SEED, Size};
use store::Store;

/// What can stop a command.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Runs the command the command line names.
pub async fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        None => {
            let path = database_path(cli.database)?;
            if let Some(address) = cli.http {
                let bound = http::bind(address, cli.http_options).await?;
                let server = MovieReviews::new(open_or_create(&path).await?)?;
                tracing::info!(database = %path.display(), "opened the database");
                http::run(bound, server, shutdown_signal()).await?;
                return Ok(ExitCode::SUCCESS);
            }
            let server = MovieReviews::new(open_or_create(&path).await?)?;
            if std::io::stdin().is_terminal() {
                eprintln!("{}", terminal_banner(&path));
            }
            tracing::info!(database = %path.display(), "serving MCP on stdio");
            let (stdin, stdout) = stdio::standard_streams();
            stdio::run(server, stdin, stdout, shutdown_signal()).await?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Seed {
            database,
            movies,
            authors,
            reviews,
            seed,
        }) => {
            let size = Size {
                movies,
                authors,
                reviews,
            };
            let started = std::time::Instant::now();
            let mut progress = progress::SeedProgress::new();
            let made = seed_database(&database, size, seed, &mut |stage, done, total| {
                progress.update(stage, done, total)
            })
            .await;
            progress.finish();
            let made = made?;
            eprintln!(
                "Seeded {} with {} movies, {} authors and {} reviews (seed {seed}) in {:.1} s.",
                database.display(),
                made.movies,
                made.authors,
                made.reviews,
                started.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Call {
            database,
            tool,
            arguments,
        }) => {
            let path = database_path(database.or(cli.database))?;
            let server = MovieReviews::new(open_or_create(&path).await?)?;
            call(server, tool, arguments.as_deref()).await
        }
        Some(Command::Token { scopes }) => {
            auth::tokens::print_new(&scopes, &tools::specs().scopes())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tools) => {
            let tools = router()?.list_all();
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({ "tools": tools }))?
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Completes on SIGTERM or SIGINT (Ctrl-C), whichever comes first.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// Opens the database at `path`, creating its folder and filling it with the demo data when it
/// holds nothing yet. An existing database is only migrated forward.
pub async fn open_or_create(path: &Path) -> Result<Store, Error> {
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder)?;
    }
    let store = Store::open(path)
        .await
        .map_err(|error| explain_open_error(path, error))?;
    let data = demo::generate(Size::DEMO, DEMO_SEED);
    if store
        .fill_if_empty(&data.movies, &data.authors, &data.reviews)
        .await
        .map_err(|error| explain_open_error(path, error))?
    {
        tracing::info!(database = %path.display(), "created the database with demo data");
    }
    Ok(store)
}

/// A failure to open the database at `path`, in words an operator can act on when the file has
/// another version's schema, or when SQLite finds it damaged: the usual cause of that is a file
/// replaced while the write-ahead log of the one it replaced was left beside it, which SQLite
/// then reads as part of the new file.
fn explain_open_error(path: &Path, error: store::StoreError) -> Error {
    if error.is_unknown_schema() {
        return format!(
            "the database {path} has a schema this version of the server does not know \
             ({error}): it was made by another version. Move it away (a new one is then made, \
             with the demo data), or name another file with --database",
            path = path.display()
        )
        .into();
    }
    if !error.is_damaged_file() {
        return error.into();
    }
    let beside = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name).display().to_string()
    };
    format!(
        "the database {path} cannot be read ({error}). If the file was replaced (moved or \
         copied over) while the write-ahead log of the database it replaced was left beside it, \
         SQLite read that log as part of the new file: stop every server using the file, move \
         {wal} and {shm} away, copy in again the file you meant to use (the log may have been \
         written into it) and start again. Otherwise the file is damaged \
         or is not a movie-reviews database: restore it from a backup, or name another file \
         with --database",
        path = path.display(),
        wal = beside("-wal"),
        shm = beside("-shm"),
    )
    .into()
}

/// Replaces everything in the database at `path` with generated data, telling `progress` how
/// far it has got, and says how much was made (no reviews without movies or authors to review).
pub async fn seed_database(
    path: &Path,
    size: Size,
    seed: u64,
    progress: store::Progress<'_>,
) -> Result<Size, Error> {
    if let Some(folder) = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
    {
        std::fs::create_dir_all(folder)?;
    }
    let store = Store::open(path).await?;
    let started = std::time::Instant::now();
    let data = demo::generate(size, seed);
    tracing::debug!(elapsed = ?started.elapsed(), "data generated");
    store
        .replace_all(&data.movies, &data.authors, &data.reviews, progress)
        .await?;
    tracing::debug!(elapsed = ?started.elapsed(), "committed");
    store.close().await;
    tracing::debug!(elapsed = ?started.elapsed(), "closed");
    Ok(Size {
        movies: data.movies.len(),
        authors: data.authors.len(),
        reviews: data.reviews.len(),
    })
}

/// The database file: the one named, or `movie-reviews.db` in the platform's data directory
/// (MCP clients start servers in a working directory the user does not choose).
fn database_path(named: Option<PathBuf>) -> Result<PathBuf, Error> {
    if let Some(path) = named {
        return Ok(path);
    }
    let dirs = directories::ProjectDirs::from("", "", "movie-reviews-mcp")
        .ok_or("no home directory to keep the database in: pass --database PATH")?;
    Ok(dirs.data_dir().join("movie-reviews.db"))
}

/// Runs one tool through a real MCP client connected in-process, and prints the result.
async fn call(
    server: MovieReviews,
    tool: String,
    arguments: Option<&str>,
) -> Result<ExitCode, Error> {
    let arguments = match arguments {
        None => None,
        // Read like a request on stdin: a lone surrogate escape becomes U+FFFD.
        Some(text) => match serde_json::from_slice(&jsonrpc::make_readable(text.as_bytes()))? {
            serde_json::Value::Object(object) => Some(object),
            _ => {
                return Err(
                    "the arguments must be a JSON object, like '{\"query\":\"global\"}'".into(),
                );
            }
        },
    };
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_end).await?;
    let mut request = CallToolRequestParams::new(tool);
    request.arguments = arguments;
    let result = client.call_tool(request).await?;
    println!("{}", serde_json::to_string_pretty(&result)?);
    client.cancel().await?;
    Ok(if result.is_error == Some(true) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn terminal_banner(path: &Path) -> String {
    format!(
        "movie-reviews-mcp {version}: an MCP server for movie reviews, speaking MCP (JSON-RPC) \
         on stdin and stdout.\nDatabase: {database}\n\nIt is meant to be started by an MCP \
         client, not typed at. For example, in Claude Desktop's claude_desktop_config.json:\n  \
         {{\"mcpServers\": {{\"movie-reviews\": {{\"command\": \"{exe}\"}}}}}}\nOr try it with \
         the MCP Inspector: npx @modelcontextprotocol/inspector {exe}\nPress Ctrl-D to quit.",
        version = env!("CARGO_PKG_VERSION"),
        database = path.display(),
        exe = std::env::current_exe()
            .map(|exe| exe.display().to_string())
            .unwrap_or_else(|_| "movie-reviews-mcp".to_owned()),
    )
}
