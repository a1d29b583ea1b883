//! The six tools end to end, as their contract states them: a real rmcp client talks to the server
//! in-process over a pipe, and the server runs on a real SQLite file in a temporary folder.
//!
//! Most tests use a small hand-made catalogue (`fixture`) whose every order, tie and average is
//! known; the paging tests use the generated demo set, which spans many pages. Every successful
//! answer is checked the same way (`Client::call`): its text block is compact JSON equal to
//! `structuredContent`, which validates against the tool's published `outputSchema`.

use std::collections::HashMap;

use jsonschema::Validator;
use movie_reviews_mcp::MovieReviews;
use movie_reviews_mcp::demo::{self, Size};
use movie_reviews_mcp::store::{Database, NewAuthor, NewMovie, NewReview, Store, fold};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use rmcp::service::{RunningService, ServiceError};
use serde_json::{Value, json};
use uuid::Uuid;
use workspace_tests::{connect, output_schemas};

/// A client connected to a server on its own database file.
struct Client {
    service: RunningService<RoleClient, ()>,
    output_schemas: HashMap<String, Validator>,
    _folder: tempfile::TempDir,
}

impl Client {
    /// A server on a new database holding exactly `movies`, `authors` and `reviews`.
    async fn with(movies: &[NewMovie], authors: &[NewAuthor], reviews: &[NewReview]) -> Client {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open(&Database::Sqlite(folder.path().join("reviews.db")))
            .await
            .unwrap();
        store
            .replace_all(movies, authors, reviews, &mut |_, _, _| {})
            .await
            .unwrap();
        Client::serving(store, folder).await
    }

    /// A server on a new database, which it fills with the demo set as it starts.
    async fn demo() -> Client {
        let folder = tempfile::tempdir().unwrap();
        let store =
            movie_reviews_mcp::open_or_create(&Database::Sqlite(folder.path().join("demo.db")))
                .await
                .unwrap();
        Client::serving(store, folder).await
    }

    async fn serving(store: Store, folder: tempfile::TempDir) -> Client {
        let service = connect(MovieReviews::new(store).unwrap()).await;
        let output_schemas = output_schemas(&service).await;
        Client {
            service,
            output_schemas,
            _folder: folder,
        }
    }

    /// Calls a tool: `Ok(structuredContent)` after checking it against the text block and the
    /// output schema, or `Err(text)` for an `isError` result.
    async fn call(&self, tool: &'static str, arguments: Value) -> Result<Value, String> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        let request = CallToolRequestParams::new(tool).with_arguments(arguments);
        let result = self.service.call_tool(request).await.unwrap();
        assert_eq!(result.content.len(), 1, "one content block: {result:?}");
        let text = result.content[0]
            .as_text()
            .expect("a text block")
            .text
            .clone();
        if result.is_error == Some(true) {
            assert_eq!(result.structured_content, None);
            return Err(text);
        }
        let structured = result.structured_content.expect("structuredContent");
        assert_eq!(
            text,
            structured.to_string(),
            "the text block is compact JSON"
        );
        let errors: Vec<String> = self.output_schemas[tool]
            .iter_errors(&structured)
            .map(|error| error.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{tool} output breaks its schema: {errors:?}"
        );
        Ok(structured)
    }

    async fn ok(&self, tool: &'static str, arguments: Value) -> Value {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => value,
            Err(text) => panic!("{tool} {arguments} failed: {text}"),
        }
    }

    async fn err(&self, tool: &'static str, arguments: Value) -> String {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => panic!("{tool} {arguments} succeeded: {value}"),
            Err(text) => text,
        }
    }

    /// Every movie, author and review, as the list tools show them.
    async fn everything(&self) -> Vec<Value> {
        let mut everything = self.all_pages("movies_search", json!({}), 50).await;
        everything.extend(self.all_pages("authors_search", json!({}), 50).await);
        everything.extend(self.all_pages("reviews_list", json!({}), 50).await);
        everything
    }

    /// Every item of a list tool, a page of `limit` at a time, checking each page's paging.
    async fn all_pages(&self, tool: &'static str, arguments: Value, limit: u64) -> Vec<Value> {
        let mut items = Vec::new();
        let mut offset = 0;
        loop {
            let mut page_arguments = arguments.clone();
            page_arguments["offset"] = json!(offset);
            page_arguments["limit"] = json!(limit);
            let page = self.ok(tool, page_arguments).await;
            let page_items = page["items"].as_array().unwrap().clone();
            let total = page["totalCount"].as_u64().unwrap();
            let next = offset + page_items.len() as u64;
            items.extend(page_items);
            if next < total {
                assert_eq!(page["nextOffset"], json!(next), "{tool} at {offset}");
                offset = next;
            } else {
                assert!(
                    page.get("nextOffset").is_none(),
                    "no nextOffset on the last page"
                );
                assert_eq!(items.len() as u64, total);
                return items;
            }
        }
    }
}

fn invalid(rules: &str) -> String {
    format!("Validation Failed: {rules} Correct the arguments and call the tool again.")
}

fn ids(items: &Value) -> Vec<Uuid> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// The hand-made catalogue. Ids are chosen so that insertion order is not id order.
mod fixture {
    use super::*;

