//! `bench`: how fast the release server answers a mixed workload, end to end over stdio.
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
//! then made in-process on `movie_reviews_mcp::store::Store` (the very store functions each tool
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
//! With `--plot PATH` it also draws a PNG: each tool's p50 against data size, one panel with
//! one call at a time (`p50@1`) and one with `--in-flight` calls (`p50`), on a shared log scale;
//! SQLite in solid lines, PostgreSQL (when measured) in dashed ones.
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
//! ```

#![forbid(unsafe_code)]

use movie_reviews_mcp::demo::SplitMix64;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

mod plot;

use clap::{Parser, ValueEnum};
use movie_reviews_mcp::store::{self, Database, NewReview, ReviewFilter, Store};
use serde_json::{Value, json};
use uuid::Uuid;

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
    /// How many requests to keep in flight.
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
    /// `--in-flight` calls side by side, SQLite solid and PostgreSQL dashed.
    #[arg(long, value_name = "PATH")]
    plot: Option<PathBuf>,
    /// The server binary. [default: movie-reviews-mcp next to this binary]
    #[arg(long, value_name = "PATH")]
    server: Option<PathBuf>,
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

/// The tools the mix calls, in table order.
const TOOLS: [&str; 5] = [
    "movies_get",
    "movies_search",
    "authors_search",
    "reviews_list",
    "reviews_write",
];

/// One call of the workload.
#[derive(Debug, Clone)]
enum Call {
    Get(Uuid),
    SearchMovies(String),
    SearchAuthors(String),
    ListByMovie(Uuid),
    ListByAuthor(Uuid),
    Write {
        movie: Uuid,
        author: Uuid,
        stars: u8,
    },
}

impl Call {
    /// Index into [`TOOLS`].
    fn tool(&self) -> usize {
        match self {
            Call::Get(_) => 0,
            Call::SearchMovies(_) => 1,
            Call::SearchAuthors(_) => 2,
            Call::ListByMovie(_) | Call::ListByAuthor(_) => 3,
            Call::Write { .. } => 4,
        }
    }

