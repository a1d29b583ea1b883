//! movies_get: one movie with every review of it, and ids in any case.

use serde_json::json;

use crate::client::Backend;
use crate::fixture::{self, *};

async fn movies_get_returns_the_movie_with_every_review_and_author_name(backend: Backend) {
    let client = fixture::client(backend).await;
    let movie = client.ok("movies_get", json!({ "movieId": ALIEN })).await;
    assert_eq!(
        movie,
        json!({
            "id": ALIEN,
            "title": "Alien",
            "reviewCount": 4,
            "averageStars": 3.3,
            "reviews": [
                review_json(1, ALIEN, "Alien", JOSE, "José Núñez", 3),
                review_json(3, ALIEN, "Alien", SAM_A, "Sam Rossi", 4),
                review_json(2, ALIEN, "Alien", SAM_B, "Sam Rossi", 3),
                review_json(0, ALIEN, "Alien", ZOE, "Zoë Ångström", 3),
            ],
        })
    );
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(
        zebra,
        json!({ "id": ZEBRA, "title": "Zebra", "reviewCount": 0, "reviews": [] })
    );
}

async fn ids_print_lowercase_and_are_accepted_in_any_case(backend: Backend) {
    let client = fixture::client(backend).await;
    let upper = ECOLE.to_string().to_uppercase();
    let movie = client.ok("movies_get", json!({ "movieId": upper })).await;
    assert_eq!(movie["id"], json!(ECOLE.to_string()));
    assert!(
        movie["id"]
            .as_str()
            .unwrap()
            .chars()
            .all(|c| !c.is_uppercase())
    );
}

on_every_backend!(
    movies_get_returns_the_movie_with_every_review_and_author_name,
    ids_print_lowercase_and_are_accepted_in_any_case,
);
