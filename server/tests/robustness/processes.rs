//! Several server processes writing and reading one file at once never fail and lose nothing;
//! writes sent together are committed together, and one that fails fails alone.

use std::collections::BTreeSet;
use std::thread;
use std::time::Instant;

use movie_reviews_mcp::demo::SplitMix64;
use serde_json::{Value, json};
use sqlx::Connection;
use uuid::Uuid;

use crate::{Catalogue, DEMO_MOVIES, DEMO_REVIEWS, connect, runtime, seed, shuffle};
use test_support::{Server, Session, TempDir, structured, unexpected_reference};

/// How many server processes share the file, and what each is sent at once.
const PROCESSES: usize = 3;
const CREATES_PER_PROCESS: usize = 80;
const STAR_CHANGES_PER_PROCESS: usize = 20;
const READS_PER_PROCESS: usize = 50;

/// What one process was asked to do.
enum Op {
    Create {
        movie: String,
        author: String,
        stars: u64,
    },
    ChangeStars {
        review: String,
        stars: u64,
    },
    GetMovie {
        movie: String,
    },
    ListMovieReviews {
        movie: String,
    },
    ListAuthorReviews {
        author: String,
    },
}

impl Op {
    fn call(&self) -> (&'static str, Value) {
        match self {
            Op::Create {
                movie,
                author,
                stars,
            } => (
                "reviews_write",
                json!({"movieId": movie, "authorId": author, "stars": stars}),
            ),
            Op::ChangeStars { review, stars } => {
                ("reviews_write", json!({"reviewId": review, "stars": stars}))
            }
            Op::GetMovie { movie } => ("movies_get", json!({"movieId": movie})),
            Op::ListMovieReviews { movie } => {
                ("reviews_list", json!({"movieId": movie, "limit": 50}))
            }
            Op::ListAuthorReviews { author } => {
                ("reviews_list", json!({"authorId": author, "limit": 50}))
            }
        }
    }
}

