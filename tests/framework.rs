//! What a declared tool does with the arguments a model sends: the exact text of every kind of
//! failure, the leniencies the tools promise (`{}` for no arguments, `null`, `5.0`),
//! existence checks, unexpected errors and how results are encoded.
//!
//! Each test runs small example declarations through `toolkit::call`, the same code path an
//! rmcp route takes (`framework_mcp.rs` covers the route itself).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolkit::{Context, Entity, Exists, Run, Tool, ToolError, Toolbox, Uuid};

const MOVIE: Uuid = Uuid::from_u128(0x3f2504e0_4f89_11d3_9a0c_0305e82c3301);
const AUTHOR: Uuid = Uuid::from_u128(0xa1a1a1a1_0000_4000_8000_000000000001);
const REVIEW: Uuid = Uuid::from_u128(0xb2b2b2b2_0000_4000_8000_000000000002);
const OTHER_MOVIE: Uuid = Uuid::from_u128(0x3f2504e0_4f89_11d3_9a0c_0305e82c3302);
const NOBODY: Uuid = Uuid::from_u128(0xdeadbeef_0000_4000_8000_000000000000);

pub struct Movie;
pub struct Author;
pub struct Review;

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search", "reviews_list"];
}

impl Entity for Author {
    const NAME: &'static str = "author";
    const LISTED_BY: &'static [&'static str] = &["authors_search"];
}

impl Entity for Review {
    const NAME: &'static str = "review";
    const LISTED_BY: &'static [&'static str] = &["reviews_list"];
}

/// The state tools run against: two movies, one author, one review (of `MOVIE`).
#[derive(Default)]
pub struct Db {
    /// When set, every lookup fails as a broken database would.
    broken: bool,
    /// How many `Exists` lookups were made.
    lookups: AtomicUsize,
}

impl Db {
    fn lookup(&self, id: Uuid, known: &[Uuid]) -> Result<bool, ToolError> {
        self.lookups.fetch_add(1, Ordering::Relaxed);
        if self.broken {
            return Err(ToolError::unexpected(
                "disk I/O error at /var/lib/secret.db: SELECT 1 FROM movies",
            ));
        }
        Ok(known.contains(&id))
    }
}

impl Exists<Movie> for Db {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        self.lookup(id, &[MOVIE, OTHER_MOVIE])
    }
}

impl Exists<Author> for Db {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        self.lookup(id, &[AUTHOR])
    }
}

impl Exists<Review> for Db {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        self.lookup(id, &[REVIEW])
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Echo {
    arguments: Value,
}

/// Searches.
#[derive(Tool)]
#[tool(name = "search", title = "Search", output = Echo,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Search {
    #[arg(max_chars = 100)]
    query: Option<String>,
    #[arg(min = 0, default = 0)]
    offset: u32,
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
    #[arg(default = false)]
    include_reviews: bool,
}

impl Run<Db> for Search {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        Ok(Echo {
            arguments: json!([self.query, self.offset, self.limit, self.include_reviews]),
        })
    }
}

/// Writes a review.
#[derive(Tool)]
#[tool(name = "write", title = "WriteReview", output = Echo,
       read_only = false, destructive, idempotent = false, open_world = false)]
pub struct WriteReview {
    #[arg(min = 1, max = 5, message = "A star rating must be between 1 and 5.")]
    stars: u32,
    #[arg(exists = Movie, required_unless = review_id, message = "Needed to create a review.")]
    movie_id: Option<Uuid>,
    #[arg(exists = Author, required_unless = review_id, message = "Needed to create a review.")]
    author_id: Option<Uuid>,
    #[arg(exists = Review)]
    review_id: Option<Uuid>,
}

impl Run<Db> for WriteReview {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        if self.review_id.is_some() && self.movie_id.is_some_and(|id| id != MOVIE) {
            return Err(ToolError::invalid::<Self>(
                "movie_id",
                "A review's movie can't change.",
            ));
        }
        Ok(Echo {
            arguments: json!([self.stars, self.movie_id, self.author_id, self.review_id]),
        })
    }
}

/// Lists reviews.
#[derive(Tool)]
#[tool(name = "list", title = "List", output = Echo,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct List {
    #[arg(exists = Movie, ignored_with = review_id)]
    movie_id: Option<Uuid>,
    #[arg(exists = Review)]
    review_id: Option<Uuid>,
}

