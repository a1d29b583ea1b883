//! `bench --transport http`: the server over Streamable HTTP, loaded by `C` concurrent
//! keep-alive connections at each `C` of `--connections` in turn, with the same mix of calls as
//! over stdio.
//!
//! For each size and database it starts `--replicas` replicas of the built server with `--http`
//! on free loopback ports (on SQLite, or on each PostgreSQL database `--postgres` names), mints
//! a bearer token they all accept, discovers ids through the tools, and then, at each `C`,
//! sends `--calls` calls and reports calls/s, p50/p90/p99/max per tool, the servers' CPU time
//! per call, the loader's own, peak and current memory, how `/healthz` answered meanwhile, 503s
//! (with and without `Retry-After`) and errors. Any error fails the run once every table is
//! printed. `--url` measures a server already running instead (`--token` for its bearer token);
//! `--loader-cost` measures only what the loader costs per call, against a canned answer.
//!
//! The loader is `loader`, the replicas and the probe beside them `replicas`, what the answers
//! say `answers`, the canned endpoint `canned`, the tables `table`.

mod answers;
mod canned;
mod figure;
mod loader;
mod replicas;
mod table;

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use store::Database;
use uuid::Uuid;

use crate::client::{Ids, checked, discover};
use crate::in_process::delete_reviews;
use crate::report::{cpu_spent, cpu_time, per_call, thread_cpu_time, vm_hwm};
use crate::workload::{self, Call, TOOLS};
use crate::{Args, Error, SizeName, comparison, plot, seed_or_reuse};
use answers::{Measured, read_after, read_level, verdict};
use loader::{Connection, Endpoint, Length, Prepared, prepare, prepare_call};
use replicas::{Probe, Probed, Replicas};

pub(crate) use loader::Protocol;

/// What one `C` measured.
pub(crate) struct Level {
    pub(crate) connections: usize,
    pub(crate) elapsed: Duration,
    /// Latencies of the calls answered well, per tool.
    pub(crate) latencies: Vec<Vec<Duration>>,
    /// Calls answered well, per replica.
    pub(crate) per_replica: Vec<usize>,
    /// The servers' CPU time during the run, every replica's, and each one's.
    pub(crate) server_cpu: Option<Duration>,
    pub(crate) replica_cpu: Vec<Option<Duration>>,
    pub(crate) loader_cpu: Option<Duration>,
    /// The replicas' peak resident memory together (VmHWM), in KiB, after the run.
    pub(crate) peak_rss: Option<u64>,
    /// 503 answers, and how many of them said when to retry.
    pub(crate) refused: usize,
    pub(crate) refused_with_retry_after: usize,
    pub(crate) errors: usize,
    /// The first few errors, to show.
    pub(crate) first_errors: Vec<String>,
    pub(crate) probed: Probed,
    pub(crate) written: Vec<Uuid>,
}

impl Level {
    pub(crate) fn answered(&self) -> usize {
        self.latencies.iter().map(Vec::len).sum()
    }

    pub(crate) fn calls_per_second(&self) -> f64 {
        self.answered() as f64 / self.elapsed.as_secs_f64()
    }

    pub(crate) fn per_call(&self, cpu: Option<Duration>) -> Option<Duration> {
        per_call(cpu, self.answered())
    }
}

/// What one server (its replicas on one database, or a URL) measured at every `C`.
pub(crate) struct HttpReport {
    pub(crate) server: String,
    /// What was measured: the size and database, or the URL.
    pub(crate) target: String,
    pub(crate) replicas: usize,
    pub(crate) protocol: Protocol,
    /// The replicas' database; `None` for a server at `--url`.
    pub(crate) backend: Option<plot::Backend>,
    pub(crate) levels: Vec<Level>,
}

