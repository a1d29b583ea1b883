//! Seeding: the same seed makes the same data, and seeding over a used database leaves it as a
//! new one seeded alike. (That the SQLite backend's indexes and triggers, which a load drops,
//! are all back is in `sqlite`.)

use movie_reviews_mcp::demo::{self, Size};
use serde_json::json;

use crate::client::{Backend, Client, seed_demo};

async fn two_databases_from_the_same_seed_hold_identical_data(backend: Backend) {
    let size = Size {
        movies: 40,
        authors: 12,
        reviews: 150,
    };
    let mut answers = Vec::new();
    for seed in [11, 11, 12] {
        let (database, guard) = backend.new_database("seeded.db");
        seed_demo(&database, size, seed).await;
        let client = Client::opening(&database, guard).await;
        answers.push(client.everything().await);
    }
    assert_eq!(answers[0], answers[1]);
    assert_ne!(answers[0], answers[2]);
    assert_eq!(demo::generate(size, 11), demo::generate(size, 11));
}

/// Seeding over a database that holds other data and has been written to leaves it as a new
/// database seeded alike, whose counts are kept again on the next write and whose search finds
/// the new titles.
async fn seeding_over_a_used_database_equals_seeding_a_new_one(backend: Backend) {
    let size = Size {
        movies: 60,
        authors: 15,
        reviews: 300,
    };
    let (fresh, fresh_guard) = backend.new_database("fresh.db");
    let (used, used_guard) = backend.new_database("used.db");
    seed_demo(&fresh, size, 5).await;

    // A database with other data, written to.
    seed_demo(&used, size, 99).await;
    Client::opening(&used, used_guard.clone())
        .await
        .review_the_first_movie(5)
        .await;
    seed_demo(&used, size, 5).await;

    let fresh_client = Client::opening(&fresh, fresh_guard).await;
    let used_client = Client::opening(&used, used_guard).await;
    assert_eq!(
        used_client.everything().await,
        fresh_client.everything().await
    );

    // Counts are kept again: a write is counted, and search finds a seeded title.
    let movie = used_client.review_the_first_movie(1).await;
    let after = used_client
        .ok("movies_get", json!({ "movieId": movie["id"] }))
        .await;
    assert_eq!(
        after["reviewCount"].as_u64(),
        movie["reviewCount"].as_u64().map(|count| count + 1)
    );
    let title = movie["title"].as_str().unwrap();
    let found = used_client
        .ok("movies_search", json!({ "query": &title[1..] }))
        .await;
    assert!(
        found["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|item| item["id"] == movie["id"])
    );
    let total = used_client.ok("reviews_list", json!({ "limit": 1 })).await["totalCount"].clone();
    assert_eq!(total, json!(301));
}

on_every_backend!(
    two_databases_from_the_same_seed_hold_identical_data,
    seeding_over_a_used_database_equals_seeding_a_new_one,
);
