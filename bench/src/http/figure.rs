//! The HTTP run's figure: each tool's p50 and p99 against the number of connections, in two
//! panels on a shared log scale, SQLite and PostgreSQL in the same panels.

use crate::http::HttpReport;
use crate::plot;
use crate::report::{quantile, sorted};
use crate::workload::TOOLS;

/// The figure of `reports`: on each backend, the last report measured on it (several replicas
/// or one), at each connection count of `connections`.
pub(crate) fn http_figure(
    reports: &[HttpReport],
    connections: &[usize],
) -> Result<plot::Figure, crate::Error> {
    let panel = |title: &str, q: f64| {
        let mut lines = Vec::new();
        for backend in [plot::Backend::Sqlite, plot::Backend::Postgres] {
            let Some(report) = reports
                .iter()
                .rev()
                .find(|report| report.backend == Some(backend))
            else {
                continue;
            };
            for tool in 0..TOOLS.len() {
                let values = connections
                    .iter()
                    .map(|&count| {
                        let level = report
                            .levels
                            .iter()
                            .find(|level| level.connections == count)?;
                        quantile(&sorted(&level.latencies[tool]), q)
                            .map(|latency| latency.as_secs_f64() * 1e6)
                    })
                    .collect();
                lines.push(plot::Line {
                    tool,
                    backend,
                    values,
                });
            }
        }
        plot::Panel {
            title: title.to_owned(),
            lines,
        }
    };
    if reports.iter().all(|report| report.backend.is_none()) {
        return Err(
            "--plot: the database of a server at --url is unknown; plot a run of the \
                    servers the bench starts"
                .into(),
        );
    }
    Ok(plot::Figure {
        title: "latency per tool over HTTP, by connections".to_owned(),
        y_title: "latency, send to answer (log scale)".to_owned(),
        x_title: "concurrent keep-alive connections, each a closed loop".to_owned(),
        columns: connections
            .iter()
            .map(|count| plot::Column {
                name: count.to_string(),
                detail: String::new(),
            })
            .collect(),
        tools: TOOLS.iter().map(|&name| name.to_owned()).collect(),
        panels: vec![panel("p50", 0.5), panel("p99", 0.99)],
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::http::replicas::Probed;
    use crate::http::{Level, Protocol};

    /// A run at `connections` whose every call of every tool took `latency`.
    fn level(connections: usize, latency: Duration) -> Level {
        Level {
            connections,
            elapsed: Duration::from_secs(1),
            latencies: vec![vec![latency; 10]; TOOLS.len()],
            per_replica: vec![10 * TOOLS.len()],
            server_cpu: None,
            replica_cpu: vec![None],
            loader_cpu: None,
            peak_rss: None,
            refused: 0,
            refused_with_retry_after: 0,
            errors: 0,
            first_errors: Vec::new(),
            probed: Probed::default(),
            written: Vec::new(),
        }
    }

    fn report(backend: Option<plot::Backend>, micros: u64) -> HttpReport {
        HttpReport {
            server: String::new(),
            target: String::new(),
            replicas: 1,
            protocol: Protocol::Stateless,
            backend,
            levels: [1, 16]
                .into_iter()
                .map(|connections| {
                    let latency = Duration::from_micros(micros * connections as u64);
                    level(connections, latency)
                })
                .collect(),
        }
    }

    #[test]
    fn each_backend_draws_its_last_report_at_each_connection_count() {
        let reports = [
            report(Some(plot::Backend::Sqlite), 100),
            report(Some(plot::Backend::Postgres), 300),
            report(Some(plot::Backend::Sqlite), 200),
        ];
        let figure = http_figure(&reports, &[1, 16, 64]).unwrap();
        assert_eq!(figure.columns.len(), 3);
        let p50 = &figure.panels[0];
        assert_eq!(p50.lines.len(), 2 * TOOLS.len());
        let sqlite = &p50.lines[0];
        assert_eq!(sqlite.backend, plot::Backend::Sqlite);
        assert_eq!(sqlite.values, [Some(200.0), Some(3200.0), None]);
        let postgres = &p50.lines[TOOLS.len()];
        assert_eq!(postgres.values, [Some(300.0), Some(4800.0), None]);
    }

    #[test]
    fn a_server_at_a_url_alone_cannot_be_plotted() {
        assert!(http_figure(&[report(None, 100)], &[1]).is_err());
    }
}