    fn arguments(&self) -> Value {
        match self {
            Call::Get(id) => json!({ "movieId": id }),
            Call::SearchMovies(query) | Call::SearchAuthors(query) => json!({ "query": query }),
            Call::ListByMovie(id) => json!({ "movieId": id }),
            Call::ListByAuthor(id) => json!({ "authorId": id }),
            Call::Write {
                movie,
                author,
                stars,
            } => json!({ "movieId": movie, "authorId": author, "stars": stars }),
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
            let report = run_size(&args, size, database, &mix)?;
            print_table(&report);
            reports.push(report);
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
fn postgres_database(prefix: &str, size: SizeName) -> Result<PathBuf, Error> {
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

/// Seeds or reuses `database` at `size`, runs the workload on the server and on the store.
fn run_size(
    args: &Args,
    size: SizeName,
    database: PathBuf,
    mix: &[u32; 4],
) -> Result<Report, Error> {
    let server = match args.server.clone() {
        Some(path) => path,
        None => std::env::current_exe()?
            .parent()
            .ok_or("the bench binary has no folder")?
            .join("movie-reviews-mcp"),
    };
    if !server.is_file() {
        return Err(format!(
            "no server binary at {}: build it with `cargo build --release -p movie-reviews-mcp` \
             or pass --server PATH",
            server.display()
        )
        .into());
    }
    // The server is given the argument as it is; the in-process store calls read it the same way.
    let target = Database::named(database.clone())?;
    let counts = size.counts();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    // Seed, unless the file already holds exactly this size.
    let seed_time = if runtime.block_on(has_counts(&target, counts)) {
        eprintln!("bench: reusing {target} ({counts:?})");
        None
    } else {
        eprintln!(
            "bench: seeding {target} with {} movies, {} authors, {} reviews…",
            counts.0, counts.1, counts.2
        );
        let started = Instant::now();
        let status = Command::new(&server)
            .arg("seed")
            .arg("--database")
            .arg(&database)
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
        Some(started.elapsed())
    };

    // Start the server and initialize.
    let spawned = Instant::now();
    let mut child = Command::new(&server)
        .arg("--database")
        .arg(&database)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    let log = drain_stderr(&mut child);
    let mut connection = Connection {
        stdin: child.stdin.take().ok_or("no stdin")?,
        stdout: BufReader::new(child.stdout.take().ok_or("no stdout")?),
        next_id: 1,
    };
    let outcome = (|| -> Result<ServerRun, Error> {
        let initialize = connection.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "bench", "version": "0" }
            }),
        )?;
        let spawn_to_initialize = spawned.elapsed();
        if initialize.get("result").is_none() {
            return Err(format!("initialize failed: {initialize}").into());
        }
        connection.notify("notifications/initialized")?;

        let ids = discover(&mut connection)?;
        eprintln!(
            "bench: discovered {} movies, {} authors, {} reviews through the tools",
            ids.movies.len(),
            ids.authors.len(),
            ids.reviews
        );
        let calls = workload(&ids, mix, args.calls, 0x5eed);
        eprintln!(
            "bench: {} calls, {} in flight…",
            calls.len(),
            args.in_flight
        );
        let cpu_before = cpu_time(pid);
        let (connection, main_run) = pipelined(connection, &calls, args.in_flight)?;
        let main_cpu = cpu_time(pid)
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        let serial_calls = workload(&ids, mix, args.calls.clamp(1, 2_000), 0xfeed);
        eprintln!("bench: {} calls, 1 in flight…", serial_calls.len());
        let (mut connection, serial_run) = pipelined(connection, &serial_calls, 1)?;
        let ping = ping_round_trip(&mut connection, 2_000)?;
        let peak_rss = vm_hwm(pid);
        Ok(ServerRun {
            connection,
            spawn_to_initialize,
            calls,
            main_run,
            serial_run,
            serial_calls,
            ping,
            peak_rss,
            main_cpu,
        })
    })();
    let run = match outcome {
        Ok(outcome) => outcome,
        Err(error) => {
            let _ = child.kill();
            let _ = child.wait();
            let log = log.lock().map(|lines| lines.join("\n")).unwrap_or_default();
            return Err(format!("{error}\nserver stderr (last lines):\n{log}").into());
        }
    };
    drop(run.connection);
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("the server exited with {status} after stdin closed").into());
    }

    // The same calls on the store alone, one at a time, then clean up every review written. On
    // a one-thread runtime, as the server over stdio runs them.
    eprintln!("bench: {} store calls in-process…", run.serial_calls.len());
    let store_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (store_run, store_written) =
        store_runtime.block_on(store_calls(&target, &run.serial_calls))?;
    let mut written = run.main_run.written.clone();
    written.extend(&run.serial_run.written);
    written.extend(store_written);
    runtime.block_on(delete_reviews(&target, &written))?;

    Ok(Report {
        size,
        counts,
        database: target,
        in_flight: args.in_flight,
        calls: run.calls.len(),
        seed_time,
        spawn_to_initialize: run.spawn_to_initialize,
        ping: run.ping,
        peak_rss: run.peak_rss,
        main_cpu: run.main_cpu,
        main_run: run.main_run,
        serial_run: run.serial_run,
        store_run,
    })
}

/// Whether the database exists and holds exactly these counts.
async fn has_counts(database: &Database, (movies, authors, reviews): (u64, u64, u64)) -> bool {
    if let Database::Sqlite(path) = database
        && !path.is_file()
    {
        return false;
    }
    let Ok(store) = Store::open(database).await else {
        return false;
    };
    let found = async {
        Ok::<_, store::StoreError>((
            store.search_movies(None, 0, 1, false).await?.0.total,
            store.search_authors(None, 0, 1, false).await?.0.total,
            store
                .list_reviews(ReviewFilter::default(), 0, 1)
                .await?
                .map_or(0, |rows| rows.total),
        ))
    }
    .await;
    store.close().await;
    matches!(found, Ok(found) if found == (movies, authors, reviews))
}

