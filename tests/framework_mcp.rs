//! Declared tools served through rmcp and called by the test kit's client over an in-process pipe:
//! the registration a client lists (snapshotted whole), results, tool errors as `isError`
//! results, and an unknown tool as the JSON-RPC error the MCP specification prescribes.

use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use serde_json::json;
use toolkit::testing::TestClient;
use toolkit::{Context, Entity, Exists, Handler, Run, Server, Tool, ToolError, Toolbox, Uuid};

const MOVIE: Uuid = Uuid::from_u128(0x3f2504e0_4f89_11d3_9a0c_0305e82c3301);

pub struct Movie;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search"];
}

/// A page of titles.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The titles on this page.
    items: Vec<Title>,
    /// Pass it as offset to get the next page. Left out on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<u32>,
}

/// One title.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Title {
    /// The movie's id.
    id: Uuid,
    /// The movie's title.
    title: String,
    /// The average rating, left out when there are no reviews.
    #[serde(skip_serializing_if = "Option::is_none")]
    average: Option<f64>,
}

/// Finds movies whose title contains a search term, ignoring case.
///
/// Leave the query empty to browse every movie a page at a time.
#[derive(Tool)]
#[tool(name = "movies_search", title = "Search movies", output = Page,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct MoviesSearch {
    /// Part of the title to look for.
    #[arg(max_chars = 100)]
    query: Option<String>,
    /// How many results to skip.
    #[arg(min = 0, default = 0)]
    offset: u32,
    /// How many results to return.
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
}

impl Run<Catalog> for MoviesSearch {
    async fn run(self, _catalog: &Catalog, _context: &Context) -> Result<Page, ToolError> {
        let title = self.query.unwrap_or_default();
        let items = (self.offset..self.offset + self.limit.min(2))
            .map(|_| Title {
                id: MOVIE,
                title: title.clone(),
                average: None,
            })
            .collect();
        Ok(Page {
            items,
            next_offset: Some(self.offset + 2),
        })
    }
}

/// What happened.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deleted {
    /// The review's id.
    review_id: Uuid,
    /// Always true.
    deleted: bool,
}

/// Permanently deletes a review. Confirm with the user first.
#[derive(Tool)]
#[tool(name = "reviews_delete", title = "Delete review", output = Deleted,
       read_only = false, destructive, idempotent, open_world = false)]
pub struct ReviewsDelete {
    /// The review to delete.
    #[arg(exists = Movie)]
    review_id: Uuid,
}

impl Run<Catalog> for ReviewsDelete {
    async fn run(self, _catalog: &Catalog, _context: &Context) -> Result<Deleted, ToolError> {
        Ok(Deleted {
            review_id: self.review_id,
            deleted: true,
        })
    }
}

/// The state the tools run on.
pub struct Catalog;

impl Exists<Movie> for Catalog {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(id == MOVIE)
    }
}

/// A server of the two tools, routed by the toolkit.
fn catalog() -> Handler<Catalog> {
    let tools = Toolbox::new()
        .tool::<MoviesSearch>()
        .tool::<ReviewsDelete>();
    Server::new("catalog", "1.0.0")
        .toolbox(tools)
        .build(Catalog)
        .expect("the example tools assemble")
}

async fn connect() -> TestClient {
    TestClient::connect(&catalog()).await
}

#[tokio::test]
async fn a_client_lists_every_declared_tool_whole() {
    let client = connect().await;
    let tools = client.list_tools().await;
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("framework_tools_list", tools);
    });
}

#[tokio::test]
async fn a_call_returns_compact_text_and_the_same_structured_content() {
    let client = connect().await;
    let result = (client
        .call("movies_search", json!({ "query": "Alien", "limit": 1 }))
        .await)
        .raw()
        .clone();
    assert_eq!(result.is_error, Some(false));
    let expected = json!({
        "items": [{ "id": MOVIE, "title": "Alien" }],
        "nextOffset": 2,
    });
    assert_eq!(result.structured_content, Some(expected.clone()));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        expected.to_string()
    );
}

#[tokio::test]
async fn broken_rules_and_missing_rows_are_tool_results_not_protocol_errors() {
    let client = connect().await;
    let result = (client
        .call("movies_search", json!({ "limit": 0, "Query": "x" }))
        .await)
        .raw()
        .clone();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "Validation Failed: limit: Must be between 1 and 50, not 0. \
         Query: Not an argument of this tool. Did you mean query? \
         Correct the arguments and call the tool again."
    );

    let nobody = Uuid::nil();
    let result = (client
        .call("reviews_delete", json!({ "reviewId": nobody }))
        .await)
        .raw()
        .clone();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        format!("Not Found: No movie has the id {nobody}. Call movies_search to find movie ids.")
    );
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_invalid_params_error() {
    let client = connect().await;
    let error = (client.try_call("movies_delete", json!({})).await).expect_err("no such tool");
    let ServiceError::McpError(error) = error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
}
