//! A throwaway PostgreSQL server for the tests: [`cluster`] creates a cluster in a fresh
//! temporary folder and starts it on a free loopback port, once per test process, and every
//! test of that process shares it, each in databases of its own ([`Cluster::new_database`]).
//!
//! Clean-up does not depend on the test process ending well. Next to the server runs a small
//! supervising shell whose standard input is a pipe that only this process holds (and never
//! writes to). However this process ends (normally, by a panic, or killed by the test runner)
//! the kernel closes the pipe, the shell's `read` returns, and the shell stops the server and
//! deletes the folder. The shell runs in a process group of its own, so a Ctrl-C aimed at the
//! test run reaches the tests but not the clean-up.
//!
//! The server is tuned for speed, not for safety (no fsync, no full-page writes): its data is
//! thrown away anyway. Its superuser is `postgres` whoever runs the tests, and loopback
//! connections are trusted, so URLs carry no password.
//!
//! Where PostgreSQL is not installed, the tests that need it are marked ignored when they are
//! built (see `find_postgres`), so the run's summary counts them as ignored, never as passed;
//! under CI (`CI` set to `true` or `1`) they are not marked, and [`cluster`] panics instead.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The cluster's superuser, and the user the server runs as when the tests run as root.
const SUPERUSER: &str = "postgres";

/// How long a start or stop may take before the tests give up on the server.
const SERVER_TIMEOUT: Duration = Duration::from_secs(60);

/// A free port is found by binding and releasing it, so another process can take it before the
/// server binds it; a start that loses that race is retried on a new port this many times.
const PORT_ATTEMPTS: usize = 3;

/// Stops the server and deletes the folder once standard input closes; see the module comment.
/// Arguments: the folder, the data directory, then the command that runs `pg_ctl` (prefixed
/// with `runuser` when the server runs as another user). Hang-ups and interrupts are ignored so
/// that only the pipe closing ends the wait.
const SUPERVISOR: &str = r#"
root=$1; data=$2; shift 2
trap '' HUP INT
read -r _ignored || true
"$@" -D "$data" -m immediate -w stop >/dev/null 2>&1
rm -rf "$root"
"#;

/// A PostgreSQL server of the tests' own, started once per test process.
pub struct Cluster {
    /// The temporary folder holding the data directory and the server log.
    root: PathBuf,
    data: PathBuf,
    log: PathBuf,
    port: u16,
    pg_ctl: PathBuf,
    psql: PathBuf,
    /// `runuser -u postgres --` when the tests run as root (PostgreSQL refuses to run as root).
    run_as: Vec<PathBuf>,
    /// Kept, never waited for and never written to: its standard input is the pipe whose closing,
    /// when this process ends, makes the shell clean up.
    _supervisor: Child,
}

/// The shared cluster. Panics when PostgreSQL is missing or fails to start: a test that needs
/// it is marked ignored where PostgreSQL is missing outside CI (see `find_postgres`), so a test
/// that asks for it here must have it.
pub fn cluster() -> &'static Cluster {
    // The outcome is kept, failures included, so that a broken installation is tried once
    // rather than once per test, and every test that asks reports the same failure.
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(Cluster::create) {
        Ok(cluster) => cluster,
        Err(message) => panic!("{message}"),
    }
}

impl Cluster {
    /// A new, empty database with a name no other call in any test process uses, owned by the
    /// cluster's superuser; returns its URL, `postgres://postgres@127.0.0.1:PORT/NAME`.
    /// Blocking (it runs `psql`), so it needs no runtime; safe to call from many threads.
    pub fn new_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        // The process id keeps names apart should two test processes ever share a cluster.
        let name = format!(
            "test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let output = self.psql(&self.url("postgres"), &format!("CREATE DATABASE {name}"));
        if !output.status.success() {
            panic!(
                "could not create database {name} in the test cluster:\n{}",
                output_text(&output)
            );
        }
        self.url(&name)
    }
    /// What `sql` prints against the database at `url` (through `psql`), unaligned and without
    /// headers, or `psql`'s error.
    pub fn query(&self, url: &str, sql: &str) -> Result<String, String> {
        let output = Command::new(&self.psql)
            .args([
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                url,
                "-c",
                sql,
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|error| error.to_string())?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(output_text(&output))
        }
    }

