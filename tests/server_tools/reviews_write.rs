//! reviews_write: creating a review and changing its stars, what cannot change, writes at
//! once, and what is refused.

use serde_json::json;
use uuid::Uuid;

use crate::client::{Backend, invalid};
use crate::fixture::{self, *};

async fn a_new_review_is_saved_returned_and_counted(backend: Backend) {
    let client = fixture::client(backend).await;
    let saved = client
        .ok(
            "reviews_write",
            json!({ "stars": 5, "movieId": ZEBRA, "authorId": QUIET }),
        )
        .await;
    let id: Uuid = saved["id"].as_str().unwrap().parse().unwrap();
    assert_eq!(
        saved,
        review_json_id(id, ZEBRA, "Zebra", QUIET, "Quiet Reviews", 5)
    );
    let listed = client.ok("reviews_list", json!({ "reviewId": id })).await;
    assert_eq!(listed["items"][0], saved);
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(
        (zebra["reviewCount"].clone(), zebra["averageStars"].clone()),
        (json!(1), json!(5.0))
    );
}

async fn an_author_may_review_the_same_movie_again(backend: Backend) {
    let client = fixture::client(backend).await;
    let arguments = json!({ "stars": 2, "movieId": ECOLE, "authorId": ZOE });
    let first = client.ok("reviews_write", arguments.clone()).await;
    let second = client.ok("reviews_write", arguments).await;
    assert_ne!(first["id"], second["id"]);
    let both = client
        .ok("reviews_list", json!({ "movieId": ECOLE, "authorId": ZOE }))
        .await;
    assert_eq!(both["totalCount"], json!(3));
    let ecole = client.ok("movies_get", json!({ "movieId": ECOLE })).await;
    assert_eq!(ecole["averageStars"], json!(3.0));
}

async fn changing_the_stars_keeps_the_movie_and_author_and_updates_the_average(backend: Backend) {
    let client = fixture::client(backend).await;
    let changed = client
        .ok(
            "reviews_write",
            json!({ "stars": 1, "reviewId": review(11) }),
        )
        .await;
    assert_eq!(
        changed,
        review_json(11, ECOLE, "École du cinéma", ZOE, "Zoë Ångström", 1)
    );
    let same_ids = client
        .ok(
            "reviews_write",
            json!({ "stars": 2, "reviewId": review(11), "movieId": ECOLE, "authorId": ZOE }),
        )
        .await;
    assert_eq!(
        same_ids["stars"],
        json!(2),
        "passing the review's own ids is fine"
    );
    let ecole = client.ok("movies_get", json!({ "movieId": ECOLE })).await;
    assert_eq!(ecole["averageStars"], json!(2.0));
    let zoe = client.ok("authors_search", json!({ "query": "zoë" })).await;
    assert_eq!(zoe["items"][0]["averageStars"], json!(2.8)); // 3 + 3 + 3 + 2 = 11 / 4
}

async fn a_review_cannot_move_to_another_movie_or_author(backend: Backend) {
    let client = fixture::client(backend).await;
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "reviewId": review(11), "movieId": ZEBRA })
            )
            .await,
        invalid("MovieId: A review's movie can't change.")
    );
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "reviewId": review(11), "movieId": ZEBRA, "authorId": ADA }),
            )
            .await,
        invalid(
            "MovieId: A review's movie can't change. AuthorId: A review's author can't change."
        )
    );
    let unchanged = client
        .ok("reviews_list", json!({ "reviewId": review(11) }))
        .await;
    assert_eq!(unchanged["items"][0]["stars"], json!(5));
}

async fn can_t_change_is_reported_before_any_id_is_looked_up(backend: Backend) {
    let client = fixture::client(backend).await;
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "reviewId": review(11), "movieId": NOBODY })
            )
            .await,
        invalid("MovieId: A review's movie can't change.")
    );
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "reviewId": review(11), "movieId": ECOLE, "authorId": NOBODY }),
            )
            .await,
        invalid("AuthorId: A review's author can't change.")
    );
}

