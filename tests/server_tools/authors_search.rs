//! authors_search: the order of authors, how a name matches a query, and the reviews it adds
//! when asked.

use serde_json::json;

use crate::client::{Backend, ids};
use crate::fixture::{self, *};

async fn authors_are_in_last_name_order_then_first_name_then_id(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client.ok("authors_search", json!({ "limit": 50 })).await;
    // Lowercase forms by code point: lovelace < núñez < reviews < rossi < ångström.
    assert_eq!(ids(&page["items"]), [ADA, JOSE, QUIET, SAM_A, SAM_B, ZOE]);
    assert_eq!(
        page["items"][0],
        json!({ "id": ADA, "name": "Ada lovelace", "reviewCount": 3, "averageStars": 2.0 })
    );
    assert_eq!(
        page["items"][2],
        json!({ "id": QUIET, "name": "Quiet Reviews", "reviewCount": 0 })
    );
}

async fn authors_match_by_first_last_or_full_name_ignoring_case(backend: Backend) {
    let client = fixture::client(backend).await;
    for (query, expected) in [
        ("zoË", vec![ZOE]),
        ("ÅNGSTRÖM", vec![ZOE]),
        ("zoë ång", vec![ZOE]),
        ("sam rossi", vec![SAM_A, SAM_B]),
        ("m r", vec![SAM_A, SAM_B]),
        ("angstrom", vec![]),
        ("rossi sam", vec![]),
    ] {
        let page = client.ok("authors_search", json!({ "query": query })).await;
        assert_eq!(ids(&page["items"]), expected, "{query}");
    }
}

async fn include_reviews_adds_every_review_an_author_wrote(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client
        .ok(
            "authors_search",
            json!({ "query": "zoë", "includeReviews": true }),
        )
        .await;
    // Review order: movie title ignoring case (alien, alien, école), then exact, then id.
    assert_eq!(
        page["items"][0]["reviews"],
        json!([
            review_json(0, ALIEN, "Alien", ZOE, "Zoë Ångström", 3),
            review_json(6, ALIEN_LOWER, "alien", ZOE, "Zoë Ångström", 3),
            review_json(5, ALIEN_LOWER, "alien", ZOE, "Zoë Ångström", 3),
            review_json(11, ECOLE, "École du cinéma", ZOE, "Zoë Ångström", 5),
        ])
    );
    let quiet = client
        .ok(
            "authors_search",
            json!({ "query": "quiet", "includeReviews": true }),
        )
        .await;
    assert_eq!(quiet["items"][0]["reviews"], json!([]));
    assert!(quiet["items"][0].get("averageStars").is_none());
}

on_every_backend!(
    authors_are_in_last_name_order_then_first_name_then_id,
    authors_match_by_first_last_or_full_name_ignoring_case,
    include_reviews_adds_every_review_an_author_wrote,
);
