//! The commands the command line names: serving (on stdio or over HTTP), `seed`, `call`,
//! `token`, `tools` and `bundle`, and the opening of the database they share. A command that
//! opens the store closes it once it is done with it.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;

use crate::cli::{Cli, Command};
use crate::confirmations::Serving;
use crate::demo::{self, DEMO_SEED, Size};
use crate::error::Error;
use crate::metrics::metrics;
use crate::serve::{self, MovieReviews};
use crate::{bundle, http, progress};
use store::{self, Database, Store, StoreError};
use toolkit::jsonrpc;
use toolkit::{Selection, Toolbox, shutdown_signal};

/// Runs the command the command line names, with the tools of `toolbox` (the server's one list
/// of them, [`tools::toolbox`]) that the command line chooses.
pub async fn run(cli: Cli, toolbox: Toolbox<Store>) -> Result<ExitCode, Error> {
    // The connection settings, which only a PostgreSQL database has.
    let connected = |database: Database| {
        let timeout = std::time::Duration::from_secs(cli.database_statement_timeout);
        database
            .with_pool_size(cli.database_pool_size)
            .with_statement_timeout(timeout)
    };
    let selection = Selection {
        read_only: cli.read_only,
        names: cli.tools,
    };
    let serving = match (&cli.command, &cli.http) {
        (None, None) => Serving::Stdio,
        (None, Some(_)) => Serving::Http,
        (Some(_), _) => Serving::Nothing,
    };
    let confirmations =
        crate::confirmations::confirmations(cli.confirm, cli.state_key_file.as_deref(), serving)?;
    // The tools chosen, checked before the database is opened.
    let toolbox = toolbox
        .confirmations(confirmations)
        .on_call(|call| metrics().tool_call(call))
        .timeout(cli.timeout);
    let toolbox = serve::rate_limited(toolbox, &cli.rate_limits);
    let server = serve::server(toolbox).select(&selection);
    server.check()?;
    match cli.command {
        None => {
            let named = cli.database.is_some();
            let database = connected(database_named(cli.database)?);
            if let Some(address) = cli.http {
                let bound = http::bind(address, cli.http_options, &server.declared()).await?;
                let store = open_serving(&database, &selection).await?;
                tracing::info!(%database, "opened the database");
                let handler = serve::on_store(server, &store).build(store.clone())?;
                let served = http::run(bound, handler, shutdown_signal()).await;
                store.close().await;
                served?;
                return Ok(ExitCode::SUCCESS);
            }
            let store = open_serving(&database, &selection).await?;
            if std::io::stdin().is_terminal() {
                eprintln!("{}", terminal_banner(&database, named));
            }
            tracing::info!(%database, "serving MCP on stdio");
            let served = serve::on_store(server, &store)
                .serve_stdio(store.clone())
                .await;
            // Closing checkpoints the write-ahead log, once every answer is out.
            store.close().await;
            served?;
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
            let database = connected(Database::named(database)?);
            let made = seed_database(&database, size, seed, &mut |stage, done, total| {
                progress.update(stage, done, total)
            })
            .await;
            progress.finish();
            let made = made?;
            eprintln!(
                "Seeded {} with {} movies, {} authors and {} reviews (seed {seed}) in {:.1} s.",
                database,
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
            let database = connected(database_named(database.or(cli.database))?);
            let store = open_serving(&database, &selection).await?;
            let handler = serve::on_store(server, &store).build(store.clone())?;
            let called = call(handler, tool, arguments.as_deref()).await;
            store.close().await;
            called
        }
        Some(Command::Token { scopes }) => {
            http::print_new_token(&scopes, &server.declared().scopes())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bundle { output }) => {
            bundle::write(&output, &server.definitions(), &selection)?;
            eprintln!(
                "Wrote {}: open it with Claude Desktop to install the server.",
                output.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tools) => {
            let tools = server.definitions();
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({ "tools": tools }))?
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Opens `database`, creating it and filling it with the demo data when it holds nothing yet.
/// An existing database is only migrated forward. The caller closes the store it is given; on
/// an error the store is closed here.
pub async fn open_or_create(database: &Database) -> Result<Store, Error> {
    let store = Store::open(database).await.map_err(explain_open_error)?;
    let data = demo::generate(Size::DEMO, DEMO_SEED);
    match store
        .fill_if_empty(&data.movies, &data.authors, &data.reviews)
        .await
    {
        Ok(filled) => {
            if filled {
                tracing::info!(%database, "created the database with demo data");
            }
            Ok(store)
        }
        Err(error) => {
            store.close().await;
            Err(explain_open_error(error))
        }
    }
}

/// The store a server serves `selection` from: opened as [`open_or_create`] opens it, and, for
/// a read-only selection, refusing every write from then on, so that not even a bug can write.
async fn open_serving(database: &Database, selection: &Selection) -> Result<Store, Error> {
    let store = open_or_create(database).await?;
    if selection.read_only {
        if let Err(error) = store.refuse_writes().await {
            store.close().await;
            return Err(error.into());
        }
        tracing::info!(%database, "serving read-only: the database refuses writes");
    }
    Ok(store)
}

/// A failure to open the database, with the way out the command line offers when the database
/// cannot be read or has another version's schema (the store's error says what else to do).
fn explain_open_error(error: StoreError) -> Error {
    match error {
        StoreError::Unreadable(_) | StoreError::UnknownSchema(_) => {
            format!("{error}, or name another database with --database").into()
        }
        error => error.into(),
    }
}

/// Replaces everything in `database` with generated data, telling `progress` how far it has
/// got, and says how much was made (no reviews without movies or authors to review).
pub async fn seed_database(
    database: &Database,
    size: Size,
    seed: u64,
    progress: store::Progress<'_>,
) -> Result<Size, Error> {
    let store = Store::open(database).await?;
    let started = std::time::Instant::now();
    let data = demo::generate(size, seed);
    tracing::debug!(elapsed = ?started.elapsed(), "data generated");
    let replaced = store
        .replace_all(&data.movies, &data.authors, &data.reviews, progress)
        .await;
    store.close().await;
    replaced?;
    tracing::debug!(elapsed = ?started.elapsed(), "committed and closed");
    Ok(Size {
        movies: data.movies.len(),
        authors: data.authors.len(),
        reviews: data.reviews.len(),
    })
}

/// The database named, or the file `movie-reviews.db` in the platform's data directory (MCP
/// clients start servers in a working directory the user does not choose).
fn database_named(named: Option<PathBuf>) -> Result<Database, Error> {
    if let Some(named) = named {
        return Ok(Database::named(named)?);
    }
    let dirs = directories::ProjectDirs::from("", "", "movie-reviews-mcp")
        .ok_or("no home directory to keep the database in: pass --database PATH")?;
    Ok(Database::Sqlite(dirs.data_dir().join("movie-reviews.db")))
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
                    "the arguments must be a JSON object, like '{\"query\":\"night\"}'".into(),
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

/// `word` as a POSIX shell reads it: as it is when it holds nothing the shell would read
/// another way, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-:@+=,".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What the server says when a person starts it in a terminal: that a client should start it,
/// with a Claude Desktop entry and an Inspector command that start it the same way (naming the
/// database when this server was told which one to use).
fn terminal_banner(database: &Database, named: bool) -> String {
    let exe = std::env::current_exe()
        .map(|exe| exe.display().to_string())
        .unwrap_or_else(|_| "movie-reviews-mcp".to_owned());
    // A client must name the database this server was told to use; the default it finds alone.
    let args: Vec<String> = if named {
        vec!["--database".to_owned(), database.to_string()]
    } else {
        Vec::new()
    };
    let mut server = serde_json::json!({ "command": exe });
    if !args.is_empty() {
        server["args"] = serde_json::json!(args);
    }
    let config = serde_json::json!({ "mcpServers": { "movie-reviews": server } });
    let inspector: Vec<String> = std::iter::once(exe.as_str())
        .chain(args.iter().map(String::as_str))
        .map(shell_word)
        .collect();
    format!(
        "movie-reviews-mcp {version}: an MCP server for movie reviews, speaking MCP (JSON-RPC) \
         on stdin and stdout.\nDatabase: {database}\n\nIt is meant to be started by an MCP \
         client, not typed at. For example, in Claude Desktop's claude_desktop_config.json:\n  \
         {config}\nOr try it with the MCP Inspector: npx @modelcontextprotocol/inspector \
         {inspector}\nPress Ctrl-D to quit.",
        version = env!("CARGO_PKG_VERSION"),
        inspector = inspector.join(" "),
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_banner_starts_the_server_on_the_database_it_was_given() {
        let database = Database::Sqlite(PathBuf::from("/data/my reviews.db"));
        let named = terminal_banner(&database, true);
        assert!(
            named.contains(r#""args":["--database","/data/my reviews.db"]"#),
            "{named}"
        );
        assert!(
            named.contains("inspector ") && named.contains(" --database '/data/my reviews.db'")
        );
        let default = terminal_banner(&database, false);
        assert!(!default.contains("--database"), "{default}");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(
            shell_word("/usr/bin/movie-reviews-mcp"),
            "/usr/bin/movie-reviews-mcp"
        );
        assert_eq!(shell_word("my file"), "'my file'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
