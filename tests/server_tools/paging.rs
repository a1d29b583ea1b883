//! Paging and search correctness: pages put together are the whole list, past the end is empty,
//! the last page says so, and search finds exactly what contains the term, on the demo set and
//! on titles placed to make finding a page hard.

use movie_reviews_mcp::demo::Size;
use serde_json::{Value, json};
use store::{NewMovie, fold};
use uuid::Uuid;

use crate::client::{Backend, Client, ids, seed_demo};
use crate::fixture;

async fn pages_concatenated_equal_the_whole_list_and_never_overlap(backend: Backend) {
    let client = Client::demo(backend).await;
    for (tool, arguments) in [
        ("movies_search", json!({})),
        ("movies_search", json!({ "query": "in" })),
        ("authors_search", json!({})),
        ("reviews_list", json!({})),
    ] {
        let small = client.all_pages(tool, arguments.clone(), 7).await;
        let large = client.all_pages(tool, arguments.clone(), 50).await;
        assert_eq!(small, large, "{tool} {arguments}");
        let mut unique = ids(&json!(small));
        let count = unique.len();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), count, "{tool}: no item twice");
        assert!(count > 7, "{tool} {arguments} spans several pages");
    }
}

/// Search answers exactly the items whose lowercase text contains the lowercase term, whether
/// the term is long enough for the trigram index or short enough to scan.
async fn search_finds_exactly_what_contains_the_term(backend: Backend) {
    // As the server loads the demo set. On SQLite the rows then follow the search orders and
    // pages come from the trigram index in rowid order; `sqlite` checks the same after rows are
    // added by hand, when they do not.
    let client = Client::demo(backend).await;
    search_finds_exactly_what_contains_the_term_on(&client).await;
}

/// Checks, on the demo set that `client` serves, that search finds exactly what contains each
/// of many terms.
pub async fn search_finds_exactly_what_contains_the_term_on(client: &Client) {
    for (tool, text_of) in [("movies_search", "title"), ("authors_search", "name")] {
        let everything = client.all_pages(tool, json!({}), 50).await;
        let texts: Vec<&str> = everything
            .iter()
            .map(|item| item[text_of].as_str().unwrap())
            .collect();
        let mut terms: Vec<String> = [
            "%",
            "_",
            "é",
            "ü",
            "ÉTÉ IN",
            "silent riv",
            "[",
            "*",
            "?",
            "a*b",
            "zzzz",
            // FTS5 query syntax, which must be taken literally too.
            "\"",
            "al\" OR \"e",
            "sil\" \"riv",
            "NEAR(sil riv)",
            "title: sil",
            "^sil",
            "sil\0ent",
            // Common terms: many matches, so a page is found by walking the table in order
            // rather than by sorting every match (see store/src/sqlite/search.rs).
            "the",
            "ght",
            "in ",
            "son",
        ]
        .map(str::to_owned)
        .to_vec();
        for text in texts.iter().step_by(7) {
            let chars: Vec<char> = text.chars().collect();
            for length in 1..=6 {
                let start = (length * 3) % chars.len().max(1);
                terms.push(chars.iter().skip(start).take(length).collect());
            }
        }
        let mut most_matches = 0;
        for term in terms {
            let folded = fold(term.trim());
            let expected: Vec<&Value> = everything
                .iter()
                .filter(|item| fold(item[text_of].as_str().unwrap()).contains(&folded))
                .collect();
            if folded.chars().count() >= 3 {
                most_matches = most_matches.max(expected.len());
            }
            // Pages of 50 and of 7: which way a page is found depends on the page's size and
            // offset as well as on the number of matches.
            for limit in [50, 7] {
                let found = client
                    .all_pages(tool, json!({ "query": term }), limit)
                    .await;
                assert_eq!(
                    found.iter().collect::<Vec<_>>(),
                    expected,
                    "{tool} {term:?} in pages of {limit}"
                );
            }
        }
        // Some trigram-indexed term is common enough for its first page of 7 to be found by
        // walking the table (see SORT_OVER_WALK in store/src/sqlite/search.rs), and rare terms
        // are sorted: both ways are checked.
        assert!(
            5 * most_matches * most_matches > everything.len() * 7,
            "{most_matches}"
        );
    }
}

