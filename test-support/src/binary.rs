//! What every test of the built binary needs: the binary found, the server's tool names, a
//! temporary folder, the binary run as a command to its end, and what the tests read from
//! answers, the process and the database file.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The server's binary, which Cargo builds before the tests of its package: beside the folder
/// the test binary runs from (`target/debug/deps`, so `target/debug/movie-reviews-mcp`).
pub fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let test = std::env::current_exe().expect("the test binary's path");
        let profile = test
            .parent()
            .and_then(Path::parent)
            .expect("the test binary runs from target/<profile>/deps");
        let binary = profile.join("movie-reviews-mcp");
        assert!(
            binary.is_file(),
            "no server binary at {}: run the tests of the movie-reviews-mcp package, for which \
             Cargo builds it",
            binary.display()
        );
        binary
    })
}

/// How long any single read from the server may take before the test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the server may take to exit after its stdin closes (or a signal).
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one command may run before the test fails.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(30);

/// The names of the tools the server declares, in name order: what it must list when it
/// serves every tool.
pub fn tool_names() -> Vec<&'static str> {
    tool_names_where(|_| true)
}

/// The names of the tools the server declares that `keep` keeps, in name order.
pub fn tool_names_where(keep: impl Fn(&toolkit::ToolSpec) -> bool) -> Vec<&'static str> {
    let declared = movie_reviews_mcp::tools::toolbox().specs();
    let declared = declared.iter().filter(|spec| keep(spec));
    let mut names: Vec<&str> = declared.map(|spec| spec.name).collect();
    names.sort_unstable();
    names
}

/// A fresh folder under the system temp dir, its name starting with the test's label, removed
/// on drop.
pub struct TempDir(tempfile::TempDir);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let dir = tempfile::Builder::new()
            .prefix(&format!("movie-reviews-mcp-{label}-"))
            .tempdir()
            .expect("create a temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// The one text block of a tool result.
pub fn text_of(result: &Value) -> &str {
    let content = result["content"].as_array().expect("content is an array");
    assert_eq!(content.len(), 1, "one content block: {result}");
    assert_eq!(content[0]["type"], "text", "a text block: {result}");
    content[0]["text"].as_str().expect("text is a string")
}

/// The names of an object's fields, to compare the shapes of two answers.
pub fn keys(value: &Value) -> BTreeSet<&str> {
    let object = value.as_object().expect("an object");
    object.keys().map(String::as_str).collect()
}

/// What a finished command left behind.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The whole of stdout as one JSON value: nothing else may be printed there.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not one JSON value ({error}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// The binary, run in `cwd` with a clean environment for the variables it reads.
pub fn command(cwd: &Path) -> Command {
    let mut command = Command::new(binary());
    command
        .current_dir(cwd)
        .env_remove("MOVIE_REVIEWS_DATABASE")
        .env_remove("RUST_LOG");
    command
}

/// The status `child` exits with, polled until `timeout`; `None` if it is still running then.
pub fn exit_within(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().expect("poll the process") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `command` to its end, failing the test (and killing it) after `RUN_TIMEOUT`.
pub fn run(mut command: Command) -> Run {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the binary");
    let stdout = read_in_background(child.stdout.take().expect("piped stdout"));
    let stderr = read_in_background(child.stderr.take().expect("piped stderr"));
    let Some(status) = exit_within(&mut child, RUN_TIMEOUT) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{command:?} did not finish within {RUN_TIMEOUT:?}");
    };
    let collect = |receiver: Receiver<String>| {
        receiver
            .recv_timeout(RUN_TIMEOUT)
            .expect("output closes after exit")
    };
    Run {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
    }
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    receiver
}

/// The server's peak resident set size, in KiB, from `/proc/PID/status` (`VmHWM`).
pub fn peak_memory_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("read /proc/PID/status of the server");
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .expect("a VmHWM line");
    line.trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .expect("VmHWM is a number of kB")
}

/// Runs `sql` (one statement or several) on the database through a connection of its own, as a
/// person with the sqlite3 shell would.
pub fn write_by_hand(database: &Path, sql: &str) {
    by_hand(database, async |connection| {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(connection)
            .await
            .unwrap_or_else(|error| panic!("{sql}: {error}"));
    });
}

/// Holds the database's write lock for `how_long`, as a writer of another process would,
/// calling `locked` once it has it; then lets it go, having written nothing.
pub fn hold_write_lock(database: &Path, how_long: Duration, locked: impl FnOnce()) {
    by_hand(database, async |connection| {
        sqlx::raw_sql("BEGIN IMMEDIATE")
            .execute(&mut *connection)
            .await
            .expect("take the write lock");
        locked();
        tokio::time::sleep(how_long).await;
        sqlx::raw_sql("ROLLBACK")
            .execute(connection)
            .await
            .expect("let the write lock go");
    });
}

/// Runs `work` on a connection of its own to the database, then closes it.
fn by_hand(database: &Path, work: impl AsyncFnOnce(&mut sqlx::SqliteConnection)) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        use sqlx::Connection;
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(database)
            .busy_timeout(Duration::from_secs(30));
        let mut connection = sqlx::SqliteConnection::connect_with(&options)
            .await
            .expect("open the database");
        work(&mut connection).await;
        connection.close().await.expect("close the connection");
    });
}
