//! The command line: serve over stdio (the default), seed a database, call one tool, list the
//! tools.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::demo::{DEMO_SEED, Size};

/// An MCP server for searching movies and authors and reading, writing and deleting reviews.
///
/// With no command it serves MCP over stdin and stdout, as an MCP client (Claude Desktop,
/// VS Code, Cursor, the MCP Inspector) starts it. A new database is created and filled with
/// demo data; an existing one is migrated forward and never reseeded.
#[derive(Debug, Parser)]
#[command(name = "movie-reviews-mcp", version)]
pub struct Cli {
    /// The SQLite database file. [default: movie-reviews.db in the platform's data directory]
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_DATABASE",
        value_name = "PATH"
    )]
    pub database: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replaces everything in a database with generated data of the given size.
    Seed {
        /// The database to replace. Named here, never taken from MOVIE_REVIEWS_DATABASE or the
        /// default, since everything in it is lost.
        #[arg(long, value_name = "PATH")]
        database: PathBuf,
        /// How many movies.
        #[arg(long, default_value_t = Size::DEMO.movies)]
        movies: usize,
        /// How many authors.
        #[arg(long, default_value_t = Size::DEMO.authors)]
        authors: usize,
        /// How many reviews.
        #[arg(long, default_value_t = Size::DEMO.reviews)]
        reviews: usize,
        /// The generator's seed: the same seed gives the same data on every machine.
        #[arg(long, default_value_t = DEMO_SEED)]
        seed: u64,
    },
    /// Runs one tool and prints its result (the MCP CallToolResult) as JSON.
    Call {
        /// The SQLite database file. [default: as for serving]
        #[arg(long, env = "MOVIE_REVIEWS_DATABASE", value_name = "PATH")]
        database: Option<PathBuf>,
        /// The tool's name, like movies_search.
        tool: String,
        /// The arguments as a JSON object, like '{"query":"global"}'.
        arguments: Option<String>,
    },
    /// Prints the tools/list result as JSON.
    Tools,
}
