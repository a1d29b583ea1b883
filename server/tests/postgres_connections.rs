//! How the PostgreSQL store lends its connections, checked on the tests' throwaway PostgreSQL
//! server (`test_support::postgres_cluster`), each on a store of a single connection:
//!
//! - a call dropped while its statement waits (a client that cancelled, a request that timed
//!   out) gives its connection's slot back and leaves no half-read answer behind, so the next
//!   call gets its own answer at once rather than waiting for a slot that never comes back;
//! - a statement that runs past the statement timeout is cancelled and its call fails, rather
//!   than holding the connection for as long as it runs, and the next call is served.
//!
//! They are marked ignored where PostgreSQL is not installed (outside CI).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use sqlx::{Connection as _, PgConnection};
use store::{Database, Store};

use test_support::postgres_cluster::cluster;

/// How long the first call may wait on the lock before it is dropped.
const DROPPED_AFTER: Duration = Duration::from_millis(300);

/// Well under the store's 10 s wait for a connection: a slot that did not come back would make
/// the next call wait that long, and fail.
const ANSWERED_WITHIN: Duration = Duration::from_secs(5);

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_while_its_statement_waits_frees_its_connection_for_the_next() {
    let cluster = cluster();
    let url = cluster.new_database();
    let store = open(one_connection(&url)).await;
    let (first, _) = store.search_movies(None, 0, 2, false).await.unwrap();
    let [waiting, next] = [&first.items[0], &first.items[1]];

    let holder = hold_movies(&url).await;
    let dropped = tokio::time::timeout(DROPPED_AFTER, store.movie_with_reviews(waiting.id)).await;
    assert!(dropped.is_err(), "the read did not wait for the lock");
    release(holder).await;

    let started = Instant::now();
    let answer = tokio::time::timeout(ANSWERED_WITHIN, store.movie_with_reviews(next.id))
        .await
        .expect("the next call got no connection: the dropped call kept its slot")
        .expect("the next call failed");
    let (movie, _) = answer.expect("the movie exists");
    assert_eq!(
        movie.id, next.id,
        "the next call read another call's answer"
    );
    assert_eq!(movie.title, next.title);
    eprintln!(
        "the next call answered in {:.1?} on a store of one connection",
        started.elapsed()
    );
    store.close().await;
}

/// The statement timeout of the store in the test below: short, so the test is quick, and
/// long enough for any statement that is not held up.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(1);

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_past_the_timeout_is_cancelled_and_the_connection_serves_the_next_call() {
    let cluster = cluster();
    let url = cluster.new_database();
    let store = open(one_connection(&url).with_statement_timeout(STATEMENT_TIMEOUT)).await;
    let (first, _) = store.search_movies(None, 0, 1, false).await.unwrap();
    let movie = &first.items[0];

    // Held for longer than the timeout.
    let holder = hold_movies(&url).await;
    let started = Instant::now();
    let held_up = tokio::time::timeout(ANSWERED_WITHIN, store.movie_with_reviews(movie.id))
        .await
        .expect("the statement ran on past its timeout");
    let waited = started.elapsed();
    let Err(error) = held_up else {
        panic!("the held-up read succeeded: {held_up:?}");
    };
    // PostgreSQL times the statement itself, so the wait seen here can fall a little short of
    // the timeout; the error says which limit ended it.
    assert!(
        format!("{error:?}").contains("statement timeout") && waited >= STATEMENT_TIMEOUT / 2,
        "the read failed after {waited:?}, not for the timeout: {error:?}"
    );
    release(holder).await;

    let answer = tokio::time::timeout(ANSWERED_WITHIN, store.movie_with_reviews(movie.id))
        .await
        .expect("the next call got no connection")
        .expect("the next call failed");
    let (read, _) = answer.expect("the movie exists");
    assert_eq!(read.id, movie.id);
    eprintln!("the held-up read failed after {waited:.1?}; the next call was served");
    store.close().await;
}

/// The database at `url`, through a single connection.
fn one_connection(url: &str) -> Database {
    Database::named(PathBuf::from(url))
        .expect("a PostgreSQL URL")
        .with_pool_size(1)
}

async fn open(database: Database) -> Store {
    movie_reviews_mcp::commands::open_or_create(&database)
        .await
        .expect("the store opens and fills the demo data")
}

/// A session of its own that holds the movies table, so that a read of it waits until the
/// session is [released](release).
async fn hold_movies(url: &str) -> PgConnection {
    let mut holder = PgConnection::connect(url).await.unwrap();
    sqlx::raw_sql("BEGIN; LOCK TABLE movies IN ACCESS EXCLUSIVE MODE")
        .execute(&mut holder)
        .await
        .unwrap();
    holder
}

async fn release(mut holder: PgConnection) {
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut holder)
        .await
        .unwrap();
}
