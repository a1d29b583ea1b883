//! A server killed (SIGKILL) in the middle of writes leaves an intact file holding every write
//! it acknowledged.

use std::collections::HashSet;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use movie_reviews_mcp::demo::SplitMix64;
use serde_json::{Value, json};
use sqlx::Connection;
use uuid::Uuid;

use crate::{Catalogue, connect, runtime, seed, shuffle};
use test_support::{Session, TempDir, structured, text_of};

/// Kill-and-restart cycles when `CRASH_CYCLES` is not set.
const QUICK_CRASH_CYCLES: usize = 5;
/// Writes sent at once in each cycle.
const WRITES_PER_CYCLE: usize = 40;
/// Of them, at most this many delete a review an earlier cycle created.
const DELETES_PER_CYCLE: usize = 5;

/// SIGKILL mid-write, restart, repeat: the file stays intact and keeps every acknowledged write.
#[test]
fn crash_mid_write_loses_no_acknowledged_write_and_never_corrupts_the_file() {
    // After each kill: `PRAGMA integrity_check` is ok, every acknowledged create is there and
    // every acknowledged delete gone, and the counts kept by triggers match the rows.
    let cycles = std::env::var("CRASH_CYCLES")
        .ok()
        .map(|text| text.parse::<usize>().expect("CRASH_CYCLES is a number"))
        .unwrap_or(QUICK_CRASH_CYCLES);
    let mut rng = SplitMix64(seed("crash"));
    let started = Instant::now();
    let dir = TempDir::new("crash");
    let database = dir.path().join("crash.db");
    let runtime = runtime();

    // Reviews whose create was acknowledged (and not deleted since), and acknowledged deletes.
    let mut present: HashSet<String> = HashSet::new();
    let mut deleted: HashSet<String> = HashSet::new();
    let mut previous_cycle: Vec<String> = Vec::new();
    let mut acknowledged_writes = 0;
    let mut killed_mid_load = 0;
    let mut catalogue = None;

    for cycle in 0..cycles {
        let mut session = Session::start(&database, dir.path());
        let catalogue = catalogue.get_or_insert_with(|| Catalogue::discover(&mut session));

        // After the restart, the last cycle's acknowledged creates are there, as the tool
        // shows them.
        let calls: Vec<(&str, Value)> = previous_cycle
            .iter()
            .filter(|id| present.contains(*id))
            .map(|id| ("reviews_list", json!({"reviewId": id})))
            .collect();
        for response in session.pipeline(&calls) {
            let page = structured(&response, "an acknowledged review after a restart");
            assert_eq!(page["totalCount"], 1, "cycle {cycle}: {page}");
        }

        // The load: creates, and deletes of distinct reviews earlier cycles created.
        let mut ops: Vec<(&str, Value)> = Vec::new();
        let mut to_delete: Vec<String> = present.iter().cloned().collect();
        to_delete.sort();
        shuffle(&mut rng, &mut to_delete);
        to_delete.truncate(rng.below(DELETES_PER_CYCLE + 1));
        for review in &to_delete {
            ops.push(("reviews_delete", json!({"reviewId": review})));
        }
        while ops.len() < WRITES_PER_CYCLE {
            let movie = rng.pick(&catalogue.movies);
            let author = rng.pick(&catalogue.authors);
            let stars = rng.below(5) + 1;
            ops.push((
                "reviews_write",
                json!({"movieId": movie, "authorId": author, "stars": stars}),
            ));
        }
        shuffle(&mut rng, &mut ops);
        // A delete not acknowledged may or may not have happened: stop tracking its review.
        for review in &to_delete {
            present.remove(review);
        }

        let first_id = session.next_id + 1;
        let ids: Vec<u64> = ops.iter().map(|_| session.id()).collect();
        for ((tool, arguments), id) in ops.iter().zip(&ids) {
            session.server.send_call(*id, tool, arguments.clone());
        }
        // Kill after a random number of answers (and a random instant more), mid-load.
        let answers_before_kill = rng.below(WRITES_PER_CYCLE);
        let mut answers = Vec::new();
        for _ in 0..answers_before_kill {
            answers.push(session.server.read_message());
        }
        thread::sleep(Duration::from_micros(rng.below(3000) as u64));
        let seen = session.server.stdout_lines.len();
        session.server.kill();
        // Whatever the server wrote before it died was acknowledged too.
        session.server.finish();
        for line in &session.server.stdout_lines[seen..] {
            if let Ok(message) = serde_json::from_str::<Value>(line) {
                answers.push(message);
            }
        }

        if answers.len() < ops.len() {
            killed_mid_load += 1;
        }
        previous_cycle.clear();
        for answer in &answers {
            let id = answer["id"].as_u64().expect("an answer has a request id");
            let (tool, arguments) = &ops[(id - first_id) as usize];
            let value = structured(answer, tool);
            acknowledged_writes += 1;
            if *tool == "reviews_delete" {
                assert_eq!(value["deleted"], true, "{value}");
                deleted.insert(arguments["reviewId"].as_str().unwrap().to_owned());
            } else {
                let id = value["id"].as_str().expect("a review id").to_owned();
                previous_cycle.push(id.clone());
                present.insert(id);
            }
        }

        // The file as the killed server left it (the next cycle's server is not started yet).
        runtime.block_on(check_after_crash(&database, &present, &deleted, cycle));
    }

    // One last restart: the server starts on the file and still shows every acknowledged review.
    let mut session = Session::start(&database, dir.path());
    let calls: Vec<(&str, Value)> = present
        .iter()
        .map(|id| ("reviews_list", json!({"reviewId": id})))
        .collect();
    for response in session.pipeline(&calls) {
        let page = structured(&response, "an acknowledged review at the end");
        assert_eq!(page["totalCount"], 1, "{page}");
    }
    for id in &deleted {
        let response = session.call("reviews_list", json!({"reviewId": id}));
        assert!(
            text_of(&response).starts_with("Not Found:"),
            "an acknowledged delete stays deleted: {response}"
        );
    }
    session.stop_with_eof();
    println!(
        "crash: {cycles} SIGKILL cycles survived ({killed_mid_load} with writes unanswered); \
         {acknowledged_writes} acknowledged writes checked ({} reviews present, {} deletes), \
         file intact after each, in {:.1?}",
        present.len(),
        deleted.len(),
        started.elapsed()
    );
}

