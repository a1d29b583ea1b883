//! Validation: every rule of every tool is enforced, every broken rule is reported at once, and
//! the leniencies the contract allows are accepted.

use serde_json::{Value, json};

use crate::client::{Backend, invalid};
use crate::fixture::{self, *};

async fn one_call_that_breaks_several_rules_hears_of_every_one(backend: Backend) {
    let client = fixture::client(backend).await;
    assert_eq!(
        client
            .err(
                "movies_search",
                json!({
                    "query": "x".repeat(101),
                    "offset": 2f64.powi(70),
                    "limit": 51,
                    "includeReviews": "yes",
                    "movie_id": ALIEN,
                    "Limit": 3,
                }),
            )
            .await,
        invalid(
            "Query: Must be at most 100 characters long, not 101. \
             Offset: Must be 4294967295 or less, not 1.1805916207174113e+21. \
             Limit: Must be between 1 and 50, not 51. \
             IncludeReviews: Must be true or false, not a string. \
             movie_id: Not an argument of this tool, which takes query, offset, limit and includeReviews. \
             Limit: Not an argument of this tool. Did you mean limit?"
        )
    );
}

async fn every_rule_of_every_tool_is_enforced(backend: Backend) {
    let client = fixture::client(backend).await;
    let uuid_rule = "Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.";
    let cases: Vec<(&'static str, Value, String)> = vec![
        (
            "movies_search",
            json!({ "offset": -1 }),
            invalid("Offset: Must be 0 or more, not -1."),
        ),
        (
            "movies_search",
            json!({ "limit": 0 }),
            invalid("Limit: Must be between 1 and 50, not 0."),
        ),
        (
            "movies_search",
            json!({ "limit": "10" }),
            invalid("Limit: Must be an integer, not a string."),
        ),
        (
            "movies_search",
            json!({ "limit": 5.5 }),
            invalid("Limit: Must be an integer, not 5.5."),
        ),
        (
            "movies_search",
            json!({ "query": 5 }),
            invalid("Query: Must be a string, not a number."),
        ),
        (
            "movies_search",
            json!({ "includereviews": true }),
            invalid("includereviews: Not an argument of this tool. Did you mean includeReviews?"),
        ),
        (
            "movies_get",
            json!({}),
            invalid("MovieId: This argument is required."),
        ),
        (
            "movies_get",
            json!({ "movieId": ALIEN.simple().to_string() }),
            invalid(&format!("MovieId: {uuid_rule}")),
        ),
        (
            "movies_get",
            json!({ "movieId": format!("{{{ALIEN}}}") }),
            invalid(&format!("MovieId: {uuid_rule}")),
        ),
        (
            "movies_get",
            json!({ "movie_id": ALIEN }),
            invalid(
                "MovieId: This argument is required. movie_id: Not an argument of this tool. Did you mean movieId?",
            ),
        ),
        (
            "authors_search",
            json!({ "query": "é".repeat(101) }),
            invalid("Query: Must be at most 100 characters long, not 101."),
        ),
        (
            "authors_search",
            json!({ "limit": 51 }),
            invalid("Limit: Must be between 1 and 50, not 51."),
        ),
        (
            "reviews_list",
            json!({ "authorId": 7 }),
            invalid("AuthorId: Must be a UUID string, not a number."),
        ),
        (
            "reviews_list",
            json!({ "offset": 1.5 }),
            invalid("Offset: Must be an integer, not 1.5."),
        ),
        (
            "reviews_write",
            json!({ "stars": 3.5, "reviewId": review(0) }),
            invalid("Stars: Must be an integer, not 3.5."),
        ),
        (
            "reviews_delete",
            json!({}),
            invalid("ReviewId: This argument is required."),
        ),
        (
            "reviews_delete",
            json!({ "reviewId": "1" }),
            invalid(&format!("ReviewId: {uuid_rule}")),
        ),
    ];
    for (tool, arguments, expected) in cases {
        assert_eq!(
            client.err(tool, arguments.clone()).await,
            expected,
            "{tool} {arguments}"
        );
    }
}

async fn the_leniencies_of_part_two_hold_for_every_tool(backend: Backend) {
    let client = fixture::client(backend).await;
    let result = client.session.call("movies_search", Value::Null).await;
    assert!(!result.is_error(), "a missing arguments object means {{}}");
    let page = client
        .ok(
            "movies_search",
            json!({ "query": null, "offset": null, "limit": 2.0 }),
        )
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 2);
    assert_eq!(page["nextOffset"], json!(2));
    let saved = client
        .ok(
            "reviews_write",
            json!({ "stars": 4.0, "movieId": ZEBRA, "authorId": ADA, "reviewId": null }),
        )
        .await;
    assert_eq!(saved["stars"], json!(4));
    let length_in_characters = client
        .ok("movies_search", json!({ "query": "é".repeat(100) }))
        .await;
    assert_eq!(length_in_characters["totalCount"], json!(0));
}

on_every_backend!(
    one_call_that_breaks_several_rules_hears_of_every_one,
    every_rule_of_every_tool_is_enforced,
    the_leniencies_of_part_two_hold_for_every_tool,
);