/// Keeps the last lines the server logs, reading stderr so it never blocks on a full pipe.
fn drain_stderr(child: &mut Child) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    if let Some(stderr) = child.stderr.take() {
        let kept = Arc::clone(&lines);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut kept) = kept.lock() {
                    if kept.len() == 40 {
                        kept.remove(0);
                    }
                    kept.push(line);
                }
            }
        });
    }
    lines
}

/// The child's pipes, for one request at a time.
struct Connection {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Connection {
    fn send(&mut self, message: &Value) -> Result<(), Error> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stdin.write_all(&line)?;
        Ok(())
    }

    fn notify(&mut self, method: &str) -> Result<(), Error> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method }))
    }

    /// Sends a request and waits for the answer with its id.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(format!("the server closed stdout before answering {method}").into());
            }
            let message: Value = serde_json::from_str(&line)?;
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                return Ok(message);
            }
        }
    }

    /// Calls a tool and returns its checked `structuredContent`.
    fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Error> {
        let answer = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments.clone() }),
        )?;
        checked(&answer)
            .cloned()
            .map_err(|error| format!("{tool} {arguments}: {error}").into())
    }
}

/// The p50 round trip of MCP's `ping`, one at a time and timed as the calls are (requests
/// made beforehand, only the answer's id read while timing): the pipes, the wake-ups on both
/// sides and rmcp's framing, with no tool behind them. The floor under every call's round trip.
fn ping_round_trip(connection: &mut Connection, pings: usize) -> Result<Duration, Error> {
    let first_id = connection.next_id;
    connection.next_id += pings as u64;
    let lines: Vec<Vec<u8>> = (0..pings)
        .map(|index| {
            let request =
                json!({ "jsonrpc": "2.0", "id": first_id + index as u64, "method": "ping" });
            let mut line = serde_json::to_vec(&request).expect("a request serializes");
            line.push(b'\n');
            line
        })
        .collect();
    let mut round_trips = Vec::with_capacity(pings);
    for (index, line) in lines.iter().enumerate() {
        let sent = Instant::now();
        connection.stdin.write_all(line)?;
        let (answer, answered) = read_answer(&mut connection.stdout, first_id, pings, index)?;
        round_trips.push(sent.elapsed());
        let answer: Value = serde_json::from_str(&answer)?;
        if answered != index || answer.get("result").is_none() {
            return Err(format!("ping {index} failed: {answer}").into());
        }
    }
    quantile(&sorted(&round_trips), 0.5).ok_or_else(|| "no pings".into())
}

/// The `structuredContent` of a good `tools/call` answer, or what is wrong with it.
fn checked(answer: &Value) -> Result<&Value, String> {
    if let Some(error) = answer.get("error") {
        return Err(format!("JSON-RPC error {error}"));
    }
    let Some(result) = answer.get("result") else {
        return Err(format!("no result in {answer}"));
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(format!("tool error {result}"));
    }
    match result.get("structuredContent") {
        Some(content) if content.is_object() => Ok(content),
        _ => Err(format!("no structuredContent in {result}")),
    }
}

/// What the tools showed: ids, titles and names to query.
struct Ids {
    movies: Vec<Uuid>,
    titles: Vec<String>,
    authors: Vec<Uuid>,
    names: Vec<String>,
    reviews: usize,
}