/// "Can't change" reads the saved review, so it waits until every other rule has passed.
async fn can_t_change_is_checked_once_the_other_rules_pass(backend: Backend) {
    let client = fixture::client(backend).await;
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 9, "reviewId": review(11), "movieId": ZEBRA })
            )
            .await,
        invalid("Stars: A star rating must be between 1 and 5.")
    );
}

async fn many_writes_at_once_all_succeed(backend: Backend) {
    let client = fixture::client(backend).await;
    let writes = (0..24).map(|index| {
        let arguments = match index % 3 {
            0 => json!({ "stars": 1 + index % 5, "movieId": ZEBRA, "authorId": QUIET }),
            1 => json!({ "stars": 1 + index % 5, "movieId": ECOLE, "authorId": ADA }),
            _ => json!({ "stars": 1 + index % 5, "reviewId": review(index % 15) }),
        };
        client.ok("reviews_write", arguments)
    });
    // All in flight at once, as a client with several calls pending.
    let saved = futures::future::join_all(writes).await;
    assert_eq!(saved.len(), 24);
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(zebra["reviewCount"], json!(8));
    let all = client.ok("reviews_list", json!({ "limit": 1 })).await;
    assert_eq!(all["totalCount"], json!(15 + 16));
}

async fn creating_needs_a_movie_and_an_author_and_stars_from_one_to_five(backend: Backend) {
    let client = fixture::client(backend).await;
    let needed = "Needed to create a review (or pass reviewId to change one).";
    assert_eq!(
        client.err("reviews_write", json!({ "stars": 3 })).await,
        invalid(&format!("MovieId: {needed} AuthorId: {needed}"))
    );
    assert_eq!(
        client
            .err("reviews_write", json!({ "stars": 3, "movieId": ZEBRA }))
            .await,
        invalid(&format!("AuthorId: {needed}"))
    );
    for stars in [json!(0), json!(6), json!(-1)] {
        assert_eq!(
            client
                .err(
                    "reviews_write",
                    json!({ "stars": stars, "movieId": ZEBRA, "authorId": ADA })
                )
                .await,
            invalid("Stars: A star rating must be between 1 and 5.")
        );
    }
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": "five", "movieId": ZEBRA, "authorId": ADA })
            )
            .await,
        invalid("Stars: Must be an integer, not a string.")
    );
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(zebra["reviewCount"], json!(0), "no half-written review");
}

async fn writing_about_something_that_does_not_exist_is_not_found(backend: Backend) {
    let client = fixture::client(backend).await;
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "movieId": NOBODY, "authorId": NOBODY })
            )
            .await,
        format!(
            "Not Found: No movie has the id {NOBODY}. \
             Call movies_search or reviews_list to find movie ids."
        )
    );
    assert_eq!(
        client
            .err(
                "reviews_write",
                json!({ "stars": 3, "movieId": ZEBRA, "authorId": NOBODY })
            )
            .await,
        format!(
            "Not Found: No author has the id {NOBODY}. \
             Call authors_search or reviews_list to find author ids."
        )
    );
    assert_eq!(
        client
            .err("reviews_write", json!({ "stars": 3, "reviewId": NOBODY }))
            .await,
        format!("Not Found: No review has the id {NOBODY}. Call reviews_list to find review ids.")
    );
}

on_every_backend!(
    a_new_review_is_saved_returned_and_counted,
    an_author_may_review_the_same_movie_again,
    changing_the_stars_keeps_the_movie_and_author_and_updates_the_average,
    a_review_cannot_move_to_another_movie_or_author,
    can_t_change_is_reported_before_any_id_is_looked_up,
    can_t_change_is_checked_once_the_other_rules_pass,
    many_writes_at_once_all_succeed,
    creating_needs_a_movie_and_an_author_and_stars_from_one_to_five,
    writing_about_something_that_does_not_exist_is_not_found,
);
