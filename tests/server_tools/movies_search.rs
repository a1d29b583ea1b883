//! movies_search: the order of movies, what a movie shows, how a title matches a query, and
//! the reviews it adds when asked.

use serde_json::json;

use crate::client::{Backend, ids};
use crate::fixture::{self, *};

async fn movies_are_in_title_order_ignoring_case_then_exact_title_then_id(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client.ok("movies_search", json!({ "limit": 50 })).await;
    assert_eq!(
        ids(&page["items"]),
        [
            PERCENT,
            UNDERSCORE,
            ALIEN_REMAKE,
            ALIEN,
            ALIEN_LOWER,
            ZEBRA,
            ECOLE
        ]
    );
    assert_eq!(page["totalCount"], json!(7));
    assert!(page.get("nextOffset").is_none());
}

async fn a_movie_shows_its_review_count_and_rounded_average(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client
        .ok("movies_search", json!({ "query": "alien" }))
        .await;
    assert_eq!(
        page,
        json!({
            "items": [
                { "id": ALIEN_REMAKE, "title": "Alien", "reviewCount": 3, "averageStars": 3.3 },
                { "id": ALIEN, "title": "Alien", "reviewCount": 4, "averageStars": 3.3 },
                { "id": ALIEN_LOWER, "title": "alien", "reviewCount": 4, "averageStars": 2.8 },
            ],
            "totalCount": 3,
        })
    );
    let zebra = client
        .ok("movies_search", json!({ "query": "zebra" }))
        .await;
    assert_eq!(
        zebra["items"],
        json!([{ "id": ZEBRA, "title": "Zebra", "reviewCount": 0 }]),
        "averageStars is left out, not null, without reviews"
    );
}

async fn title_search_is_a_case_insensitive_substring_match_for_all_of_unicode(backend: Backend) {
    let client = fixture::client(backend).await;
    for query in ["ÉCOLE", "école", "CINÉMA", "du ciné"] {
        let page = client.ok("movies_search", json!({ "query": query })).await;
        assert_eq!(ids(&page["items"]), [ECOLE], "{query}");
    }
    let page = client
        .ok("movies_search", json!({ "query": "ecole" }))
        .await;
    assert_eq!(page["totalCount"], json!(0), "accents are not folded away");
}

async fn like_metacharacters_and_quotes_in_a_query_are_ordinary_characters(backend: Backend) {
    let client = fixture::client(backend).await;
    let search = |query: &'static str| client.ok("movies_search", json!({ "query": query }));
    assert_eq!(ids(&search("%").await["items"]), [PERCENT]);
    assert_eq!(ids(&search("_").await["items"]), [PERCENT, UNDERSCORE]);
    assert_eq!(ids(&search("0_ p").await["items"]), [UNDERSCORE]);
    assert_eq!(search("\\").await["totalCount"], json!(0));
    assert_eq!(search("' OR 1=1 --").await["totalCount"], json!(0));
    assert_eq!(search("\"").await["totalCount"], json!(0));
}

async fn the_query_is_trimmed_and_an_empty_one_browses(backend: Backend) {
    let client = fixture::client(backend).await;
    let padded = client
        .ok("movies_search", json!({ "query": "  zebra \t" }))
        .await;
    assert_eq!(ids(&padded["items"]), [ZEBRA]);
    for browse in [json!({ "query": "   " }), json!({ "query": "" }), json!({})] {
        let page = client.ok("movies_search", browse.clone()).await;
        assert_eq!(page["totalCount"], json!(7), "{browse}");
    }
}

async fn include_reviews_adds_every_review_of_each_movie_in_review_order(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client
        .ok(
            "movies_search",
            json!({ "query": "alien", "limit": 2, "includeReviews": true }),
        )
        .await;
    let remake = &page["items"][0];
    // Review order within a movie: author last name (ignoring case), first name, then id.
    assert_eq!(
        remake["reviews"],
        json!([
            review_json(8, ALIEN_REMAKE, "Alien", ADA, "Ada lovelace", 3),
            review_json(10, ALIEN_REMAKE, "Alien", JOSE, "José Núñez", 4),
            review_json(9, ALIEN_REMAKE, "Alien", SAM_A, "Sam Rossi", 3),
        ])
    );
    assert_eq!(page["items"][1]["reviews"].as_array().unwrap().len(), 4);
    assert_eq!(page["nextOffset"], json!(2));

    let zebra = client
        .ok(
            "movies_search",
            json!({ "query": "zebra", "includeReviews": true }),
        )
        .await;
    assert_eq!(zebra["items"][0]["reviews"], json!([]));
    let without = client
        .ok("movies_search", json!({ "query": "zebra" }))
        .await;
    assert!(
        without["items"][0].get("reviews").is_none(),
        "only when asked for"
    );
}

on_every_backend!(
    movies_are_in_title_order_ignoring_case_then_exact_title_then_id,
    a_movie_shows_its_review_count_and_rounded_average,
    title_search_is_a_case_insensitive_substring_match_for_all_of_unicode,
    like_metacharacters_and_quotes_in_a_query_are_ordinary_characters,
    the_query_is_trimmed_and_an_empty_one_browses,
    include_reviews_adds_every_review_of_each_movie_in_review_order,
);
