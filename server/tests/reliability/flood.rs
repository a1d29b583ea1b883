//! A client that floods stdin with requests whose answers are large, and reads them slowly or
//! not at all: the server stops reading while its answers wait, so its memory stays bounded,
//! and every request it read is answered, also after stdin has closed; after a signal, answers
//! nobody reads keep the server only for the drain's bound.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use toolkit::stdio::MAX_IN_FLIGHT;

use test_support::{
    EXIT_TIMEOUT, Session, TempDir, binary, command, exit_within, peak_memory_kib, run,
};

/// Requests sent at once: small enough that all of them fit in the pipe to the server (so the
/// test never blocks writing), many enough that their answers (about 280 KB each) would take
/// well over the memory limit if the server held them all.
const REQUESTS: usize = 200;

/// The peak resident memory the server may reach meanwhile (a debug build).
const PEAK_MEMORY_LIMIT_KIB: u64 = 100 * 1024;

/// Longer than rmcp waits for the answers it holds when its input ends (5 s).
const SLOW_READER: Duration = Duration::from_secs(6);

#[test]
fn a_client_that_reads_no_answers_stops_being_read_and_memory_stays_bounded() {
    let dir = TempDir::new("flood");
    let mut session = Session::start(&seeded(dir.path()), dir.path());
    let ids = send_searches(&mut session);
    thread::sleep(Duration::from_secs(3));
    let peak = peak_memory_kib(session.server.pid());
    let answers = session.server.read_responses(&ids);
    println!("peak memory with {REQUESTS} large answers unread: {peak} KiB");
    for answer in answers.values() {
        let page = &answer["result"]["structuredContent"];
        assert_eq!(page["items"].as_array().map(Vec::len), Some(50), "{answer}");
    }
    assert!(
        peak <= PEAK_MEMORY_LIMIT_KIB,
        "peak memory {peak} KiB is over {PEAK_MEMORY_LIMIT_KIB} KiB"
    );
    session.stop_with_eof();
}

#[test]
fn every_request_sent_before_stdin_closes_is_answered_however_slowly_answers_are_read() {
    let dir = TempDir::new("drain");
    let mut session = Session::start(&seeded(dir.path()), dir.path());
    let ids = send_searches(&mut session);
    session.server.close_stdin();
    thread::sleep(SLOW_READER);
    let answers = session.server.read_responses(&ids);
    assert_eq!(answers.len(), REQUESTS);
    let status = session.server.wait_for_exit(EXIT_TIMEOUT);
    let stderr = session.server.finish();
    assert!(status.success(), "exit {status}; stderr:\n{stderr}");
}

/// A database whose pages of movies with their reviews are large: 2,000 movies with 10 reviews
/// each.
fn seeded(dir: &Path) -> PathBuf {
    let database = dir.join("flood.db");
    let mut seed = command(dir);
    seed.arg("seed").arg("--database").arg(&database).args([
        "--movies",
        "2000",
        "--authors",
        "500",
        "--reviews",
        "20000",
    ]);
    let seeded = run(seed);
    assert!(seeded.status.success(), "{}", seeded.stderr);
    database
}

/// Sends [`REQUESTS`] searches of 50 movies with their reviews, without reading; their ids.
fn send_searches(session: &mut Session) -> Vec<u64> {
    (0..REQUESTS)
        .map(|index| {
            let id = session.id();
            let offset = (index * 50) % 1950;
            let arguments = json!({"limit": 50, "includeReviews": true, "offset": offset});
            session.server.send_call(id, "movies_search", arguments);
            id
        })
        .collect()
}

#[test]
fn cancelled_requests_and_reused_ids_never_hold_up_later_requests() {
    let dir = TempDir::new("cancel");
    let mut session = Session::start(&dir.path().join("cancel.db"), dir.path());
    // The same id twice, in one write so that the server reads both at once: the second
    // arrives while the first is most likely still in flight (the refusal itself is pinned by
    // the toolkit's own test of its count of requests in flight).
    let reused = session.id();
    let call = json!({"jsonrpc": "2.0", "id": reused, "method": "tools/call",
        "params": {"name": "movies_search", "arguments": {"limit": 50}}})
    .to_string();
    session.server.send_line(&format!("{call}\n{call}"));
    // Twice as many as may be in flight: were a cancelled request still counted, reading would
    // stop half-way and the ping below would never be answered.
    let cancelled: Vec<u64> = (0..2 * MAX_IN_FLIGHT)
        .map(|_| {
            let id = session.id();
            session
                .server
                .send_call(id, "movies_search", json!({"limit": 50}));
            session.server.send(
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "the user moved on"}}),
            );
            id
        })
        .collect();
    let ping = session.id();
    session
        .server
        .send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}));
    let (mut results, mut refusals, mut pong) = (0, 0, false);
    while !pong || results + refusals < 2 {
        let message = session.server.read_message();
        let id = message["id"].as_u64().expect("an id");
        if id == ping {
            pong = true;
        } else if id == reused && message.get("result").is_some() {
            results += 1;
        } else if id == reused {
            assert_eq!(message["error"]["code"], -32600, "{message}");
            refusals += 1;
        } else {
            // An answer that was on its way before its cancellation was read may still come.
            assert!(cancelled.contains(&id), "{message}");
        }
    }
    // The second is refused while the first is in flight; a first answered before the second
    // is read (a fast search on a busy machine) leaves the id free again, and both are answered.
    assert!(
        (results, refusals) == (1, 1) || (results, refusals) == (2, 0),
        "the reused id: {results} answers and {refusals} refusals"
    );
    session.stop_with_eof();
}

/// After SIGTERM, a client that reads none of its answers keeps the server for the drain's
/// 10 s at most: it then logs how many requests were left unanswered and exits with status 0.
#[test]
fn a_signal_ends_the_server_even_while_its_answers_go_unread() {
    let dir = TempDir::new("unread-at-signal");
    let database = seeded(dir.path());
    let mut server = Command::new(binary())
        .arg("--database")
        .arg(&database)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        // Held and never read: the pipe fills with the first answers.
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the server");
    let mut stdin = server.stdin.take().expect("piped stdin");
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "unread", "version": "1"}}});
    writeln!(stdin, "{initialize}").expect("write to the server");
    for id in 1..=REQUESTS {
        let search = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "movies_search",
            "arguments": {"limit": 50, "includeReviews": true, "offset": (id * 50) % 1950}}});
        writeln!(stdin, "{search}").expect("write to the server");
    }
    // Long enough for the server to fill its stdout and stop reading.
    thread::sleep(Duration::from_secs(2));
    let signalled = Instant::now();
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(server.id().to_string())
        .status()
        .expect("run kill");
    assert!(killed.success());
    let status = exit_within(&mut server, Duration::from_secs(20));
    let took = signalled.elapsed();
    let mut stderr = String::new();
    if status.is_none() {
        let _ = server.kill();
    }
    server
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    let status = status.unwrap_or_else(|| panic!("no exit 20 s after SIGTERM; stderr:\n{stderr}"));
    assert!(status.success(), "exit {status}; stderr:\n{stderr}");
    assert!(
        stderr.contains("stopped waiting for answers"),
        "the unanswered requests are logged:\n{stderr}"
    );
    assert!(
        took >= Duration::from_secs(9),
        "exited after {took:?}, before the drain ended"
    );
    drop(stdin);
}
