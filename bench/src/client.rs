//! The benchmark's MCP client on the server's stdin and stdout: one request at a time, many
//! pipelined, the ids the tools show, and the round trip of a ping.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use uuid::Uuid;

use movie_reviews_mcp::tools::{AuthorsSearch, MoviesSearch};
use toolkit::Tool;

use crate::Error;
use crate::report::{quantile, sorted};
use crate::workload::{Call, TOOLS};

/// Keeps the last lines the server logs, reading stderr so it never blocks on a full pipe, and
/// shows each line to `watch` as it comes.
pub(crate) fn drain_stderr(
    child: &mut Child,
    mut watch: impl FnMut(&str) + Send + 'static,
) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    if let Some(stderr) = child.stderr.take() {
        let kept = Arc::clone(&lines);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                watch(&line);
                if let Ok(mut kept) = kept.lock() {
                    if kept.len() == 40 {
                        kept.remove(0);
                    }
                    kept.push(line);
                }
            }
        });
    }
    lines
}

/// The child's pipes, for one request at a time.
pub(crate) struct Connection {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: BufReader<ChildStdout>,
    pub(crate) next_id: u64,
}

impl Connection {
    fn send(&mut self, message: &Value) -> Result<(), Error> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.stdin.write_all(&line)?;
        Ok(())
    }

    pub(crate) fn notify(&mut self, method: &str) -> Result<(), Error> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method }))
    }

    /// Sends a request and waits for the answer with its id.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                return Err(format!("the server closed stdout before answering {method}").into());
            }
            let message: Value = serde_json::from_str(&line)?;
            if message.get("id").and_then(Value::as_u64) == Some(id) {
                return Ok(message);
            }
        }
    }

    /// Calls a tool and returns its checked `structuredContent`.
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, Error> {
        let answer = self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments.clone() }),
        )?;
        checked(&answer)
            .cloned()
            .map_err(|error| format!("{tool} {arguments}: {error}").into())
    }
}

/// The p50 round trip of MCP's `ping`, one at a time and timed as the calls are (requests
/// made beforehand, only the answer's id read while timing): the pipes, the wake-ups on both
/// sides and rmcp's framing, with no tool behind them. The floor under every call's round trip.
pub(crate) fn ping_round_trip(
    connection: &mut Connection,
    pings: usize,
) -> Result<Duration, Error> {
    let first_id = connection.next_id;
    connection.next_id += pings as u64;
    let lines: Vec<Vec<u8>> = (0..pings)
        .map(|index| {
            let request =
                json!({ "jsonrpc": "2.0", "id": first_id + index as u64, "method": "ping" });
            let mut line = serde_json::to_vec(&request).expect("a request serializes");
            line.push(b'\n');
            line
        })
        .collect();
    let mut round_trips = Vec::with_capacity(pings);
    for (index, line) in lines.iter().enumerate() {
        let sent = Instant::now();
        connection.stdin.write_all(line)?;
        let (answer, answered) = read_answer(&mut connection.stdout, first_id, pings, index)?;
        round_trips.push(sent.elapsed());
        let answer: Value = serde_json::from_str(&answer)?;
        if answered != index || answer.get("result").is_none() {
            return Err(format!("ping {index} failed: {answer}").into());
        }
    }
    quantile(&sorted(&round_trips), 0.5).ok_or_else(|| "no pings".into())
}

/// The `structuredContent` of a good `tools/call` answer, or what is wrong with it.
pub(crate) fn checked(answer: &Value) -> Result<&Value, String> {
    if let Some(error) = answer.get("error") {
        return Err(format!("JSON-RPC error {error}"));
    }
    let Some(result) = answer.get("result") else {
        return Err(format!("no result in {answer}"));
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(format!("tool error {result}"));
    }
    match result.get("structuredContent") {
        Some(content) if content.is_object() => Ok(content),
        _ => Err(format!("no structuredContent in {result}")),
    }
}

/// What the tools showed: ids, titles and names to query.
pub(crate) struct Ids {
    pub(crate) movies: Vec<Uuid>,
    pub(crate) titles: Vec<String>,
    pub(crate) authors: Vec<Uuid>,
    pub(crate) names: Vec<String>,
    pub(crate) reviews: usize,
}

