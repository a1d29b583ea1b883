//! `bench`: how fast the release server answers a mixed workload, end to end over stdio, or
//! over Streamable HTTP with `--transport http` (see `http`).
//!
//! It seeds (or reuses) a database of a given size with the server's `seed` command, starts the
//! server as a child process on that database, times spawn → initialize answer, discovers ids
//! through the tools themselves (`movies_search`, `authors_search`, `reviews_list` pages), then
//! sends `--calls` `tools/call` requests with `--in-flight` pipelined, in a mix of
//! `movies_get`, `movies_search`/`authors_search` (alternately, with short queries taken from
//! real titles and names), `reviews_list` (by movie or by author) and `reviews_write` (new
//! reviews). Every answer is checked (no JSON-RPC error, `isError` false, `structuredContent`
//! present); the first bad one ends the run with a non-zero exit.
//!
//! A second, shorter pass sends the same kind of calls one at a time, and the same calls are
//! then made in-process on `store::Store` (the very store functions each tool
//! runs, existence checks included), so the table shows what the MCP layer adds per call:
//! round trip at 1 in flight minus the store calls, at p50.
//!
//! It prints calls/s, p50/p90/p99/max latency overall and per tool, the server's peak RSS
//! (VmHWM), spawn-to-initialize time and seed time. The reviews it wrote are deleted at the
//! end, so the database keeps its seeded counts and is reused by the next run.
//!
//! `--database postgres://…` benches the PostgreSQL backend on that (existing) database, for
//! one size. `--postgres postgres://…/NAME` benches PostgreSQL beside SQLite at every size, one
//! after the other: on the database `NAME_small` for the small set, `NAME_large`, `NAME_huge`
//! (as the SQLite files are one per size), each of which must exist. Like a SQLite file, each
//! is seeded unless it already holds its size, and reused by the next run.
//!
//! `--baseline PATH` also runs another server binary (an earlier build) on each database, right
//! after the server (or before it, every other round), and prints the two side by side: calls/s, server CPU per call, p50s and
//! peak RSS, with the ratio of each (see `comparison`). `--rounds N` runs the pair N times,
//! taking turns to go first, and ends with each figure's median.
//!
//! With `--plot PATH` it also draws a PNG: each tool's p50 against data size, one panel with
//! one call at a time (`p50@1`) and one with `--in-flight` calls (`p50`), on a shared log scale;
//! SQLite in solid lines, PostgreSQL (when measured) in dashed ones. Over HTTP, each tool's p50
//! and p99 against the number of connections.
//!
//! Run from the workspace root (`bench` starts the `movie-reviews-mcp` binary beside it, so
//! build both):
//!
//! ```sh
//! cargo build --release -p movie-reviews-mcp -p bench
//! # SQLite alone:
//! target/release/bench --size small,large,huge --plot docs/performance.png
//! # SQLite and PostgreSQL, in one figure (the databases are created once):
//! for size in small large huge; do createdb movie_reviews_bench_$size; done
//! target/release/bench --size small,large,huge --plot docs/performance.png \
//!     --postgres postgres://localhost/movie_reviews_bench
//! # Another workload:
//! target/release/bench --size small --calls 5000 --in-flight 1 --mix get=4,search=3,list=2,write=1
//! # Over HTTP, at 1, 16, 64 and 256 connections; three replicas on PostgreSQL; a running server:
//! target/release/bench --transport http --size large
//! target/release/bench --transport http --size large --replicas 3 \
//!     --postgres postgres://localhost/movie_reviews_bench
//! BENCH_TOKEN=… target/release/bench --transport http --url http://127.0.0.1:8080/mcp
//! # What the HTTP loader costs per call, against a canned answer:
//! target/release/bench --transport http --loader-cost
//! # A soak, with the server's memory at every tenth of the run; the HTTP figure:
//! target/release/bench --transport http --size large --connections 256 --duration 2min
//! target/release/bench --transport http --size large --plot docs/performance-http.png
//! ```
//!
//! This file holds the command line and the databases; one size's run over stdio is `stdio`, its
//! MCP client `client`, the calls it sends `workload`, the same calls on the store
//! `in_process`, and what a run measured, its table and its figure `report` (drawn by `plot`).
//! Two builds side by side are `comparison`. The HTTP run is `http`.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use store::{Database, Store};

