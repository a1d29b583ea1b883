//! The command line: serve over stdio (the default) or HTTP, seed a database, call one tool,
//! list the tools, mint a token.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use toolkit::{RateLimit, ToolSpecs};

use crate::demo::{DEMO_SEED, Size};
use store::PostgresDatabase;

/// The command line of this process, parsed, its help naming the scopes that the tools
/// `declared` need and which tools need each; exits with clap's message on a mistake.
pub fn parse(declared: &ToolSpecs) -> Cli {
    let mut command = command(declared);
    let parsed = Cli::from_arg_matches_mut(&mut command.clone().get_matches());
    parsed.unwrap_or_else(|error| error.format(&mut command).exit())
}

/// The command line's definition, with what the tools `declared` say written into its help.
pub fn command(declared: &ToolSpecs) -> clap::Command {
    let scopes: Vec<String> = declared
        .scopes()
        .into_iter()
        .map(|scope| {
            let needing: Vec<&str> = declared
                .iter()
                .filter(|spec| spec.scope == Some(scope))
                .map(|spec| spec.name)
                .collect();
            format!("{scope} ({})", needing.join(", "))
        })
        .collect();
    let help = format!(
        "The scopes the token grants, comma-separated: {}",
        scopes.join("; ")
    );
    let limits: Vec<String> = declared
        .iter()
        .filter_map(|spec| Some(format!("{} {}", spec.name, spec.rate_limit?)))
        .collect();
    // The names are this file's own (`Command::Token` and its `scopes` field, which clap names
    // in kebab case, and the `rate_limits` field); clap panics on a name it does not have, and
    // the test below would.
    Cli::command()
        .mut_subcommand("token", |token| {
            token.mut_arg("scopes", |scopes| scopes.help(help))
        })
        .mut_arg("rate_limits", |rate_limits| {
            let own = format!("[default: each tool's own: {}]", limits.join(", "));
            let help = rate_limits
                .get_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            rate_limits.help(help.replace("[default: each tool's own]", &own))
        })
}

