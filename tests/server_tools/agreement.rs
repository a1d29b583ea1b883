//! Both backends answer alike. The same generated data is seeded into a new SQLite database and
//! a new PostgreSQL database, and a server on each is asked the same few hundred calls, drawn
//! from a fixed seed: searches for pieces of real titles and names (1 to 6 characters, in any
//! case, with spaces around), for terms that LIKE, FTS5 or SQL quoting could misread (`%`, `_`,
//! `\`, quotes, NUL), for letters whose folding goes beyond ASCII, and blank ones; pages at the
//! start, across, at the end and past it, with and without reviews; movies and review lists by
//! real and unknown ids; then the same writes in the same order, and more reads. Every answer
//! must be the same text on both, byte for byte: a success's compact JSON (its
//! `structuredContent`) or an error's text; and so must everything the list tools show at the
//! end.
//!
//! This proves that the rules written on `Store` hold alike on both backends, beyond the other
//! tests' examples: order (folded, then exact, then id), folding, literal search, totals and
//! next offsets, counts, averages and their rounding, and error texts.
//!
//! The one thing allowed to differ is the id a create draws. Each backend's new ids are shown as
//! `new review N` in its answers, and a later change or delete of that review sends each backend
//! its own id. New reviews go only where no other review has the same movie title and author
//! name, so that no order falls back on those ids.

use std::collections::{BTreeMap, HashSet};

use movie_reviews_mcp::demo::{Size, SplitMix64};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::client::{Backend, Client, seed_demo};

const SIZE: Size = Size {
    movies: 300,
    authors: 120,
    reviews: 2000,
};
const SEED: u64 = 0xA6EE;
/// What a review created during the test is called in answers, before its number.
const NEW: &str = "new review ";

/// Terms a backend could read as more than literal text, or fold its own way, and blank ones.
const TERMS: &[&str] = &[
    "%", "_", "\\", "'", "\"", "%%", "_%_", "\\%", "\\_", "a%", "%a", "d%m", "d_m", "D%MOB",
    "ed_mob", "nced%m", "ced_M", "l%m", "it's", "'s", "\"x\"", "l\"m", "hub\"", "a\0", "\0", "É",
    "é", "ÉMP", "ß", "SS", "ẞ", "Σ", "σ", "ς", "Ü", "über", "ÜBER-S", "Ö", "ë", "ñ", "Ñ", "Å",
    "ÅNGSTR", "ë ÅNG", "NAÏVE", "İ", "ı", "ﬁ", "😀", "\u{301}", "", " ", "   ", "\t", " \n\t ",
    "a", "A", "e", "AL INF", "rossi", "sam r", "AM RO", "m ro", "24/7", "-",
];

/// The servers on SQLite and on PostgreSQL, and what they were asked.
struct Both {
    clients: [Client; 2],
    /// Each backend's ids of the reviews it created, in order.
    created: [Vec<String>; 2],
    /// Calls by tool and whether they succeeded.
    tally: BTreeMap<&'static str, [usize; 2]>,
    disagreements: Vec<String>,
}

impl Both {
    /// Makes the same call to both servers, a `reviewId` of `new review N` becoming each one's
    /// own id, and records any difference between the answers, new ids shown as `new review N`.
    async fn ask(&mut self, tool: &'static str, arguments: Value) {
        let mut answers = Vec::new();
        for side in 0..2 {
            let mut sent = arguments.clone();
            let new = sent["reviewId"]
                .as_str()
                .and_then(|id| id.strip_prefix(NEW));
            if let Some(n) = new.map(|n| n.parse::<usize>().unwrap()) {
                sent["reviewId"] = json!(self.created[side].get(n));
            }
            let answer = call(&self.clients[side], tool, sent).await;
            if let Ok(text) = &answer
                && tool == "reviews_write"
                && arguments.get("reviewId").is_none()
            {
                let saved: Value = serde_json::from_str(text).unwrap();
                self.created[side].push(saved["id"].as_str().unwrap().to_owned());
            }
            let mask = |text| self.mask(side, text);
            answers.push(answer.map(mask).map_err(mask));
        }
        if answers[0] != answers[1] {
            self.disagreements.push(format!(
                "{tool} {arguments}\n  SQLite:     {:?}\n  PostgreSQL: {:?}",
                answers[0], answers[1]
            ));
        }
        self.tally.entry(tool).or_default()[usize::from(answers[0].is_ok())] += 1;
    }

    /// `text` with the ids of the reviews `side` created shown as `new review N`.
    fn mask(&self, side: usize, text: String) -> String {
        let ids = self.created[side].iter().enumerate();
        ids.fold(text, |text, (n, id)| text.replace(id, &format!("{NEW}{n}")))
    }
}