use in_process::has_counts;
use report::{Report, comparison, comparison_title, plot_figure, print_table};
use workload::parse_mix;

mod client;
mod comparison;
mod http;
mod in_process;
mod plot;
mod report;
mod stdio;
mod workload;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Benchmarks the movie-reviews MCP server over stdio, and its store in-process.
#[derive(Debug, Parser)]
#[command(name = "bench")]
struct Args {
    /// The data set: small (100 movies / 50 authors / 1,000 reviews), large (10,000 / 5,000 /
    /// 200,000) or huge (1,000,000 / 200,000 / 5,000,000).
    /// Several, comma-separated, run one after another (`--size small,large,huge`).
    #[arg(
        long = "size",
        value_enum,
        value_delimiter = ',',
        default_value = "small"
    )]
    sizes: Vec<SizeName>,
    /// How many tools/call requests to send.
    #[arg(long, default_value_t = 20_000)]
    calls: usize,
    /// How many requests to keep in flight over stdio.
    #[arg(long, default_value_t = 16)]
    in_flight: usize,
    /// Relative weights of the kinds of call.
    #[arg(long, default_value = "get=4,search=3,list=2,write=1")]
    mix: String,
    /// The database, for a single size: a SQLite file's path, or a PostgreSQL URL to bench
    /// that backend (the database must exist). [default: movie-reviews-bench-SIZE.db in the
    /// temp dir, reused if it holds the right counts, else seeded]
    #[arg(long, value_name = "PATH|URL")]
    database: Option<PathBuf>,
    /// Also bench PostgreSQL, at every size, on the existing database URL's name with
    /// `_SIZE` appended (`postgres://localhost/movie_reviews_bench` →
    /// `movie_reviews_bench_small`, …), seeded unless it holds that size.
    #[arg(long, value_name = "URL")]
    postgres: Option<String>,
    /// Also draw each tool's p50 latency against data size, as a PNG: one call at a time and
    /// `--in-flight` calls side by side, SQLite solid and PostgreSQL dashed. Over HTTP, each
    /// tool's p50 and p99 against the number of connections.
    #[arg(long, value_name = "PATH")]
    plot: Option<PathBuf>,
    /// The server binary. [default: movie-reviews-mcp next to this binary]
    #[arg(long, value_name = "PATH")]
    server: Option<PathBuf>,
    /// Another server binary to compare with (a build of an earlier commit, say): each
    /// database is run on it too, right after or right before the server (see `--rounds`), and
    /// a table of the two side by side follows. The plot shows the server only.
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,
    /// With `--baseline`: how many times to run both builds on each database, taking turns to
    /// go first (the server in the first round). Each round's comparison is printed, then each
    /// figure's median and the median of the rounds' ratios, with their range.
    #[arg(long, default_value_t = 1, requires = "baseline",
          value_parser = clap::value_parser!(u16).range(1..))]
    rounds: u16,
    /// How the calls reach the server: over stdio (one client pipelining `--in-flight` calls)
    /// or over Streamable HTTP (`--connections` keep-alive connections).
    #[arg(long, value_enum, default_value = "stdio")]
    transport: Transport,
    /// HTTP: the numbers of concurrent keep-alive connections to load the server with, one
    /// after another.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1,16,64,256",
        value_name = "C,…"
    )]
    connections: Vec<usize>,
    /// HTTP: the revision of MCP the requests speak.
    #[arg(long, value_enum, default_value = "2026-07-28")]
    protocol: http::Protocol,
    /// HTTP: replicas to start, spreading the connections over them in turn; they share one
    /// PostgreSQL database (`--postgres` or `--database postgres://…`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    replicas: u16,
    /// HTTP: measure the server already serving at this URL (http://HOST:PORT/mcp) instead of
    /// starting one. The reviews its calls write are left in its database.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// HTTP: the bearer token to present to `--url`.
    #[arg(long, env = "BENCH_TOKEN", value_name = "TOKEN", requires = "url")]
    token: Option<String>,
    /// HTTP: measure only what the loader costs per call, against a canned answer.
    #[arg(long)]
    loader_cost: bool,
    /// HTTP: a soak. Each connection count loads the server this long (`2min`, say), going
    /// round the `--calls` calls again and again, and each answer is read as it arrives; the
    /// servers' memory is shown at every tenth of the run.
    #[arg(long, value_name = "DURATION", value_parser = toolkit::policy::parse_duration)]
    duration: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SizeName {
    Small,
    Large,
    Huge,
}

