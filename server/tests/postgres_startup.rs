//! Servers starting on a PostgreSQL database, checked against the built binary on the tests'
//! throwaway PostgreSQL server (`test_support::postgres_cluster`):
//!
//! - four replicas starting at once on a new, empty database all start; the migrations run
//!   once, and the demo data goes in once, with the counts a SQLite database filled by the same
//!   binary has;
//! - a server whose database cannot be reached at start-up exits with an error, soon, naming
//!   the host and the database but never the password.
//!
//! The test that needs PostgreSQL is marked ignored where it is not installed (outside CI).

use std::ffi::OsStr;
use std::path::Path;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use test_support::postgres_cluster::cluster;
use test_support::{Run, TempDir, command, run};

/// How long the server waits for a database connection before a call fails
/// (`ACQUIRE_TIMEOUT` in store/src/postgres/mod.rs); a start-up against a database that
/// is away may take as long.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// Replicas started at once on a new database.
const REPLICAS_AT_START: usize = 4;

/// Four replicas starting at the same moment on a new, empty database: each must start and
/// answer, sqlx's advisory lock must let one of them migrate (one `_sqlx_migrations` row per
/// migration file), and the load's advisory lock must let one of them fill the demo data.
#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[test]
fn several_replicas_starting_at_once_on_a_new_database_migrate_and_fill_it_once() {
    let cluster = cluster();
    let dir = TempDir::new("replicas-start");
    let url = cluster.new_database();
    let barrier = Barrier::new(REPLICAS_AT_START);
    let runs: Vec<Run> = thread::scope(|scope| {
        let starting: Vec<_> = (0..REPLICAS_AT_START)
            .map(|_| {
                scope.spawn(|| {
                    // Released together, so the processes start as close together as threads
                    // allow and race for the locks.
                    barrier.wait();
                    call_command(dir.path(), &url, "movies_search", r#"{"limit":1}"#)
                })
            })
            .collect();
        starting
            .into_iter()
            .map(|thread| thread.join().expect("a starting thread"))
            .collect()
    });
    for run in &runs {
        assert!(
            run.status.success(),
            "a replica failed to start ({}):\n{}",
            run.status,
            run.stderr
        );
        assert_eq!(run.json()["isError"], false, "{}", run.stdout);
    }
    // The server logs this line only when it was the one that loaded the data.
    let fillers = runs
        .iter()
        .filter(|run| run.stderr.contains("created the database with demo data"))
        .count();
    assert_eq!(
        fillers,
        1,
        "replicas that filled the database:\n{}",
        runs.iter()
            .map(|run| run.stderr.as_str())
            .collect::<Vec<_>>()
            .join("\n----\n")
    );

    let migrations = std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../migrations/postgres"
    ))
    .expect("read migrations/postgres")
    .filter(|entry| {
        entry
            .as_ref()
            .is_ok_and(|entry| entry.path().extension() == Some(OsStr::new("sql")))
    })
    .count();
    let applied = cluster
        .query(
            &url,
            "SELECT count(*) || ' ' || count(*) FILTER (WHERE success) FROM _sqlx_migrations",
        )
        .unwrap();
    assert_eq!(
        applied,
        format!("{migrations} {migrations}"),
        "one successful _sqlx_migrations row per migration file"
    );

    // The same binary fills a SQLite database with the same demo data: the counts must match,
    // as the tools report them and as the tables hold them.
    let sqlite = dir.path().join("demo.db");
    let mut expected = Vec::new();
    for tool in ["movies_search", "authors_search", "reviews_list"] {
        let on_sqlite = total_count(&call_command(dir.path(), &sqlite, tool, r#"{"limit":1}"#));
        let on_postgres = total_count(&call_command(dir.path(), &url, tool, r#"{"limit":1}"#));
        assert_eq!(on_postgres, on_sqlite, "{tool} totalCount");
        expected.push(on_sqlite.to_string());
    }
    let rows = cluster
        .query(
            &url,
            "SELECT (SELECT count(*) FROM movies) || ' ' || (SELECT count(*) FROM authors)
                    || ' ' || (SELECT count(*) FROM reviews)",
        )
        .unwrap();
    assert_eq!(rows, expected.join(" "), "rows in the tables");
}

/// A replica started with its database away (nothing listens on port 1) exits non-zero,
/// within the time it gives a connection, and names the host and the database but never the
/// password of the URL.
#[test]
fn start_up_with_the_database_away_fails_soon_naming_host_and_database_but_no_password() {
    const URL: &str = "postgres://u:sekret@127.0.0.1:1/nowhere";
    let dir = TempDir::new("replicas-away");
    let mut serving = command(dir.path());
    serving.args(["--database", URL, "--http", "127.0.0.1:0"]);
    let mut calling = command(dir.path());
    calling.args(["call", "movies_search", "{}", "--database", URL]);
    thread::scope(|scope| {
        let runs: Vec<_> = [serving, calling]
            .map(|command| {
                scope.spawn(move || {
                    let shown = format!("{command:?}");
                    let started = Instant::now();
                    (shown, run(command), started.elapsed())
                })
            })
            .into_iter()
            .collect();
        for thread in runs {
            let (command, run, elapsed) = thread.join().expect("a run");
            assert!(
                !run.status.success(),
                "{command} succeeded:\n{}",
                run.stderr
            );
            assert!(
                elapsed < ACQUIRE_TIMEOUT + Duration::from_secs(10),
                "{command} took {elapsed:?} to give up"
            );
            for part in ["127.0.0.1", "nowhere"] {
                assert!(
                    run.stderr.contains(part),
                    "{command}: {part} not named:\n{}",
                    run.stderr
                );
            }
            assert!(
                !run.stderr.contains("sekret") && !run.stdout.contains("sekret"),
                "{command}: the password is shown:\n{}{}",
                run.stdout,
                run.stderr
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// `call TOOL ARGUMENTS --database DATABASE`, run to its end.
fn call_command(dir: &Path, database: impl AsRef<OsStr>, tool: &str, arguments: &str) -> Run {
    let mut command = command(dir);
    command
        .args(["call", tool, arguments])
        .arg("--database")
        .arg(database);
    run(command)
}

/// The totalCount of a successful `call`.
fn total_count(run: &Run) -> u64 {
    assert!(run.status.success(), "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"]["totalCount"]
        .as_u64()
        .unwrap_or_else(|| panic!("no totalCount: {result}"))
}
