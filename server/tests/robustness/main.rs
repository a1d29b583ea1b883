//! The server's robustness promises, checked against the built binary over stdio on real
//! temporary database files:
//!
//! - hostile protocol input is answered as JSON-RPC prescribes or ignored, memory stays bounded,
//!   and the next request is still answered;
//! - several server processes writing and reading one file at once never fail and lose nothing;
//! - writes sent together are committed together, and one that fails fails alone;
//! - a server killed (SIGKILL) in the middle of writes leaves an intact file holding every write
//!   it acknowledged;
//! - a database that fails under a call gives the client only `Error: Something unexpected
//!   happened. Reference: …`, logs the cause under that reference, and the server keeps serving;
//! - stdin EOF, SIGTERM and SIGINT each end the server with status 0, after answering the call in
//!   flight, with the write-ahead log checkpointed.
//!
//! Each promise is checked in a module of its own (`hostile_input`, `processes`, `crashes`,
//! `failures`, `shutdown`); what they share is here.
//!
//! The crash test runs 5 kill-and-restart cycles by default. A longer run:
//!
//! ```sh
//! CRASH_CYCLES=200 cargo test -p movie-reviews-mcp --test robustness crash -- --nocapture
//! ```
//!
//! Random choices (which movies, when to kill) come from a seed printed by each test; set
//! `ROBUSTNESS_SEED` to replay one. `--nocapture` shows the figures (peak memory, writes
//! checked, cycles survived).

mod crashes;
mod failures;
mod hostile_input;
mod processes;
mod shutdown;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use movie_reviews_mcp::demo::SplitMix64;
use serde_json::{Value, json};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

use test_support::Session;

/// The demo data a new database is filled with.
const DEMO_MOVIES: usize = 200;
const DEMO_REVIEWS: u64 = 1000;

/// What the robustness tests ask of a session beyond the shared ones.
trait StillServing {
    /// The server answers a ping and a tool call correctly.
    fn still_serving(&mut self);
}

impl StillServing for Session {
    fn still_serving(&mut self) {
        let id = self.id();
        let pong = self.server.result(id, "ping", json!({}));
        assert_eq!(pong, json!({}), "ping answers an empty result");
        let page = self.call_ok("movies_search", json!({"limit": 2}));
        assert_eq!(page["items"].as_array().map(Vec::len), Some(2), "{page}");
        assert_eq!(page["totalCount"], DEMO_MOVIES, "{page}");
    }
}

/// Ids found through the tools.
struct Catalogue {
    movies: Vec<String>,
    authors: Vec<String>,
    /// The first two pages of reviews.
    reviews: Vec<String>,
}

impl Catalogue {
    fn discover(session: &mut Session) -> Catalogue {
        let ids = |items: Vec<Value>| -> Vec<String> {
            items
                .iter()
                .map(|item| item["id"].as_str().expect("an id").to_owned())
                .collect()
        };
        let movies = ids(session.all_pages("movies_search"));
        let authors = ids(session.all_pages("authors_search"));
        let mut reviews = Vec::new();
        for offset in [0, 50] {
            let page = session.call_ok("reviews_list", json!({"offset": offset, "limit": 50}));
            reviews.extend(ids(page["items"].as_array().expect("items").clone()));
        }
        assert!(!movies.is_empty() && !authors.is_empty() && !reviews.is_empty());
        Catalogue {
            movies,
            authors,
            reviews,
        }
    }
}

/// A runtime for the sqlx calls the tests make beside the server.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A connection of the test's own to the database (which must exist), waiting for locks as the
/// server does.
async fn connect(database: &Path) -> SqliteConnection {
    let options = SqliteConnectOptions::new()
        .filename(database)
        .busy_timeout(Duration::from_secs(30));
    SqliteConnection::connect_with(&options)
        .await
        .expect("open the database with sqlx")
}

/// `ROBUSTNESS_SEED`, or one from the clock; printed so that a failure can be replayed.
fn seed(test: &str) -> u64 {
    let seed = std::env::var("ROBUSTNESS_SEED")
        .ok()
        .map(|text| text.parse().expect("ROBUSTNESS_SEED is a number"))
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos() as u64)
        });
    println!("{test}: ROBUSTNESS_SEED={seed}");
    seed
}

/// `items` in a random order (Fisher–Yates).
fn shuffle<T>(rng: &mut SplitMix64, items: &mut [T]) {
    for index in (1..items.len()).rev() {
        items.swap(index, rng.below(index + 1));
    }
}