/// Pages spread evenly over every movie and author (up to 40 pages of 50 each), and a few pages
/// of reviews.
fn discover(connection: &mut Connection) -> Result<Ids, Error> {
    const PAGES: u64 = 40;
    const LIMIT: u64 = 50;
    let mut ids = Ids {
        movies: Vec::new(),
        titles: Vec::new(),
        authors: Vec::new(),
        names: Vec::new(),
        reviews: 0,
    };
    for tool in ["movies_search", "authors_search"] {
        let first = connection.call(tool, json!({ "limit": LIMIT }))?;
        let total = first["totalCount"].as_u64().ok_or("no totalCount")?;
        let mut pages = vec![first];
        let offsets: Vec<u64> = (1..PAGES)
            .map(|page| page * total / PAGES)
            .filter(|&offset| offset >= LIMIT)
            .collect();
        let mut last = 0;
        for offset in offsets {
            if offset < last + LIMIT {
                continue;
            }
            last = offset;
            pages.push(connection.call(tool, json!({ "limit": LIMIT, "offset": offset }))?);
        }
        for page in pages {
            for item in page["items"].as_array().ok_or("no items")? {
                let id = Uuid::parse_str(item["id"].as_str().ok_or("no id")?)?;
                if tool == "movies_search" {
                    ids.movies.push(id);
                    ids.titles
                        .push(item["title"].as_str().unwrap_or_default().to_owned());
                } else {
                    ids.authors.push(id);
                    ids.names
                        .push(item["name"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
    }
    for offset in [0, LIMIT, 2 * LIMIT] {
        let page = connection.call("reviews_list", json!({ "limit": LIMIT, "offset": offset }))?;
        ids.reviews += page["items"].as_array().map_or(0, Vec::len);
    }
    if ids.movies.is_empty() || ids.authors.is_empty() {
        return Err("the database has no movies or no authors".into());
    }
    Ok(ids)
}

/// Weights of get, search, list, write.
fn parse_mix(text: &str) -> Result<[u32; 4], Error> {
    let mut weights = [0; 4];
    for part in text
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| format!("--mix: `{part}` is not NAME=WEIGHT"))?;
        let slot = match name.trim() {
            "get" => 0,
            "search" => 1,
            "list" => 2,
            "write" => 3,
            other => {
                return Err(format!("--mix: unknown `{other}` (get, search, list, write)").into());
            }
        };
        weights[slot] = weight
            .trim()
            .parse()
            .map_err(|_| format!("--mix: `{weight}` is not a whole number"))?;
    }
    if weights.iter().all(|&weight| weight == 0) {
        return Err("--mix: every weight is 0".into());
    }
    Ok(weights)
}

/// A short query from a real title or name: a word of it, at most 5 characters.
fn short_query(random: &mut SplitMix64, texts: &[String]) -> String {
    let text = random.pick(texts);
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|word| word.chars().count() >= 3)
        .collect();
    let word = if words.is_empty() {
        text.as_str()
    } else {
        random.pick(&words)
    };
    word.chars().take(5).collect()
}

fn workload(ids: &Ids, mix: &[u32; 4], count: usize, seed: u64) -> Vec<Call> {
    let mut random = SplitMix64(seed);
    let total: u32 = mix.iter().sum();
    let (mut searches, mut lists) = (0usize, 0usize);
    (0..count)
        .map(|_| {
            let mut roll = (random.next_u64() % u64::from(total)) as u32;
            let kind = mix
                .iter()
                .position(|&weight| {
                    if roll < weight {
                        true
                    } else {
                        roll -= weight;
                        false
                    }
                })
                .unwrap_or(0);
            match kind {
                0 => Call::Get(*random.pick(&ids.movies)),
                1 => {
                    searches += 1;
                    if searches % 2 == 1 {
                        Call::SearchMovies(short_query(&mut random, &ids.titles))
                    } else {
                        Call::SearchAuthors(short_query(&mut random, &ids.names))
                    }
                }
                2 => {
                    lists += 1;
                    if lists % 2 == 1 {
                        Call::ListByMovie(*random.pick(&ids.movies))
                    } else {
                        Call::ListByAuthor(*random.pick(&ids.authors))
                    }
                }
                _ => Call::Write {
                    movie: *random.pick(&ids.movies),
                    author: *random.pick(&ids.authors),
                    stars: (1 + random.below(5)) as u8,
                },
            }
        })
        .collect()
}

/// Latencies of one pass, per tool, and the reviews it created.
struct RunResult {
    elapsed: Duration,
    latencies: Vec<Vec<Duration>>,
    written: Vec<Uuid>,
}

/// Sends `calls` keeping `in_flight` unanswered: a writer thread sends a request whenever an
/// answer frees a slot, a reader thread matches answers to requests by id. With one in flight a
/// single thread writes a request and reads its answer, as a client does, instead of waking a
/// second thread for every call. Answers are checked once the run is over, so that the client
/// spends as little as it can of the machine the server runs on while it is timed.
fn pipelined(
    connection: Connection,
    calls: &[Call],
    in_flight: usize,
) -> Result<(Connection, RunResult), Error> {
    let Connection {
        mut stdin,
        mut stdout,
        next_id,
    } = connection;
    let first_id = next_id;
    let lines: Vec<Vec<u8>> = calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let request = json!({
                "jsonrpc": "2.0",
                "id": first_id + index as u64,
                "method": "tools/call",
                "params": { "name": TOOLS[call.tool()], "arguments": call.arguments() },
            });
            let mut line = serde_json::to_vec(&request).expect("a request serializes");
            line.push(b'\n');
            line
        })
        .collect();
    let count = calls.len();
    let base = Instant::now();
    let (answers, stdin, stdout) = if in_flight == 1 {
        let mut answers = Vec::with_capacity(count);
        for (index, line) in lines.iter().enumerate() {
            let sent = base.elapsed();
            stdin.write_all(line)?;
            let (answer, answered) = read_answer(&mut stdout, first_id, count, index)?;
            if answered != index {
                return Err(format!("an answer to another request than {index}: {answer}").into());
            }
            answers.push(Answered {
                index,
                latency: base.elapsed() - sent,
                answer,
            });
        }
        (answers, stdin, stdout)
    } else {
        let sent_at: Arc<Vec<AtomicU64>> =
            Arc::new((0..count).map(|_| AtomicU64::new(0)).collect());
        let (free, slots) = mpsc::channel::<()>();
        let writer = {
            let sent_at = Arc::clone(&sent_at);
            thread::spawn(move || -> Result<ChildStdin, String> {
                for (index, line) in lines.iter().enumerate() {
                    if index >= in_flight && slots.recv().is_err() {
                        return Err("stopped: the reader gave up".to_owned());
                    }
                    sent_at[index].store(base.elapsed().as_nanos() as u64, Ordering::Release);
                    stdin
                        .write_all(line)
                        .map_err(|error| format!("writing to the server: {error}"))?;
                }
                Ok(stdin)
            })
        };
        let reader = thread::spawn(move || -> Result<_, String> {
            let mut answers = Vec::with_capacity(count);
            let mut answered = vec![false; count];
            while answers.len() < count {
                let (answer, index) = read_answer(&mut stdout, first_id, count, answers.len())
                    .map_err(|error| error.to_string())?;
                let now = base.elapsed().as_nanos() as u64;
                if std::mem::replace(&mut answered[index], true) {
                    return Err(format!("two answers to one request: {answer}"));
                }
                let sent = sent_at[index].load(Ordering::Acquire);
                answers.push(Answered {
                    index,
                    latency: Duration::from_nanos(now.saturating_sub(sent)),
                    answer,
                });
                let _ = free.send(());
            }
            Ok((answers, stdout))
        });
        let read = reader.join().map_err(|_| "the reader thread panicked")?;
        // On a failed read the writer sees the channel close and stops.
        let wrote = writer.join().map_err(|_| "the writer thread panicked")?;
        let (answers, stdout) = read?;
        (answers, wrote?, stdout)
    };
    let elapsed = base.elapsed();

    let mut latencies = vec![Vec::new(); TOOLS.len()];
    let mut written = Vec::new();
    for Answered {
        index,
        latency,
        answer,
    } in answers
    {
        let tool = calls[index].tool();
        let answer: Value = serde_json::from_str(&answer)
            .map_err(|error| format!("an answer is not JSON ({error}): {answer}"))?;
        let content = checked(&answer)
            .map_err(|error| format!("call {index} ({}) failed: {error}", TOOLS[tool]))?;
        if tool == 4 {
            let review = content["id"]
                .as_str()
                .and_then(|id| Uuid::parse_str(id).ok())
                .ok_or_else(|| format!("reviews_write answered without an id: {answer}"))?;
            written.push(review);
        }
        latencies[tool].push(latency);
    }
    Ok((
        Connection {
            stdin,
            stdout,
            next_id: first_id + count as u64,
        },
        RunResult {
            elapsed,
            latencies,
            written,
        },
    ))
}