impl Run<Db> for List {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        Ok(Echo {
            arguments: json!([self.movie_id, self.review_id]),
        })
    }
}

/// Rates a movie for an author, finding out itself whether both exist.
#[derive(Tool)]
#[tool(name = "rate", title = "Rate", output = Echo,
       read_only = false, destructive = false, idempotent, open_world = false)]
pub struct Rate {
    #[arg(exists = Movie)]
    movie_id: Uuid,
    #[arg(exists = Author)]
    author_id: Uuid,
}

impl Run<Db> for Rate {
    const CHECKS_EXISTENCE: bool = true;

    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        // As a write that inserts nothing when either row is missing.
        if ![MOVIE, OTHER_MOVIE].contains(&self.movie_id) || self.author_id != AUTHOR {
            return Err(ToolError::Missing);
        }
        Ok(Echo {
            arguments: json!([self.movie_id, self.author_id]),
        })
    }
}

/// Says an id is missing although the checks find every one.
#[derive(Tool)]
#[tool(name = "confused", title = "Confused", output = Echo,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Confused {
    #[arg(exists = Movie)]
    movie_id: Uuid,
}

impl Run<Db> for Confused {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        Err(ToolError::Missing)
    }
}

/// Takes nothing.
#[derive(Tool)]
#[tool(name = "nothing", title = "Nothing", output = Echo,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Nothing;

impl Run<Db> for Nothing {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        Ok(Echo {
            arguments: json!([]),
        })
    }
}

/// What a call answered: success with its structured value, or the error text.
#[derive(Debug, PartialEq)]
enum Answer {
    Ok(Value),
    Err(String),
}

async fn call_on<T: Run<Db>>(db: &Db, arguments: Option<Value>) -> Answer {
    let arguments = arguments.map(|value| match value {
        Value::Object(object) => object,
        other => panic!("arguments must be an object, not {other}"),
    });
    let result = toolkit::call::<Db, T>(db, arguments.as_ref()).await;
    assert_eq!(result.content.len(), 1, "one text block: {result:?}");
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    if result.is_error == Some(true) {
        assert_eq!(result.structured_content, None);
        return Answer::Err(text);
    }
    assert_eq!(result.is_error, Some(false));
    let structured = result.structured_content.expect("structuredContent");
    assert_eq!(
        text,
        serde_json::to_string(&structured).unwrap(),
        "compact text"
    );
    let echoed = structured["arguments"].clone();
    Answer::Ok(echoed)
}

async fn call<T: Run<Db>>(arguments: Value) -> Answer {
    call_on::<T>(&Db::default(), Some(arguments)).await
}

fn invalid(rules: &str) -> Answer {
    Answer::Err(format!(
        "Validation Failed: {rules} Correct the arguments and call the tool again."
    ))
}

#[tokio::test]
async fn a_broken_rule_reads_as_one_sentence_with_its_custom_message() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 7, "movieId": MOVIE, "authorId": AUTHOR })).await,
        invalid("stars: A star rating must be between 1 and 5.")
    );
}

#[tokio::test]
async fn every_broken_rule_is_listed_in_argument_order_then_unknown_names_as_sent() {
    let arguments = json!({
        "zebra": 1,
        "limit": 0,
        "movie_id": "x",
        "query": "q".repeat(101),
        "includeReviews": "yes",
        "offset": -1,
    });
    assert_eq!(
        call::<Search>(arguments).await,
        invalid(
            "query: Must be at most 100 characters long, not 101. \
             offset: Must be 0 or more, not -1. \
             limit: Must be between 1 and 50, not 0. \
             includeReviews: Must be true or false, not a string. \
             zebra: Not an argument of this tool, which takes query, offset, limit and includeReviews. \
             movie_id: Not an argument of this tool, which takes query, offset, limit and includeReviews."
        )
    );
}

#[tokio::test]
async fn a_wrong_json_type_names_the_type_needed() {
    assert_eq!(
        call::<Search>(json!({ "query": 5, "limit": "10" })).await,
        invalid("query: Must be a string, not a number. limit: Must be an integer, not a string.")
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": [5], "movieId": 5, "authorId": {} })).await,
        invalid(
            "stars: Must be an integer, not an array. \
             movieId: Must be a UUID string, not a number. \
             authorId: Must be a UUID string, not an object."
        )
    );
}

