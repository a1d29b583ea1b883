//! reviews_list: the order of reviews, its filters, a single review by id, and ids that name
//! nothing. (Reviews kept in order through hand edits are SQLite's own mechanics: `sqlite`.)

use serde_json::json;

use crate::client::{Backend, ids, invalid};
use crate::fixture::{self, *};

async fn reviews_are_in_movie_title_then_author_name_then_id_order(backend: Backend) {
    let client = fixture::client(backend).await;
    let page = client.ok("reviews_list", json!({ "limit": 50 })).await;
    // Both movies titled "Alien" form one run, their reviews ordered by author, since the
    // order has no movie id in it; equal author names fall back to the review id.
    let order = [12, 13, 14, 8, 10, 1, 9, 3, 2, 0, 4, 7, 6, 5, 11].map(review);
    assert_eq!(ids(&page["items"]), order);
    assert_eq!(page["totalCount"], json!(15));
}

async fn reviews_filter_by_movie_author_or_both(backend: Backend) {
    let client = fixture::client(backend).await;
    let by_movie = client
        .ok("reviews_list", json!({ "movieId": ALIEN_LOWER }))
        .await;
    assert_eq!(ids(&by_movie["items"]), [4, 7, 6, 5].map(review));
    let by_author = client.ok("reviews_list", json!({ "authorId": JOSE })).await;
    assert_eq!(ids(&by_author["items"]), [13, 10, 1, 7].map(review));
    let both = client
        .ok(
            "reviews_list",
            json!({ "movieId": ALIEN_LOWER, "authorId": ZOE }),
        )
        .await;
    assert_eq!(ids(&both["items"]), [6, 5].map(review));
    assert_eq!(both["totalCount"], json!(2));
    let none = client
        .ok("reviews_list", json!({ "movieId": ZEBRA, "authorId": ZOE }))
        .await;
    assert_eq!(none, json!({ "items": [], "totalCount": 0 }));
}

async fn a_review_id_gets_exactly_that_review_whatever_the_other_arguments(backend: Backend) {
    let client = fixture::client(backend).await;
    let one = client
        .ok(
            "reviews_list",
            json!({ "reviewId": review(11), "movieId": NOBODY, "authorId": ADA, "offset": 9, "limit": 1 }),
        )
        .await;
    assert_eq!(
        one,
        json!({
            "items": [review_json(11, ECOLE, "École du cinéma", ZOE, "Zoë Ångström", 5)],
            "totalCount": 1,
        })
    );
    assert_eq!(
        client
            .err(
                "reviews_list",
                json!({ "reviewId": review(11), "movieId": "nope", "limit": 0 })
            )
            .await,
        invalid(
            "MovieId: Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301. \
             Limit: Must be between 1 and 50, not 0."
        ),
        "ignored arguments are still validated"
    );
}

async fn a_filter_that_names_nothing_is_not_found(backend: Backend) {
    let client = fixture::client(backend).await;
    let movie = format!(
        "Not Found: No movie has the id {NOBODY}. \
         Call movies_search or reviews_list to find movie ids."
    );
    assert_eq!(
        client
            .err("reviews_list", json!({ "movieId": NOBODY }))
            .await,
        movie
    );
    let author = format!(
        "Not Found: No author has the id {NOBODY}. \
         Call authors_search or reviews_list to find author ids."
    );
    assert_eq!(
        client
            .err("reviews_list", json!({ "authorId": NOBODY }))
            .await,
        author
    );
    assert_eq!(
        client
            .err(
                "reviews_list",
                json!({ "movieId": NOBODY, "authorId": NOBODY })
            )
            .await,
        movie,
        "the movie comes first in argument order"
    );
    assert_eq!(
        client
            .err(
                "reviews_list",
                json!({ "movieId": ALIEN, "authorId": NOBODY })
            )
            .await,
        author,
        "a movie with reviews, with an author that is not there"
    );
    for offset in [5, 30] {
        let by_author = json!({ "authorId": NOBODY, "offset": offset, "limit": 2 });
        assert_eq!(client.err("reviews_list", by_author).await, author);
        let by_movie = json!({ "movieId": NOBODY, "offset": offset, "limit": 2 });
        assert_eq!(client.err("reviews_list", by_movie).await, movie);
    }
    assert_eq!(
        client
            .err("reviews_list", json!({ "reviewId": NOBODY }))
            .await,
        format!("Not Found: No review has the id {NOBODY}. Call reviews_list to find review ids.")
    );
    assert_eq!(
        client.err("movies_get", json!({ "movieId": NOBODY })).await,
        movie
    );
}

on_every_backend!(
    reviews_are_in_movie_title_then_author_name_then_id_order,
    reviews_filter_by_movie_author_or_both,
    a_review_id_gets_exactly_that_review_whatever_the_other_arguments,
    a_filter_that_names_nothing_is_not_found,
);
