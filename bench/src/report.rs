//! What a run measured: the server process's peak memory and CPU time from `/proc`, the report
//! of one size's run, its table, and the figure the plot draws from the reports.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use movie_reviews_mcp::tools::ReviewsWrite;
use store::Database;
use toolkit::Tool;

use crate::SizeName;
use crate::client::RunResult;
use crate::comparison::{Better, Comparison, Row};
use crate::plot;
use crate::workload::TOOLS;

/// The server's peak resident set (VmHWM), in KiB.
pub(crate) fn vm_hwm(pid: u32) -> Option<u64> {
    status_kib(pid, "VmHWM:")
}

/// The server's resident set now (VmRSS), in KiB.
pub(crate) fn vm_rss(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS:")
}

/// A field of `/proc/PID/status` given in kB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let mut status = String::new();
    std::fs::File::open(format!("/proc/{pid}/status"))
        .ok()?
        .read_to_string(&mut status)
        .ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The CPU time the process has used so far, every thread's, user and system.
pub(crate) fn cpu_time(pid: u32) -> Option<Duration> {
    cpu_time_in(&format!("/proc/{pid}/stat"))
}

/// The CPU time the calling thread has used so far, user and system.
pub(crate) fn thread_cpu_time() -> Option<Duration> {
    cpu_time_in("/proc/thread-self/stat")
}

/// The CPU time spent between two readings of it.
pub(crate) fn cpu_spent(before: Option<Duration>, after: Option<Duration>) -> Option<Duration> {
    Some(after?.saturating_sub(before?))
}

/// `cpu` shared out over `calls`; none without a call.
pub(crate) fn per_call(cpu: Option<Duration>, calls: usize) -> Option<Duration> {
    let calls = u32::try_from(calls).ok().filter(|&calls| calls > 0)?;
    Some(cpu? / calls)
}

