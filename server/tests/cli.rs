//! Runs the built binary's commands (`seed`, `call`, `tools`, `--help`) the way a user types
//! them, and checks the build setting of its allocator.

use std::path::Path;
use std::process::ExitStatus;

use serde_json::{Value, json};

use test_support::{TempDir, command, run, tool_names};

/// `seed --database DB --movies M --authors A --reviews R --seed S`, which must succeed.
fn seed(dir: &Path, database: &Path, (movies, authors, reviews): (usize, usize, usize), seed: u64) {
    let mut command = command(dir);
    command
        .arg("seed")
        .arg("--database")
        .arg(database)
        .args(["--movies", &movies.to_string()])
        .args(["--authors", &authors.to_string()])
        .args(["--reviews", &reviews.to_string()])
        .args(["--seed", &seed.to_string()]);
    let run = run(command);
    assert!(
        run.status.success(),
        "seed failed ({}): {}",
        run.status,
        run.stderr
    );
    assert!(database.exists(), "seed created {}", database.display());
    // Seeding asks no one to confirm anything: no word about the keys that seal confirmations.
    assert!(
        !run.stderr.contains("--state-key-file"),
        "seed warned about confirmations: {}",
        run.stderr
    );
}

/// `call TOOL ARGS --database DB`: the exit status and the printed CallToolResult.
fn call(dir: &Path, database: &Path, tool: &str, arguments: &str) -> (ExitStatus, Value) {
    let mut command = command(dir);
    command
        .args(["call", tool, arguments])
        .arg("--database")
        .arg(database);
    let run = run(command);
    let result = run.json();
    (run.status, result)
}

/// A call that must succeed: its structuredContent, checked against its text block.
fn call_ok(dir: &Path, database: &Path, tool: &str, arguments: &str) -> Value {
    let (status, result) = call(dir, database, tool, arguments);
    assert!(status.success(), "{tool} {arguments} failed: {result}");
    assert_eq!(result["isError"], false, "{result}");
    let structured = result["structuredContent"].clone();
    let text: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().expect("a text block"))
            .expect("the text block is JSON");
    assert_eq!(text, structured, "the text block equals structuredContent");
    structured
}

/// Every movie, author and review in a database, as the tools show them.
#[derive(Debug, PartialEq)]
struct Dump {
    movies: Value,
    authors: Value,
    reviews: Vec<Value>,
}

