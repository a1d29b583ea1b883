//! The harness every test uses: [`Backend`], which makes a new, empty database of a backend,
//! and [`Client`], the test kit's client connected in-process to a server on such a database,
//! which checks every answer against the tool's contract.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use jsonschema::Validator;
use movie_reviews_mcp::demo::Size;
use serde_json::{Value, json};
use store::{Database, NewAuthor, NewMovie, NewReview, Store};
use test_support::output_schemas::output_schemas;
use test_support::postgres_cluster;
use toolkit::testing::TestClient;
use uuid::Uuid;

/// A store backend the suite runs on. A new backend is one more variant here, with its arm in
/// [`Backend::new_database`], and one more module in `on_every_backend!` (main.rs).
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    /// A SQLite file in a temporary folder.
    Sqlite,
    /// A database of its own on the tests' throwaway PostgreSQL server.
    Postgres,
}

impl Backend {
    /// A new, empty database of this backend, for one test. `name` tells a test's databases
    /// apart; the database lasts as long as the guard.
    pub fn new_database(self, name: &str) -> (Database, Guard) {
        match self {
            Backend::Sqlite => {
                let (path, guard) = new_sqlite_file(name);
                (Database::Sqlite(path), guard)
            }
            Backend::Postgres => {
                let cluster = postgres_cluster::cluster();
                let url = cluster.new_database();
                let database = Database::named(PathBuf::from(url)).unwrap();
                // The database goes with the cluster, at the end of the test process.
                (database, Guard { _folder: None })
            }
        }
    }
}

/// A new SQLite file, not created yet, in a temporary folder of its own. The tests of the
/// SQLite backend's own mechanics need the path to write SQL to the file by hand.
pub fn new_sqlite_file(name: &str) -> (PathBuf, Guard) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(name);
    let guard = Guard {
        _folder: Some(Arc::new(folder)),
    };
    (path, guard)
}

/// Keeps a test's database: it is removed when the last clone of its guard is dropped. Clones
/// let several clients share one database.
#[derive(Clone)]
pub struct Guard {
    _folder: Option<Arc<tempfile::TempDir>>,
}

/// Fills `database` with the demo set generated from `seed` at `size`, replacing what it held,
/// as the `seed` command does: through a store of its own, so a running server sees another
/// process write.
pub async fn seed_demo(database: &Database, size: Size, seed: u64) {
    movie_reviews_mcp::commands::seed_database(database, size, seed, &mut |_, _, _| {})
        .await
        .unwrap();
}

/// A client connected to a server on its own database.
pub struct Client {
    pub session: TestClient,
    output_schemas: HashMap<String, Validator>,
    _guard: Guard,
}

impl Client {
    /// A server on a new database of `backend` holding exactly `movies`, `authors` and
    /// `reviews`.
    pub async fn with(
        backend: Backend,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Client {
        let (database, guard) = backend.new_database("reviews.db");
        Client::loaded(&database, guard, movies, authors, reviews).await
    }

    /// A server on `database`, which is first loaded with exactly `movies`, `authors` and
    /// `reviews`.
    pub async fn loaded(
        database: &Database,
        guard: Guard,
        movies: &[NewMovie],
        authors: &[NewAuthor],
        reviews: &[NewReview],
    ) -> Client {
        let store = Store::open(database).await.unwrap();
        store
            .replace_all(movies, authors, reviews, &mut |_, _, _| {})
            .await
            .unwrap();
        Client::serving(store, guard).await
    }

    /// A server on a new database of `backend`, which it fills with the demo set as it starts.
    pub async fn demo(backend: Backend) -> Client {
        let (database, guard) = backend.new_database("demo.db");
        let store = movie_reviews_mcp::commands::open_or_create(&database)
            .await
            .unwrap();
        Client::serving(store, guard).await
    }

    /// A server on `database` as it is.
    pub async fn opening(database: &Database, guard: Guard) -> Client {
        Client::serving(Store::open(database).await.unwrap(), guard).await
    }

    /// A server on `store`; `guard` keeps its database for as long as the client lives.
    pub async fn serving(store: Store, guard: Guard) -> Client {
        let session =
            TestClient::connect(&movie_reviews_mcp::serve::every_tool(store).unwrap()).await;
        let output_schemas = output_schemas(&session.list_tools().await);
        Client {
            session,
            output_schemas,
            _guard: guard,
        }
    }

    /// Calls a tool: `Ok(structuredContent)` after checking it against the text block and the
    /// output schema, or `Err(text)` for an `isError` result.
    async fn call(&self, tool: &'static str, arguments: Value) -> Result<Value, String> {
        assert!(arguments.is_object(), "arguments must be an object");
        let result = self.session.call(tool, arguments).await;
        let result = result.raw();
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
        let structured = (result.structured_content.clone()).expect("structuredContent");
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

    pub async fn ok(&self, tool: &'static str, arguments: Value) -> Value {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => value,
            Err(text) => panic!("{tool} {arguments} failed: {text}"),
        }
    }

    pub async fn err(&self, tool: &'static str, arguments: Value) -> String {
        match self.call(tool, arguments.clone()).await {
            Ok(value) => panic!("{tool} {arguments} succeeded: {value}"),
            Err(text) => text,
        }
    }

    /// Writes a review with `stars` of the first movie in title order by the first author in
    /// name order, and returns that movie as `movies_search` showed it before the write.
    pub async fn review_the_first_movie(&self, stars: u8) -> Value {
        let movie = self.ok("movies_search", json!({ "limit": 1 })).await["items"][0].clone();
        let author =
            self.ok("authors_search", json!({ "limit": 1 })).await["items"][0]["id"].clone();
        let review = json!({ "stars": stars, "movieId": movie["id"], "authorId": author });
        self.ok("reviews_write", review).await;
        movie
    }

    /// Every movie, author and review, as the list tools show them.
    pub async fn everything(&self) -> Vec<Value> {
        let mut everything = self.all_pages("movies_search", json!({}), 50).await;
        everything.extend(self.all_pages("authors_search", json!({}), 50).await);
        everything.extend(self.all_pages("reviews_list", json!({}), 50).await);
        everything
    }

    /// Every item of a list tool, a page of `limit` at a time, checking each page's paging.
    pub async fn all_pages(&self, tool: &'static str, arguments: Value, limit: u64) -> Vec<Value> {
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

/// The text of a validation error that lists `rules`.
pub fn invalid(rules: &str) -> String {
    format!("Validation Failed: {rules} Correct the arguments and call the tool again.")
}

/// The ids of a list of items, in order.
pub fn ids(items: &Value) -> Vec<Uuid> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_str().unwrap().parse().unwrap())
        .collect()
}