impl SizeName {
    fn counts(self) -> (u64, u64, u64) {
        match self {
            SizeName::Small => (100, 50, 1_000),
            SizeName::Large => (10_000, 5_000, 200_000),
            SizeName::Huge => (1_000_000, 200_000, 5_000_000),
        }
    }

    fn name(self) -> &'static str {
        match self {
            SizeName::Small => "small",
            SizeName::Large => "large",
            SizeName::Huge => "huge",
        }
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench: FAILED: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), Error> {
    let mix = parse_mix(&args.mix)?;
    let http = args.transport == Transport::Http;
    if !http && (args.url.is_some() || args.loader_cost || args.replicas > 1) {
        return Err(
            "--url, --loader-cost and --replicas measure HTTP: add --transport http".into(),
        );
    }
    let server = match args.server.clone() {
        Some(path) => path,
        None => std::env::current_exe()?
            .parent()
            .ok_or("the bench binary has no folder")?
            .join("movie-reviews-mcp"),
    };
    let needs_server = args.url.is_none() && !args.loader_cost;
    if needs_server && !server.is_file() {
        return Err(format!(
            "no server binary at {}: build it with `cargo build --release -p movie-reviews-mcp` \
             or pass --server PATH",
            server.display()
        )
        .into());
    }
    if let Some(baseline) = &args.baseline
        && !baseline.is_file()
    {
        return Err(format!("--baseline: no server binary at {}", baseline.display()).into());
    }
    if args.calls == 0 || args.in_flight == 0 {
        return Err("--calls and --in-flight must be at least 1".into());
    }
    if args.database.is_some() && args.sizes.len() > 1 {
        return Err("--database names one database: give one --size with it".into());
    }
    if let Some(prefix) = &args.postgres {
        if let Some(database) = &args.database
            && let Database::Postgres(_) = Database::named(database.clone())?
        {
            return Err("--database is a PostgreSQL URL: give it or --postgres, not both".into());
        }
        // A bad URL or a missing database fails now rather than after a SQLite run.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        for &size in &args.sizes {
            let database = Database::named(postgres_database(prefix, size)?)?;
            match runtime.block_on(Store::open(&database)) {
                Ok(store) => runtime.block_on(store.close()),
                Err(error) => {
                    return Err(format!(
                        "--postgres: cannot open {database} ({error}); create each size's \
                         database first (`createdb`)"
                    )
                    .into());
                }
            }
        }
    }
    if http {
        return http::run(&args, &server, &mix);
    }
    let mut reports = Vec::new();
    for &size in &args.sizes {
        let sqlite = args.database.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!("movie-reviews-bench-{}.db", size.name()))
        });
        let postgres = args
            .postgres
            .as_deref()
            .map(|prefix| postgres_database(prefix, size))
            .transpose()?;
        // Both backends at one size, then the next size: on a shared machine, measurements
        // taken close together are the fairest comparison.
        for database in std::iter::once(sqlite).chain(postgres) {
            let run_on = |binary: &Path| -> Result<Report, Error> {
                let report = stdio::run_size(&args, binary, size, database.clone(), &mix)?;
                print_table(&report);
                Ok(report)
            };
            let Some(baseline) = &args.baseline else {
                reports.push(run_on(&server)?);
                continue;
            };
            // One build right after the other on the same database, so that both meet the
            // machine as alike as a shared machine allows.
            let pairs = comparison::in_turns(args.rounds.into(), &server, baseline, run_on)?;
            if let Some((_, first)) = pairs.first() {
                comparison::print_rounds(&comparison_title(first), &pairs, comparison);
            }
            reports.extend(pairs.into_iter().map(|(_, server)| server));
        }
    }
    if let Some(path) = &args.plot {
        plot::write(path, &plot_figure(&reports))?;
        eprintln!("bench: plotted {}", path.display());
    }
    Ok(())
}