fn dump(dir: &Path, database: &Path) -> Dump {
    let movies = call_ok(dir, database, "movies_search", r#"{"limit":50}"#);
    assert!(movies.get("nextOffset").is_none(), "one page of movies");
    let authors = call_ok(dir, database, "authors_search", r#"{"limit":50}"#);
    assert!(authors.get("nextOffset").is_none(), "one page of authors");
    let mut reviews = Vec::new();
    let mut offset = 0;
    let total = loop {
        let page = call_ok(
            dir,
            database,
            "reviews_list",
            &json!({"offset": offset, "limit": 50}).to_string(),
        );
        reviews.extend(page["items"].as_array().expect("items").iter().cloned());
        match page.get("nextOffset") {
            Some(next) => {
                let next = next.as_u64().expect("nextOffset is an integer");
                assert!(next > offset, "paging moves forward");
                offset = next;
            }
            None => break page["totalCount"].as_u64().expect("totalCount"),
        }
    };
    assert_eq!(reviews.len() as u64, total, "paging returned every review");
    Dump {
        movies,
        authors,
        reviews,
    }
}

const SMALL: (usize, usize, usize) = (30, 10, 80);

/// Two fresh databases seeded with the same seed and size hold identical data.
#[test]
fn the_same_seed_gives_the_same_data() {
    let dir = TempDir::new("same-seed");
    let first_db = dir.path().join("first.db");
    let second_db = dir.path().join("second.db");
    seed(dir.path(), &first_db, SMALL, 7);
    seed(dir.path(), &second_db, SMALL, 7);

    let first = dump(dir.path(), &first_db);
    let second = dump(dir.path(), &second_db);
    assert_eq!(first.movies["totalCount"], 30);
    assert_eq!(first.authors["totalCount"], 10);
    assert_eq!(first.reviews.len(), 80);
    assert_eq!(first, second);
}

/// A different seed gives different data of the same size.
#[test]
fn a_different_seed_gives_different_data() {
    let dir = TempDir::new("other-seed");
    let seven_db = dir.path().join("seven.db");
    let eight_db = dir.path().join("eight.db");
    seed(dir.path(), &seven_db, SMALL, 7);
    seed(dir.path(), &eight_db, SMALL, 8);

    let seven = call_ok(dir.path(), &seven_db, "movies_search", r#"{"limit":50}"#);
    let eight = call_ok(dir.path(), &eight_db, "movies_search", r#"{"limit":50}"#);
    assert_eq!(seven["totalCount"], 30);
    assert_eq!(eight["totalCount"], 30);
    assert_ne!(seven["items"], eight["items"]);
}

/// `tools` prints one JSON object holding every tool, and nothing else on stdout.
#[test]
fn tools_prints_every_tool() {
    let dir = TempDir::new("tools");
    let mut command = command(dir.path());
    command.arg("tools");
    let run = run(command);
    assert!(run.status.success(), "tools failed: {}", run.stderr);
    let listed = run.json();
    let object = listed.as_object().expect("an object");
    assert_eq!(object.keys().collect::<Vec<_>>(), ["tools"], "only `tools`");
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools is an array")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a tool name"))
        .collect();
    names.sort_unstable();
    assert_eq!(names, tool_names(), "exactly the tools the server declares");
}

/// The help states the time limit and each tool's rate limit, as docs/operating.md and the
/// README promise them.
#[test]
fn the_help_states_the_time_and_rate_limits_of_each_tool() {
    let dir = TempDir::new("help");
    let mut command = command(dir.path());
    command.arg("--help");
    let run = run(command);
    assert!(run.status.success(), "--help failed: {}", run.stderr);
    let help = run.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("[default: 30s]"), "{help}");
    let limits = "[default: each tool's own: movies_search 600 times a minute, authors_search \
                  600 times a minute, movies_get 600 times a minute, reviews_list 600 times a \
                  minute, reviews_write 120 times a minute, reviews_delete 60 times a minute]";
    assert!(help.contains(limits), "{help}");
}

/// `call` exits 1 with a Validation Failed text for bad arguments and 0 for good ones.
#[test]
fn call_exit_status_follows_is_error() {
    let dir = TempDir::new("call-status");
    let database = dir.path().join("calls.db");
    seed(dir.path(), &database, (5, 3, 10), 1);

    let (status, result) = call(dir.path(), &database, "movies_search", r#"{"limit":0}"#);
    assert_eq!(status.code(), Some(1), "{result}");
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().expect("a text block");
    assert!(text.starts_with("Validation Failed:"), "{text}");

    let (status, result) = call(dir.path(), &database, "movies_search", r#"{"limit":2}"#);
    assert_eq!(status.code(), Some(0), "{result}");
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["totalCount"], 5, "{result}");
}

/// `call` with arguments that are not a JSON object fails on stderr, printing nothing.
#[test]
fn call_refuses_arguments_that_are_not_an_object() {
    let dir = TempDir::new("call-not-object");
    let database = dir.path().join("calls.db");
    seed(dir.path(), &database, (5, 3, 10), 1);

    for arguments in ["[1, 2]", "{limit"] {
        let mut command = command(dir.path());
        command
            .args(["call", "movies_search", arguments])
            .arg("--database")
            .arg(&database);
        let run = run(command);
        assert!(
            !run.status.success(),
            "{arguments}: exit status {}",
            run.status
        );
        assert!(
            run.stdout.trim().is_empty(),
            "{arguments}: stdout {}",
            run.stdout
        );
        assert!(
            run.stderr.contains("movie-reviews-mcp:"),
            "{arguments}: an explanation on stderr, got: {}",
            run.stderr
        );
    }
}

/// `seed` without --database refuses and says why, even when MOVIE_REVIEWS_DATABASE names one:
/// it replaces everything, so the database must be named on the command line.
#[test]
fn seed_needs_a_database() {
    let dir = TempDir::new("seed-no-db");
    let named_by_environment = dir.path().join("from-env.db");
    let mut command = command(dir.path());
    command
        .args(["seed", "--movies", "5"])
        .env("MOVIE_REVIEWS_DATABASE", &named_by_environment);
    let run = run(command);
    assert!(!run.status.success(), "exit status {}", run.status);
    assert!(run.stdout.is_empty(), "stdout: {}", run.stdout);
    assert!(
        run.stderr.contains("--database"),
        "stderr names --database: {}",
        run.stderr
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read the temp dir")
        .collect();
    assert!(left.is_empty(), "nothing created in the working directory");
}

/// A new database is created with the demo data (200 movies, 50 authors, 1000 reviews).
#[test]
fn a_new_database_gets_the_demo_data() {
    let dir = TempDir::new("demo");
    let database = dir.path().join("nested").join("demo.db");
    let movies = call_ok(dir.path(), &database, "movies_search", "{}");
    assert!(database.exists(), "created {}", database.display());
    assert_eq!(movies["totalCount"], 200);
    assert_eq!(movies["items"].as_array().map(Vec::len), Some(10));
    assert_eq!(movies["nextOffset"], 10);
}

/// An existing database is never reseeded with the demo data.
#[test]
fn an_existing_database_is_not_reseeded() {
    let dir = TempDir::new("existing");
    let database = dir.path().join("small.db");
    seed(dir.path(), &database, (5, 2, 4), 3);
    let movies = call_ok(dir.path(), &database, "movies_search", "{}");
    assert_eq!(movies["totalCount"], 5);
}

/// MOVIE_REVIEWS_DATABASE names the database when --database is not given.
#[test]
fn the_environment_names_the_database() {
    let dir = TempDir::new("env");
    let database = dir.path().join("from-env.db");
    let mut command = command(dir.path());
    command.env("MOVIE_REVIEWS_DATABASE", &database).args([
        "call",
        "movies_search",
        r#"{"limit":1}"#,
    ]);
    let run = run(command);
    assert!(run.status.success(), "call failed: {}", run.stderr);
    assert_eq!(run.json()["structuredContent"]["totalCount"], 200);
    assert!(database.exists(), "created {}", database.display());
}

/// The binary's allocator was built to commit memory as it goes, so that what it frees goes
/// back to the system (`.cargo/config.toml`); mimalloc lists its options at start-up when asked.
#[test]
fn the_allocator_returns_freed_memory() {
    let dir = TempDir::new("allocator");
    let mut command = command(dir.path());
    command
        .env("MIMALLOC_VERBOSE", "1")
        .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
        .arg("--version");
    let run = run(command);
    assert!(run.status.success(), "--version failed: {}", run.stderr);
    assert!(
        run.stderr.contains("option 'arena_eager_commit': 0"),
        "mimalloc's options: {}",
        run.stderr
    );
}
