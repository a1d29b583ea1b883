//! The servers an HTTP run measures: replicas of the built server, started with `--http` on
//! free ports of the loopback address, on one database, with a bearer token minted for the run;
//! and the probe that watches them while they are loaded: `/healthz` on a new connection every
//! 100 ms, as a load balancer asks it, and the replicas' resident memory.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::Error;
use crate::client::drain_stderr;
use crate::http::loader::Endpoint;
use crate::report::vm_rss;

/// How long a replica has to say where it listens.
const START_WITHIN: Duration = Duration::from_secs(60);

/// The scopes the bench's token grants: every tool the mix calls.
const SCOPES: &str = "reviews.read,reviews.write";

/// The fewest connections a replica is set to accept, in all and from one address: the
/// server's default total.
const MIN_CONNECTIONS: usize = 512;

/// Replicas of the server, stopped when dropped.
pub(crate) struct Replicas {
    children: Vec<Child>,
    logs: Vec<Arc<Mutex<Vec<String>>>>,
    pub(crate) endpoints: Vec<Endpoint>,
}

impl Replicas {
    /// Starts `count` replicas of `server` on `database`, each on a free port, all accepting one
    /// token minted now, and up to `clients` connections (and the probe's): the bench is every
    /// client at once, from one address, as a reverse proxy in front of the server is, so the
    /// limits on connections are raised as an operator raises them for that many clients. The
    /// server then sheds what it cannot serve at once with 503 and `Retry-After`, past its
    /// limit on requests in flight.
    pub(crate) fn start(
        server: &Path,
        database: &Path,
        count: usize,
        clients: usize,
    ) -> Result<Replicas, Error> {
        let connections = (2 * clients).max(MIN_CONNECTIONS).to_string();
        let (token, entry) = mint(server)?;
        let mut replicas = Replicas {
            children: Vec::new(),
            logs: Vec::new(),
            endpoints: Vec::new(),
        };
        for _ in 0..count {
            let mut child = Command::new(server)
                .arg("--database")
                .arg(database)
                .args(["--http", "127.0.0.1:0", "--tokens", &entry])
                .args(["--max-connections", &connections])
                .args(["--max-connections-per-address", &connections])
                // One client calling as fast as it can is what is measured, and what a rate
                // limit is there to stop.
                .env("MOVIE_REVIEWS_RATE_LIMITS", "none")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()?;
            let (log, port) = watch_log(&mut child);
            replicas.children.push(child);
            replicas.logs.push(Arc::clone(&log));
            let port = port.recv_timeout(START_WITHIN).map_err(|_| {
                format!(
                    "a replica did not say where it listens within {} s; its log:\n{}",
                    START_WITHIN.as_secs(),
                    last_lines(&log)
                )
            })?;
            let address = SocketAddr::from(([127, 0, 0, 1], port));
            replicas.endpoints.push(Endpoint {
                address,
                authority: address.to_string(),
                path: "/mcp".to_owned(),
                token: Some(token.clone()),
            });
        }
        Ok(replicas)
    }

