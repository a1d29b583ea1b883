//! `seed` replacing a PostgreSQL database that servers are serving, checked with the built
//! binary on the tests' throwaway PostgreSQL server (`test_support::postgres_cluster`): while two
//! HTTP replicas take searches and writes, `seed` loads other data in one transaction. No call
//! fails; every total a search answers is the old catalogue's or the new one's, never one of
//! half a load; and once the seed is done, each replica answers what a server started
//! afterwards answers, although both had searched the old catalogue (so they forgot what they
//! kept about it).
//!
//! It is marked ignored where PostgreSQL is not installed (outside CI).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

use test_support::postgres_cluster::cluster;
use test_support::{HttpServer, TempDir, binary};

/// What `seed` loads instead of the demo set, big enough that the load takes a while.
const NEW_MOVIES: u64 = 4000;
const NEW_AUTHORS: u64 = 600;
const NEW_REVIEWS: u64 = 30_000;

/// Terms the replicas search for, before, during and after the seed.
const TERMS: &[&str] = &["the", "night", "in ", "ros"];

/// What was asked (tool and arguments) and the total it answered, for each search of a round.
type Totals = Vec<(String, u64)>;

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_under_serving_replicas_shows_the_old_data_or_the_new_and_fails_no_call() {
    let cluster = cluster();
    let dir = TempDir::new("postgres-seed");
    let url = cluster.new_database();
    let replicas: Arc<Vec<HttpServer>> = Arc::new(
        (0..2)
            .map(|_| HttpServer::start(dir.path(), Path::new(&url), &[]))
            .collect(),
    );
    // Each replica searches the old catalogue, and keeps what it learns about it.
    let old_totals = totals(&replicas[0]).await;
    assert_eq!(totals(&replicas[1]).await, old_totals);
    let movie =
        ok(call(&replicas[0], "movies_search", json!({ "limit": 1 })).await)["items"][0]["id"]
            .clone();
    let author = ok(call(&replicas[0], "authors_search", json!({ "limit": 1 })).await)["items"][0]
        ["id"]
        .clone();

    let seeding = Arc::new(AtomicBool::new(true));
    let clients: Vec<_> = (0..4)
        .map(|index| {
            let replicas = Arc::clone(&replicas);
            let seeding = Arc::clone(&seeding);
            let write = json!({ "stars": 4, "movieId": movie, "authorId": author });
            tokio::spawn(async move {
                let replica = &replicas[index % 2];
                let mut seen = Vec::new();
                while seeding.load(Ordering::SeqCst) {
                    seen.push(totals(replica).await);
                    // A review of the old catalogue: saved, or Not Found once it is replaced.
                    match call(replica, "reviews_write", write.clone()).await {
                        Ok(_) => {}
                        Err(text) if text.starts_with("Not Found: ") => {}
                        Err(text) => panic!("a write failed during the seed: {text}"),
                    }
                }
                seen
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_millis(300)).await;
    let seeded = url.clone();
    let seed = tokio::task::spawn_blocking(move || {
        Command::new(binary())
            .args(["seed", "--database", &seeded, "--seed", "7"])
            .args(["--movies", &NEW_MOVIES.to_string()])
            .args(["--authors", &NEW_AUTHORS.to_string()])
            .args(["--reviews", &NEW_REVIEWS.to_string()])
            .output()
            .expect("run seed")
    })
    .await
    .unwrap();
    assert!(
        seed.status.success(),
        "seed failed: {}",
        String::from_utf8_lossy(&seed.stderr)
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    seeding.store(false, Ordering::SeqCst);
    let mut seen: Vec<Totals> = Vec::new();
    for client in clients {
        seen.extend(client.await.expect("a client's calls all succeeded"));
    }

    // A server that never saw the old catalogue.
    let fresh = HttpServer::start(dir.path(), Path::new(&url), &[]);
    let new_totals = totals(&fresh).await;
    assert_eq!(
        (new_totals[0].1, new_totals[1].1),
        (NEW_MOVIES, NEW_AUTHORS),
        "{new_totals:?}"
    );
    // Each search is one snapshot, so its total is the old catalogue's or the new one's. (Of
    // two searches one after the other, the first may see the old and the second the new.)
    let (mut old_seen, mut new_seen) = (0, 0);
    for (round, searches) in seen.iter().enumerate() {
        for (index, search) in searches.iter().enumerate() {
            let (old, new) = (&old_totals[index], &new_totals[index]);
            assert!(
                search == old || search == new,
                "round {round}: {search:?} is neither {old:?} nor {new:?}"
            );
            if old != new {
                old_seen += usize::from(search == old);
                new_seen += usize::from(search == new);
            }
        }
    }
    assert!(
        old_seen > 0 && new_seen > 0,
        "the clients did not search both before and after the load: {old_seen} before, \
         {new_seen} after"
    );
    // Every search, at the start and further in, as the fresh server answers it.
    for term in TERMS {
        for tool in ["movies_search", "authors_search"] {
            for offset in [0, 3] {
                let arguments = json!({ "query": term, "offset": offset, "limit": 5 });
                let expected = ok(call(&fresh, tool, arguments.clone()).await);
                for replica in replicas.iter() {
                    assert_eq!(
                        ok(call(replica, tool, arguments.clone()).await),
                        expected,
                        "{tool} {arguments} after the seed"
                    );
                }
            }
        }
    }
}

/// The totals of browsing the movies and the authors, then of searching each for every term.
async fn totals(replica: &HttpServer) -> Totals {
    let mut asked = vec![("movies_search", json!({})), ("authors_search", json!({}))];
    for term in TERMS {
        for tool in ["movies_search", "authors_search"] {
            asked.push((tool, json!({ "query": term, "limit": 3 })));
        }
    }
    let mut totals = Vec::new();
    for (tool, arguments) in asked {
        let total = ok(call(replica, tool, arguments.clone()).await)["totalCount"]
            .as_u64()
            .expect("a totalCount");
        totals.push((format!("{tool} {arguments}"), total));
    }
    totals
}

/// `tools/call` of `tool` with `arguments` to `server`: its structuredContent, or its error text.
async fn call(server: &HttpServer, tool: &str, arguments: Value) -> Result<Value, String> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": tool, "arguments": arguments },
    });
    let response = server.post(None, &body).await;
    assert_eq!(response.status(), 200, "{tool}");
    let message: Value = response.json().await.expect("a JSON answer");
    let result = &message["result"];
    if result["isError"] == false {
        Ok(result["structuredContent"].clone())
    } else {
        Err(result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned())
    }
}

fn ok(answer: Result<Value, String>) -> Value {
    answer.unwrap_or_else(|text| panic!("a call failed: {text}"))
}
