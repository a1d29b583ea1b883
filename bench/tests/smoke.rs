//! The benchmark on a small set, quickly: it must run end to end against the built server,
//! print its table and write its plot. (Its figures are not checked: timings belong to real
//! benchmark runs, not to tests on a busy machine.)

use std::path::Path;
use std::process::Command;

#[test]
fn the_benchmark_runs_on_the_small_set_and_draws_its_plot() {
    let bench = Path::new(env!("CARGO_BIN_EXE_bench"));
    // `bench` starts the server binary beside it. `cargo test --workspace` builds it with
    // everything else (the server's own tests need it); building it from here would resolve
    // features for one package alone and rebuild it every time.
    let server = bench.with_file_name("movie-reviews-mcp");
    assert!(
        server.is_file(),
        "no server at {}: run the workspace's tests (cargo test --workspace), or build it",
        server.display()
    );

    let folder = tempfile::tempdir().unwrap();
    let database = folder.path().join("small.db");
    let plot = folder.path().join("plot.png");
    let run = |extra: &[&Path]| {
        Command::new(bench)
            .args(["--size", "small", "--calls", "100", "--in-flight", "4"])
            .arg("--database")
            .arg(&database)
            .arg("--plot")
            .arg(&plot)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "bench failed:\n{stderr}");
    assert!(stderr.contains("seeding"), "{stderr}");
    let table = String::from_utf8_lossy(&first.stdout);
    for row in [
        "all",
        "movies_get",
        "movies_search",
        "authors_search",
        "reviews_list",
        "reviews_write",
    ] {
        assert!(
            table
                .lines()
                .any(|line| line.starts_with(row) && line.contains('|')),
            "no {row} row in:\n{table}"
        );
    }
    assert!(table.contains("calls/s"), "{table}");
    let png = std::fs::read(&plot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");

    // The reviews it wrote were deleted, so the next run finds the seeded counts and reuses
    // the database. This one compares the server with a baseline (the same binary here) over
    // two rounds: each build's table in each round, each round's comparison, then the medians.
    let second = run(&[
        Path::new("--baseline"),
        &server,
        Path::new("--rounds"),
        Path::new("2"),
    ]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "bench failed:\n{stderr}");
    assert!(stderr.contains("reusing"), "{stderr}");
    let output = String::from_utf8_lossy(&second.stdout);
    let tables = output.matches("movie-reviews-mcp bench: small set").count();
    assert_eq!(
        tables, 4,
        "a table for the server and one for the baseline in each round:\n{output}"
    );
    let rows = [
        "| calls/s, 4 in flight |",
        "| calls/s, one at a time |",
        "| server CPU per call, 4 in flight (µs) |",
        "| p50, 4 in flight (µs) |",
        "| p50, one at a time (µs) |",
        "| reviews_write p50, 4 in flight (µs) |",
        "| peak RSS (MB) |",
    ];
    for (title, ratio_ends) in [
        (
            "| small, SQLite, round 1 of 2 (server first) | baseline | server | ratio |",
            "× |",
        ),
        (
            "| small, SQLite, round 2 of 2 (baseline first) | baseline | server | ratio |",
            "× |",
        ),
        (
            "| small, SQLite, median of 2 rounds | baseline | server | ratio (lowest–highest) |",
            ") |",
        ),
    ] {
        let (_, comparison) = output
            .split_once(title)
            .unwrap_or_else(|| panic!("no {title} in:\n{output}"));
        for row in rows {
            let line = comparison
                .lines()
                .find(|line| line.starts_with(row))
                .unwrap_or_else(|| panic!("no {row} row in:\n{comparison}"));
            // The server's CPU time is counted in ticks of 10 ms, which 100 calls may not reach.
            if !row.contains("CPU") {
                assert!(line.ends_with(ratio_ends), "no ratio in {line}");
            }
        }
    }
}

#[test]
fn over_http_the_benchmark_loads_the_server_at_each_connection_count() {
    let bench = Path::new(env!("CARGO_BIN_EXE_bench"));
    let server = bench.with_file_name("movie-reviews-mcp");
    assert!(server.is_file(), "no server at {}", server.display());
    let folder = tempfile::tempdir().unwrap();
    let database = folder.path().join("small.db");
    let run = Command::new(bench)
        .args(["--transport", "http", "--size", "small", "--calls", "200"])
        .args(["--connections", "1,8"])
        .arg("--database")
        .arg(&database)
        .arg("--plot")
        .arg(folder.path().join("http.png"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "bench failed:\n{stderr}");
    let output = String::from_utf8_lossy(&run.stdout);
    let (_, summary) = output
        .split_once("| connections | calls/s |")
        .unwrap_or_else(|| panic!("no summary table in:\n{output}"));
    for connections in ["| 1 |", "| 8 |"] {
        let line = summary
            .lines()
            .find(|line| line.starts_with(connections))
            .unwrap_or_else(|| panic!("no {connections} row in:\n{summary}"));
        // Every call answered well: the last column, errors, is 0.
        assert!(line.ends_with("| 0 | 0 |"), "refusals or errors in {line}");
    }
    for tool in ["movies_get", "reviews_write", "reads"] {
        assert!(
            output.lines().any(|line| line.starts_with(tool)),
            "no {tool} row in:\n{output}"
        );
    }
    let figure = std::fs::read(folder.path().join("http.png")).unwrap();
    assert!(figure.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // The reviews written were deleted: a second run reuses the database. It is a soak, which
    // goes round its 20 calls for a second, reading answers as they arrive.
    let soak = bench_run(
        &[
            "--transport",
            "http",
            "--size",
            "small",
            "--calls",
            "20",
            "--connections",
            "2",
            "--duration",
            "1s",
        ],
        &database,
    );
    assert!(soak.stderr.contains("reusing"), "{}", soak.stderr);
    let answered: usize = soak
        .stdout
        .lines()
        .find_map(|line| {
            line.strip_prefix("2 connections: ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no count of calls answered in:\n{}", soak.stdout));
    assert!(
        answered > 20,
        "the soak did not go round its calls: {answered}"
    );
    assert!(
        soak.stdout
            .contains("memory (MB) at each tenth of the run: "),
        "{}",
        soak.stdout
    );
    // So were the soak's.
    let after = bench_run(
        &[
            "--transport",
            "http",
            "--size",
            "small",
            "--calls",
            "1",
            "--connections",
            "1",
        ],
        &database,
    );
    assert!(after.stderr.contains("reusing"), "{}", after.stderr);
}

/// What a successful run of the bench with `args` on `database` printed.
struct Printed {
    stdout: String,
    stderr: String,
}

fn bench_run(args: &[&str], database: &Path) -> Printed {
    let run = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(args)
        .arg("--database")
        .arg(database)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "bench failed:\n{stderr}");
    Printed {
        stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
        stderr,
    }
}
