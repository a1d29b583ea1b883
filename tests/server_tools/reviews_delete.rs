//! reviews_delete: a deleted review is gone, from every tool, with its counts.

use serde_json::json;

use crate::client::Backend;
use crate::fixture::{self, *};

async fn a_deleted_review_is_gone_and_deleting_it_again_is_not_found(backend: Backend) {
    let client = fixture::client(backend).await;
    let deleted = client
        .ok("reviews_delete", json!({ "reviewId": review(11) }))
        .await;
    assert_eq!(deleted, json!({ "reviewId": review(11), "deleted": true }));
    let not_found = format!(
        "Not Found: No review has the id {}. Call reviews_list to find review ids.",
        review(11)
    );
    assert_eq!(
        client
            .err("reviews_delete", json!({ "reviewId": review(11) }))
            .await,
        not_found
    );
    assert_eq!(
        client
            .err("reviews_list", json!({ "reviewId": review(11) }))
            .await,
        not_found
    );
    let ecole = client.ok("movies_get", json!({ "movieId": ECOLE })).await;
    assert_eq!(
        ecole,
        json!({ "id": ECOLE, "title": "École du cinéma", "reviewCount": 0, "reviews": [] })
    );
}

on_every_backend!(a_deleted_review_is_gone_and_deleting_it_again_is_not_found,);