/// The URL of the PostgreSQL database for `size`: `prefix` with `_SIZE` appended to the
/// database's name (the URL's path, before any `?options`).
pub(crate) fn postgres_database(prefix: &str, size: SizeName) -> Result<PathBuf, Error> {
    // The URL is not repeated: it may hold a password.
    let usage = || {
        "--postgres: give postgres://[USER@]HOST[:PORT]/NAME (the size is appended to NAME)"
            .to_owned()
    };
    let rest = ["postgres://", "postgresql://"]
        .iter()
        .find_map(|scheme| prefix.strip_prefix(scheme))
        .ok_or_else(usage)?;
    let (base, options) = prefix.split_at(prefix.find('?').unwrap_or(prefix.len()));
    let name = rest
        .split_once('/')
        .map(|(_, path)| path.split('?').next().unwrap_or_default())
        .unwrap_or_default();
    if name.is_empty() || name.contains('/') {
        return Err(usage().into());
    }
    let url = format!("{base}_{}{options}", size.name());
    Database::named(PathBuf::from(&url)).map_err(|error| format!("--postgres: {error}"))?;
    Ok(PathBuf::from(url))
}

/// Seeds `database` at `size` with `server`'s `seed` command, unless it already holds exactly
/// that size; how long seeding took, if it did.
fn seed_or_reuse(
    runtime: &tokio::runtime::Runtime,
    server: &Path,
    size: SizeName,
    database: &Path,
) -> Result<Option<Duration>, Error> {
    let target = Database::named(database.to_owned())?;
    let counts = size.counts();
    if runtime.block_on(has_counts(&target, counts)) {
        eprintln!("bench: reusing {target} ({counts:?})");
        return Ok(None);
    }
    eprintln!(
        "bench: seeding {target} with {} movies, {} authors, {} reviews…",
        counts.0, counts.1, counts.2
    );
    let started = Instant::now();
    let status = Command::new(server)
        .arg("seed")
        .arg("--database")
        .arg(database)
        .args(["--movies", &counts.0.to_string()])
        .args(["--authors", &counts.1.to_string()])
        .args(["--reviews", &counts.2.to_string()])
        .status()?;
    if !status.success() {
        let hint = match target {
            Database::Postgres(_) => " (a PostgreSQL database must exist: `createdb NAME`)",
            Database::Sqlite(_) => "",
        };
        return Err(format!("`{} seed` failed: {status}{hint}", server.display()).into());
    }
    Ok(Some(started.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_size_has_its_own_postgres_database() -> Result<(), Error> {
        let url =
            |prefix, size| postgres_database(prefix, size).map(|url| url.display().to_string());
        assert_eq!(
            url("postgres://localhost/movie_reviews_bench", SizeName::Small)?,
            "postgres://localhost/movie_reviews_bench_small"
        );
        assert_eq!(
            url(
                "postgresql://bench@db.example:5433/bench?sslmode=disable",
                SizeName::Huge
            )?,
            "postgresql://bench@db.example:5433/bench_huge?sslmode=disable"
        );
        for no_name in [
            "postgres://localhost",
            "postgres://localhost/",
            "postgres://localhost/?sslmode=disable",
            "bench.db",
        ] {
            assert!(url(no_name, SizeName::Large).is_err(), "{no_name}");
        }
        Ok(())
    }
}