/// An answer, not yet checked, to the request at `index`, and how long it took.
struct Answered {
    index: usize,
    latency: Duration,
    answer: String,
}

/// Reads the next answer to a request (skipping notifications) and the index of the request it
/// answers, reading no more of it than its id.
fn read_answer(
    stdout: &mut BufReader<ChildStdout>,
    first_id: u64,
    count: usize,
    received: usize,
) -> Result<(String, usize), Error> {
    /// Only the id of an answer; serde skips the rest without building it.
    #[derive(serde::Deserialize)]
    struct Id {
        id: Option<u64>,
    }
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line)? == 0 {
            return Err(
                format!("the server closed stdout after {received} of {count} answers").into(),
            );
        }
        let Id { id } = serde_json::from_str(&line)
            .map_err(|error| format!("an answer is not JSON ({error}): {line}"))?;
        let Some(id) = id else {
            continue; // A notification.
        };
        let index = id
            .checked_sub(first_id)
            .map(|index| index as usize)
            .filter(|&index| index < count)
            .ok_or_else(|| format!("an answer with an unexpected id: {line}"))?;
        return Ok((line, index));
    }
}

/// Runs on the store the same store functions each call's tool runs, one call at a time.
async fn store_calls(database: &Database, calls: &[Call]) -> Result<(RunResult, Vec<Uuid>), Error> {
    let store = Store::open(database).await?;
    let mut latencies = vec![Vec::new(); TOOLS.len()];
    let mut written = Vec::new();
    let started = Instant::now();
    for call in calls {
        let start = Instant::now();
        let ok = match call {
            Call::Get(id) => store.movie_with_reviews(*id).await?.is_some(),
            Call::SearchMovies(query) => {
                store.search_movies(Some(query), 0, 10, false).await?;
                true
            }
            Call::SearchAuthors(query) => {
                store.search_authors(Some(query), 0, 10, false).await?;
                true
            }
            Call::ListByMovie(id) => {
                let filter = ReviewFilter {
                    movie_id: Some(*id),
                    author_id: None,
                };
                store.list_reviews(filter, 0, 10).await?.is_some()
            }
            Call::ListByAuthor(id) => {
                let filter = ReviewFilter {
                    movie_id: None,
                    author_id: Some(*id),
                };
                store.list_reviews(filter, 0, 10).await?.is_some()
            }
            Call::Write {
                movie,
                author,
                stars,
            } => {
                let review = NewReview {
                    id: Uuid::new_v4(),
                    movie_id: *movie,
                    author_id: *author,
                    stars: *stars,
                };
                let ok = store.create_review(&review).await?.is_some();
                written.push(review.id);
                ok
            }
        };
        latencies[call.tool()].push(start.elapsed());
        if !ok {
            store.close().await;
            return Err(format!("store call {call:?} found nothing").into());
        }
    }
    let elapsed = started.elapsed();
    store.close().await;
    Ok((
        RunResult {
            elapsed,
            latencies,
            written: Vec::new(),
        },
        written,
    ))
}

