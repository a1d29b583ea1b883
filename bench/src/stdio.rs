//! One size's run over stdio: the server started as a child on the database, initialized, ids
//! discovered through its tools, the calls pipelined, then sent one at a time, a ping's round
//! trip timed; then the same calls on the store in-process, and the reviews written deleted.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use store::Database;

use crate::client::{Connection, RunResult, discover, drain_stderr, ping_round_trip, pipelined};
use crate::in_process::{delete_reviews, store_calls};
use crate::report::{Report, cpu_spent, cpu_time, vm_hwm};
use crate::workload::{self, Call};
use crate::{Args, Error, SizeName, seed_or_reuse};

/// Seeds or reuses `database` at `size` with `server`, runs the workload on `server` and on the
/// store.
pub(crate) fn run_size(
    args: &Args,
    server: &Path,
    size: SizeName,
    database: PathBuf,
    mix: &[u32; 4],
) -> Result<Report, Error> {
    // The server is given the argument as it is; the in-process store calls read it the same way.
    let target = Database::named(database.clone())?;
    let counts = size.counts();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;

    let seed_time = seed_or_reuse(&runtime, server, size, &database)?;

    // Start the server and initialize.
    let spawned = Instant::now();
    // One client calling as fast as it can is what the benchmark measures, and what a rate
    // limit is there to stop. Set in the environment, which a baseline's older build ignores.
    let mut child = Command::new(server)
        .arg("--database")
        .arg(&database)
        .env("MOVIE_REVIEWS_RATE_LIMITS", "none")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    let log = drain_stderr(&mut child, |_| {});
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

        let ids = discover(|tool, arguments| connection.call(tool, arguments))?;
        eprintln!(
            "bench: discovered {} movies, {} authors, {} reviews through the tools",
            ids.movies.len(),
            ids.authors.len(),
            ids.reviews
        );
        let calls = workload::calls(&ids, mix, args.calls, 0x5eed);
        eprintln!(
            "bench: {} calls, {} in flight…",
            calls.len(),
            args.in_flight
        );
        let cpu_before = cpu_time(pid);
        let (connection, main_run) = pipelined(connection, &calls, args.in_flight)?;
        let main_cpu = cpu_spent(cpu_before, cpu_time(pid));
        let serial_calls = workload::calls(&ids, mix, args.calls.clamp(1, 2_000), 0xfeed);
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
        server: server.to_owned(),
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