    /// The loopback port the server listens on (the same across [`stop`](Self::stop) and
    /// [`start`](Self::start)).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server (fast shutdown: open connections are closed), for tests of an outage.
    /// The cluster is shared by every test of the process, so the others lose it too: keep
    /// such tests in a test binary (or a serialised group) of their own.
    pub fn stop(&self) {
        let output = self.pg_ctl(&["-m", "fast", "-w", "stop"]);
        if !output.status.success() {
            panic!(
                "could not stop the test PostgreSQL server:\n{}\n{}",
                output_text(&output),
                self.log_text()
            );
        }
    }

    /// Starts the server again after [`stop`](Self::stop), on the same port and data; returns
    /// once it accepts connections.
    pub fn start(&self) {
        if let Err(message) = self.try_start() {
            panic!("{message}");
        }
    }

    /// Finds PostgreSQL, creates the cluster and starts it, or says why it could not.
    fn create() -> Result<Cluster, String> {
        let started = Instant::now();
        let Some(bin) = find_postgres::bin_dir() else {
            return Err("PostgreSQL is not installed: no initdb on PATH or in \
                        /usr/lib/postgresql/*/bin (install Debian's postgresql package: \
                        apt-get install postgresql). Outside CI the build marks the PostgreSQL \
                        tests ignored where it is missing; if it was installed when the tests \
                        were built and removed since, build them again"
                .to_owned());
        };
        let tool = |name: &str| {
            let path = bin.join(name);
            if find_postgres::is_executable(&path) {
                Ok(path)
            } else {
                find_postgres::find_on_path(name).ok_or_else(|| {
                    format!(
                        "PostgreSQL is incomplete: no {name} next to {}",
                        bin.display()
                    )
                })
            }
        };
        let (initdb, pg_ctl, psql) = (tool("initdb")?, tool("pg_ctl")?, tool("psql")?);

        let as_root = command_stdout(Command::new("id").arg("-u"))? == "0";
        let run_as = if as_root {
            let runuser = ["/usr/sbin/runuser", "/sbin/runuser"]
                .map(PathBuf::from)
                .into_iter()
                .find(|path| find_postgres::is_executable(path))
                .or_else(|| find_postgres::find_on_path("runuser"))
                .ok_or("the tests run as root, and running PostgreSQL as the postgres user needs runuser (util-linux)")?;
            vec![runuser, "-u".into(), SUPERUSER.into(), "--".into()]
        } else {
            Vec::new()
        };

        // Under TMPDIR (or /tmp); the postgres user must be able to reach it when we are root.
        let root = tempfile::Builder::new()
            .prefix("postgres-test-")
            .tempdir()
            .map_err(|error| format!("could not create the test cluster's folder: {error}"))?
            // From here on the supervisor, not `TempDir`, deletes it: it must outlive us.
            .keep();
        let supervisor = Command::new("sh")
            .arg("-c")
            .arg(SUPERVISOR)
            .arg("sh")
            .arg(&root)
            .arg(root.join("data"))
            .args(&run_as)
            .arg(&pg_ctl)
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group: a Ctrl-C on the test run must not end it before clean-up.
            .process_group(0)
            .spawn();
        let supervisor = match supervisor {
            Ok(child) => child,
            Err(error) => {
                let _ = fs::remove_dir_all(&root);
                return Err(format!("could not start the clean-up shell: {error}"));
            }
        };
        // From here on, returning an error drops `supervisor`'s stdin, and it cleans up.

        if as_root {
            let id = |flag| command_stdout(Command::new("id").args([flag, SUPERUSER]));
            let parse = |text: String| {
                text.parse::<u32>()
                    .map_err(|_| format!("`id` gave no number for {SUPERUSER}: {text}"))
            };
            let (uid, gid) = (parse(id("-u")?)?, parse(id("-g")?)?);
            std::os::unix::fs::chown(&root, Some(uid), Some(gid)).map_err(|error| {
                format!("could not give {} to {SUPERUSER}: {error}", root.display())
            })?;
        }

        let mut cluster = Cluster {
            data: root.join("data"),
            log: root.join("server.log"),
            root,
            port: 0,
            pg_ctl,
            psql,
            run_as,
            _supervisor: supervisor,
        };

        let output = cluster.run_as_owner(&initdb, |command| {
            command
                .arg("-D")
                .arg(&cluster.data)
                .args(["-E", "UTF8", "--locale=C.UTF-8", "--auth=trust"])
                .args(["-U", SUPERUSER])
                // The data is thrown away: no need to wait for it to reach the disk.
                .args(["--no-sync", "--no-instructions"]);
        });
        if !output.status.success() {
            return Err(format!(
                "{} failed for the test PostgreSQL cluster:\n{}",
                initdb.display(),
                output_text(&output)
            ));
        }

        // Later lines of postgresql.conf override earlier ones, so appending is enough.
        cluster.configure(&[
            // Durability buys nothing for data deleted at exit, and costs time.
            "fsync = off",
            "synchronous_commit = off",
            "full_page_writes = off",
            // TCP on loopback only; no Unix socket, whose path would have to fit in 107 bytes.
            "listen_addresses = '127.0.0.1'",
            "unix_socket_directories = ''",
            // Many tests run at once, each with a pool of its own.
            "max_connections = 200",
        ])?;

        let mut attempt = 1;
        loop {
            cluster.port = free_port()?;
            cluster.configure(&[&format!("port = {}", cluster.port)])?;
            match cluster.try_start() {
                Ok(()) => break,
                Err(_) if attempt < PORT_ATTEMPTS && cluster.lost_port_race() => attempt += 1,
                Err(message) => return Err(message),
            }
        }
        eprintln!(
            "test PostgreSQL cluster started in {:.1?} on 127.0.0.1:{} ({})",
            started.elapsed(),
            cluster.port,
            cluster.root.display()
        );
        Ok(cluster)
    }

