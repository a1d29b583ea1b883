//! Stdin EOF, SIGTERM and SIGINT each end the server with status 0, after answering the call
//! in flight, with the write-ahead log checkpointed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};
use sqlx::Connection;
use uuid::Uuid;

use crate::{connect, runtime};
use test_support::{EXIT_TIMEOUT, Server, Session, TempDir, structured};

/// The ways a client or the system stops the server.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Eof,
    Term,
    Int,
}

impl Stop {
    const ALL: [Stop; 3] = [Stop::Eof, Stop::Term, Stop::Int];

    fn apply(self, server: &mut Server) {
        let signal = match self {
            Stop::Eof => return server.close_stdin(),
            Stop::Term => "-TERM",
            Stop::Int => "-INT",
        };
        let status = Command::new("kill")
            .arg(signal)
            .arg(server.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill {signal} failed: {status}");
    }
}

/// Stdin EOF, SIGTERM and SIGINT each answer a call sent just before, exit 0, checkpoint the WAL.
#[test]
fn eof_sigterm_and_sigint_answer_the_last_call_and_exit_0() {
    // "Just before": the call is written to stdin, then `kill` is run at once. A server that
    // stops reading stdin as soon as the signal arrives can leave such a call unanswered.
    let dir = TempDir::new("stop");
    let database = dir.path().join("stop.db");
    for stop in Stop::ALL {
        let mut session = Session::start(&database, dir.path());
        let movie = session.call_ok("movies_search", json!({"limit": 1}))["items"][0]["id"].clone();
        let author =
            session.call_ok("authors_search", json!({"limit": 1}))["items"][0]["id"].clone();
        session.call_ok(
            "reviews_write",
            json!({"movieId": movie, "authorId": author, "stars": 2}),
        );
        assert!(
            wal_len(&database) > 0,
            "{stop:?}: a write leaves the log non-empty while the server runs"
        );

        let id = session.id();
        session.server.send_call(
            id,
            "reviews_write",
            json!({"movieId": movie, "authorId": author, "stars": 3}),
        );
        stop.apply(&mut session.server);
        let response = session
            .server
            .try_read_message(test_support::READ_TIMEOUT)
            .unwrap_or_else(|| {
                panic!(
                    "{stop:?}: the call written to stdin just before the signal was never \
                     answered; the server exited {:?}; stderr:\n{}",
                    session.server.wait_for_exit(EXIT_TIMEOUT),
                    session.server.finish()
                )
            });
        assert_eq!(response["id"], id, "{stop:?}: {response}");
        let review = structured(&response, "the call sent just before stopping");
        assert_eq!(review["stars"], 3, "{stop:?}: {review}");
        session.expect_clean_exit(stop, &database);
    }
}

/// A call blocked on a lock when EOF, SIGTERM or SIGINT arrives is answered and committed first.
#[test]
fn a_call_in_flight_when_the_server_is_stopped_is_answered_first() {
    let dir = TempDir::new("in-flight");
    let database = dir.path().join("in-flight.db");
    let runtime = runtime();
    for stop in Stop::ALL {
        let mut session = Session::start(&database, dir.path());
        let movie = session.call_ok("movies_search", json!({"limit": 1}))["items"][0]["id"].clone();
        let author =
            session.call_ok("authors_search", json!({"limit": 1}))["items"][0]["id"].clone();

        let mut blocker = runtime.block_on(connect(&database));
        runtime
            .block_on(sqlx::raw_sql("BEGIN IMMEDIATE").execute(&mut blocker))
            .expect("take the write lock");
        let id = session.id();
        session.server.send_call(
            id,
            "reviews_write",
            json!({"movieId": movie, "authorId": author, "stars": 5}),
        );
        // The write waits for the lock (the server's busy timeout is 30 s).
        assert!(
            session
                .server
                .try_read_message(Duration::from_millis(400))
                .is_none(),
            "{stop:?}: the write waits for the lock"
        );
        stop.apply(&mut session.server);
        thread::sleep(Duration::from_millis(200));
        assert!(
            session.server.is_running(),
            "{stop:?}: the server waits for the call in flight"
        );
        runtime.block_on(async {
            sqlx::raw_sql("ROLLBACK")
                .execute(&mut blocker)
                .await
                .expect("release the write lock");
            blocker
                .close()
                .await
                .expect("close the blocking connection");
        });

        let response = session.server.read_message();
        assert_eq!(response["id"], id, "{stop:?}: {response}");
        let review = structured(&response, "the call in flight");
        session.expect_clean_exit(stop, &database);

        let review_id = Uuid::parse_str(review["id"].as_str().unwrap()).unwrap();
        let stored: i64 = runtime.block_on(async {
            let mut connection = connect(&database).await;
            let stored = sqlx::query_scalar("SELECT COUNT(*) FROM reviews WHERE id = ?1")
                .bind(review_id)
                .fetch_one(&mut connection)
                .await
                .expect("look the review up");
            connection.close().await.expect("close the connection");
            stored
        });
        assert_eq!(stored, 1, "{stop:?}: the answered write was committed");
    }
}

/// The length of the database's write-ahead log, 0 when there is none.
fn wal_len(database: &Path) -> u64 {
    std::fs::metadata(wal_path(database)).map_or(0, |metadata| metadata.len())
}

fn wal_path(database: &Path) -> PathBuf {
    let mut path = database.as_os_str().to_owned();
    path.push("-wal");
    PathBuf::from(path)
}

/// What the shutdown tests ask of a session.
trait CleanExit {
    /// After `stop`: the server exits with status 0, having written only JSON-RPC on stdout, and
    /// leaves the write-ahead log checkpointed (gone or empty).
    fn expect_clean_exit(self, stop: Stop, database: &Path);
}

impl CleanExit for Session {
    fn expect_clean_exit(mut self, stop: Stop, database: &Path) {
        let status = self.server.wait_for_exit(EXIT_TIMEOUT);
        let stderr = self.server.finish();
        assert!(
            status.success(),
            "{stop:?}: exit {status}; stderr:\n{stderr}"
        );
        for line in &self.server.stdout_lines {
            let message: Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("{stop:?}: not JSON ({error}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{stop:?}: {line}");
        }
        assert_eq!(
            wal_len(database),
            0,
            "{stop:?}: the log is checkpointed on exit; stderr:\n{stderr}"
        );
    }
}