    pub const ALIEN: Uuid = Uuid::from_u128(0x5000_0000_0000_4000_8000_0000_0000_0001);
    pub const ALIEN_REMAKE: Uuid = Uuid::from_u128(0x1000_0000_0000_4000_8000_0000_0000_0003);
    pub const ALIEN_LOWER: Uuid = Uuid::from_u128(0x3000_0000_0000_4000_8000_0000_0000_0002);
    pub const ECOLE: Uuid = Uuid::from_u128(0x2000_0000_0000_4000_8000_0000_0000_0004);
    pub const PERCENT: Uuid = Uuid::from_u128(0x6000_0000_0000_4000_8000_0000_0000_0005);
    pub const UNDERSCORE: Uuid = Uuid::from_u128(0x7000_0000_0000_4000_8000_0000_0000_0006);
    pub const ZEBRA: Uuid = Uuid::from_u128(0x4000_0000_0000_4000_8000_0000_0000_0007);

    pub const ZOE: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0001);
    pub const JOSE: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0002);
    pub const SAM_B: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0004);
    pub const SAM_A: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0003);
    pub const ADA: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0005);
    pub const QUIET: Uuid = Uuid::from_u128(0xa000_0000_0000_4000_8000_0000_0000_0006);

    pub const NOBODY: Uuid = Uuid::from_u128(0xdead_0000_0000_4000_8000_0000_0000_0000);

    pub fn movies() -> Vec<NewMovie> {
        [
            (ALIEN, "Alien"),
            (ALIEN_LOWER, "alien"),
            (ALIEN_REMAKE, "Alien"),
            (ECOLE, "École du cinéma"),
            (PERCENT, "100% Pure_Drama"),
            (UNDERSCORE, "100_ Pure Drama"),
            (ZEBRA, "Zebra"),
        ]
        .into_iter()
        .map(|(id, title)| NewMovie {
            id,
            title: title.to_owned(),
        })
        .collect()
    }

    pub fn authors() -> Vec<NewAuthor> {
        [
            (ZOE, "Zoë", "Ångström"),
            (JOSE, "José", "Núñez"),
            (SAM_B, "Sam", "Rossi"),
            (SAM_A, "Sam", "Rossi"),
            (ADA, "Ada", "lovelace"),
            (QUIET, "Quiet", "Reviews"),
        ]
        .into_iter()
        .map(|(id, first, last)| NewAuthor {
            id,
            first_name: first.to_owned(),
            last_name: last.to_owned(),
        })
        .collect()
    }

    /// Review ids are `0x…r` with `r` counting up in insertion order.
    pub fn reviews() -> Vec<NewReview> {
        [
            // Alien: 3, 3, 3, 4 → 3.25 → 3.3
            (ALIEN, ZOE, 3),
            (ALIEN, JOSE, 3),
            (ALIEN, SAM_B, 3),
            (ALIEN, SAM_A, 4),
            // alien: 2, 3, 3, 3 → 2.75 → 2.8
            (ALIEN_LOWER, ADA, 2),
            (ALIEN_LOWER, ZOE, 3),
            (ALIEN_LOWER, ZOE, 3),
            (ALIEN_LOWER, JOSE, 3),
            // Alien (remake): 3, 3, 4 → 3.33 → 3.3
            (ALIEN_REMAKE, ADA, 3),
            (ALIEN_REMAKE, SAM_A, 3),
            (ALIEN_REMAKE, JOSE, 4),
            (ECOLE, ZOE, 5),
            (PERCENT, ADA, 1),
            (PERCENT, JOSE, 2),
            (UNDERSCORE, SAM_B, 4),
        ]
        .into_iter()
        .enumerate()
        .map(|(index, (movie_id, author_id, stars))| NewReview {
            id: review(index),
            movie_id,
            author_id,
            stars,
        })
        .collect()
    }

    /// The id of the `index`th review above.
    pub fn review(index: usize) -> Uuid {
        Uuid::from_u128(0xb000_0000_0000_4000_8000_0000_0000_0000 | (15 - index as u128))
    }

    pub async fn client() -> Client {
        Client::with(&movies(), &authors(), &reviews()).await
    }
}

use fixture::*;

/// Whether the movies' and the authors' rowids follow their search orders, as the database at
/// `path` records it.
async fn rows_in_order(path: &std::path::Path) -> (bool, bool) {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    sqlx::query_as("SELECT movies_in_order, authors_in_order FROM totals")
        .fetch_one(&mut connection)
        .await
        .unwrap()
}