#[tokio::test]
async fn a_flood_of_unknown_names_lists_ten_and_counts_the_rest() {
    let mut arguments = serde_json::Map::new();
    for number in 0..100_000 {
        arguments.insert(format!("x{number:06}"), json!(1));
    }
    let Answer::Err(text) = call::<Nothing>(Value::Object(arguments)).await else {
        panic!("undeclared names must be refused");
    };
    assert!(text.len() < 2_000, "{} bytes: {text}", text.len());
    assert_eq!(text.matches("Not an argument of this tool").count(), 10);
    assert!(
        text.ends_with(
            " 99,990 more names: Not arguments of this tool. \
             Correct the arguments and call the tool again."
        ),
        "{text}"
    );
}

#[tokio::test]
async fn unknown_names_suggest_the_argument_meant() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "movie_id": MOVIE, "AuthorID": AUTHOR })).await,
        invalid(
            "movieId: Needed to create a review. authorId: Needed to create a review. \
             movie_id: Not an argument of this tool. Did you mean movieId? \
             AuthorID: Not an argument of this tool. Did you mean authorId?"
        )
    );
    assert_eq!(
        call::<Search>(json!({ "includereviews": true, "limt": 5 })).await,
        invalid(
            "includereviews: Not an argument of this tool. Did you mean includeReviews? \
             limt: Not an argument of this tool. Did you mean limit?"
        )
    );
    assert_eq!(
        call::<Nothing>(json!({ "x": 1 })).await,
        invalid("x: Not an argument of this tool, which takes no arguments.")
    );
}

#[tokio::test]
async fn a_very_long_unknown_name_is_cut_short_when_echoed() {
    let name = "k".repeat(10_000);
    let Answer::Err(text) = call::<Nothing>(json!({ name: 1 })).await else {
        panic!("an unknown name must fail");
    };
    assert!(text.len() < 300, "{} characters", text.len());
    assert!(text.contains(&format!("{}…: Not an argument", "k".repeat(64))));
}

#[tokio::test]
async fn missing_required_arguments_are_each_listed() {
    assert_eq!(
        call::<WriteReview>(json!({})).await,
        invalid(
            "stars: This argument is required. movieId: Needed to create a review. \
             authorId: Needed to create a review."
        )
    );
}

#[tokio::test]
async fn a_missing_arguments_object_means_no_arguments() {
    assert_eq!(
        call_on::<Search>(&Db::default(), None).await,
        Answer::Ok(json!([null, 0, 10, false]))
    );
    assert_eq!(
        call_on::<WriteReview>(&Db::default(), None).await,
        call::<WriteReview>(json!({})).await
    );
}

#[tokio::test]
async fn null_means_left_out() {
    assert_eq!(
        call::<Search>(json!({ "query": null, "limit": null, "includeReviews": null })).await,
        Answer::Ok(json!([null, 0, 10, false]))
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": null, "movieId": MOVIE, "authorId": AUTHOR })).await,
        invalid("stars: This argument is required.")
    );
}

#[tokio::test]
async fn an_integer_may_arrive_as_a_float_with_no_fraction() {
    assert_eq!(
        call::<Search>(json!({ "offset": 5.0, "limit": 1e1 })).await,
        Answer::Ok(json!([null, 5, 10, false]))
    );
    assert_eq!(
        call::<Search>(json!({ "limit": 5.5 })).await,
        invalid("limit: Must be an integer, not 5.5.")
    );
}

#[tokio::test]
async fn an_integer_too_large_to_hold_is_a_broken_rule() {
    assert_eq!(
        call::<Search>(json!({ "offset": 2f64.powi(70) })).await,
        invalid("offset: Must be 4294967295 or less, not 1.1805916207174113e+21.")
    );
    assert_eq!(
        call::<Search>(json!({ "offset": u64::MAX })).await,
        invalid("offset: Must be 4294967295 or less, not 18446744073709551615.")
    );
    assert_eq!(
        call::<Search>(json!({ "offset": 4_294_967_295u64 })).await,
        Answer::Ok(json!([null, 4_294_967_295u64, 10, false]))
    );
}

#[tokio::test]
async fn length_is_counted_in_characters_not_bytes() {
    assert_eq!(
        call::<Search>(json!({ "query": "é".repeat(100) })).await,
        Answer::Ok(json!(["é".repeat(100), 0, 10, false]))
    );
    assert_eq!(
        call::<Search>(json!({ "query": "é".repeat(101) })).await,
        invalid("query: Must be at most 100 characters long, not 101.")
    );
    // A combining mark is its own scalar value: "e\u{301}" is two characters.
    assert_eq!(
        call::<Search>(json!({ "query": "e\u{301}".repeat(51) })).await,
        invalid("query: Must be at most 100 characters long, not 102.")
    );
}