/// Deletes the reviews the benchmark wrote, so the database keeps its seeded counts.
async fn delete_reviews(database: &Database, ids: &[Uuid]) -> Result<(), Error> {
    let store = Store::open(database).await?;
    for id in ids {
        store.delete_review(*id).await?;
    }
    store.close().await;
    Ok(())
}

/// The server's peak resident set (VmHWM), in KiB.
fn vm_hwm(pid: u32) -> Option<u64> {
    let mut status = String::new();
    std::fs::File::open(format!("/proc/{pid}/status"))
        .ok()?
        .read_to_string(&mut status)
        .ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The CPU time the process has used so far, every thread's, user and system: fields 14 and
/// 15 of `/proc/PID/stat`, in clock ticks of 10 ms (`USER_HZ` is 100 on Linux).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, field 2, is in parentheses and may hold spaces: count from after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// What the runs against the server measured, and the connection, still open, they ran on.
struct ServerRun {
    connection: Connection,
    spawn_to_initialize: Duration,
    calls: Vec<Call>,
    main_run: RunResult,
    serial_run: RunResult,
    serial_calls: Vec<Call>,
    ping: Duration,
    peak_rss: Option<u64>,
    main_cpu: Option<Duration>,
}

/// What one size's run measured.
struct Report {
    size: SizeName,
    counts: (u64, u64, u64),
    database: Database,
    in_flight: usize,
    calls: usize,
    seed_time: Option<Duration>,
    spawn_to_initialize: Duration,
    /// The p50 round trip of a `ping`.
    ping: Duration,
    peak_rss: Option<u64>,
    /// The CPU time the server spent (every thread, user and system) during the main run.
    main_cpu: Option<Duration>,
    main_run: RunResult,
    serial_run: RunResult,
    store_run: RunResult,
}

/// Each tool's p50 in µs, one call at a time and with `--in-flight` calls, at each size run,
/// on each backend run. Sizes keep the order they were given in.
fn plot_figure(reports: &[Report]) -> plot::Figure {
    let mut sizes: Vec<SizeName> = Vec::new();
    for report in reports {
        if !sizes.contains(&report.size) {
            sizes.push(report.size);
        }
    }
    let backend_of = |report: &Report| match report.database {
        Database::Sqlite(_) => plot::Backend::Sqlite,
        Database::Postgres(_) => plot::Backend::Postgres,
    };
    let in_flight = reports.first().map_or(1, |report| report.in_flight);
    let panel = |title: String, run: fn(&Report) -> &RunResult| {
        let mut lines = Vec::new();
        for backend in [plot::Backend::Sqlite, plot::Backend::Postgres] {
            for tool in 0..TOOLS.len() {
                let p50s = sizes
                    .iter()
                    .map(|&size| {
                        let report = reports
                            .iter()
                            .rev()
                            .find(|report| report.size == size && backend_of(report) == backend)?;
                        quantile(&sorted(&run(report).latencies[tool]), 0.5)
                            .map(|p50| p50.as_secs_f64() * 1e6)
                    })
                    .collect::<Vec<_>>();
                if p50s.iter().any(Option::is_some) {
                    lines.push(plot::Line {
                        tool,
                        backend,
                        p50s,
                    });
                }
            }
        }
        plot::Panel { title, lines }
    };
    plot::Figure {
        sizes: sizes
            .iter()
            .map(|size| {
                let (movies, _, reviews) = size.counts();
                plot::SizeLabel {
                    name: size.name().to_owned(),
                    detail: format!("{}/{}", compact(movies), compact(reviews)),
                }
            })
            .collect(),
        tools: TOOLS.iter().map(|&name| name.to_owned()).collect(),
        panels: vec![
            panel("one call at a time".to_owned(), |report| &report.serial_run),
            panel(format!("{in_flight} in flight"), |report| &report.main_run),
        ],
    }
}

/// A count as an axis label has room for: 200000 as "200k", 5000000 as "5M".
fn compact(count: u64) -> String {
    match count {
        1_000_000.. if count.is_multiple_of(1_000_000) => format!("{}M", count / 1_000_000),
        1_000.. if count.is_multiple_of(1_000) => format!("{}k", count / 1_000),
        _ => count.to_string(),
    }
}

/// The value at quantile `q` of sorted latencies.
fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

fn sorted(latencies: &[Duration]) -> Vec<Duration> {
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    sorted
}

fn micros(duration: Option<Duration>) -> String {
    match duration {
        None => "-".to_owned(),
        Some(duration) => format!("{:.0}", duration.as_secs_f64() * 1e6),
    }
}

fn print_table(report: &Report) {
    let (movies, authors, reviews) = report.counts;
    println!();
    println!(
        "movie-reviews-mcp bench: {} set ({movies} movies, {authors} authors, {reviews} reviews), \
         {}",
        report.size.name(),
        report.database
    );
    let per_second = report.calls as f64 / report.main_run.elapsed.as_secs_f64();
    let serial_per_second = report
        .serial_run
        .latencies
        .iter()
        .map(Vec::len)
        .sum::<usize>() as f64
        / report.serial_run.elapsed.as_secs_f64();
    println!(
        "{} calls with {} in flight: {:.0} calls/s ({:.2} s); 1 in flight: {:.0} calls/s",
        report.calls,
        report.in_flight,
        per_second,
        report.main_run.elapsed.as_secs_f64(),
        serial_per_second
    );
    println!(
        "seed: {}; spawn to initialize: {:.1} ms; server peak RSS (VmHWM): {}",
        report
            .seed_time
            .map_or("reused existing database".to_owned(), |time| format!(
                "{:.2} s",
                time.as_secs_f64()
            )),
        report.spawn_to_initialize.as_secs_f64() * 1e3,
        report.peak_rss.map_or("unknown".to_owned(), |kib| format!(
            "{:.1} MB",
            kib as f64 / 1024.0
        )),
    );
    if let Some(cpu) = report.main_cpu {
        println!(
            "server CPU with {} in flight: {:.0} µs per call ({:.2} s in all)",
            report.in_flight,
            cpu.as_secs_f64() * 1e6 / report.calls as f64,
            cpu.as_secs_f64()
        );
    }
    println!();
    println!(
        "latency in µs  | {:>6} | {:>6} {:>6} {:>6} {:>7} | {:>6} | {:>6} | {:>6}",
        "calls", "p50", "p90", "p99", "max", "p50@1", "store", "MCP"
    );
    println!("{}", "-".repeat(85));
    let row = |name: &str, main: Vec<Duration>, serial: Vec<Duration>, store: Vec<Duration>| {
        let serial_p50 = quantile(&serial, 0.5);
        let store_p50 = quantile(&store, 0.5);
        let layer = match (serial_p50, store_p50) {
            (Some(serial), Some(store)) => {
                format!("{:.0}", (serial.as_secs_f64() - store.as_secs_f64()) * 1e6)
            }
            _ => "-".to_owned(),
        };
        println!(
            "{name:<14} | {:>6} | {:>6} {:>6} {:>6} {:>7} | {:>6} | {:>6} | {:>6}",
            main.len(),
            micros(quantile(&main, 0.5)),
            micros(quantile(&main, 0.9)),
            micros(quantile(&main, 0.99)),
            micros(main.last().copied()),
            micros(serial_p50),
            micros(store_p50),
            layer,
        );
    };
    let all = |run: &RunResult| sorted(&run.latencies.concat());
    row(
        "all",
        all(&report.main_run),
        all(&report.serial_run),
        all(&report.store_run),
    );
    for (tool, name) in TOOLS.iter().enumerate() {
        row(
            name,
            sorted(&report.main_run.latencies[tool]),
            sorted(&report.serial_run.latencies[tool]),
            sorted(&report.store_run.latencies[tool]),
        );
    }
    println!();
    println!(
        "p50..max: {} in flight, send to answer. p50@1: one in flight. store: the same store \
         calls in-process, one at a time.\nMCP = p50@1 − store: what stdio, JSON and the MCP \
         layer add per call; of it, {:.0} µs is the round trip of a ping (p50), which every \
         call pays.",
        report.in_flight,
        report.ping.as_secs_f64() * 1e6
    );
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

    #[test]
    fn counts_are_labelled_compactly() {
        assert_eq!(compact(100), "100");
        assert_eq!(compact(1_000), "1k");
        assert_eq!(compact(200_000), "200k");
        assert_eq!(compact(5_000_000), "5M");
        assert_eq!(compact(1_500), "1500");
    }
}