/// Reviews come and go without touching the order of movies and authors, so the tools never
/// cost search its fast path; a change to a title, a name or a rowid by hand does.
#[tokio::test]
async fn only_changes_to_titles_names_or_rowids_put_rows_out_of_search_order() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("reviews.db");
    let store = Store::open(&Database::Sqlite(path.clone())).await.unwrap();
    store
        .replace_all(&movies(), &authors(), &reviews(), &mut |_, _, _| {})
        .await
        .unwrap();
    let client = Client::serving(store, folder).await;
    assert_eq!(rows_in_order(&path).await, (true, true));
    let written = client
        .ok(
            "reviews_write",
            json!({ "movieId": ZEBRA, "authorId": ADA, "stars": 4 }),
        )
        .await;
    client
        .ok(
            "reviews_write",
            json!({ "reviewId": written["id"], "stars": 2 }),
        )
        .await;
    client
        .ok("reviews_delete", json!({ "reviewId": written["id"] }))
        .await;
    assert_eq!(rows_in_order(&path).await, (true, true));

    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    for (sql, expected) in [
        (
            "UPDATE movies SET review_count = review_count",
            (true, true),
        ),
        (
            "DELETE FROM movies WHERE id NOT IN (SELECT movie_id FROM reviews)",
            (true, true),
        ),
        (
            "UPDATE movies SET _rowid_ = _rowid_ + 1000
             WHERE _rowid_ = (SELECT MIN(_rowid_) FROM movies)",
            (false, true),
        ),
        ("UPDATE totals SET movies_in_order = 1", (true, true)),
        (
            "UPDATE movies SET title = 'Alien 2' WHERE title = 'Alien' AND review_count = 3",
            (false, true),
        ),
        (
            "UPDATE authors SET first_name = 'Adah' WHERE first_name = 'Ada'",
            (false, false),
        ),
    ] {
        sqlx::query(sql).execute(&mut connection).await.unwrap();
        assert_eq!(rows_in_order(&path).await, expected, "after {sql}");
    }
}

/// Adds a movie and an author to the database at `path` with plain SQL, as a hand edit or
/// another program would, outside any load: the triggers then say the rows no longer follow
/// the search orders, and search must fall back to the ways that do not need them to. Returns
/// whether each order was kept before and after.
async fn add_by_hand(path: &std::path::Path, movie: &NewMovie, author: &NewAuthor) -> [bool; 4] {
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    let in_order = "SELECT movies_in_order, authors_in_order FROM totals";
    let before: (bool, bool) = sqlx::query_as(in_order)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    insert_movie_by_hand(&mut connection, movie).await;
    insert_author_by_hand(&mut connection, author).await;
    let after: (bool, bool) = sqlx::query_as(in_order)
        .fetch_one(&mut connection)
        .await
        .unwrap();
    [before.0, before.1, after.0, after.1]
}

/// Inserts a movie with plain SQL, its folded title worked out here.
async fn insert_movie_by_hand(connection: &mut sqlx::SqliteConnection, movie: &NewMovie) {
    sqlx::query("INSERT INTO movies (id, title, title_folded) VALUES (?1, ?2, ?3)")
        .bind(movie.id)
        .bind(&movie.title)
        .bind(fold(&movie.title))
        .execute(connection)
        .await
        .unwrap();
}

/// Inserts an author with plain SQL, their folded names worked out here.
async fn insert_author_by_hand(connection: &mut sqlx::SqliteConnection, author: &NewAuthor) {
    sqlx::query(
        "INSERT INTO authors (id, first_name, last_name, first_name_folded, last_name_folded,
                              full_name_folded)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(author.id)
    .bind(&author.first_name)
    .bind(&author.last_name)
    .bind(fold(&author.first_name))
    .bind(fold(&author.last_name))
    .bind(fold(&format!("{} {}", author.first_name, author.last_name)))
    .execute(connection)
    .await
    .unwrap();
}

// ---------------------------------------------------------------- tools/list

#[tokio::test]
async fn tools_list_is_snapshotted_whole() {
    let client = fixture::client().await;
    let tools = client.service.list_all_tools().await.unwrap();
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("tools_list", tools);
    });
}

#[tokio::test]
async fn every_tool_has_the_title_and_hints_of_the_brief() {
    let client = fixture::client().await;
    let tools = client.service.list_all_tools().await.unwrap();
    let table: Vec<(String, String, bool, bool, bool, bool)> = tools
        .iter()
        .map(|tool| {
            let hints = tool.annotations.clone().unwrap();
            (
                tool.name.to_string(),
                tool.title.clone().unwrap(),
                hints.read_only_hint.unwrap(),
                hints.destructive_hint.unwrap(),
                hints.idempotent_hint.unwrap(),
                hints.open_world_hint.unwrap(),
            )
        })
        .collect();
    let expected = [
        ("authors_search", "Search authors", true, false, true, false),
        ("movies_get", "Get movie", true, false, true, false),
        ("movies_search", "Search movies", true, false, true, false),
        ("reviews_delete", "Delete review", false, true, true, false),
        ("reviews_list", "List reviews", true, false, true, false),
        ("reviews_write", "Write review", false, true, false, false),
    ]
    .map(|(name, title, ro, de, id, ow)| (name.to_owned(), title.to_owned(), ro, de, id, ow));
    assert_eq!(table, expected);
    let delete = tools
        .iter()
        .find(|tool| tool.name == "reviews_delete")
        .unwrap();
    assert!(
        delete.description.as_deref().unwrap().contains("confirm"),
        "reviews_delete tells the model to confirm with the user first"
    );
}