/// A server may keep how many titles and names contain a term (the SQLite backend does, see
/// store/src/sqlite/search.rs); when another process replaces the movies and authors, the
/// same server must find the new ones, counted anew.
async fn search_sees_titles_and_names_another_process_replaced(backend: Backend) {
    let size = Size {
        movies: 300,
        authors: 100,
        reviews: 10,
    };
    let (database, guard) = backend.new_database("replaced.db");
    seed_demo(&database, size, 21).await;
    let client = Client::opening(&database, guard).await;
    let matching = |everything: &[Value], text_of: &str, term: &str| -> Vec<Value> {
        everything
            .iter()
            .filter(|item| fold(item[text_of].as_str().unwrap()).contains(term))
            .cloned()
            .collect()
    };
    // Common terms of three and four letters, searched (so counted) before the replacement.
    let terms = ["ent", "ing", "ive", "tion", "son", "ell"];
    let mut before = Vec::new();
    for (tool, text_of) in [("movies_search", "title"), ("authors_search", "name")] {
        let everything = client.all_pages(tool, json!({}), 50).await;
        for term in terms {
            let found = client.all_pages(tool, json!({ "query": term }), 10).await;
            assert_eq!(found, matching(&everything, text_of, term), "{tool} {term}");
            before.push(found.len());
        }
    }

    // Another process (another store, as `seed` is) replaces everything with other titles.
    seed_demo(&database, size, 22).await;
    let mut after = Vec::new();
    for (tool, text_of) in [("movies_search", "title"), ("authors_search", "name")] {
        let everything = client.all_pages(tool, json!({}), 50).await;
        for term in terms {
            let first = client.ok(tool, json!({ "query": term, "limit": 10 })).await;
            let expected = matching(&everything, text_of, term);
            assert_eq!(first["totalCount"], json!(expected.len()), "{tool} {term}");
            let found = client.all_pages(tool, json!({ "query": term }), 10).await;
            assert_eq!(found, expected, "{tool} {term}");
            after.push(found.len());
        }
    }
    // Had the counts not changed, this test could not tell a stale count from a fresh one.
    assert_ne!(before, after);
}

async fn the_demo_set_fills_several_pages_of_every_list(backend: Backend) {
    let client = Client::demo(backend).await;
    let totals = [
        client.ok("movies_search", json!({})).await["totalCount"].clone(),
        client.ok("authors_search", json!({})).await["totalCount"].clone(),
        client.ok("reviews_list", json!({})).await["totalCount"].clone(),
    ];
    let size = Size::DEMO;
    assert_eq!(
        totals,
        [json!(size.movies), json!(size.authors), json!(size.reviews)]
    );
}

/// A user trying the demo searches everyday words, and the catalogue reads like films.
async fn everyday_words_find_movies_in_the_demo_set(backend: Backend) {
    let client = Client::demo(backend).await;
    for word in ["the", "night", "love"] {
        let page = client
            .ok("movies_search", json!({ "query": word, "limit": 50 }))
            .await;
        let titles: Vec<&str> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|movie| movie["title"].as_str().unwrap())
            .collect();
        assert!(titles.len() >= 3, "{word}: {page}");
        assert!(
            titles
                .iter()
                .all(|title| title.to_lowercase().contains(word)),
            "{word}: {titles:?}"
        );
    }
}

async fn an_offset_past_the_end_gives_an_empty_page_with_the_right_total(backend: Backend) {
    let client = fixture::client(backend).await;
    for (tool, total) in [
        ("movies_search", 7),
        ("authors_search", 6),
        ("reviews_list", 15),
    ] {
        for offset in [json!(total), json!(1000), json!(4_294_967_295u64)] {
            let page = client.ok(tool, json!({ "offset": offset })).await;
            assert_eq!(
                page,
                json!({ "items": [], "totalCount": total }),
                "{tool} {offset}"
            );
        }
    }
}