/// An MCP server for searching movies and authors and reading, writing and deleting reviews.
///
/// With no command it serves MCP over stdin and stdout, as an MCP client (Claude Desktop,
/// VS Code, Cursor, the MCP Inspector) starts it. A new database is created and filled with
/// demo data; an existing one is migrated forward and never reseeded.
#[derive(Debug, Parser)]
#[command(name = "movie-reviews-mcp", version)]
pub struct Cli {
    /// The database: a SQLite file's path, or a PostgreSQL URL (postgres://user@host/name;
    /// sslmode and the PG* environment variables are read as usual). [default:
    /// movie-reviews.db in the platform's data directory]
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_DATABASE",
        value_name = "PATH|URL"
    )]
    pub database: Option<PathBuf>,

    /// How log lines on stderr are written: `text` for people, `json` for log collectors (one
    /// JSON object per line, with each tool call's trace id in its `span`).
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_LOG_FORMAT",
        value_name = "FORMAT",
        default_value = "text"
    )]
    pub log_format: LogFormat,

    /// Serve only these tools, comma-separated (`movies_search,movies_get`): fewer tools are
    /// fewer tokens in every conversation. A name no tool has stops the server at start-up.
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_TOOLS",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    pub tools: Option<Vec<String>>,

    /// Serve only the tools that change nothing (those declared read-only); the others are
    /// neither listed nor callable.
    #[arg(long, global = true, env = "MOVIE_REVIEWS_READ_ONLY")]
    pub read_only: bool,

    /// How many connections to a PostgreSQL database each server may hold at once.
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_DATABASE_POOL_SIZE",
        value_name = "N",
        default_value_t = PostgresDatabase::DEFAULT_POOL_SIZE,
        value_parser = clap::value_parser!(u32).range(1..=1000)
    )]
    pub database_pool_size: u32,

    /// How many seconds a statement may run on a PostgreSQL database before it is cancelled and
    /// its call fails, so that one slow query cannot hold a connection for ever.
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_DATABASE_STATEMENT_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = PostgresDatabase::DEFAULT_STATEMENT_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=86_400)
    )]
    pub database_statement_timeout: u64,

    /// How long a tool call may run before it is stopped and answered `Timed Out`; what it was
    /// writing is rolled back. Like `30s` or `2min`.
    #[arg(
        long,
        global = true,
        env = "MOVIE_REVIEWS_TIMEOUT",
        value_name = "DURATION",
        default_value = "30s",
        value_parser = toolkit::policy::parse_duration
    )]
    pub timeout: std::time::Duration,

    /// How often one caller (one token; over stdio, the one client) may call a tool, in place
    /// of the tool's own limit: `N/PERIOD` for every tool (`100/min`), `TOOL=N/PERIOD` for one
    /// (`reviews_write=30/min`), `none` or `TOOL=none` for no limit. Repeat it, or separate
    /// values with commas; `TOOL=…` wins over a value for every tool. [default: each
    /// tool's own]
    #[arg(
        long = "rate-limit",
        global = true,
        env = "MOVIE_REVIEWS_RATE_LIMITS",
        value_name = "[TOOL=]N/PERIOD|none",
        value_delimiter = ','
    )]
    pub rate_limits: Vec<RateLimitSetting>,

    /// Serve MCP over Streamable HTTP on this address, at the path /mcp, instead of stdio.
    /// Like 127.0.0.1:8080; port 0 picks a free port (the log says which).
    #[arg(long, env = "MOVIE_REVIEWS_HTTP", value_name = "ADDR")]
    pub http: Option<SocketAddr>,

    #[command(flatten)]
    pub http_options: HttpOptions,

    /// Whether a deletion waits for the user's confirmation. `ask`: the user confirms it where
    /// the client can ask them; elsewhere it runs, the tool's description telling the model to
    /// confirm first. `require`: where the client cannot ask, it is refused. `off`: never ask.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_CONFIRM",
        value_name = "MODE",
        default_value = "ask"
    )]
    pub confirm: ConfirmMode,

    /// A file of keys that seal confirmations, one per line, each at least 32 bytes (make one
    /// with `openssl rand -hex 32`): the first seals, every one opens, so a new key goes first
    /// and the old one stays second until confirmations sealed with it have lapsed (10 minutes).
    /// Replicas given the same file accept each other's confirmations. Without it, a random key
    /// of this process's own.
    #[arg(long, env = "MOVIE_REVIEWS_STATE_KEY_FILE", value_name = "PATH")]
    pub state_key_file: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replaces everything in a database with generated data of the given size.
    Seed {
        /// The database to replace (a SQLite file's path or a PostgreSQL URL). Named here,
        /// never taken from MOVIE_REVIEWS_DATABASE or the default, since everything in it is
        /// lost.
        #[arg(long, value_name = "PATH|URL")]
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
        /// The database (a SQLite file's path or a PostgreSQL URL). [default: as for serving]
        #[arg(long, env = "MOVIE_REVIEWS_DATABASE", value_name = "PATH|URL")]
        database: Option<PathBuf>,
        /// The tool's name, like movies_search.
        tool: String,
        /// The arguments as a JSON object, like '{"query":"night"}'.
        arguments: Option<String>,
    },
    /// Prints the tools/list result as JSON.
    Tools,
    /// Writes this binary as an MCP Bundle (.mcpb), which Claude Desktop installs with one
    /// click; --read-only and --tools given here are kept in the bundle's command line.
    Bundle {
        /// Where to write the bundle.
        #[arg(long, value_name = "PATH", default_value = "movie-reviews-mcp.mcpb")]
        output: PathBuf,
    },
    /// Mints a bearer token for an HTTP client: prints the token, and the line to add to the
    /// tokens file (which holds the token's SHA-256, never the token).
    Token {
        /// The scopes the token grants, comma-separated (the help names the scopes and the
        /// tools that need each).
        #[arg(long, value_delimiter = ',', required = true, value_name = "SCOPES")]
        scopes: Vec<String>,
    },
}

