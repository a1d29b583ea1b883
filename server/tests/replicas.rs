//! Several servers (replicas) on one PostgreSQL database, checked against the built binary on
//! the tests' throwaway PostgreSQL server (`test_support::postgres_cluster`): three replicas serving
//! HTTP take creates, star changes and deletes from concurrent clients, all on the same few
//! movies, authors and reviews so that they contend on the counters; one replica is killed
//! (SIGKILL) while calls to it are in flight; the other two never fail a call, both show every
//! acknowledged write, and every touched movie's and author's review count and average agree
//! with the reviews listed for it.
//!
//! It is marked ignored where PostgreSQL is not installed (outside CI). Starting replicas together, and a database away at start-up, are checked in
//! `postgres_startup.rs`; the database going away under a running server in
//! `postgres_outage.rs`, since it stops the cluster, which every test of one binary shares.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use test_support::postgres_cluster::cluster;
use test_support::{HttpServer, READ_TIMEOUT, TempDir, http_client};

/// The contention test: replicas, client tasks, calls per client, and how many movies and
/// authors every client writes reviews for.
const REPLICAS: usize = 3;
const CLIENTS: usize = 3;
const CALLS_PER_CLIENT: usize = 40;
const MOVIES: usize = 3;
const AUTHORS: usize = 2;
/// Demo reviews of each movie whose stars every client changes.
const SHARED_PER_MOVIE: usize = 2;
/// The replica killed mid-way.
const VICTIM: usize = 0;
/// Creates sent to the victim all at once just before its kill.
const BURST: usize = 4;

// ---------------------------------------------------------------------------------------------
// Tests