#[tokio::test]
async fn schemas_are_self_contained_and_never_nullable() {
    let client = fixture::client().await;
    for tool in client.service.list_all_tools().await.unwrap() {
        let text = json!([tool.input_schema, tool.output_schema]).to_string();
        for absent in ["$ref", "$defs", "$schema", "\"null\""] {
            assert!(!text.contains(absent), "{} has {absent}", tool.name);
        }
        assert_eq!(tool.input_schema["additionalProperties"], json!(false));
        assert_eq!(tool.output_schema.unwrap()["type"], json!("object"));
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_invalid_params_error() {
    let client = fixture::client().await;
    let request = CallToolRequestParams::new("movies_delete");
    let error = client.service.call_tool(request).await.unwrap_err();
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
}

// ---------------------------------------------------------------- movies_search

#[tokio::test]
async fn movies_are_in_title_order_ignoring_case_then_exact_title_then_id() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn a_movie_shows_its_review_count_and_rounded_average() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn title_search_is_a_case_insensitive_substring_match_for_all_of_unicode() {
    let client = fixture::client().await;
    for query in ["ÉCOLE", "école", "CINÉMA", "du ciné"] {
        let page = client.ok("movies_search", json!({ "query": query })).await;
        assert_eq!(ids(&page["items"]), [ECOLE], "{query}");
    }
    let page = client
        .ok("movies_search", json!({ "query": "ecole" }))
        .await;
    assert_eq!(page["totalCount"], json!(0), "accents are not folded away");
}

#[tokio::test]
async fn like_metacharacters_and_quotes_in_a_query_are_ordinary_characters() {
    let client = fixture::client().await;
    let search = |query: &'static str| client.ok("movies_search", json!({ "query": query }));
    assert_eq!(ids(&search("%").await["items"]), [PERCENT]);
    assert_eq!(ids(&search("_").await["items"]), [PERCENT, UNDERSCORE]);
    assert_eq!(ids(&search("0_ p").await["items"]), [UNDERSCORE]);
    assert_eq!(search("\\").await["totalCount"], json!(0));
    assert_eq!(search("' OR 1=1 --").await["totalCount"], json!(0));
    assert_eq!(search("\"").await["totalCount"], json!(0));
}

#[tokio::test]
async fn the_query_is_trimmed_and_an_empty_one_browses() {
    let client = fixture::client().await;
    let padded = client
        .ok("movies_search", json!({ "query": "  zebra \t" }))
        .await;
    assert_eq!(ids(&padded["items"]), [ZEBRA]);
    for browse in [json!({ "query": "   " }), json!({ "query": "" }), json!({})] {
        let page = client.ok("movies_search", browse.clone()).await;
        assert_eq!(page["totalCount"], json!(7), "{browse}");
    }
}

#[tokio::test]
async fn include_reviews_adds_every_review_of_each_movie_in_review_order() {
    let client = fixture::client().await;
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

fn review_json(
    index: usize,
    movie: Uuid,
    title: &str,
    author: Uuid,
    name: &str,
    stars: u8,
) -> Value {
    json!({
        "id": review(index),
        "stars": stars,
        "movieId": movie,
        "movieTitle": title,
        "authorId": author,
        "authorName": name,
    })
}

// ---------------------------------------------------------------- movies_get

#[tokio::test]
async fn movies_get_returns_the_movie_with_every_review_and_author_name() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn ids_print_lowercase_and_are_accepted_in_any_case() {
    let client = fixture::client().await;
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

// ---------------------------------------------------------------- authors_search

#[tokio::test]
async fn authors_are_in_last_name_order_then_first_name_then_id() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn authors_match_by_first_last_or_full_name_ignoring_case() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn include_reviews_adds_every_review_an_author_wrote() {
    let client = fixture::client().await;
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

// ---------------------------------------------------------------- reviews_list

#[tokio::test]
async fn reviews_are_in_movie_title_then_author_name_then_id_order() {
    let client = fixture::client().await;
    let page = client.ok("reviews_list", json!({ "limit": 50 })).await;
    // Both movies titled "Alien" form one run, their reviews ordered by author, since the
    // order has no movie id in it; equal author names fall back to the review id.
    let order = [12, 13, 14, 8, 10, 1, 9, 3, 2, 0, 4, 7, 6, 5, 11].map(review);
    assert_eq!(ids(&page["items"]), order);
    assert_eq!(page["totalCount"], json!(15));
}

#[tokio::test]
async fn reviews_filter_by_movie_author_or_both() {
    let client = fixture::client().await;
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

/// Movies and authors added or renamed by hand, outside a load, take their place in the review
/// order: a title or name between two others, forty titles into one gap (more than the room
/// a load leaves, so every movie is ranked afresh), a movie and an author renamed, whose
/// reviews follow them, and a review written by hand with only its ids and stars.
#[tokio::test]
async fn reviews_stay_in_order_when_titles_and_names_change_by_hand() {
    let client = fixture::client().await;
    let path = client._folder.path().join("reviews.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    let mut added = Vec::new();
    // Last first, so that each lands between "alien" and the one added before it.
    for number in (1..=40).rev() {
        let movie = NewMovie {
            id: Uuid::from_u128(0xc000 + number),
            title: format!("Alien {number:02}"),
        };
        insert_movie_by_hand(&mut connection, &movie).await;
        added.push(movie.id);
    }
    let bea = NewAuthor {
        id: Uuid::from_u128(0xd001),
        first_name: "Bea".to_owned(),
        last_name: "Álvarez".to_owned(),
    };
    insert_author_by_hand(&mut connection, &bea).await;
    let bea = bea.id;
    for sql in [
        "UPDATE movies SET title = 'Aardvark', title_folded = 'aardvark' WHERE id = ?1",
        "UPDATE authors SET last_name = 'Aaron', last_name_folded = 'aaron' WHERE id = ?2",
    ] {
        sqlx::query(sql)
            .bind(ALIEN_REMAKE)
            .bind(JOSE)
            .execute(&mut connection)
            .await
            .unwrap();
    }
    sqlx::query("INSERT INTO reviews (id, movie_id, author_id, stars) VALUES (?1, ?2, ?3, 5)")
        .bind(Uuid::from_u128(0xe001))
        .bind(ZEBRA)
        .bind(QUIET)
        .execute(&mut connection)
        .await
        .unwrap();
    let mut written = 0;
    for (index, movie) in added.iter().enumerate() {
        for author in [bea, ZOE, QUIET].iter().take(1 + index % 3) {
            written += 1;
            client
                .ok(
                    "reviews_write",
                    json!({ "movieId": movie, "authorId": author, "stars": 3 }),
                )
                .await;
        }
    }
    client
        .ok(
            "reviews_write",
            json!({ "movieId": ALIEN, "authorId": QUIET, "stars": 1 }),
        )
        .await;

    // The titles and names as the database holds them now, by id.
    let titles: HashMap<String, String> =
        sqlx::query_as::<_, (Uuid, String)>("SELECT id, title FROM movies")
            .fetch_all(&mut connection)
            .await
            .unwrap()
            .into_iter()
            .map(|(id, title)| (id.to_string(), title))
            .collect();
    let names: HashMap<String, (String, String)> = sqlx::query_as::<_, (Uuid, String, String)>(
        "SELECT id, first_name, last_name FROM authors",
    )
    .fetch_all(&mut connection)
    .await
    .unwrap()
    .into_iter()
    .map(|(id, first, last)| (id.to_string(), (first, last)))
    .collect();
    let reviews = client.all_pages("reviews_list", json!({}), 7).await;
    // The fixture's, the one by hand, and those written through the tool.
    assert_eq!(reviews.len(), 15 + 1 + written + 1);
    let key = |review: &Value| {
        let text = |key: &str| review[key].as_str().unwrap().to_owned();
        let title = titles[&text("movieId")].clone();
        let (first, last) = names[&text("authorId")].clone();
        assert_eq!(
            text("movieTitle"),
            title,
            "a review shows its movie's title"
        );
        assert_eq!(text("authorName"), format!("{first} {last}"));
        (
            fold(&title),
            title,
            fold(&last),
            last,
            fold(&first),
            first,
            text("id"),
        )
    };
    let keys: Vec<_> = reviews.iter().map(key).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "reviews_list is in review order");
    // A review written before both its movie and its author were renamed.
    assert!(
        keys.iter()
            .any(|key| key.0 == "aardvark" && key.2 == "aaron")
    );

    // Each movie's and each author's reviews, through both tools that list them, are the whole
    // list's reviews of it, in the same order.
    for (id, _) in titles {
        let of_movie: Vec<&Value> = reviews.iter().filter(|r| r["movieId"] == *id).collect();
        let listed = client
            .all_pages("reviews_list", json!({ "movieId": id }), 3)
            .await;
        assert_eq!(listed.iter().collect::<Vec<_>>(), of_movie);
        let movie = client.ok("movies_get", json!({ "movieId": id })).await;
        assert_eq!(
            movie["reviews"]
                .as_array()
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            of_movie
        );
    }
    for (id, _) in names {
        let by_author: Vec<&Value> = reviews.iter().filter(|r| r["authorId"] == *id).collect();
        let listed = client
            .all_pages("reviews_list", json!({ "authorId": id }), 3)
            .await;
        assert_eq!(listed.iter().collect::<Vec<_>>(), by_author);
    }
}

/// Hand edits the triggers cannot follow are refused, and those they can are counted: an
/// `INSERT OR REPLACE` of an existing movie or author would give it a new rank and counts behind
/// its reviews' backs; a review moved to another movie moves its count and stars.
#[tokio::test]
async fn replacing_a_movie_by_hand_is_refused_and_moving_a_review_moves_its_counts() {
    let client = fixture::client().await;
    let path = client._folder.path().join("reviews.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    let replace_movie = sqlx::query(
        "INSERT OR REPLACE INTO movies (id, title, title_folded) VALUES (?1, 'Zulu', 'zulu')",
    )
    .bind(ALIEN)
    .execute(&mut connection)
    .await
    .unwrap_err();
    assert!(replace_movie.to_string().contains("change it with UPDATE"));
    let replace_author = sqlx::query(
        "INSERT OR REPLACE INTO authors (id, first_name, last_name, first_name_folded,
                                         last_name_folded, full_name_folded)
         VALUES (?1, 'A', 'B', 'a', 'b', 'a b')",
    )
    .bind(ZOE)
    .execute(&mut connection)
    .await
    .unwrap_err();
    assert!(replace_author.to_string().contains("change it with UPDATE"));

    // Review 11 is École's, by Zoë, five stars; moved to Zebra.
    sqlx::query("UPDATE reviews SET movie_id = ?1 WHERE id = ?2")
        .bind(ZEBRA)
        .bind(review(11))
        .execute(&mut connection)
        .await
        .unwrap();
    let zebra = client.ok("movies_get", json!({ "movieId": ZEBRA })).await;
    assert_eq!(zebra["reviewCount"], json!(1));
    assert_eq!(zebra["averageStars"], json!(5.0));
    assert_eq!(zebra["reviews"][0]["id"], json!(review(11)));
    assert_eq!(zebra["reviews"][0]["movieTitle"], json!("Zebra"));
    let ecole = client.ok("movies_get", json!({ "movieId": ECOLE })).await;
    assert_eq!(ecole["reviewCount"], json!(0));
    assert_eq!(ecole["reviews"], json!([]));
}

/// A database whose every movie, author and review was written by hand, through the triggers
/// (which rank each row and copy titles and names onto its reviews), reads exactly as one
/// loaded with the same data, whose ranks and copies the load works out itself.
#[tokio::test]
async fn a_database_written_by_hand_reads_as_one_loaded_with_the_same_data() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("by-hand.db");
    // Opening creates the schema and nothing else.
    Store::open(&Database::Sqlite(path.clone()))
        .await
        .unwrap()
        .close()
        .await;
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
        .await
        .unwrap();
    for movie in movies() {
        insert_movie_by_hand(&mut connection, &movie).await;
    }
    for author in authors() {
        insert_author_by_hand(&mut connection, &author).await;
    }
    for review in reviews() {
        sqlx::query("INSERT INTO reviews (id, movie_id, author_id, stars) VALUES (?1, ?2, ?3, ?4)")
            .bind(review.id)
            .bind(review.movie_id)
            .bind(review.author_id)
            .bind(review.stars)
            .execute(&mut connection)
            .await
            .unwrap();
    }
    drop(connection);

    let by_hand = Client::serving(
        Store::open(&Database::Sqlite(path.clone())).await.unwrap(),
        folder,
    )
    .await;
    let loaded = fixture::client().await;
    assert_eq!(by_hand.everything().await, loaded.everything().await);
    for movie in [ALIEN, ALIEN_LOWER, ECOLE] {
        let arguments = json!({ "movieId": movie });
        assert_eq!(
            by_hand.ok("movies_get", arguments.clone()).await,
            loaded.ok("movies_get", arguments).await
        );
    }
    for author in [ZOE, JOSE, SAM_A] {
        let arguments = json!({ "authorId": author });
        assert_eq!(
            by_hand.ok("reviews_list", arguments.clone()).await,
            loaded.ok("reviews_list", arguments).await
        );
    }
}

#[tokio::test]
async fn a_review_id_gets_exactly_that_review_whatever_the_other_arguments() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn a_filter_that_names_nothing_is_not_found() {
    let client = fixture::client().await;
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
    assert_eq!(
        client
            .err("reviews_list", json!({ "authorId": NOBODY }))
            .await,
        format!(
            "Not Found: No author has the id {NOBODY}. \
             Call authors_search or reviews_list to find author ids."
        )
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
            .err("reviews_list", json!({ "reviewId": NOBODY }))
            .await,
        format!("Not Found: No review has the id {NOBODY}. Call reviews_list to find review ids.")
    );
    assert_eq!(
        client.err("movies_get", json!({ "movieId": NOBODY })).await,
        movie
    );
}

// ---------------------------------------------------------------- paging

#[tokio::test]
async fn pages_concatenated_equal_the_whole_list_and_never_overlap() {
    let client = Client::demo().await;
    for (tool, arguments) in [
        ("movies_search", json!({})),
        ("movies_search", json!({ "query": "al" })),
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
#[tokio::test]
async fn search_finds_exactly_what_contains_the_term() {
    // As loaded, the rows follow the search orders and pages come from the trigram index in
    // rowid order; after rows are added by hand they do not, and pages are found by walking or
    // sorting (see server/src/store/sqlite/search.rs). Both are checked.
    for by_hand in [false, true] {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("demo.db");
        let store = movie_reviews_mcp::open_or_create(&Database::Sqlite(path.clone()))
            .await
            .unwrap();
        if by_hand {
            // Both sort before every row of the demo set, so neither follows its order.
            let movie = NewMovie {
                id: Uuid::from_u128(0xfeed_0000_0000_4000_8000_0000_0000_0001),
                title: "Aaa global alliance by hand".to_owned(),
            };
            let author = NewAuthor {
                id: Uuid::from_u128(0xfeed_0000_0000_4000_8000_0000_0000_0002),
                first_name: "Ent".to_owned(),
                last_name: "Aaaby Hand".to_owned(),
            };
            assert_eq!(
                add_by_hand(&path, &movie, &author).await,
                [true, true, false, false]
            );
        }
        let client = Client::serving(store, folder).await;
        search_finds_exactly_what_contains_the_term_on(&client).await;
    }
}

async fn search_finds_exactly_what_contains_the_term_on(client: &Client) {
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
            "ÉMPOW",
            "global infra",
            "[",
            "*",
            "?",
            "a*b",
            "zzzz",
            // FTS5 query syntax, which must be taken literally too.
            "\"",
            "al\" OR \"e",
            "glo\" \"inf",
            "NEAR(glo inf)",
            "title: glo",
            "^glo",
            "glo\0bal",
            // Common terms: many matches, so a page is found by walking the table in order
            // rather than by sorting every match (see server/src/store/sqlite/search.rs).
            "ent",
            "ing",
            "al ",
            "ive",
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
        // walking the table (see SORT_OVER_WALK in server/src/store/sqlite/search.rs), and rare terms
        // are sorted: both ways are checked.
        assert!(
            5 * most_matches * most_matches > everything.len() * 7,
            "{most_matches}"
        );
    }
}

/// The server keeps how many titles and names contain a term (see server/src/store/sqlite/search.rs);
/// when another process replaces the movies and authors, the same server must find the new ones,
/// counted anew.
#[tokio::test]
async fn search_sees_titles_and_names_another_process_replaced() {
    let size = Size {
        movies: 300,
        authors: 100,
        reviews: 10,
    };
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("replaced.db");
    movie_reviews_mcp::seed_database(&Database::Sqlite(path.clone()), size, 21, &mut |_, _, _| {})
        .await
        .unwrap();
    let client = Client::serving(
        Store::open(&Database::Sqlite(path.clone())).await.unwrap(),
        folder,
    )
    .await;
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
    movie_reviews_mcp::seed_database(&Database::Sqlite(path.clone()), size, 22, &mut |_, _, _| {})
        .await
        .unwrap();
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

#[tokio::test]
async fn the_demo_set_fills_several_pages_of_every_list() {
    let client = Client::demo().await;
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

#[tokio::test]
async fn an_offset_past_the_end_gives_an_empty_page_with_the_right_total() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn the_last_page_leaves_next_offset_out() {
    let client = fixture::client().await;
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

// ---------------------------------------------------------------- reviews_write

#[tokio::test]
async fn a_new_review_is_saved_returned_and_counted() {
    let client = fixture::client().await;
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

fn review_json_id(
    id: Uuid,
    movie: Uuid,
    title: &str,
    author: Uuid,
    name: &str,
    stars: u8,
) -> Value {
    json!({
        "id": id,
        "stars": stars,
        "movieId": movie,
        "movieTitle": title,
        "authorId": author,
        "authorName": name,
    })
}

#[tokio::test]
async fn an_author_may_review_the_same_movie_again() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn changing_the_stars_keeps_the_movie_and_author_and_updates_the_average() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn a_review_cannot_move_to_another_movie_or_author() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn can_t_change_is_reported_before_any_id_is_looked_up() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn many_writes_at_once_all_succeed() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn creating_needs_a_movie_and_an_author_and_stars_from_one_to_five() {
    let client = fixture::client().await;
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

#[tokio::test]
async fn writing_about_something_that_does_not_exist_is_not_found() {
    let client = fixture::client().await;
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

// ---------------------------------------------------------------- reviews_delete

#[tokio::test]
async fn a_deleted_review_is_gone_and_deleting_it_again_is_not_found() {
    let client = fixture::client().await;
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

// ---------------------------------------------------------------- validation

#[tokio::test]
async fn one_call_that_breaks_several_rules_hears_of_every_one() {
    let client = fixture::client().await;
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
             Offset: Must be between 0 and 4294967295, not 1.1805916207174113e+21. \
             Limit: Must be between 1 and 50, not 51. \
             IncludeReviews: Must be true or false, not a string. \
             movie_id: Not an argument of this tool, which takes query, offset, limit and includeReviews. \
             Limit: Not an argument of this tool. Did you mean limit?"
        )
    );
}

#[tokio::test]
async fn every_rule_of_every_tool_is_enforced() {
    let client = fixture::client().await;
    let uuid_rule = "Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.";
    let cases: Vec<(&'static str, Value, String)> = vec![
        (
            "movies_search",
            json!({ "offset": -1 }),
            invalid("Offset: Must be between 0 and 4294967295, not -1."),
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

#[tokio::test]
async fn the_leniencies_of_part_two_hold_for_every_tool() {
    let client = fixture::client().await;
    let request = CallToolRequestParams::new("movies_search");
    let result = client.service.call_tool(request).await.unwrap();
    assert_eq!(
        result.is_error,
        Some(false),
        "a missing arguments object means {{}}"
    );
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

#[tokio::test]
async fn two_databases_from_the_same_seed_hold_identical_data() {
    let size = Size {
        movies: 40,
        authors: 12,
        reviews: 150,
    };
    let mut answers = Vec::new();
    for seed in [11, 11, 12] {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("seeded.db");
        movie_reviews_mcp::seed_database(
            &Database::Sqlite(path.clone()),
            size,
            seed,
            &mut |_, _, _| {},
        )
        .await
        .unwrap();
        let client = Client::serving(
            Store::open(&Database::Sqlite(path.clone())).await.unwrap(),
            folder,
        )
        .await;
        answers.push(client.everything().await);
    }
    assert_eq!(answers[0], answers[1]);
    assert_ne!(answers[0], answers[2]);
    assert_eq!(demo::generate(size, 11), demo::generate(size, 11));
}

/// Seeding drops the indexes and triggers while it loads: seeding over a database that holds
/// data and has been written to must leave it as a new database seeded alike, with every index
/// and trigger back, its counts kept again on the next write, and search finding the new titles.
#[tokio::test]
async fn seeding_over_a_used_database_equals_seeding_a_new_one() {
    let size = Size {
        movies: 60,
        authors: 15,
        reviews: 300,
    };
    let schema = |path: std::path::PathBuf| async move {
        let store = Store::open(&Database::Sqlite(path.clone())).await.unwrap();
        store.close().await;
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
        let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect_with(&options)
            .await
            .unwrap();
        let schema: Vec<(String, String)> = sqlx::query_as(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name",
        )
        .fetch_all(&mut connection)
        .await
        .unwrap();
        schema
    };
    let folder = tempfile::tempdir().unwrap();
    let fresh = folder.path().join("fresh.db");
    let used = folder.path().join("used.db");
    movie_reviews_mcp::seed_database(&Database::Sqlite(fresh.clone()), size, 5, &mut |_, _, _| {})
        .await
        .unwrap();
    let fresh_schema = schema(fresh.clone()).await;
    assert!(
        fresh_schema
            .iter()
            .any(|(name, _)| name == "reviews_by_author_in_order")
    );
    assert!(
        fresh_schema
            .iter()
            .any(|(name, _)| name == "movies_search_insert")
    );

    // A database with other data, written to.
    movie_reviews_mcp::seed_database(&Database::Sqlite(used.clone()), size, 99, &mut |_, _, _| {})
        .await
        .unwrap();
    {
        let client = Client::serving(
            Store::open(&Database::Sqlite(used.clone())).await.unwrap(),
            tempfile::tempdir().unwrap(),
        )
        .await;
        let movie =
            client.ok("movies_search", json!({ "limit": 1 })).await["items"][0]["id"].clone();
        let author =
            client.ok("authors_search", json!({ "limit": 1 })).await["items"][0]["id"].clone();
        client
            .ok(
                "reviews_write",
                json!({ "stars": 5, "movieId": movie, "authorId": author }),
            )
            .await;
    }
    let mut stages = Vec::new();
    movie_reviews_mcp::seed_database(
        &Database::Sqlite(used.clone()),
        size,
        5,
        &mut |stage, done, total| stages.push((stage, done, total)),
    )
    .await
    .unwrap();
    assert_eq!(stages.last().map(|stage| stage.0), Some("search indexes"));
    assert!(stages.contains(&("reviews", 300, 300)), "{stages:?}");
    assert_eq!(schema(used.clone()).await, fresh_schema);

    let fresh_client = Client::serving(
        Store::open(&Database::Sqlite(fresh.clone())).await.unwrap(),
        tempfile::tempdir().unwrap(),
    )
    .await;
    let used_client = Client::serving(
        Store::open(&Database::Sqlite(used.clone())).await.unwrap(),
        tempfile::tempdir().unwrap(),
    )
    .await;
    assert_eq!(
        used_client.everything().await,
        fresh_client.everything().await
    );

    // The triggers are back: a write is counted, and search finds a seeded title.
    let movie = used_client.ok("movies_search", json!({ "limit": 1 })).await["items"][0].clone();
    let author = used_client
        .ok("authors_search", json!({ "limit": 1 }))
        .await["items"][0]["id"]
        .clone();
    used_client
        .ok(
            "reviews_write",
            json!({ "stars": 1, "movieId": movie["id"], "authorId": author }),
        )
        .await;
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

/// A common term's page is found by walking the titles in order, which is quick when its
/// matches are spread through the order and slow when they gather at its end; the walk is
/// bounded and then the matches are sorted instead. Either way the pages are the same.
#[tokio::test]
async fn search_pages_are_right_wherever_the_matches_stand_in_the_order() {
    // 250 titles early in the order, 50 late ones sharing a word, 30 spread among them.
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
    for by_hand in [false, true] {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("reviews.db");
        let store = Store::open(&Database::Sqlite(path.clone())).await.unwrap();
        store
            .replace_all(&movies, &[], &[], &mut |_, _, _| {})
            .await
            .unwrap();
        let mut movies = movies.clone();
        if by_hand {
            // First in title order, last in rowid order.
            let movie = NewMovie {
                id: Uuid::from_u128(0x0100_0000_0000_4000_8000_0000_0000_0fff),
                title: "Aaa target by hand".to_owned(),
            };
            let author = NewAuthor {
                id: Uuid::from_u128(0x0200_0000_0000_4000_8000_0000_0000_0fff),
                first_name: "Hand".to_owned(),
                last_name: "By".to_owned(),
            };
            assert_eq!(
                add_by_hand(&path, &movie, &author).await,
                [true, true, false, false]
            );
            movies.push(movie);
        }
        let client = Client::serving(store, folder).await;
        search_pages_are_right_on(&client, &movies).await;
    }
}

async fn search_pages_are_right_on(client: &Client, movies: &[NewMovie]) {
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