/// Runs the HTTP benchmark as `args` say, with `server` the binary to start.
pub(crate) fn run(args: &Args, server: &Path, mix: &[u32; 4]) -> Result<(), Error> {
    if args.connections.is_empty() || args.connections.contains(&0) {
        return Err("--connections: give one or more counts of at least 1".into());
    }
    if args.loader_cost {
        return loader_cost(args, mix);
    }
    // The server's reports, then the baseline's.
    let (mut reports, mut baselines) = (Vec::new(), Vec::new());
    if let Some(url) = &args.url {
        let endpoint = endpoint_of(url, args.token.clone())?;
        let name = format!("the server at {url}");
        reports.push(measure(args, mix, name.clone(), &[endpoint], &[], |_| {
            Ok(())
        })?);
        table::print_levels(&reports[0]);
    } else {
        for &size in &args.sizes {
            for database in databases(args, size)? {
                let run_on = |binary: &Path| -> Result<HttpReport, Error> {
                    let report = run_replicas(args, binary, mix, size, &database)?;
                    table::print_levels(&report);
                    Ok(report)
                };
                let Some(baseline) = &args.baseline else {
                    reports.push(run_on(server)?);
                    continue;
                };
                let pairs = comparison::in_turns(args.rounds.into(), server, baseline, run_on)?;
                if let Some((_, first)) = pairs.first() {
                    comparison::print_rounds(&first.target, &pairs, table::comparison);
                }
                for (before, after) in pairs {
                    baselines.push(before);
                    reports.push(after);
                }
            }
        }
    }
    if let Some(path) = &args.plot {
        plot::write(path, &figure::http_figure(&reports, &args.connections)?)?;
        eprintln!("bench: plotted {}", path.display());
    }
    let errors: usize = reports
        .iter()
        .chain(&baselines)
        .flat_map(|report| &report.levels)
        .map(|level| level.errors)
        .sum();
    if errors > 0 {
        return Err(format!("{errors} calls failed (see the tables)").into());
    }
    Ok(())
}

/// The databases to run `size` on: the SQLite file (unless several replicas are asked for,
/// which share a PostgreSQL database), then the PostgreSQL one if `--postgres` names it.
fn databases(args: &Args, size: SizeName) -> Result<Vec<PathBuf>, Error> {
    let mut databases = Vec::new();
    let named = args.database.clone();
    if args.replicas == 1 || named.as_ref().is_some_and(|database| is_postgres(database)) {
        databases.push(named.unwrap_or_else(|| {
            std::env::temp_dir().join(format!("movie-reviews-bench-{}.db", size.name()))
        }));
    }
    if let Some(prefix) = &args.postgres {
        databases.push(crate::postgres_database(prefix, size)?);
    }
    if args.replicas > 1 && !databases.iter().any(|database| is_postgres(database)) {
        return Err(
            "--replicas: replicas share one PostgreSQL database: give --postgres URL (or \
                    --database postgres://…)"
                .into(),
        );
    }
    Ok(databases)
}

fn is_postgres(database: &Path) -> bool {
    matches!(
        Database::named(database.to_owned()),
        Ok(Database::Postgres(_))
    )
}

/// Seeds or reuses `database`, starts the replicas of `server` on it, measures them, and
/// deletes the reviews the calls wrote.
fn run_replicas(
    args: &Args,
    server: &Path,
    mix: &[u32; 4],
    size: SizeName,
    database: &Path,
) -> Result<HttpReport, Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    seed_or_reuse(&runtime, server, size, database)?;
    let target = Database::named(database.to_owned())?;
    let replicas = if is_postgres(database) {
        usize::from(args.replicas)
    } else {
        1
    };
    let clients = args.connections.iter().copied().max().unwrap_or(1);
    let started = Replicas::start(server, database, replicas, clients)?;
    let (movies, authors, reviews) = size.counts();
    let name = format!(
        "{} set ({movies} movies, {authors} authors, {reviews} reviews), {target}",
        size.name()
    );
    let measured = measure(
        args,
        mix,
        name,
        &started.endpoints,
        &started.pids(),
        |level| {
            runtime.block_on(delete_reviews(&target, &level.written))?;
            Ok(())
        },
    );
    let mut report = measured.map_err(|error| format!("{error}\n{}", started.logs()))?;
    report.server = server.display().to_string();
    report.backend = Some(if is_postgres(database) {
        plot::Backend::Postgres
    } else {
        plot::Backend::Sqlite
    });
    drop(started);
    Ok(report)
}