/// Three processes on one new file each pipeline 100 writes and 50 reads: none fails or is lost.
#[test]
fn several_processes_write_and_read_one_new_file_at_once() {
    let seed = seed("several_processes");
    let started = Instant::now();
    let dir = TempDir::new("processes");
    let database = dir.path().join("shared.db");
    // Spawned together, so they race to create, migrate and fill the new file.
    let servers: Vec<Server> = (0..PROCESSES)
        .map(|_| Server::spawn(&database, dir.path()))
        .collect();
    let mut sessions: Vec<Session> = servers.into_iter().map(Session::initialize).collect();
    let catalogue = Catalogue::discover(&mut sessions[0]);
    assert_eq!(catalogue.movies.len(), DEMO_MOVIES, "filled exactly once");
    assert!(catalogue.reviews.len() >= PROCESSES * STAR_CHANGES_PER_PROCESS);
    let listed = sessions[1].call_ok("reviews_list", json!({"limit": 1}));
    assert_eq!(listed["totalCount"], DEMO_REVIEWS, "filled exactly once");

    // Every process gets its whole load written before any answer is read, all at once.
    let created: Vec<Vec<Value>> = thread::scope(|scope| {
        let workers: Vec<_> = sessions
            .iter_mut()
            .enumerate()
            .map(|(index, session)| {
                let mut rng = SplitMix64(seed ^ (index as u64 + 1));
                let catalogue = &catalogue;
                // Each review gets at most one star change: which of two changes at once a
                // review keeps is up to the database (see the test after this one).
                let own = &catalogue.reviews
                    [index * STAR_CHANGES_PER_PROCESS..(index + 1) * STAR_CHANGES_PER_PROCESS];
                scope.spawn(move || run_load(session, catalogue, own, &mut rng))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a load thread"))
            .collect()
    });
    let created: Vec<Value> = created.into_iter().flatten().collect();
    assert_eq!(created.len(), PROCESSES * CREATES_PER_PROCESS);

    // Every created review is there, as another process than its writer sees it.
    let checker = &mut sessions[PROCESSES - 1];
    let calls: Vec<(&str, Value)> = created
        .iter()
        .map(|review| ("reviews_list", json!({"reviewId": review["id"]})))
        .collect();
    for (review, response) in created.iter().zip(checker.pipeline(&calls)) {
        let page = structured(&response, "reviews_list by reviewId");
        assert_eq!(page["totalCount"], 1, "{page}");
        assert_eq!(&page["items"][0], review, "the review as it was created");
    }

    // For every movie a review was created for, the count equals the reviews listed.
    let touched: BTreeSet<&str> = created
        .iter()
        .map(|review| review["movieId"].as_str().expect("a movie id"))
        .collect();
    for movie in &touched {
        let got = checker.call_ok("movies_get", json!({"movieId": movie}));
        let reviews = got["reviews"].as_array().expect("reviews");
        assert_eq!(got["reviewCount"], reviews.len(), "{got}");
        let stars: u64 = reviews.iter().map(|r| r["stars"].as_u64().unwrap()).sum();
        let average = (stars as f64 / reviews.len() as f64 * 10.0).round() / 10.0;
        assert_eq!(got["averageStars"].as_f64(), Some(average), "{got}");
        let listed = checker.call_ok("reviews_list", json!({"movieId": movie, "limit": 1}));
        assert_eq!(listed["totalCount"], got["reviewCount"], "{movie}");
    }

    // And in total: the demo reviews plus the created ones, counted every way.
    let expected = DEMO_REVIEWS + created.len() as u64;
    let all = checker.call_ok("reviews_list", json!({"limit": 1}));
    assert_eq!(all["totalCount"], expected);
    let movie_counts: u64 = checker
        .all_pages("movies_search")
        .iter()
        .map(|movie| movie["reviewCount"].as_u64().unwrap())
        .sum();
    assert_eq!(movie_counts, expected, "movies' reviewCount add up");
    let author_counts: u64 = checker
        .all_pages("authors_search")
        .iter()
        .map(|author| author["reviewCount"].as_u64().unwrap())
        .sum();
    assert_eq!(author_counts, expected, "authors' reviewCount add up");

    for session in sessions {
        session.stop_with_eof();
    }
    println!(
        "{PROCESSES} processes × ({} writes + {READS_PER_PROCESS} reads) at once on one file: \
         {} created reviews checked, {} movies' counts checked, {expected} reviews in total, in \
         {:.1?}",
        CREATES_PER_PROCESS + STAR_CHANGES_PER_PROCESS,
        created.len(),
        touched.len(),
        started.elapsed()
    );
}

/// Sends one process its whole load, then reads every answer; every call must succeed. Changes
/// the stars of each of `own` once. Returns the reviews it created.
fn run_load(
    session: &mut Session,
    catalogue: &Catalogue,
    own: &[String],
    rng: &mut SplitMix64,
) -> Vec<Value> {
    let mut ops = Vec::new();
    for _ in 0..CREATES_PER_PROCESS {
        ops.push(Op::Create {
            movie: rng.pick(&catalogue.movies).clone(),
            author: rng.pick(&catalogue.authors).clone(),
            stars: rng.below(5) as u64 + 1,
        });
    }
    for review in own {
        ops.push(Op::ChangeStars {
            review: review.clone(),
            stars: rng.below(5) as u64 + 1,
        });
    }
    for read in 0..READS_PER_PROCESS {
        ops.push(match read % 3 {
            0 => Op::GetMovie {
                movie: rng.pick(&catalogue.movies).clone(),
            },
            1 => Op::ListMovieReviews {
                movie: rng.pick(&catalogue.movies).clone(),
            },
            _ => Op::ListAuthorReviews {
                author: rng.pick(&catalogue.authors).clone(),
            },
        });
    }
    shuffle(rng, &mut ops);
    let calls: Vec<(&str, Value)> = ops.iter().map(Op::call).collect();
    let responses = session.pipeline(&calls);
    let mut created = Vec::new();
    for (op, response) in ops.iter().zip(responses) {
        let value = structured(&response, "a call under load");
        match op {
            Op::Create {
                movie,
                author,
                stars,
            } => {
                assert_eq!(&value["movieId"], movie, "{value}");
                assert_eq!(&value["authorId"], author, "{value}");
                assert_eq!(&value["stars"], stars, "{value}");
                created.push(value);
            }
            Op::ChangeStars { review, stars } => {
                assert_eq!(&value["id"], review, "{value}");
                assert_eq!(&value["stars"], stars, "{value}");
            }
            Op::GetMovie { movie } => assert_eq!(&value["id"], movie, "{value}"),
            Op::ListMovieReviews { .. } | Op::ListAuthorReviews { .. } => {
                assert!(value["totalCount"].is_u64(), "{value}");
            }
        }
    }
    created
}

/// Star changes of one review sent at once are each answered with the stars that call saved.
#[test]
fn concurrent_star_changes_each_answer_the_stars_they_saved() {
    // One process runs the calls it reads concurrently; "returns the saved review" means the
    // review as this call saved it, not as a concurrent call left it.
    const CHANGES: usize = 30;
    let dir = TempDir::new("star-race");
    let mut session = Session::start(&dir.path().join("race.db"), dir.path());
    let review = session.call_ok("reviews_list", json!({"limit": 1}))["items"][0]["id"].clone();
    let calls: Vec<(&str, Value)> = (0..CHANGES)
        .map(|change| {
            let stars = change % 5 + 1;
            ("reviews_write", json!({"reviewId": review, "stars": stars}))
        })
        .collect();
    let answered: Vec<(u64, u64)> = calls
        .iter()
        .zip(session.pipeline(&calls))
        .map(|((_, arguments), response)| {
            let saved = structured(&response, "a star change");
            (
                arguments["stars"].as_u64().unwrap(),
                saved["stars"].as_u64().unwrap(),
            )
        })
        .collect();
    let wrong = answered.iter().filter(|(sent, got)| sent != got).count();
    assert_eq!(
        wrong, 0,
        "{wrong} of {CHANGES} star changes were answered with stars another call saved \
         (sent, answered): {answered:?}"
    );
    session.stop_with_eof();
}

/// Writes sent together share a transaction (group commit); one that fails fails alone. A
/// trigger of the test's own refuses every review of one movie; of creates sent at once for
/// that movie and another, each of the first is refused and each of the second saved.
#[test]
fn writes_sent_together_commit_together_and_a_failing_one_fails_alone() {
    const CREATES: usize = 32;
    let dir = TempDir::new("group-commit");
    let database = dir.path().join("group.db");
    let mut session = Session::start(&database, dir.path());
    let movies =
        session.call_ok("movies_search", json!({"query": "", "limit": 2}))["items"].clone();
    let (refused_movie, saved_movie) = (movies[0]["id"].clone(), movies[1]["id"].clone());
    let author =
        session.call_ok("authors_search", json!({"query": "", "limit": 1}))["items"][0]["id"]
            .clone();
    session.stop_with_eof();

    let refused_id: Uuid = refused_movie.as_str().unwrap().parse().unwrap();
    runtime().block_on(async {
        let mut connection = connect(&database).await;
        let trigger = format!(
            "CREATE TRIGGER test_refuses_a_movie BEFORE INSERT ON reviews
             WHEN NEW.movie_id = X'{}'
             BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
            refused_id.simple()
        );
        sqlx::raw_sql(sqlx::AssertSqlSafe(trigger))
            .execute(&mut connection)
            .await
            .expect("create the trigger");
        connection.close().await.expect("close");
    });

    let mut session = Session::start(&database, dir.path());
    let before = |session: &mut Session, movie: &Value| {
        session.call_ok("movies_get", json!({"movieId": movie}))["reviews"]
            .as_array()
            .unwrap()
            .len()
    };
    let (refused_before, saved_before) = (
        before(&mut session, &refused_movie),
        before(&mut session, &saved_movie),
    );
    let calls: Vec<(&str, Value)> = (0..CREATES)
        .map(|index| {
            let movie = if index % 2 == 0 {
                &refused_movie
            } else {
                &saved_movie
            };
            (
                "reviews_write",
                json!({"movieId": movie, "authorId": author, "stars": index % 5 + 1}),
            )
        })
        .collect();
    let answers = session.pipeline(&calls);
    let mut saved = BTreeSet::new();
    for (index, answer) in answers.iter().enumerate() {
        if index % 2 == 0 {
            unexpected_reference(&answer["result"], dir.path());
        } else {
            let review = structured(answer, "a create beside refused ones");
            saved.insert(review["id"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(saved.len(), CREATES / 2);
    let reviews = session.call_ok("movies_get", json!({"movieId": saved_movie}))["reviews"].clone();
    let listed: BTreeSet<String> = reviews
        .as_array()
        .unwrap()
        .iter()
        .map(|review| review["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        saved.is_subset(&listed),
        "every acknowledged create is saved"
    );
    assert_eq!(listed.len(), saved_before + CREATES / 2);
    assert_eq!(before(&mut session, &refused_movie), refused_before);
    session.stop_with_eof();
}