/// After a kill: the file is intact, holds every acknowledged review and no acknowledged delete,
/// and the counts kept by triggers agree with the rows.
async fn check_after_crash(
    database: &Path,
    present: &HashSet<String>,
    deleted: &HashSet<String>,
    cycle: usize,
) {
    let mut connection = connect(database).await;
    let integrity: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_all(&mut connection)
        .await
        .expect("run integrity_check");
    assert_eq!(integrity, ["ok"], "cycle {cycle}: integrity_check");
    let ids: Vec<Uuid> = sqlx::query_scalar("SELECT id FROM reviews")
        .fetch_all(&mut connection)
        .await
        .expect("read the review ids");
    let ids: HashSet<String> = ids.iter().map(Uuid::to_string).collect();
    let missing: Vec<&String> = present.iter().filter(|id| !ids.contains(*id)).collect();
    assert!(
        missing.is_empty(),
        "cycle {cycle}: acknowledged reviews lost: {missing:?}"
    );
    let back: Vec<&String> = deleted.iter().filter(|id| ids.contains(*id)).collect();
    assert!(
        back.is_empty(),
        "cycle {cycle}: acknowledged deletes undone: {back:?}"
    );
    let (rows, stars): (i64, i64) =
        sqlx::query_as("SELECT COUNT(*), COALESCE(SUM(stars), 0) FROM reviews")
            .fetch_one(&mut connection)
            .await
            .expect("count reviews");
    for table in ["movies", "authors"] {
        let sql = format!("SELECT SUM(review_count), SUM(star_total) FROM {table}");
        let counted: (i64, i64) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut connection)
            .await
            .expect("sum the kept counts");
        assert_eq!(
            counted,
            (rows, stars),
            "cycle {cycle}: {table}' kept counts"
        );
    }
    connection.close().await.expect("close the connection");
}