/// Discovers ids on `endpoints`, then loads them at each `C`, handing each level to `done`
/// (which deletes what it wrote) before the next.
fn measure(
    args: &Args,
    mix: &[u32; 4],
    target: String,
    endpoints: &[Endpoint],
    pids: &[u32],
    mut done: impl FnMut(&Level) -> Result<(), Error>,
) -> Result<HttpReport, Error> {
    // One thread: the loader's tasks share it, and its CPU time is the loader's.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut connection = Connection::new(endpoints[0].clone(), args.protocol)?;
    let ids = discover_over_http(&runtime, &mut connection, args.protocol)?;
    eprintln!(
        "bench: discovered {} movies, {} authors over HTTP",
        ids.movies.len(),
        ids.authors.len()
    );
    let probe_at = endpoints[0].address;
    let mut levels = Vec::new();
    for (round, &connections) in args.connections.iter().enumerate() {
        let calls: Arc<[Call]> =
            workload::calls(&ids, mix, args.calls, 0x5eed + round as u64).into();
        let requests: Arc<[Prepared]> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| prepare_call(call, index as u64 + 1, args.protocol))
            .collect();
        match args.duration {
            None => eprintln!(
                "bench: {} calls over {connections} connections…",
                calls.len()
            ),
            Some(lasting) => eprintln!(
                "bench: {connections} connections for {} s, round {} calls…",
                lasting.as_secs(),
                calls.len()
            ),
        }
        let cpu_before: Vec<Option<Duration>> = pids.iter().map(|&pid| cpu_time(pid)).collect();
        let loader_before = thread_cpu_time();
        let probe = Probe::start(probe_at, pids.to_vec());
        let loaded = match args.duration {
            // Answers read once the run is over, so that reading them costs the run nothing.
            None => runtime
                .block_on(loader::load(
                    endpoints,
                    args.protocol,
                    requests,
                    connections,
                    Length::Once,
                    |_, answer| answer,
                ))
                .map(|loaded| read_after(loaded, &calls)),
            // A soak: each answer read as it arrives, so that its body is not kept.
            Some(lasting) => {
                let calls = Arc::clone(&calls);
                runtime.block_on(loader::load(
                    endpoints,
                    args.protocol,
                    requests,
                    connections,
                    Length::For(lasting),
                    move |index, answer| verdict(index, &calls[index], answer),
                ))
            }
        };
        let probed = probe.stop();
        let loader_cpu = cpu_spent(loader_before, thread_cpu_time());
        let replica_cpu: Vec<Option<Duration>> = pids
            .iter()
            .zip(&cpu_before)
            .map(|(&pid, &before)| cpu_spent(before, cpu_time(pid)))
            .collect();
        let level = read_level(
            connections,
            &calls,
            loaded?,
            endpoints.len(),
            Measured {
                server_cpu: measured_total(replica_cpu.iter().copied()),
                replica_cpu,
                loader_cpu,
                peak_rss: measured_total(pids.iter().map(|&pid| vm_hwm(pid))),
                probed,
            },
        );
        table::print_level(&level);
        done(&level)?;
        levels.push(level);
    }
    Ok(HttpReport {
        server: String::new(),
        target,
        replicas: endpoints.len(),
        protocol: args.protocol,
        backend: None,
        levels,
    })
}

/// Discovery through the tools, one request at a time on `connection`.
/// The sum of what was measured of each replica; `None` when a replica's figure could not be
/// read, or there is no replica of ours to read (`--url`).
fn measured_total<T: std::iter::Sum>(figures: impl Iterator<Item = Option<T>>) -> Option<T> {
    let figures: Vec<T> = figures.collect::<Option<_>>()?;
    (!figures.is_empty()).then(|| figures.into_iter().sum())
}