/// Fields 14 and 15 of a `stat` file of `/proc`, in clock ticks of 10 ms (`USER_HZ` is 100 on
/// Linux).
fn cpu_time_in(path: &str) -> Option<Duration> {
    let stat = std::fs::read_to_string(path).ok()?;
    // The command name, field 2, is in parentheses and may hold spaces: count from after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

pub(crate) struct Report {
    /// The server binary measured.
    pub(crate) server: PathBuf,
    pub(crate) size: SizeName,
    pub(crate) counts: (u64, u64, u64),
    pub(crate) database: Database,
    pub(crate) in_flight: usize,
    pub(crate) calls: usize,
    pub(crate) seed_time: Option<Duration>,
    pub(crate) spawn_to_initialize: Duration,
    /// The p50 round trip of a `ping`.
    pub(crate) ping: Duration,
    pub(crate) peak_rss: Option<u64>,
    /// The CPU time the server spent (every thread, user and system) during the main run.
    pub(crate) main_cpu: Option<Duration>,
    pub(crate) main_run: RunResult,
    pub(crate) serial_run: RunResult,
    pub(crate) store_run: RunResult,
}

impl Report {
    /// Calls per second with `in_flight` calls in flight.
    fn calls_per_second(&self) -> f64 {
        self.calls as f64 / self.main_run.elapsed.as_secs_f64()
    }

    /// Calls per second one at a time.
    fn serial_calls_per_second(&self) -> f64 {
        let calls = self
            .serial_run
            .latencies
            .iter()
            .map(Vec::len)
            .sum::<usize>();
        calls as f64 / self.serial_run.elapsed.as_secs_f64()
    }

    /// The server's CPU time per call with `in_flight` calls in flight.
    fn cpu_per_call(&self) -> Option<Duration> {
        per_call(self.main_cpu, self.calls)
    }
}

/// Each tool's p50 in µs, one call at a time and with `--in-flight` calls, at each size run,
/// on each backend run. Sizes keep the order they were given in.
pub(crate) fn plot_figure(reports: &[Report]) -> plot::Figure {
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
                let values = sizes
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
                if values.iter().any(Option::is_some) {
                    lines.push(plot::Line {
                        tool,
                        backend,
                        values,
                    });
                }
            }
        }
        plot::Panel { title, lines }
    };
    plot::Figure {
        title: "p50 latency per tool, by data size".to_owned(),
        y_title: "p50 latency, send to answer (log scale)".to_owned(),
        x_title: "data set (movies/reviews)".to_owned(),
        columns: sizes
            .iter()
            .map(|size| {
                let (movies, _, reviews) = size.counts();
                plot::Column {
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
pub(crate) fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

pub(crate) fn sorted(latencies: &[Duration]) -> Vec<Duration> {
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    sorted
}

/// A latency in whole microseconds, or `-` when there is none.
pub(crate) fn micros(duration: Option<Duration>) -> String {
    match duration {
        None => "-".to_owned(),
        Some(duration) => format!("{:.0}", duration.as_secs_f64() * 1e6),
    }
}

pub(crate) fn print_table(report: &Report) {
    let (movies, authors, reviews) = report.counts;
    println!();
    println!(
        "movie-reviews-mcp bench: {} set ({movies} movies, {authors} authors, {reviews} reviews), \
         {}",
        report.size.name(),
        report.database
    );
    println!("server: {}", report.server.display());
    println!(
        "{} calls with {} in flight: {:.0} calls/s ({:.2} s); 1 in flight: {:.0} calls/s",
        report.calls,
        report.in_flight,
        report.calls_per_second(),
        report.main_run.elapsed.as_secs_f64(),
        report.serial_calls_per_second()
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
    if let (Some(cpu), Some(per_call)) = (report.main_cpu, report.cpu_per_call()) {
        println!(
            "server CPU with {} in flight: {:.0} µs per call ({:.2} s in all)",
            report.in_flight,
            per_call.as_secs_f64() * 1e6,
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

/// The title of the comparisons of runs on `report`'s size and backend.
pub(crate) fn comparison_title(report: &Report) -> String {
    let backend = match report.database {
        Database::Sqlite(_) => "SQLite",
        Database::Postgres(_) => "PostgreSQL",
    };
    format!("{}, {backend}", report.size.name())
}

/// The baseline's figures beside the server's, from runs on the same database one after the
/// other: calls per second, the server's CPU per call, p50 latencies (all calls, and writes,
/// whose fsync the others do not wait for) and peak RSS.
pub(crate) fn comparison(title: String, baseline: &Report, server: &Report) -> Comparison {
    let in_flight = server.in_flight;
    let as_micros =
        |duration: Option<Duration>| duration.map(|duration| duration.as_secs_f64() * 1e6);
    let p50 = |run: &RunResult, tool: Option<usize>| {
        let latencies = match tool {
            Some(tool) => sorted(&run.latencies[tool]),
            None => sorted(&run.latencies.concat()),
        };
        as_micros(quantile(&latencies, 0.5))
    };
    let write = TOOLS
        .iter()
        .position(|&tool| tool == ReviewsWrite::SPEC.name);
    let megabytes = |kib: Option<u64>| kib.map(|kib| kib as f64 / 1024.0);
    let rows = vec![
        Row::new(
            format!("calls/s, {in_flight} in flight"),
            Better::Higher,
            0,
            Some(baseline.calls_per_second()),
            Some(server.calls_per_second()),
        ),
        Row::new(
            "calls/s, one at a time",
            Better::Higher,
            0,
            Some(baseline.serial_calls_per_second()),
            Some(server.serial_calls_per_second()),
        ),
        Row::new(
            format!("server CPU per call, {in_flight} in flight (µs)"),
            Better::Lower,
            0,
            as_micros(baseline.cpu_per_call()),
            as_micros(server.cpu_per_call()),
        ),
        Row::new(
            format!("p50, {in_flight} in flight (µs)"),
            Better::Lower,
            0,
            p50(&baseline.main_run, None),
            p50(&server.main_run, None),
        ),
        Row::new(
            "p50, one at a time (µs)",
            Better::Lower,
            0,
            p50(&baseline.serial_run, None),
            p50(&server.serial_run, None),
        ),
        Row::new(
            format!("reviews_write p50, {in_flight} in flight (µs)"),
            Better::Lower,
            0,
            write.and_then(|tool| p50(&baseline.main_run, Some(tool))),
            write.and_then(|tool| p50(&server.main_run, Some(tool))),
        ),
        Row::new(
            "peak RSS (MB)",
            Better::Lower,
            1,
            megabytes(baseline.peak_rss),
            megabytes(server.peak_rss),
        ),
    ];
    Comparison {
        title,
        baseline: baseline.server.display().to_string(),
        server: server.server.display().to_string(),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_shared_out_over_calls_and_none_without_one() {
        let second = Some(Duration::from_secs(1));
        assert_eq!(per_call(second, 4), Some(Duration::from_millis(250)));
        assert_eq!(per_call(second, 0), None);
        assert_eq!(per_call(None, 4), None);
        assert_eq!(
            cpu_spent(Some(Duration::from_secs(2)), Some(Duration::from_secs(3))),
            second
        );
        assert_eq!(cpu_spent(None, second), None);
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