#[tokio::test]
async fn ids_are_accepted_in_any_case_but_only_hyphenated() {
    let upper = MOVIE.hyphenated().to_string().to_uppercase();
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 4, "movieId": upper, "authorId": AUTHOR })).await,
        Answer::Ok(json!([4, MOVIE, AUTHOR, null]))
    );
    let uuid_rule = "Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.";
    for malformed in [
        format!("{{{MOVIE}}}"),
        MOVIE.simple().to_string(),
        MOVIE.urn().to_string(),
        "not-an-id".to_owned(),
    ] {
        assert_eq!(
            call::<WriteReview>(json!({ "stars": 4, "movieId": malformed, "authorId": AUTHOR }))
                .await,
            invalid(&format!("movieId: {uuid_rule}")),
            "{malformed}"
        );
    }
}

#[tokio::test]
async fn required_unless_is_satisfied_by_the_other_argument_even_when_it_is_malformed() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 2, "reviewId": REVIEW })).await,
        Answer::Ok(json!([2, null, null, REVIEW]))
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 2, "reviewId": "oops" })).await,
        invalid("reviewId: Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.")
    );
}

#[tokio::test]
async fn an_argument_ignored_with_another_is_validated_but_neither_checked_nor_passed() {
    assert_eq!(
        call::<List>(json!({ "movieId": NOBODY, "reviewId": REVIEW })).await,
        Answer::Ok(json!([null, REVIEW]))
    );
    assert_eq!(
        call::<List>(json!({ "movieId": "bad", "reviewId": REVIEW })).await,
        invalid("movieId: Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.")
    );
    assert_eq!(
        call::<List>(json!({ "movieId": MOVIE })).await,
        Answer::Ok(json!([MOVIE, null]))
    );
}

#[tokio::test]
async fn a_missing_row_is_not_found_naming_the_tools_that_list_ids() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "movieId": NOBODY, "authorId": AUTHOR })).await,
        Answer::Err(format!(
            "Not Found: No movie has the id {NOBODY}. \
             Call movies_search or reviews_list to find movie ids."
        ))
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "movieId": MOVIE, "authorId": NOBODY })).await,
        Answer::Err(format!(
            "Not Found: No author has the id {NOBODY}. Call authors_search to find author ids."
        ))
    );
}

#[tokio::test]
async fn existence_is_checked_in_argument_order_and_only_after_validation_passes() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "movieId": NOBODY, "authorId": NOBODY })).await,
        Answer::Err(format!(
            "Not Found: No movie has the id {NOBODY}. \
             Call movies_search or reviews_list to find movie ids."
        ))
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 9, "movieId": NOBODY, "authorId": NOBODY })).await,
        invalid("stars: A star rating must be between 1 and 5.")
    );
}

#[tokio::test]
async fn a_tool_that_checks_existence_itself_is_not_looked_up_for_first() {
    let db = Db::default();
    let both = json!({ "movieId": MOVIE, "authorId": AUTHOR });
    assert_eq!(
        call_on::<Rate>(&db, Some(both.clone())).await,
        Answer::Ok(json!([MOVIE, AUTHOR]))
    );
    assert_eq!(db.lookups.load(Ordering::Relaxed), 0);
    // The same ids through a tool the toolkit checks first: one lookup each.
    let write = json!({ "stars": 3, "movieId": MOVIE, "authorId": AUTHOR });
    assert!(matches!(
        call_on::<WriteReview>(&db, Some(write)).await,
        Answer::Ok(_)
    ));
    assert_eq!(db.lookups.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn when_such_a_tool_misses_the_first_missing_id_in_argument_order_is_not_found() {
    assert_eq!(
        call::<Rate>(json!({ "movieId": NOBODY, "authorId": NOBODY })).await,
        Answer::Err(format!(
            "Not Found: No movie has the id {NOBODY}. \
             Call movies_search or reviews_list to find movie ids."
        ))
    );
    assert_eq!(
        call::<Rate>(json!({ "movieId": MOVIE, "authorId": NOBODY })).await,
        Answer::Err(format!(
            "Not Found: No author has the id {NOBODY}. Call authors_search to find author ids."
        ))
    );
}

#[tokio::test]
async fn a_missing_id_that_every_check_then_finds_is_unexpected() {
    let Answer::Err(text) = call::<Confused>(json!({ "movieId": MOVIE })).await else {
        panic!("a tool that reports a missing id must fail");
    };
    assert!(
        text.starts_with("Error: Something unexpected happened. Reference: "),
        "{text}"
    );
}

#[tokio::test]
async fn a_rule_the_tool_checks_itself_reads_like_a_declared_one() {
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "reviewId": REVIEW, "movieId": OTHER_MOVIE }))
            .await,
        invalid("movieId: A review's movie can't change.")
    );
    assert_eq!(
        call::<WriteReview>(json!({ "stars": 3, "reviewId": REVIEW, "movieId": MOVIE })).await,
        Answer::Ok(json!([3, MOVIE, null, REVIEW]))
    );
}