/// One call's answer: `Ok` with a success's text (its `structuredContent` as compact JSON), or
/// `Err` with an error's text.
async fn call(client: &Client, tool: &'static str, arguments: Value) -> Result<String, String> {
    let result = client.session.call(tool, arguments).await;
    let text = result.text().to_owned();
    if result.is_error() {
        return Err(text);
    }
    assert_eq!(result.structured().unwrap().to_string(), text);
    Ok(text)
}

/// The seeded data as the list tools first show it.
struct Data {
    movies: Vec<Value>,
    authors: Vec<Value>,
    reviews: Vec<Value>,
}

/// A piece of 1 to 6 characters of `text` (now and then all of it) in upper, lower, alternating
/// or its own case, maybe with spaces around.
fn piece_of(rng: &mut SplitMix64, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let most = [6, chars.len()][usize::from(rng.below(10) == 0)];
    let len = (1 + rng.below(most)).min(chars.len());
    let start = rng.below(chars.len() - len + 1);
    let case = rng.below(4);
    let piece: String = chars[start..start + len]
        .iter()
        .enumerate()
        .map(|(i, c)| match (case, i % 2) {
            (0, _) | (1, 0) => c.to_uppercase().to_string(),
            (2, _) => c.to_lowercase().to_string(),
            _ => c.to_string(),
        })
        .collect();
    [format!("  {piece}\t"), format!(" {piece}"), piece][rng.below(3)].clone()
}

/// Adds an offset and a limit, each left out now and then: at the start, across `rows`, at the
/// end and past it; now and then a limit out of range.
fn paging(rng: &mut SplitMix64, arguments: &mut Value, rows: usize) {
    let offset = match rng.below(10) {
        0 => None,
        1..=3 => Some(0),
        4..=6 => Some(rng.below(rows + 1)),
        7 => Some(rows.saturating_sub(rng.below(5))),
        8 => Some(rows + rng.below(100)),
        _ => Some(u32::MAX as usize),
    };
    let limit = match rng.below(16) {
        0 | 1 => None,
        2 | 3 => Some(1),
        4 | 5 => Some(50),
        6 => Some(51 * rng.below(2)),
        _ => Some(1 + rng.below(50)),
    };
    if let Some(offset) = offset {
        arguments["offset"] = json!(offset);
    }
    if let Some(limit) = limit {
        arguments["limit"] = json!(limit);
    }
}

fn unknown_id(rng: &mut SplitMix64) -> Value {
    json!(Uuid::from_u64_pair(rng.next_u64(), rng.next_u64()))
}

/// One read of a tool that reads, with arguments drawn from `rng`.
async fn read(both: &mut Both, rng: &mut SplitMix64, data: &Data) {
    let movie = rng.pick(&data.movies)["id"].clone();
    let author = rng.pick(&data.authors)["id"].clone();
    let review = rng.pick(&data.reviews).clone();
    let unknown = unknown_id(rng);
    let (tool, arguments) = match rng.below(4) {
        0 | 1 => {
            let (tool, items, key, rows) = match rng.below(2) {
                0 => ("movies_search", &data.movies, "title", SIZE.movies),
                _ => ("authors_search", &data.authors, "name", SIZE.authors),
            };
            let mut arguments = json!({});
            match rng.below(8) {
                0 => {}
                1 | 2 => arguments["query"] = json!(rng.pick(TERMS)),
                _ => {
                    let text = rng.pick(items)[key].as_str().unwrap();
                    arguments["query"] = json!(piece_of(rng, text));
                }
            }
            // Most terms match far fewer rows than there are.
            let rows = if arguments.get("query").is_some() {
                30
            } else {
                rows
            };
            paging(rng, &mut arguments, rows);
            if rng.below(3) != 0 {
                arguments["includeReviews"] = json!(rng.below(2) == 0);
            }
            (tool, arguments)
        }
        2 => {
            let id = [unknown, author, movie.clone(), movie][rng.below(4)].clone();
            ("movies_get", json!({ "movieId": id }))
        }
        _ => {
            let mut arguments = match rng.below(10) {
                0 => json!({}),
                1 | 2 => json!({ "movieId": movie }),
                3 | 4 => json!({ "authorId": author }),
                5 => json!({ "movieId": review["movieId"], "authorId": review["authorId"] }),
                6 => json!({ "movieId": movie, "authorId": author }),
                7 => json!({ "movieId": unknown, "authorId": author }),
                8 => json!({ "reviewId": review["id"] }),
                _ => json!({ "reviewId": unknown }),
            };
            let unfiltered = arguments == json!({});
            let rows = if unfiltered { SIZE.reviews } else { 25 };
            paging(rng, &mut arguments, rows);
            ("reviews_list", arguments)
        }
    };
    both.ask(tool, arguments).await;
}

