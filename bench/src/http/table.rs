//! The HTTP run's tables: each `C`'s latencies per tool as it finishes, then a Markdown table
//! of every `C`, the baseline beside the server, and the loader's own cost.

use std::time::Duration;

use crate::comparison::{Better, Comparison, Row};
use crate::http::canned::LoaderCost;
use crate::http::{HttpReport, Level};
use crate::report::{micros, per_call, quantile, sorted};
use crate::workload::TOOLS;

/// Index of `reviews_write` in [`TOOLS`]: every other tool reads.
const WRITE: usize = 4;

fn millis(duration: Option<Duration>) -> String {
    duration.map_or("-".to_owned(), |duration| {
        format!("{:.1}", duration.as_secs_f64() * 1e3)
    })
}

fn megabytes(kib: Option<u64>) -> String {
    kib.map_or("-".to_owned(), |kib| format!("{:.1}", kib as f64 / 1024.0))
}

/// Every read's latency, sorted.
fn reads(level: &Level) -> Vec<Duration> {
    sorted(&level.latencies[..WRITE].concat())
}

fn all(level: &Level) -> Vec<Duration> {
    sorted(&level.latencies.concat())
}

/// One `C`'s figures and its latencies per tool, printed as soon as it is done.
pub(crate) fn print_level(level: &Level) {
    println!();
    println!(
        "{} connections: {} calls answered in {:.2} s, {:.0} calls/s; server CPU {} µs per \
         call, loader CPU {} µs per call",
        level.connections,
        level.answered(),
        level.elapsed.as_secs_f64(),
        level.calls_per_second(),
        micros(level.per_call(level.server_cpu)),
        micros(level.per_call(level.loader_cpu)),
    );
    if level.per_replica.len() > 1 {
        let replicas: Vec<String> = level
            .per_replica
            .iter()
            .zip(&level.replica_cpu)
            .enumerate()
            .map(|(index, (&calls, &cpu))| {
                format!(
                    "replica {index}: {:.0} calls/s, {} µs CPU per call",
                    calls as f64 / level.elapsed.as_secs_f64(),
                    micros(per_call(cpu, calls))
                )
            })
            .collect();
        println!("{}", replicas.join("; "));
    }
    let probed = &level.probed;
    let healthz = sorted(&probed.healthz);
    println!(
        "memory (MB): peak {}, at the start {}, at the end {}, at most {}; /healthz: {} probes, \
         p99 {} ms, max {} ms, {} failed",
        megabytes(level.peak_rss),
        megabytes(probed.rss_first()),
        megabytes(probed.rss_last()),
        megabytes(probed.rss_max()),
        healthz.len(),
        millis(quantile(&healthz, 0.99)),
        millis(healthz.last().copied()),
        probed.healthz_failed,
    );
    let tenths: Vec<String> = probed
        .rss_by_tenths()
        .into_iter()
        .map(|kib| megabytes(Some(kib)))
        .collect();
    if !tenths.is_empty() {
        println!(
            "memory (MB) at each tenth of the run: {}",
            tenths.join(", ")
        );
    }
    println!(
        "503: {} ({} with Retry-After); errors: {}",
        level.refused, level.refused_with_retry_after, level.errors
    );
    for error in &level.first_errors {
        println!("  {error}");
    }
    println!();
    println!(
        "latency in µs  | {:>6} | {:>6} {:>6} {:>6} {:>7}",
        "calls", "p50", "p90", "p99", "max"
    );
    println!("{}", "-".repeat(52));
    let row = |name: &str, latencies: Vec<Duration>| {
        println!(
            "{name:<14} | {:>6} | {:>6} {:>6} {:>6} {:>7}",
            latencies.len(),
            micros(quantile(&latencies, 0.5)),
            micros(quantile(&latencies, 0.9)),
            micros(quantile(&latencies, 0.99)),
            micros(latencies.last().copied()),
        );
    };
    row("all", all(level));
    row("reads", reads(level));
    for (tool, name) in TOOLS.iter().enumerate() {
        row(name, sorted(&level.latencies[tool]));
    }
}

/// Every `C` of one server, as a Markdown table.
pub(crate) fn print_levels(report: &HttpReport) {
    println!();
    println!(
        "movie-reviews-mcp bench over HTTP ({}): {}, {} replica{}",
        report.protocol.version(),
        report.target,
        report.replicas,
        if report.replicas == 1 { "" } else { "s" }
    );
    if !report.server.is_empty() {
        println!("server: {}", report.server);
    }
    println!();
    println!(
        "| connections | calls/s | p50 | p90 | p99 | p99 reads | max | server CPU/call | \
         loader CPU/call | peak RSS (MB) | /healthz max (ms) | 503 | errors |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for level in &report.levels {
        let latencies = all(level);
        println!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            level.connections,
            level.calls_per_second(),
            micros(quantile(&latencies, 0.5)),
            micros(quantile(&latencies, 0.9)),
            micros(quantile(&latencies, 0.99)),
            micros(quantile(&reads(level), 0.99)),
            micros(latencies.last().copied()),
            micros(level.per_call(level.server_cpu)),
            micros(level.per_call(level.loader_cpu)),
            megabytes(level.peak_rss),
            millis(level.probed.healthz.iter().max().copied()),
            level.refused,
            level.errors,
        );
    }
    println!();
    println!(
        "Latencies and CPU in µs. CPU per call: the servers' (every replica, every thread) and \
         the loader's, over the calls answered."
    );
}

/// The baseline's figures beside the server's at each `C`: calls per second, the servers' CPU
/// per call, the p50 of all calls and the p99 of reads.
pub(crate) fn comparison(title: String, baseline: &HttpReport, server: &HttpReport) -> Comparison {
    let as_micros =
        |duration: Option<Duration>| duration.map(|duration| duration.as_secs_f64() * 1e6);
    let mut rows = Vec::new();
    for (before, after) in baseline.levels.iter().zip(&server.levels) {
        let connections = after.connections;
        let cost = |name: &str, before: Option<Duration>, after: Option<Duration>| {
            Row::new(
                format!("{name}, {connections} connections (µs)"),
                Better::Lower,
                0,
                as_micros(before),
                as_micros(after),
            )
        };
        rows.extend([
            Row::new(
                format!("calls/s, {connections} connections"),
                Better::Higher,
                0,
                Some(before.calls_per_second()),
                Some(after.calls_per_second()),
            ),
            cost(
                "server CPU per call",
                before.per_call(before.server_cpu),
                after.per_call(after.server_cpu),
            ),
            cost(
                "p50",
                quantile(&all(before), 0.5),
                quantile(&all(after), 0.5),
            ),
            cost(
                "p99 of reads",
                quantile(&reads(before), 0.99),
                quantile(&reads(after), 0.99),
            ),
        ]);
    }
    Comparison {
        title,
        baseline: baseline.server.clone(),
        server: server.server.clone(),
        rows,
    }
}

/// What the loader costs per call against the canned answer, at each `C`.
pub(crate) fn print_loader_cost(costs: &[LoaderCost]) {
    println!();
    println!("The loader against a canned answer (about 1 KB, answered at once):");
    println!();
    println!("| connections | calls | calls/s | loader CPU per call (µs) |");
    println!("|---:|---:|---:|---:|");
    for cost in costs {
        println!(
            "| {} | {} | {:.0} | {} |",
            cost.connections,
            cost.calls,
            cost.calls_per_second,
            micros(cost.cpu_per_call)
        );
    }
}