    pub(crate) fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }

    /// The last lines each replica logged, for an error message.
    pub(crate) fn logs(&self) -> String {
        self.logs
            .iter()
            .enumerate()
            .map(|(index, log)| format!("replica {index}:\n{}", last_lines(log)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Replicas {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A token for every tool, and the line that lets a server accept it, from `server token`.
fn mint(server: &Path) -> Result<(String, String), Error> {
    let output = Command::new(server)
        .args(["token", "--scopes", SCOPES])
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "`{} token` failed: {}",
            server.display(),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let stdout = String::from_utf8(output.stdout)?;
    let mut lines = stdout.lines().filter(|line| !line.starts_with('#'));
    match (lines.next(), lines.next()) {
        (Some(token), Some(entry)) => Ok((token.to_owned(), entry.to_owned())),
        _ => Err(format!("`{} token` printed no token: {stdout}", server.display()).into()),
    }
}

/// Reads the child's log as it comes, keeping its last lines, and sends the port it names in
/// its `serving MCP over HTTP on http://ADDRESS/mcp` line.
fn watch_log(child: &mut Child) -> (Arc<Mutex<Vec<String>>>, mpsc::Receiver<u16>) {
    let (port_found, port) = mpsc::channel();
    let lines = drain_stderr(child, move |line| {
        if let Some(port) = bound_port(line) {
            let _ = port_found.send(port);
        }
    });
    (lines, port)
}

fn last_lines(log: &Mutex<Vec<String>>) -> String {
    log.lock().map(|lines| lines.join("\n")).unwrap_or_default()
}

/// The port in the line a server logs once it listens.
fn bound_port(line: &str) -> Option<u16> {
    let rest = line.split("serving MCP over HTTP on http://").nth(1)?;
    let address = rest.split("/mcp").next()?;
    address.rsplit(':').next()?.parse().ok()
}

/// What the probe saw during a run.
#[derive(Debug, Default)]
pub(crate) struct Probed {
    /// How long each `/healthz` took, connecting included.
    pub(crate) healthz: Vec<Duration>,
    /// Probes that failed or did not answer 200 within a second.
    pub(crate) healthz_failed: usize,
    /// The replicas' resident memory together, in KiB, every 100 ms.
    pub(crate) rss: Vec<u64>,
}

impl Probed {
    pub(crate) fn rss_first(&self) -> Option<u64> {
        self.rss.first().copied()
    }

    pub(crate) fn rss_last(&self) -> Option<u64> {
        self.rss.last().copied()
    }

    pub(crate) fn rss_max(&self) -> Option<u64> {
        self.rss.iter().max().copied()
    }

    /// The samples at the end of each tenth of the run: memory over time, in short.
    pub(crate) fn rss_by_tenths(&self) -> Vec<u64> {
        let count = self.rss.len();
        if count < 10 {
            return self.rss.clone();
        }
        (1..=10)
            .map(|tenth| self.rss[tenth * count / 10 - 1])
            .collect()
    }
}

/// Probes `/healthz` at `address` and samples the memory of `pids` every 100 ms, on a thread
/// of its own, until stopped.
pub(crate) struct Probe {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Probed>,
}

impl Probe {
    pub(crate) fn start(address: SocketAddr, pids: Vec<u32>) -> Probe {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            let mut probed = Probed::default();
            while !stopped.load(Ordering::Relaxed) {
                let started = Instant::now();
                match healthz(address) {
                    Ok(()) => probed.healthz.push(started.elapsed()),
                    Err(_) => probed.healthz_failed += 1,
                }
                let rss: Option<u64> = pids.iter().map(|&pid| vm_rss(pid)).sum();
                probed.rss.extend(rss);
                thread::sleep(Duration::from_millis(100).saturating_sub(started.elapsed()));
            }
            probed
        });
        Probe { stop, thread }
    }

    pub(crate) fn stop(self) -> Probed {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// `GET /healthz` on a new connection: Ok on a 200 within a second.
fn healthz(address: SocketAddr) -> Result<(), Error> {
    let within = Duration::from_secs(1);
    let mut stream = TcpStream::connect_timeout(&address, within)?;
    stream.set_read_timeout(Some(within))?;
    stream.set_nodelay(true)?;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    if answer.starts_with(b"HTTP/1.1 200") {
        Ok(())
    } else {
        Err(format!("/healthz: {}", String::from_utf8_lossy(&answer)).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_by_tenths_is_the_last_sample_of_each_tenth() {
        let probed = Probed {
            rss: (1..=25).collect(),
            ..Probed::default()
        };
        assert_eq!(
            probed.rss_by_tenths(),
            [2, 5, 7, 10, 12, 15, 17, 20, 22, 25]
        );
        assert_eq!((probed.rss_first(), probed.rss_last()), (Some(1), Some(25)));
        let short = Probed {
            rss: vec![3, 1],
            ..Probed::default()
        };
        assert_eq!(short.rss_by_tenths(), [3, 1]);
        assert_eq!(short.rss_max(), Some(3));
    }

    #[test]
    fn the_port_is_read_from_the_servers_log_line() {
        let line = "2026-12-07T10:00:00Z  INFO serving MCP over HTTP on http://127.0.0.1:41234/mcp \
                    address=127.0.0.1:41234";
        assert_eq!(bound_port(line), Some(41234));
        assert_eq!(bound_port("INFO opened the database"), None);
    }
}