fn discover_over_http(
    runtime: &tokio::runtime::Runtime,
    connection: &mut Connection,
    protocol: Protocol,
) -> Result<Ids, Error> {
    let mut id = 0;
    discover(|tool, arguments| {
        id += 1;
        let request = prepare(
            id,
            "tools/call",
            Some(static_name(tool)?),
            json!({ "name": tool, "arguments": arguments.clone() }),
            protocol,
        );
        let answer = runtime.block_on(connection.request(&request))?;
        checked(&answer)
            .cloned()
            .map_err(|error| format!("{tool} {arguments}: {error}").into())
    })
}

/// The name of a tool the mix calls, as the `Mcp-Name` header wants it.
fn static_name(tool: &str) -> Result<&'static str, Error> {
    TOOLS
        .iter()
        .find(|&&name| name == tool)
        .copied()
        .ok_or_else(|| format!("not a tool of the mix: {tool}").into())
}

/// `http://HOST:PORT/PATH` as an endpoint.
fn endpoint_of(url: &str, token: Option<String>) -> Result<Endpoint, Error> {
    let rest = url.strip_prefix("http://").ok_or(
        "--url: give http://HOST:PORT/PATH (the loader speaks plain HTTP; measure an https \
         server at the address behind its TLS)",
    )?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let address: SocketAddr = if authority.contains(':') {
        authority.to_socket_addrs()?.next()
    } else {
        (authority, 80).to_socket_addrs()?.next()
    }
    .ok_or_else(|| format!("--url: {authority} resolves to no address"))?;
    Ok(Endpoint {
        address,
        authority: authority.to_owned(),
        path: if path.is_empty() { "/" } else { path }.to_owned(),
        token,
    })
}

/// `--loader-cost`: the loader against a canned answer at each `C`.
fn loader_cost(args: &Args, mix: &[u32; 4]) -> Result<(), Error> {
    // Calls drawn from made-up ids: the canned endpoint answers them all alike.
    let ids = Ids {
        movies: (0..100).map(|_| Uuid::new_v4()).collect(),
        titles: vec!["The Benchmark".to_owned()],
        authors: (0..100).map(|_| Uuid::new_v4()).collect(),
        names: vec!["Ada Lovelace".to_owned()],
        reviews: 0,
    };
    let calls = workload::calls(&ids, mix, args.calls, 0x5eed);
    let requests: Arc<[Prepared]> = calls
        .iter()
        .enumerate()
        .map(|(index, call)| prepare_call(call, index as u64 + 1, args.protocol))
        .collect();
    let mut costs = Vec::new();
    for &connections in &args.connections {
        costs.push(canned::measure(
            Arc::clone(&requests),
            connections,
            args.protocol,
        )?);
    }
    table::print_loader_cost(&costs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_the_address_host_and_path() -> Result<(), Error> {
        let endpoint = endpoint_of("http://127.0.0.1:8080/mcp", Some("t".to_owned()))?;
        assert_eq!(endpoint.address, SocketAddr::from(([127, 0, 0, 1], 8080)));
        assert_eq!(endpoint.authority, "127.0.0.1:8080");
        assert_eq!(endpoint.path, "/mcp");
        assert_eq!(endpoint.token.as_deref(), Some("t"));
        assert_eq!(endpoint_of("http://127.0.0.1:9", None)?.path, "/");
        assert!(endpoint_of("https://127.0.0.1:8080/mcp", None).is_err());
        Ok(())
    }

    #[test]
    fn a_total_is_known_only_when_every_replica_was_measured() {
        assert_eq!(measured_total([Some(2_u64), Some(3)].into_iter()), Some(5));
        assert_eq!(measured_total([Some(2_u64), None].into_iter()), None);
        assert_eq!(measured_total(std::iter::empty::<Option<u64>>()), None);
    }
}