/// How to serve over HTTP (with --http): who may call, and from where.
#[derive(Debug, Args)]
#[command(next_help_heading = "Serving over HTTP (with --http)")]
pub struct HttpOptions {
    /// Serve Prometheus metrics at http://ADDR/metrics, on an address of their own, so that
    /// they are not public by accident. None by default.
    #[arg(long, env = "MOVIE_REVIEWS_METRICS_ADDRESS", value_name = "ADDR")]
    pub metrics_address: Option<SocketAddr>,

    /// The URL clients reach MCP at, when it differs from http://ADDR/mcp (behind a proxy, or
    /// on 0.0.0.0). It identifies this server to OAuth: a JWT's audience must be exactly it.
    #[arg(long, env = "MOVIE_REVIEWS_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<url::Url>,

    /// A Host header value to accept, besides localhost, 127.0.0.1, ::1 and the public URL's
    /// host (DNS rebinding protection). `host` accepts any port, `host:port` only that one.
    /// Repeat it, or separate values with commas.
    #[arg(
        long = "allowed-host",
        env = "MOVIE_REVIEWS_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub allowed_hosts: Vec<String>,

    /// An Origin header value to accept from a browser-based client, besides the public URL's
    /// origin, like http://localhost:6274 (`:*` for any port). Requests without an Origin
    /// (native clients) are always accepted. Repeat it, or separate values with commas.
    #[arg(
        long = "allowed-origin",
        env = "MOVIE_REVIEWS_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub allowed_origins: Vec<String>,