/// Three replicas over HTTP on one database, clients writing through all three at once, one
/// replica killed mid-way: nothing acknowledged is lost, the counters stay right, and the
/// surviving replicas never notice.
#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_lose_no_acknowledged_write_when_one_is_killed_mid_call() {
    let cluster = cluster();
    let dir = TempDir::new("replicas-http");
    let url = cluster.new_database();
    // The first start fills the database; the others find it full.
    let mut servers: Vec<HttpServer> = (0..REPLICAS)
        .map(|_| HttpServer::start(dir.path(), Path::new(&url), &[]))
        .collect();
    let urls: Vec<String> = servers.iter().map(HttpServer::url).collect();
    let survivors: Vec<usize> = (0..REPLICAS).filter(|&index| index != VICTIM).collect();
    let client = http_client();

    // What the clients write about, and how it stood before.
    let reader = &urls[survivors[0]];
    let movies =
        ok(call(&client, reader, "movies_search", json!({"limit": MOVIES})).await)["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|movie| id_of(&movie["id"]))
            .collect::<Vec<_>>();
    let authors =
        ok(call(&client, reader, "authors_search", json!({"limit": AUTHORS})).await)["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|author| id_of(&author["id"]))
            .collect::<Vec<_>>();
    assert_eq!((movies.len(), authors.len()), (MOVIES, AUTHORS));
    let reviews_before = total_reviews(&client, reader).await;
    let mut demo_reviews: HashMap<String, BTreeMap<String, u8>> = HashMap::new();
    let mut shared = Vec::new();
    for movie in &movies {
        let reviews = reviews_of_movie(&client, reader, movie).await;
        shared.extend(
            reviews
                .iter()
                .take(SHARED_PER_MOVIE)
                .map(|(id, stars)| (id.clone(), *stars)),
        );
        demo_reviews.insert(movie.clone(), reviews);
    }
    assert!(!shared.is_empty(), "the demo movies have reviews");

    let state = Arc::new(Workload {
        urls: urls.clone(),
        client: client.clone(),
        movies: movies.clone(),
        authors,
        shared: shared.iter().map(|(id, _)| id.clone()).collect(),
        killed: AtomicBool::new(false),
        in_flight_to_victim: AtomicUsize::new(0),
        calls_done: AtomicUsize::new(0),
    });
    let clients: Vec<_> = (0..CLIENTS)
        .map(|index| tokio::spawn(run_client(Arc::clone(&state), index)))
        .collect();

    // Mid-way, kill the victim while calls to it are in flight: the clients send every third
    // call there, and a burst of creates goes there too, so that the kill most likely finds
    // some calls inside their statements rather than only on the wire. The flag goes up first,
    // so that the clients send no new call there and know that a call to it without an answer
    // may or may not have happened.
    let victim = servers.remove(VICTIM);
    let started = Instant::now();
    while state.calls_done.load(Ordering::SeqCst) < CLIENTS * CALLS_PER_CLIENT / 2 {
        assert!(started.elapsed() < READ_TIMEOUT, "the clients are stuck");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let burst: Vec<_> = (0..BURST)
        .map(|index| {
            let workload = Arc::clone(&state);
            tokio::spawn(async move {
                let mut log = ClientLog::default();
                let stars = 1 + (index % 5) as u8;
                workload.create(VICTIM, index, index, stars, &mut log).await;
                log
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(2)).await;
    while state.in_flight_to_victim.load(Ordering::SeqCst) == 0 {
        assert!(
            started.elapsed() < READ_TIMEOUT,
            "no call to the victim is in flight"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    state.killed.store(true, Ordering::SeqCst);
    let in_flight_at_kill = state.in_flight_to_victim.load(Ordering::SeqCst);
    // Dropping the server sends it SIGKILL and reaps it.
    drop(victim);

    let mut logs = Vec::new();
    for task in clients.into_iter().chain(burst) {
        logs.push(task.await.expect("a client task"));
    }
    let failures: Vec<&String> = logs.iter().flat_map(|log| &log.failures).collect();
    assert!(
        failures.is_empty(),
        "calls failed that should have succeeded:\n{failures:#?}"
    );
    let unanswered: usize = logs.iter().map(|log| log.unanswered).sum();
    eprintln!(
        "{in_flight_at_kill} call(s) in flight to the replica at its kill; {unanswered} left \
         unanswered"
    );

    // What the acknowledged writes imply, review by review.
    let mut expected: HashMap<String, Expected> = HashMap::new();
    let mut unanswered_creates: HashMap<String, usize> = HashMap::new();
    for log in &logs {
        for mine in &log.mine {
            expected.insert(
                mine.id.clone(),
                Expected {
                    movie: mine.movie.clone(),
                    stars: mine.possible_stars(),
                    presence: mine.presence,
                },
            );
        }
        for (movie, count) in &log.unanswered_creates {
            *unanswered_creates.entry(movie.clone()).or_default() += count;
        }
    }
    for (id, stars) in &shared {
        let mut acknowledged: BTreeSet<u8> = BTreeSet::new();
        let mut unanswered: BTreeSet<u8> = BTreeSet::new();
        for log in &logs {
            if let Some(changes) = log.shared_acknowledged.get(id) {
                acknowledged.extend(changes);
            }
            if let Some(changes) = log.shared_unanswered.get(id) {
                unanswered.extend(changes);
            }
        }
        // The last change to commit wins, and the clients' changes race: any acknowledged
        // value, or any unanswered one (it may have committed last); the first value only when
        // no change was acknowledged.
        if acknowledged.is_empty() {
            acknowledged.insert(*stars);
        }
        acknowledged.extend(unanswered);
        let movie = demo_reviews
            .iter()
            .find(|(_, reviews)| reviews.contains_key(id))
            .map(|(movie, _)| movie.clone())
            .expect("a shared review's movie");
        expected.insert(
            id.clone(),
            Expected {
                movie,
                stars: acknowledged,
                presence: Presence::Live,
            },
        );
    }

    // A statement the victim had sent may still be running in PostgreSQL (waiting for a lock):
    // let it end before reading, so that both survivors read the same final state.
    let started = Instant::now();
    loop {
        let active: i64 = cluster
            .query(
                &url,
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND backend_type = 'client backend'
                   AND state <> 'idle' AND pid <> pg_backend_pid()",
            )
            .unwrap()
            .parse()
            .unwrap();
        if active == 0 {
            break;
        }
        assert!(
            started.elapsed() < READ_TIMEOUT,
            "{active} statements still run in the database"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // Each surviving replica shows the same, and what the acknowledged writes imply.
    let mut extras = 0;
    let mut answers: Vec<Value> = Vec::new();
    for &replica in &survivors {
        let url = &urls[replica];
        let mut seen = Vec::new();
        let mut count_change: i64 = 0;
        for movie in &movies {
            let got = ok(call(&client, url, "movies_get", json!({"movieId": movie})).await);
            let what = format!("movie {movie} on replica {replica}");
            check_counts(&got, &what);
            let listed = reviews_of_movie(&client, url, movie).await;
            let in_movie: BTreeMap<String, u8> = got["reviews"]
                .as_array()
                .expect("reviews")
                .iter()
                .map(|review| (id_of(&review["id"]), stars_of(review)))
                .collect();
            assert_eq!(
                listed, in_movie,
                "{what}: reviews_list and movies_get differ"
            );

            let demo = &demo_reviews[movie];
            let mut extra = 0;
            for (id, stars) in &listed {
                match expected.get(id) {
                    Some(review) => assert!(
                        review.presence != Presence::Deleted,
                        "{what}: review {id} is listed, though its deletion was acknowledged"
                    ),
                    None if demo.get(id) == Some(stars) => {}
                    None if demo.contains_key(id) => {
                        panic!("{what}: demo review {id} changed to {stars} stars")
                    }
                    None => extra += 1,
                }
            }
            for (id, stars) in demo {
                assert!(listed.contains_key(id), "{what}: demo review {id} is gone");
                if !expected.contains_key(id) {
                    assert_eq!(listed[id], *stars, "{what}: demo review {id}");
                }
            }
            for (id, review) in expected.iter().filter(|(_, review)| &review.movie == movie) {
                match listed.get(id) {
                    Some(stars) => assert!(
                        review.stars.contains(stars),
                        "{what}: review {id} has {stars} stars, not one of {:?}",
                        review.stars
                    ),
                    None => assert!(
                        review.presence != Presence::Live,
                        "{what}: acknowledged review {id} is missing"
                    ),
                }
            }
            // A review nobody knows of can only come from a create whose answer was lost.
            let allowed = unanswered_creates.get(movie).copied().unwrap_or(0);
            assert!(
                extra <= allowed,
                "{what}: {extra} reviews nobody acknowledged, but only {allowed} creates went \
                 unanswered"
            );
            if replica == survivors[0] {
                extras += extra;
            }
            count_change += listed.len() as i64 - demo.len() as i64;
            seen.push(got);
        }
        let authors = ok(call(
            &client,
            url,
            "authors_search",
            json!({"limit": AUTHORS, "includeReviews": true}),
        )
        .await);
        for author in authors["items"].as_array().expect("items") {
            check_counts(
                author,
                &format!("author {} on replica {replica}", author["id"]),
            );
        }
        // The total counter too: only the touched movies gained or lost reviews.
        assert_eq!(
            total_reviews(&client, url).await as i64,
            reviews_before as i64 + count_change,
            "the total review count on replica {replica}"
        );
        seen.push(authors);
        answers.push(Value::Array(seen));
    }
    assert!(
        answers.windows(2).all(|pair| pair[0] == pair[1]),
        "the surviving replicas differ:\n{answers:#?}"
    );
    eprintln!("{extras} of the unanswered creates were committed all the same");
    for mut server in servers {
        server.terminate_and_expect_success();
    }
}

// ---------------------------------------------------------------------------------------------
// The contention workload

/// What the clients share: where the replicas are, what to write about, and the kill.
struct Workload {
    urls: Vec<String>,
    client: reqwest::Client,
    movies: Vec<String>,
    authors: Vec<String>,
    /// Demo reviews whose stars every client changes.
    shared: Vec<String>,
    /// Raised just before the victim is killed.
    killed: AtomicBool,
    in_flight_to_victim: AtomicUsize,
    calls_done: AtomicUsize,
}

/// What one client did, and what it implies.
#[derive(Default)]
struct ClientLog {
    /// The reviews it created (and got an answer for).
    mine: Vec<Mine>,
    /// The stars of its changes to shared reviews: answered, and unanswered.
    shared_acknowledged: HashMap<String, BTreeSet<u8>>,
    shared_unanswered: HashMap<String, BTreeSet<u8>>,
    /// Creates whose answer was lost, by movie: each may have happened.
    unanswered_creates: HashMap<String, usize>,
    /// Calls to the victim that got no answer once it was killed.
    unanswered: usize,
    /// Calls that failed though they should not have: any call to a survivor that did not
    /// succeed, and any call to the victim that did not succeed before its kill.
    failures: Vec<String>,
}

/// A review a client created.
struct Mine {
    id: String,
    movie: String,
    /// The stars of the last acknowledged write.
    stars: u8,
    /// The stars of unanswered changes: the statement may still have committed, even after
    /// a later acknowledged change, if PostgreSQL was running it when the replica died.
    unanswered_stars: BTreeSet<u8>,
    presence: Presence,
}

impl Mine {
    fn possible_stars(&self) -> BTreeSet<u8> {
        let mut stars = self.unanswered_stars.clone();
        stars.insert(self.stars);
        stars
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Presence {
    Live,
    Deleted,
    /// Its deletion went unanswered.
    Maybe,
}

/// What must be true of one review at the end.
struct Expected {
    movie: String,
    stars: BTreeSet<u8>,
    presence: Presence,
}

/// One client: creates reviews of the shared movies, changes the stars of the shared reviews
/// and of its own, deletes its own, each call on the next replica in turn.
async fn run_client(workload: Arc<Workload>, index: usize) -> ClientLog {
    let mut log = ClientLog::default();
    for step in 0..CALLS_PER_CLIENT {
        let turn = index + step;
        let stars = 1 + ((index * 3 + step * 7) % 5) as u8;
        let live: Vec<usize> = (0..log.mine.len())
            .filter(|&mine| log.mine[mine].presence == Presence::Live)
            .collect();
        match step % 4 {
            1 => {
                let review = &workload.shared[turn % workload.shared.len()];
                let arguments = json!({"reviewId": review, "stars": stars});
                let answered = workload
                    .write(turn, "reviews_write", arguments, &mut log)
                    .await;
                let changes = if answered.is_some() {
                    &mut log.shared_acknowledged
                } else {
                    &mut log.shared_unanswered
                };
                changes.entry(review.clone()).or_default().insert(stars);
            }
            2 if !live.is_empty() => {
                let mine = live[live.len() - 1];
                let arguments = json!({"reviewId": log.mine[mine].id, "stars": stars});
                let answered = workload
                    .write(turn, "reviews_write", arguments, &mut log)
                    .await;
                let mine = &mut log.mine[mine];
                match answered {
                    Some(_) => mine.stars = stars,
                    None => {
                        mine.unanswered_stars.insert(stars);
                    }
                }
            }
            3 if live.len() >= 2 => {
                let mine = live[0];
                let arguments = json!({"reviewId": log.mine[mine].id});
                let answered = workload
                    .write(turn, "reviews_delete", arguments, &mut log)
                    .await;
                log.mine[mine].presence = match answered {
                    Some(_) => Presence::Deleted,
                    // Never touched again: it may be gone.
                    None => Presence::Maybe,
                };
            }
            _ => {
                let author = step / 4 + index;
                workload.create(turn, turn, author, stars, &mut log).await;
            }
        }
        workload.calls_done.fetch_add(1, Ordering::SeqCst);
    }
    log
}

impl Workload {
    /// Creates a review of the `movie`th movie by the `author`th author (each modulo how many
    /// there are) on the replica whose turn it is, and notes it in `log`.
    async fn create(
        &self,
        turn: usize,
        movie: usize,
        author: usize,
        stars: u8,
        log: &mut ClientLog,
    ) {
        let movie = &self.movies[movie % self.movies.len()];
        let author = &self.authors[author % self.authors.len()];
        let arguments = json!({"movieId": movie, "authorId": author, "stars": stars});
        match self.write(turn, "reviews_write", arguments, log).await {
            Some(review) => log.mine.push(Mine {
                id: id_of(&review["id"]),
                movie: movie.clone(),
                stars,
                unanswered_stars: BTreeSet::new(),
                presence: Presence::Live,
            }),
            None => *log.unanswered_creates.entry(movie.clone()).or_default() += 1,
        }
    }

    /// Calls `tool` on the replica whose turn it is (a survivor once the victim is down):
    /// its structuredContent when it succeeded, `None` when the answer never came or the call
    /// failed (a failure is also recorded in `log`).
    async fn write(
        &self,
        turn: usize,
        tool: &str,
        arguments: Value,
        log: &mut ClientLog,
    ) -> Option<Value> {
        let mut replica = turn % self.urls.len();
        if replica == VICTIM && self.killed.load(Ordering::SeqCst) {
            replica = (VICTIM + 1 + turn % (self.urls.len() - 1)) % self.urls.len();
        }
        if replica == VICTIM {
            self.in_flight_to_victim.fetch_add(1, Ordering::SeqCst);
        }
        let answer = call(&self.client, &self.urls[replica], tool, arguments.clone()).await;
        if replica == VICTIM {
            self.in_flight_to_victim.fetch_sub(1, Ordering::SeqCst);
        }
        match answer {
            Answer::Ok(result) => Some(result),
            // The victim died under it: it may or may not have happened.
            Answer::Lost(_) if replica == VICTIM && self.killed.load(Ordering::SeqCst) => {
                log.unanswered += 1;
                None
            }
            Answer::Lost(why) | Answer::Refused(why) => {
                log.failures
                    .push(format!("{tool} {arguments} on replica {replica}: {why}"));
                None
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// What a `tools/call` over HTTP came to.
enum Answer {
    /// The tool succeeded: its structuredContent.
    Ok(Value),
    /// An answer that is not a success: a tool error, a JSON-RPC error, an HTTP error status.
    Refused(String),
    /// No answer: the connection failed, or nothing came within `READ_TIMEOUT`.
    Lost(String),
}

/// `tools/call` of `tool` POSTed to `url` (the servers run without authentication on loopback).
async fn call(client: &reqwest::Client, url: &str, tool: &str, arguments: Value) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    let exchange = async {
        let response = client
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await?;
        let status = response.status();
        Ok::<_, reqwest::Error>((status, response.text().await?))
    };
    let (status, text) = match tokio::time::timeout(READ_TIMEOUT, exchange).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(error)) => return Answer::Lost(format!("{error:?}")),
        Err(_) => return Answer::Lost(format!("no answer within {READ_TIMEOUT:?}")),
    };
    if status != 200 {
        return Answer::Refused(format!("HTTP {status}: {text}"));
    }
    let Ok(message) = serde_json::from_str::<Value>(&text) else {
        return Answer::Refused(format!("not JSON: {text}"));
    };
    let result = &message["result"];
    if result["isError"] != false {
        return Answer::Refused(format!("{message}"));
    }
    Answer::Ok(result["structuredContent"].clone())
}

/// The structuredContent of a call that must succeed.
fn ok(answer: Answer) -> Value {
    match answer {
        Answer::Ok(result) => result,
        Answer::Refused(why) | Answer::Lost(why) => panic!("a call failed: {why}"),
    }
}

/// Every review of `movie`, page by page, as id → stars.
async fn reviews_of_movie(
    client: &reqwest::Client,
    url: &str,
    movie: &str,
) -> BTreeMap<String, u8> {
    let mut reviews = BTreeMap::new();
    let mut offset = 0;
    loop {
        let arguments = json!({"movieId": movie, "offset": offset, "limit": 50});
        let page = ok(call(client, url, "reviews_list", arguments).await);
        for review in page["items"].as_array().expect("items") {
            reviews.insert(id_of(&review["id"]), stars_of(review));
        }
        match page.get("nextOffset").and_then(Value::as_u64) {
            Some(next) => offset = next,
            None => break,
        }
    }
    reviews
}

/// How many reviews the database holds, by the tools' count.
async fn total_reviews(client: &reqwest::Client, url: &str) -> u64 {
    ok(call(client, url, "reviews_list", json!({"limit": 1})).await)["totalCount"]
        .as_u64()
        .expect("totalCount")
}

/// A movie's or an author's reviewCount and averageStars agree with its reviews, rounded to
/// one decimal half up as the server rounds (`model::average_stars`).
fn check_counts(item: &Value, what: &str) {
    let reviews = item["reviews"].as_array().expect("reviews");
    let count = reviews.len() as u64;
    let total: u64 = reviews
        .iter()
        .map(|review| u64::from(stars_of(review)))
        .sum();
    assert_eq!(item["reviewCount"], count, "{what}: reviewCount: {item}");
    let average = (count > 0).then(|| ((20 * total + count) / (2 * count)) as f64 / 10.0);
    assert_eq!(
        item["averageStars"].as_f64(),
        average,
        "{what}: averageStars: {item}"
    );
}

fn id_of(id: &Value) -> String {
    id.as_str().expect("an id is a string").to_owned()
}

fn stars_of(review: &Value) -> u8 {
    let stars = review["stars"].as_u64().expect("stars");
    u8::try_from(stars).expect("stars fit a byte")
}
