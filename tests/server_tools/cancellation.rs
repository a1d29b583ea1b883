//! Cancelled writes: a write whose call the client cancels while the database holds it back
//! leaves nothing behind, and the server writes on for everyone else.
//!
//! The test holds the database's writes back itself (SQLite: a `BEGIN IMMEDIATE` of its own on
//! the file; PostgreSQL: a lock on `reviews`), so that the call is cancelled mid-write, then
//! lets the writes go once the server has seen the cancellation.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sqlx::Connection;
use store::Database;
use test_support::postgres_cluster;

use crate::client::{Backend, Client, new_sqlite_file};
use crate::fixture::*;

/// How long a test waits for the server to reach a point it cannot be told about.
const PATIENCE: Duration = Duration::from_secs(20);

async fn a_cancelled_new_review_is_not_saved(backend: Backend) {
    let (client, database) = client_on(backend).await;
    let before = review_count(&client).await;
    let review = json!({ "stars": 5, "movieId": ZEBRA, "authorId": QUIET });
    cancel_while_writes_are_held(&client, &database, "reviews_write", review.clone()).await;

    // The server writes on: the next write is saved, and only it.
    client.ok("reviews_write", review).await;
    assert_eq!(review_count(&client).await, before + 1);
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(zebra["reviewCount"], json!(1), "the counts moved once");
}

async fn a_cancelled_delete_deletes_nothing(backend: Backend) {
    let (client, database) = client_on(backend).await;
    let before = review_count(&client).await;
    let review = client.ok("reviews_list", json!({ "limit": 1 })).await["items"][0]["id"].clone();
    let delete = json!({ "reviewId": review });
    cancel_while_writes_are_held(&client, &database, "reviews_delete", delete).await;

    // A later write is decided after the cancelled one: once it is saved, the delete is over.
    let other = json!({ "stars": 5, "movieId": ZEBRA, "authorId": QUIET });
    client.ok("reviews_write", other).await;
    assert_eq!(review_count(&client).await, before + 1);
    let still = client
        .ok("reviews_list", json!({ "reviewId": review }))
        .await;
    assert_eq!(still["totalCount"], json!(1), "the review is still there");
}

/// Calls `tool` while the test holds the database's writes back, cancels the call once its
/// write waits on the database, and lets the writes go once the server has stopped the call.
async fn cancel_while_writes_are_held(
    client: &Client,
    database: &Held,
    tool: &'static str,
    arguments: Value,
) {
    let mut hold = database.hold_writes().await;
    let mut call = client.session.start(tool, arguments);
    hold.until_a_write_waits().await;
    call.cancel().await;
    // The server reads its messages in order, and the test runtime runs its tasks in the order
    // they were woken: once a later call is answered, the cancelled one has stopped.
    client.ok("movies_search", json!({ "limit": 1 })).await;
    hold.release().await;
}

/// A server on a new database of `backend` holding the fixture, and what holds that database's
/// writes back.
async fn client_on(backend: Backend) -> (Client, Held) {
    let (database, held, guard) = match backend {
        Backend::Sqlite => {
            let (path, guard) = new_sqlite_file("cancelled.db");
            (Database::Sqlite(path.clone()), Held::Sqlite(path), guard)
        }
        Backend::Postgres => {
            let url = postgres_cluster::cluster().new_database();
            let database = Database::named(PathBuf::from(&url)).unwrap();
            // The database goes with the cluster; the folder guard only keeps the type.
            let (_, guard) = new_sqlite_file("unused");
            (database, Held::Postgres(url), guard)
        }
    };
    let client = Client::loaded(&database, guard, &movies(), &authors(), &reviews()).await;
    (client, held)
}

/// A test's database, to hold its writes back from outside the server.
enum Held {
    Sqlite(PathBuf),
    Postgres(String),
}

/// Writes held back until [`Hold::release`].
enum Hold {
    /// An open `BEGIN IMMEDIATE` transaction: the server's writer waits for the file's lock.
    Sqlite(sqlx::SqliteConnection),
    /// A transaction holding `reviews` in SHARE mode: reads go on, writes wait; and a second
    /// connection, to watch the server's.
    Postgres(sqlx::PgConnection, sqlx::PgConnection),
}

impl Held {
    async fn hold_writes(&self) -> Hold {
        match self {
            Held::Sqlite(path) => {
                let mut connection = sqlite_connection(path).await;
                sqlx::raw_sql("BEGIN IMMEDIATE")
                    .execute(&mut connection)
                    .await
                    .unwrap();
                Hold::Sqlite(connection)
            }
            Held::Postgres(url) => {
                let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
                sqlx::raw_sql("BEGIN; LOCK TABLE reviews IN SHARE MODE")
                    .execute(&mut connection)
                    .await
                    .unwrap();
                let watch = sqlx::PgConnection::connect(url).await.unwrap();
                Hold::Postgres(connection, watch)
            }
        }
    }
}

impl Hold {
    /// Returns once the server's write waits on the database.
    async fn until_a_write_waits(&mut self) {
        match self {
            // SQLite tells no one who waits for its lock: the write is given the time to reach
            // the writer's thread. Were it slower, the call would be cancelled before its
            // write was queued, which must leave nothing behind all the same.
            Hold::Sqlite(_) => tokio::time::sleep(Duration::from_millis(300)).await,
            Hold::Postgres(_, watch) => {
                let waiting = "SELECT count(*) FROM pg_stat_activity \
                               WHERE wait_event_type = 'Lock' AND backend_type = 'client backend' \
                               AND datname = current_database()";
                wait_for(watch, waiting, 1).await;
            }
        }
    }

    /// Lets the writes go, and returns once the cancelled write is over.
    async fn release(self) {
        match self {
            Hold::Sqlite(mut connection) => {
                sqlx::raw_sql("ROLLBACK")
                    .execute(&mut connection)
                    .await
                    .unwrap();
            }
            Hold::Postgres(mut connection, mut watch) => {
                sqlx::raw_sql("ROLLBACK")
                    .execute(&mut connection)
                    .await
                    .unwrap();
                // The server closed the cancelled write's connection; its backend ends (and
                // its transaction with it) once the lock lets it see that. Until then it is
                // running or idle in its transaction; the server's other connections are idle.
                let writing = "SELECT count(*) FROM pg_stat_activity \
                               WHERE backend_type = 'client backend' AND state <> 'idle' \
                               AND pid <> pg_backend_pid() AND datname = current_database()";
                wait_for(&mut watch, writing, 0).await;
            }
        }
    }
}

async fn sqlite_connection(path: &Path) -> sqlx::SqliteConnection {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap()
}

/// Polls the count `sql` on `connection` until it is `wanted`.
async fn wait_for(connection: &mut sqlx::PgConnection, sql: &'static str, wanted: i64) {
    let started = Instant::now();
    loop {
        let count: i64 = sqlx::query_scalar(sql)
            .fetch_one(&mut *connection)
            .await
            .unwrap();
        if count == wanted {
            return;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "`{sql}` still counts {count}, not {wanted}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn review_count(client: &Client) -> u64 {
    let page = client.ok("reviews_list", json!({ "limit": 1 })).await;
    page["totalCount"].as_u64().unwrap()
}

on_every_backend!(
    a_cancelled_new_review_is_not_saved,
    a_cancelled_delete_deletes_nothing,
);