/// Pages spread evenly over every movie and author (up to 40 pages of 50 each), and a few pages
/// of reviews, read through `call` (a tool's name and arguments to its checked
/// `structuredContent`), whatever the transport.
pub(crate) fn discover(
    mut call: impl FnMut(&str, Value) -> Result<Value, Error>,
) -> Result<Ids, Error> {
    const PAGES: u64 = 40;
    const LIMIT: u64 = 50;
    let mut ids = Ids {
        movies: Vec::new(),
        titles: Vec::new(),
        authors: Vec::new(),
        names: Vec::new(),
        reviews: 0,
    };
    for tool in [MoviesSearch::SPEC.name, AuthorsSearch::SPEC.name] {
        let first = call(tool, json!({ "limit": LIMIT }))?;
        let total = first["totalCount"].as_u64().ok_or("no totalCount")?;
        let mut pages = vec![first];
        let offsets: Vec<u64> = (1..PAGES)
            .map(|page| page * total / PAGES)
            .filter(|&offset| offset >= LIMIT)
            .collect();
        let mut last = 0;
        for offset in offsets {
            if offset < last + LIMIT {
                continue;
            }
            last = offset;
            pages.push(call(tool, json!({ "limit": LIMIT, "offset": offset }))?);
        }
        for page in pages {
            for item in page["items"].as_array().ok_or("no items")? {
                let id = Uuid::parse_str(item["id"].as_str().ok_or("no id")?)?;
                if tool == MoviesSearch::SPEC.name {
                    ids.movies.push(id);
                    ids.titles
                        .push(item["title"].as_str().unwrap_or_default().to_owned());
                } else {
                    ids.authors.push(id);
                    ids.names
                        .push(item["name"].as_str().unwrap_or_default().to_owned());
                }
            }
        }
    }
    for offset in [0, LIMIT, 2 * LIMIT] {
        let page = call("reviews_list", json!({ "limit": LIMIT, "offset": offset }))?;
        ids.reviews += page["items"].as_array().map_or(0, Vec::len);
    }
    if ids.movies.is_empty() || ids.authors.is_empty() {
        return Err("the database has no movies or no authors".into());
    }
    Ok(ids)
}

/// Latencies of one pass, per tool, and the reviews it created.
pub(crate) struct RunResult {
    pub(crate) elapsed: Duration,
    pub(crate) latencies: Vec<Vec<Duration>>,
    pub(crate) written: Vec<Uuid>,
}