    /// Starts the server with `pg_ctl` (which detaches it and waits until it is ready), then
    /// checks that it answers a query over TCP.
    fn try_start(&self) -> Result<(), String> {
        let timeout = SERVER_TIMEOUT.as_secs().to_string();
        let log = self.log.to_str().ok_or("the log path is not UTF-8")?;
        let output = self.pg_ctl(&["-w", "-t", &timeout, "-l", log, "start"]);
        if !output.status.success() {
            return Err(format!(
                "the test PostgreSQL server did not start:\n{}\n{}",
                output_text(&output),
                self.log_text()
            ));
        }
        let deadline = Instant::now() + SERVER_TIMEOUT;
        loop {
            let output = self.psql(&self.url("postgres"), "SELECT 1");
            if output.status.success() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the test PostgreSQL server started but does not answer on 127.0.0.1:{}:\n{}\n{}",
                    self.port,
                    output_text(&output),
                    self.log_text()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the last start failed because another process took the port first.
    fn lost_port_race(&self) -> bool {
        self.log_text().contains("could not bind")
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://{SUPERUSER}@127.0.0.1:{}/{database}", self.port)
    }

    /// Runs one SQL command against `url` with `psql`, as whoever runs the tests (it is only a
    /// client) and ignoring any `~/.psqlrc`.
    fn psql(&self, url: &str, sql: &str) -> Output {
        Command::new(&self.psql)
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|error| panic!("could not run {}: {error}", self.psql.display()))
    }

    fn pg_ctl(&self, args: &[&str]) -> Output {
        self.run_as_owner(&self.pg_ctl, |command| {
            command.arg("-D").arg(&self.data).args(args);
        })
    }

    /// Runs `program` as the user that owns the cluster, from inside its folder (the postgres
    /// user may not be able to read the tests' working directory).
    fn run_as_owner(&self, program: &Path, args: impl FnOnce(&mut Command)) -> Output {
        let mut command = match self.run_as.split_first() {
            Some((runuser, rest)) => {
                let mut command = Command::new(runuser);
                command.args(rest).arg(program);
                command
            }
            None => Command::new(program),
        };
        args(&mut command);
        command
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|error| panic!("could not run {}: {error}", program.display()))
    }

    fn configure(&self, lines: &[&str]) -> Result<(), String> {
        let path = self.data.join("postgresql.conf");
        OpenOptions::new()
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(format!("\n{}\n", lines.join("\n")).as_bytes()))
            .map_err(|error| format!("could not write {}: {error}", path.display()))
    }

    fn log_text(&self) -> String {
        match fs::read_to_string(&self.log) {
            Ok(text) => format!("server log ({}):\n{text}", self.log.display()),
            Err(error) => format!("no server log ({}): {error}", self.log.display()),
        }
    }
}

/// A port nobody listens on right now: the system picks it for a listener we then close.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|error| format!("could not find a free port: {error}"))
}

/// What a successful command printed, trimmed; an error with its output otherwise.
fn command_stdout(command: &mut Command) -> Result<String, String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("could not run {command:?}: {error}"))?;
    if !output.status.success() {
        return Err(format!("{command:?} failed:\n{}", output_text(&output)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn output_text(output: &Output) -> String {
    format!(
        "{}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout).trim_end(),
        String::from_utf8_lossy(&output.stderr).trim_end()
    )
}