async fn the_last_page_leaves_next_offset_out(backend: Backend) {
    let client = fixture::client(backend).await;
    let first = client.ok("movies_search", json!({ "limit": 5 })).await;
    assert_eq!(first["nextOffset"], json!(5));
    let last = client
        .ok("movies_search", json!({ "offset": 5, "limit": 5 }))
        .await;
    assert_eq!(last["items"].as_array().unwrap().len(), 2);
    assert!(last.get("nextOffset").is_none());
    let exact = client
        .ok("movies_search", json!({ "offset": 2, "limit": 5 }))
        .await;
    assert!(
        exact.get("nextOffset").is_none(),
        "a page ending at the total is the last"
    );
}

/// A common term's page is found by walking the titles in order, which is quick when its
/// matches are spread through the order and slow when they gather at its end; the walk is
/// bounded and then the matches are sorted instead. Either way the pages are the same.
async fn search_pages_are_right_wherever_the_matches_stand_in_the_order(backend: Backend) {
    // As loaded; `sqlite` checks the same with a row added by hand.
    let movies = targets_in_the_order();
    let client = Client::with(backend, &movies, &[], &[]).await;
    search_pages_are_right_on(&client, &movies).await;
}

/// 250 titles early in the order, 50 late ones sharing a word, 30 spread among them: the
/// movies of `search_pages_are_right_wherever_the_matches_stand_in_the_order`.
pub fn targets_in_the_order() -> Vec<NewMovie> {
    let mut movies: Vec<NewMovie> = Vec::new();
    for number in 0..330u128 {
        let title = match number {
            0..250 => format!("Aardvark filler {number:03}"),
            250..300 => format!("Zymurgy target {number:03}"),
            _ => format!("B{number:03} spread target"),
        };
        movies.push(NewMovie {
            id: Uuid::from_u128(0x0100_0000_0000_4000_8000_0000_0000_0000 + number),
            title,
        });
    }
    movies
}

/// Checks, on `movies` that `client` serves, that every page of a search is right.
pub async fn search_pages_are_right_on(client: &Client, movies: &[NewMovie]) {
    for term in ["target", "zymurgy", "aardvark", "filler 1", "spread"] {
        let mut expected: Vec<&NewMovie> = movies
            .iter()
            .filter(|movie| movie.title.to_lowercase().contains(term))
            .collect();
        expected.sort_by_key(|movie| (movie.title.to_lowercase(), movie.title.clone()));
        let expected: Vec<String> = expected.iter().map(|movie| movie.title.clone()).collect();
        for limit in [1, 7, 50] {
            let found: Vec<String> = client
                .all_pages("movies_search", json!({ "query": term }), limit)
                .await
                .iter()
                .map(|movie| movie["title"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(found, expected, "{term:?} in pages of {limit}");
        }
        // The last offset there is: an empty page and the whole count.
        let past = client
            .ok(
                "movies_search",
                json!({ "query": term, "offset": u32::MAX, "limit": 50 }),
            )
            .await;
        assert_eq!(past["items"], json!([]), "{term:?}");
        assert_eq!(past["totalCount"], json!(expected.len()), "{term:?}");
    }
}

on_every_backend!(
    pages_concatenated_equal_the_whole_list_and_never_overlap,
    search_finds_exactly_what_contains_the_term,
    search_sees_titles_and_names_another_process_replaced,
    the_demo_set_fills_several_pages_of_every_list,
    everyday_words_find_movies_in_the_demo_set,
    an_offset_past_the_end_gives_an_empty_page_with_the_right_total,
    the_last_page_leaves_next_offset_out,
    search_pages_are_right_wherever_the_matches_stand_in_the_order,
);