/// The same writes to both: creates, star changes, deletes (each twice), failing writes, and
/// reads in between.
async fn write(both: &mut Both, rng: &mut SplitMix64, data: &Data) {
    let mut taken: HashSet<(&Value, &Value)> = (data.reviews.iter())
        .map(|review| (&review["movieTitle"], &review["authorName"]))
        .collect();
    let (movie_0, author_0) = (&data.movies[0]["id"], &data.authors[0]["id"]);
    for step in 0..80 {
        let stars = 1 + rng.below(5);
        let seeded = rng.pick(&data.reviews)["id"].clone();
        let new = json!(format!("{NEW}{}", rng.below(both.created[0].len().max(1))));
        // A seeded review or, once there are some, a new one.
        let review = [seeded, new][rng.below(2).min(both.created[0].len())].clone();
        // First only creates, so that there are new reviews to change and delete.
        match if step < 10 { 0 } else { rng.below(7) } {
            0 | 1 => loop {
                let movie = rng.pick(&data.movies);
                let author = rng.pick(&data.authors);
                if taken.insert((&movie["title"], &author["name"])) {
                    let arguments =
                        json!({ "stars": stars, "movieId": movie["id"], "authorId": author["id"] });
                    break both.ask("reviews_write", arguments).await;
                }
            },
            2 => {
                let arguments = json!({ "stars": stars, "reviewId": review });
                both.ask("reviews_write", arguments).await;
            }
            3 => {
                for _ in 0..2 {
                    both.ask("reviews_delete", json!({ "reviewId": review }))
                        .await;
                }
            }
            4 => {
                let unknown = unknown_id(rng);
                let arguments = match rng.below(4) {
                    0 => json!({ "stars": stars, "movieId": unknown, "authorId": author_0 }),
                    1 => json!({ "stars": stars, "movieId": movie_0, "authorId": unknown }),
                    2 => json!({ "stars": stars, "reviewId": review, "movieId": unknown }),
                    _ => json!({ "stars": 6 * rng.below(2), "reviewId": review }),
                };
                both.ask("reviews_write", arguments).await;
            }
            _ => read(both, rng, data).await,
        }
    }
}

#[tokio::test]
#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
async fn sqlite_and_postgresql_give_the_same_answers() {
    let mut clients = Vec::new();
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let (database, guard) = backend.new_database("agreement.db");
        seed_demo(&database, SIZE, SEED).await;
        clients.push(Client::opening(&database, guard).await);
    }
    let listed = clients[0].everything().await;
    assert!(listed == clients[1].everything().await, "seeded alike");
    let kind = |key: &str| -> Vec<Value> {
        let items = listed.iter().filter(|item| item.get(key).is_some());
        items.cloned().collect()
    };
    let (movies, authors, reviews) = (kind("title"), kind("name"), kind("movieTitle"));
    let data = Data {
        movies,
        authors,
        reviews,
    };
    assert_eq!(data.reviews.len(), SIZE.reviews);

    let postgres = clients.pop().unwrap();
    let mut both = Both {
        clients: [clients.pop().unwrap(), postgres],
        created: [Vec::new(), Vec::new()],
        tally: BTreeMap::new(),
        disagreements: Vec::new(),
    };
    let mut rng = SplitMix64(SEED);
    for _ in 0..300 {
        read(&mut both, &mut rng, &data).await;
    }
    write(&mut both, &mut rng, &data).await;
    for _ in 0..150 {
        read(&mut both, &mut rng, &data).await;
    }
    // A sample of movies and authors, with their counts, averages and reviews.
    for n in 0..20 {
        let movie = &data.movies[15 * n]["id"];
        both.ask("movies_get", json!({ "movieId": movie })).await;
        let query = json!({ "query": data.authors[6 * n]["name"], "includeReviews": true });
        both.ask("authors_search", query).await;
    }
    println!("calls by tool, [failed, succeeded]: {:?}", both.tally);
    assert!(
        both.disagreements.is_empty(),
        "{} calls answered differently:\n{}",
        both.disagreements.len(),
        both.disagreements.join("\n")
    );

    // Everything, item by item, SQLite's on the left.
    let mut everything = Vec::new();
    for side in 0..2 {
        let listed = serde_json::to_string(&both.clients[side].everything().await).unwrap();
        everything.push(serde_json::from_str::<Vec<Value>>(&both.mask(side, listed)).unwrap());
    }
    for (sqlite, postgres) in everything[0].iter().zip(&everything[1]) {
        assert_eq!(sqlite, postgres, "the lists differ after the writes");
    }
    assert_eq!(everything[0].len(), everything[1].len());

    // Not vacuous: new reviews are listed, and every tool both succeeded and failed.
    let new = |item: &Value| item["id"].as_str().is_some_and(|id| id.starts_with(NEW));
    assert!(everything[0].iter().any(new), "no new review is listed");
    let both_ways = both
        .tally
        .values()
        .all(|&[failed, succeeded]| failed * succeeded > 0);
    assert!(both.tally.len() == 6 && both_ways, "{:?}", both.tally);
}