    /// The largest request body accepted, in bytes; larger ones get 413.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_MAX_BODY_BYTES",
        default_value_t = 1 << 20,
        value_name = "BYTES"
    )]
    pub max_body_bytes: usize,

    /// How long a client may take to send a request's line and headers, in seconds; then its
    /// connection is closed. A kept-alive connection left idle as long is closed too.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_HEADER_READ_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub header_read_timeout: u64,

    /// How long a client may take to send a request's body, in seconds; past it the answer is
    /// 408, so a client sending slowly holds its connection only so long.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_BODY_READ_TIMEOUT",
        default_value_t = 10,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub body_read_timeout: u64,

    /// How long one request may take, from its headers to its answer (reading its body
    /// included), in seconds; past it the answer is 503.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_REQUEST_TIMEOUT",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub request_timeout: u64,

    /// After SIGTERM or Ctrl-C, how long requests in flight may take to finish, in seconds;
    /// then the connections still open are closed and the server exits.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_SHUTDOWN_TIMEOUT",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub shutdown_timeout: u64,

    /// After SIGTERM or Ctrl-C, how long to go on serving, in seconds, with `/readyz` answering
    /// 503, so that a load balancer stops sending requests here before the server stops
    /// accepting them.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_SHUTDOWN_DELAY",
        default_value_t = 0,
        value_name = "SECONDS"
    )]
    pub shutdown_delay: u64,

    /// The most connections open at once. A new one past it takes the place of the connection
    /// idle longest; when every one has a request in flight, it gets 503.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_MAX_CONNECTIONS",
        default_value_t = 512,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub max_connections: u32,

    /// The most connections open at once from one client address, so that one client cannot
    /// take them all; past it, that address's connection idle longest gives way. Behind a
    /// reverse proxy every client has the proxy's address: raise it to --max-connections there.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 128,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub max_connections_per_address: u32,

    /// The most requests to /mcp served at once; past it a request is answered 503 with
    /// Retry-After: 1 at once, and its connection stays open. /healthz is never refused.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_MAX_REQUESTS_IN_FLIGHT",
        default_value_t = 256,
        value_parser = clap::value_parser!(u32).range(1..),
        value_name = "N"
    )]
    pub max_requests_in_flight: u32,

    /// Turns authentication on with static tokens: a file with one line per token,
    /// `sha256:<hex> scope,scope`, as `movie-reviews-mcp token` prints.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_TOKENS_FILE",
        value_name = "PATH",
        conflicts_with = "tokens"
    )]
    pub tokens_file: Option<PathBuf>,

    /// The same lines as a tokens file, separated by newlines or `;` (for an environment).
    #[arg(long, env = "MOVIE_REVIEWS_TOKENS", value_name = "ENTRIES")]
    pub tokens: Option<String>,

    /// Turns authentication on with JWT access tokens from this issuer (their `iss`, like
    /// https://login.example.com/). Needs --jwks-url or --jwks-file.
    #[arg(long, env = "MOVIE_REVIEWS_JWT_ISSUER", value_name = "ISSUER")]
    pub jwt_issuer: Option<String>,

    /// Where the issuer publishes its signing keys (JWKS): an https URL (plain http only on a
    /// loopback host), whose redirects are not followed. Fetched at start-up, again when a
    /// token names a key not seen yet (at most every 30 s), and hourly in the background; keys
    /// not refreshed for 24 h are dropped, and JWTs refused until a fetch succeeds.
    #[arg(
        long,
        env = "MOVIE_REVIEWS_JWKS_URL",
        value_name = "URL",
        conflicts_with = "jwks_file"
    )]
    pub jwks_url: Option<url::Url>,

    /// The issuer's signing keys (JWKS) from a file, read at start-up.
    #[arg(long, env = "MOVIE_REVIEWS_JWKS_FILE", value_name = "PATH")]
    pub jwks_file: Option<PathBuf>,

    /// The OAuth authorization server clients get tokens from, published in the
    /// protected-resource metadata. [default: the JWT issuer] Repeat it for several.
    #[arg(
        long = "authorization-server",
        env = "MOVIE_REVIEWS_AUTHORIZATION_SERVERS",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub authorization_servers: Vec<String>,

    /// Serve without authentication on an address other hosts can reach. Only for a server
    /// behind something that checks every caller itself.
    #[arg(long)]
    pub insecure_no_auth: bool,
}

/// `--confirm`: whether a deletion waits for the user's confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConfirmMode {
    /// Where the client can ask the user; elsewhere the call runs.
    Ask,
    /// Where the client can ask the user; elsewhere the call is refused.
    Require,
    /// Never.
    Off,
}

/// One `--rate-limit` value: the limit (`None`: none) for one tool, or for every tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitSetting {
    /// The tool, or `None` for every tool.
    pub tool: Option<String>,
    pub limit: Option<RateLimit>,
}

impl std::str::FromStr for RateLimitSetting {
    type Err = String;

    fn from_str(text: &str) -> Result<RateLimitSetting, String> {
        let (tool, limit) = match text.split_once('=') {
            Some((tool, limit)) => (Some(tool.trim().to_owned()), limit.trim()),
            None => (None, text.trim()),
        };
        let limit = match limit {
            "none" => None,
            limit => Some(limit.parse()?),
        };
        Ok(RateLimitSetting { tool, limit })
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// A line of text, for people.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_help_names_each_scope_with_the_tools_that_need_it() {
        let declared = crate::tools::toolbox().specs();
        let mut command = command(&declared);
        let token = command.find_subcommand_mut("token").unwrap();
        let help = token.render_long_help().to_string();
        let scopes = declared.scopes();
        assert_eq!(scopes, ["reviews.read", "reviews.write"]);
        for scope in scopes {
            let needing: Vec<&str> = (declared.iter())
                .filter(|spec| spec.scope == Some(scope))
                .map(|spec| spec.name)
                .collect();
            let entry = format!("{scope} ({})", needing.join(", "));
            assert!(help.contains(&entry), "{entry:?} is not in:\n{help}");
        }
    }
}