#[tokio::test]
async fn handler_violations_name_the_argument_as_declared_ones_do() {
    let error = ToolError::invalid::<WriteReview>("movie_id", "A review's movie can't change.");
    let ToolError::Invalid(violations) = error else {
        panic!("an invalid error");
    };
    assert_eq!(
        violations.to_string(),
        "Validation Failed: movieId: A review's movie can't change. \
         Correct the arguments and call the tool again."
    );
}

/// A writer the test's log subscriber appends to.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn an_unexpected_failure_shows_only_a_reference_which_the_log_carries_with_the_cause() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let broken = Db {
        broken: true,
        ..Db::default()
    };
    let answer = call_on::<WriteReview>(
        &broken,
        Some(json!({ "stars": 3, "movieId": MOVIE, "authorId": AUTHOR })),
    )
    .await;
    let Answer::Err(text) = answer else {
        panic!("a broken database must fail the call");
    };
    let reference = text
        .strip_prefix("Error: Something unexpected happened. Reference: ")
        .and_then(|rest| rest.strip_suffix('.'))
        .unwrap_or_else(|| panic!("unexpected text: {text}"));
    assert_eq!(reference.len(), 8);
    assert!(reference.chars().all(|c| c.is_ascii_hexdigit()));

    let log = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|line| line.contains(reference))
        .unwrap_or_else(|| panic!("no log line carries {reference}: {log}"));
    assert!(line.contains("ERROR"), "{line}");
    assert!(line.contains("disk I/O error"), "{line}");
    assert!(line.contains("tool=\"write\""), "{line}");
}

#[tokio::test]
async fn success_is_compact_json_text_equal_to_structured_content() {
    let result =
        toolkit::call::<Db, Search>(&Db::default(), json!({ "query": "a b" }).as_object()).await;
    assert_eq!(result.is_error, Some(false));
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(text, r#"{"arguments":["a b",0,10,false]}"#);
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        result.structured_content.unwrap()
    );
}

/// Another tool that claims the name `search`.
#[derive(Tool)]
#[tool(name = "search", title = "Search again", output = Echo,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct SearchAgain;

impl Run<Db> for SearchAgain {
    async fn run(self, _db: &Db, _context: &Context) -> Result<Echo, ToolError> {
        Ok(Echo {
            arguments: json!([]),
        })
    }
}

/// A tool whose output is not an object, which MCP does not allow.
#[derive(Tool)]
#[tool(name = "count", title = "Count", output = u32,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Count;

impl Run<Db> for Count {
    async fn run(self, _db: &Db, _context: &Context) -> Result<u32, ToolError> {
        Ok(1)
    }
}

#[test]
fn the_toolbox_refuses_two_tools_with_one_name_and_non_object_outputs() {
    let Err(error) = Toolbox::<Db>::new()
        .tool::<Search>()
        .tool::<List>()
        .tool::<SearchAgain>()
        .tool::<Count>()
        .build()
    else {
        panic!("the toolbox must refuse");
    };
    assert_eq!(
        error.problems,
        [
            "two tools are named `search`; tool names must be unique",
            "the output type of `count` (u32) cannot be an MCP output schema: \
             its schema must be a JSON object",
        ]
    );
}

#[test]
fn the_toolbox_lists_every_tool_it_was_given() {
    let router = Toolbox::<Db>::new()
        .tool::<Search>()
        .tool::<WriteReview>()
        .tool::<List>()
        .tool::<Nothing>()
        .build()
        .unwrap();
    let names: Vec<_> = router
        .list_all()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(names, ["list", "nothing", "search", "write"]);
}