/// Sends `calls` keeping `in_flight` unanswered: a writer thread sends a request whenever an
/// answer frees a slot, a reader thread matches answers to requests by id. With one in flight a
/// single thread writes a request and reads its answer, as a client does, instead of waking a
/// second thread for every call. Answers are checked once the run is over, so that the client
/// spends as little as it can of the machine the server runs on while it is timed.
pub(crate) fn pipelined(
    connection: Connection,
    calls: &[Call],
    in_flight: usize,
) -> Result<(Connection, RunResult), Error> {
    let Connection {
        mut stdin,
        mut stdout,
        next_id,
    } = connection;
    let first_id = next_id;
    let lines: Vec<Vec<u8>> = calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let request = json!({
                "jsonrpc": "2.0",
                "id": first_id + index as u64,
                "method": "tools/call",
                "params": { "name": TOOLS[call.tool()], "arguments": call.arguments() },
            });
            let mut line = serde_json::to_vec(&request).expect("a request serializes");
            line.push(b'\n');
            line
        })
        .collect();
    let count = calls.len();
    let base = Instant::now();
    let (answers, stdin, stdout) = if in_flight == 1 {
        let mut answers = Vec::with_capacity(count);
        for (index, line) in lines.iter().enumerate() {
            let sent = base.elapsed();
            stdin.write_all(line)?;
            let (answer, answered) = read_answer(&mut stdout, first_id, count, index)?;
            if answered != index {
                return Err(format!("an answer to another request than {index}: {answer}").into());
            }
            answers.push(Answered {
                index,
                latency: base.elapsed() - sent,
                answer,
            });
        }
        (answers, stdin, stdout)
    } else {
        let sent_at: Arc<Vec<AtomicU64>> =
            Arc::new((0..count).map(|_| AtomicU64::new(0)).collect());
        let (free, slots) = mpsc::channel::<()>();
        let writer = {
            let sent_at = Arc::clone(&sent_at);
            thread::spawn(move || -> Result<ChildStdin, String> {
                for (index, line) in lines.iter().enumerate() {
                    if index >= in_flight && slots.recv().is_err() {
                        return Err("stopped: the reader gave up".to_owned());
                    }
                    sent_at[index].store(base.elapsed().as_nanos() as u64, Ordering::Release);
                    stdin
                        .write_all(line)
                        .map_err(|error| format!("writing to the server: {error}"))?;
                }
                Ok(stdin)
            })
        };
        let reader = thread::spawn(move || -> Result<_, String> {
            let mut answers = Vec::with_capacity(count);
            let mut answered = vec![false; count];
            while answers.len() < count {
                let (answer, index) = read_answer(&mut stdout, first_id, count, answers.len())
                    .map_err(|error| error.to_string())?;
                let now = base.elapsed().as_nanos() as u64;
                if std::mem::replace(&mut answered[index], true) {
                    return Err(format!("two answers to one request: {answer}"));
                }
                let sent = sent_at[index].load(Ordering::Acquire);
                answers.push(Answered {
                    index,
                    latency: Duration::from_nanos(now.saturating_sub(sent)),
                    answer,
                });
                let _ = free.send(());
            }
            Ok((answers, stdout))
        });
        let read = reader.join().map_err(|_| "the reader thread panicked")?;
        // On a failed read the writer sees the channel close and stops.
        let wrote = writer.join().map_err(|_| "the writer thread panicked")?;
        let (answers, stdout) = read?;
        (answers, wrote?, stdout)
    };
    let elapsed = base.elapsed();

    let mut latencies = vec![Vec::new(); TOOLS.len()];
    let mut written = Vec::new();
    for Answered {
        index,
        latency,
        answer,
    } in answers
    {
        let tool = calls[index].tool();
        let answer: Value = serde_json::from_str(&answer)
            .map_err(|error| format!("an answer is not JSON ({error}): {answer}"))?;
        let content = checked(&answer)
            .map_err(|error| format!("call {index} ({}) failed: {error}", TOOLS[tool]))?;
        if calls[index].writes() {
            let review = content["id"]
                .as_str()
                .and_then(|id| Uuid::parse_str(id).ok())
                .ok_or_else(|| format!("reviews_write answered without an id: {answer}"))?;
            written.push(review);
        }
        latencies[tool].push(latency);
    }
    Ok((
        Connection {
            stdin,
            stdout,
            next_id: first_id + count as u64,
        },
        RunResult {
            elapsed,
            latencies,
            written,
        },
    ))
}

/// An answer, not yet checked, to the request at `index`, and how long it took.
struct Answered {
    index: usize,
    latency: Duration,
    answer: String,
}

/// Reads the next answer to a request (skipping notifications) and the index of the request it
/// answers, reading no more of it than its id.
fn read_answer(
    stdout: &mut BufReader<ChildStdout>,
    first_id: u64,
    count: usize,
    received: usize,
) -> Result<(String, usize), Error> {
    /// Only the id of an answer; serde skips the rest without building it.
    #[derive(serde::Deserialize)]
    struct Id {
        id: Option<u64>,
    }
    loop {
        let mut line = String::new();
        if stdout.read_line(&mut line)? == 0 {
            return Err(
                format!("the server closed stdout after {received} of {count} answers").into(),
            );
        }
        let Id { id } = serde_json::from_str(&line)
            .map_err(|error| format!("an answer is not JSON ({error}): {line}"))?;
        let Some(id) = id else {
            continue; // A notification.
        };
        let index = id
            .checked_sub(first_id)
            .map(|index| index as usize)
            .filter(|&index| index < count)
            .ok_or_else(|| format!("an answer with an unexpected id: {line}"))?;
        return Ok((line, index));
    }
}
