//! Hostile arguments: every tool is driven with random argument objects, through a real rmcp
//! client talking to the server in-process, on a real database holding the demo data: the same
//! test runs on every store backend, a SQLite file (`sqlite::…`) and a PostgreSQL database on
//! the tests' throwaway server (`postgres::…`, marked ignored where PostgreSQL is not
//! installed, except under CI).
//!
//! Every answer must be either a success (`isError` false, one text block whose JSON is equal
//! to `structuredContent`, which validates against the tool's `outputSchema`) or an `isError`
//! result with exactly one text block starting `Validation Failed:`, `Not Found:` or `Error:`.
//! Never a JSON-RPC error, never a panic (a panic hook counts them), never a hang (each call has
//! [`CALL_TIMEOUT`]). Successful writes and deletes update a model of the reviews; after the run
//! the database must agree with it: the same reviews with the same stars, movies and authors,
//! and every movie's and author's `reviewCount` and `averageStars` recomputed from it.
//!
//! The arguments come from proptest strategies, generated one case at a time by a
//! [`TestRunner`] this test drives itself (the calls are async). They are biased so that a
//! good share of calls are valid and reach the database: ids are the demo data's real ids
//! (discovered through the tools at the start), and reviews created or deleted during the run
//! join the pools of live and deleted review ids. A failing case is shrunk with proptest's
//! value tree before it is reported.
//!
//! The quick run (part of `cargo test --workspace`) makes [`QUICK_CASES`] calls from a fixed
//! seed on each backend. The long run, 100,000 calls in a release build, on both backends or
//! (naming it as a filter) on one:
//!
//! ```sh
//! FUZZ_CASES=100000 cargo test --release -p workspace-tests --test fuzz -- --nocapture
//! FUZZ_CASES=100000 cargo test --release -p workspace-tests --test fuzz postgres -- --nocapture
//! ```
//!
//! `FUZZ_SEED` (decimal, or hexadecimal with `0x`) replaces the fixed seed, in either run. The
//! seed, the number of cases and the outcomes per tool are printed (visible with
//! `--nocapture`).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Once};
use std::time::{Duration, Instant};

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::{Union, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{Map, Value, json};
use store::Database;
use test_support::output_schemas::output_schemas;
use test_support::postgres_cluster;
use toolkit::testing::TestClient;
use uuid::Uuid;

/// Calls in the quick run.
const QUICK_CASES: usize = 3_000;
/// The quick run's seed, unless `FUZZ_SEED` says otherwise.
const DEFAULT_SEED: u64 = 0x0005_EED0_F022;
/// How long a call may take before it counts as a hang.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// When deletes have left fewer live reviews than this, the test writes new ones (outside the
/// counted cases), so that reviewId arguments keep finding reviews in a long run.
const MIN_LIVE_REVIEWS: usize = 200;
/// At most this many calls are spent shrinking a failing case.
const SHRINK_CALLS: usize = 1_000;

/// Panics anywhere in the process (the server runs in-process), counted by a panic hook.
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Taken for a whole run: the backends' runs take turns, so that a panic counted during one
/// run is that run's (the counter is the process's), and each run has both cores.
static ONE_RUN_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// ---------------------------------------------------------------------------------------------
// What a case is
// ---------------------------------------------------------------------------------------------

/// The server's tools and the arguments each declares, in declaration order, read from what
/// the tools declare: a tool added to the server is fuzzed too, and an argument this test
/// cannot generate a value for fails it.
static TOOLS: LazyLock<Vec<(&'static str, Vec<Param>)>> = LazyLock::new(|| {
    let declared = movie_reviews_mcp::tools::toolbox().specs();
    declared
        .iter()
        .map(|spec| {
            let params = spec.args.iter().map(|arg| {
                let param = PARAMS.iter().find(|param| param.name() == arg.name);
                *param.unwrap_or_else(|| {
                    panic!(
                        "the fuzz test generates no value for {}'s {}",
                        spec.name, arg.name
                    )
                })
            });
            (spec.name, params.collect())
        })
        .collect()
});

/// The tool named `name`'s place in [`TOOLS`].
fn tool_index(name: &str) -> usize {
    let place = TOOLS.iter().position(|(tool, _)| *tool == name);
    place.unwrap_or_else(|| panic!("the server has no tool {name}"))
}

static REVIEWS_WRITE: LazyLock<usize> = LazyLock::new(|| tool_index("reviews_write"));
static REVIEWS_DELETE: LazyLock<usize> = LazyLock::new(|| tool_index("reviews_delete"));

/// Every argument any tool declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    Query,
    Offset,
    Limit,
    IncludeReviews,
    MovieId,
    AuthorId,
    ReviewId,
    Stars,
    IdempotencyKey,
}

const PARAMS: [Param; 9] = [
    Param::Query,
    Param::Offset,
    Param::Limit,
    Param::IncludeReviews,
    Param::MovieId,
    Param::AuthorId,
    Param::ReviewId,
    Param::Stars,
    Param::IdempotencyKey,
];

impl Param {
    fn name(self) -> &'static str {
        match self {
            Param::Query => "query",
            Param::Offset => "offset",
            Param::Limit => "limit",
            Param::IncludeReviews => "includeReviews",
            Param::MovieId => "movieId",
            Param::AuthorId => "authorId",
            Param::ReviewId => "reviewId",
            Param::Stars => "stars",
            Param::IdempotencyKey => "idempotencyKey",
        }
    }
}

/// One generated call: a tool and its arguments, or no `arguments` object at all.
#[derive(Clone, Debug)]
struct Case {
    tool: usize,
    arguments: Option<Vec<Arg>>,
}

/// One argument: its name as sent and its value.
type Arg = (String, Val);

/// An argument value: literal JSON, or an id taken from a pool when the call is made (so that
/// reviews created during the run can be changed and deleted, and deleted ones asked for).
#[derive(Clone, Debug)]
enum Val {
    Json(Value),
    Id(Pool, IdForm, usize),
}

#[derive(Clone, Copy, Debug)]
enum Pool {
    Movie,
    Author,
    /// A review that exists.
    Review,
    /// A review deleted during the run.
    Deleted,
}

/// How an id is written. Only the first three are the accepted form.
#[derive(Clone, Copy, Debug)]
enum IdForm {
    Lower,
    Upper,
    Mixed,
    Braced,
    Simple,
    Urn,
    Padded,
    Truncated,
    Extended,
    NotHex,
    WithNul,
    Fullwidth,
}

const ID_FORMS: [IdForm; 12] = [
    IdForm::Lower,
    IdForm::Upper,
    IdForm::Mixed,
    IdForm::Braced,
    IdForm::Simple,
    IdForm::Urn,
    IdForm::Padded,
    IdForm::Truncated,
    IdForm::Extended,
    IdForm::NotHex,
    IdForm::WithNul,
    IdForm::Fullwidth,
];

impl IdForm {
    fn write(self, id: Uuid) -> String {
        let lower = id.hyphenated().to_string();
        match self {
            IdForm::Lower => lower,
            IdForm::Upper => lower.to_uppercase(),
            IdForm::Mixed => lower
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if i % 2 == 0 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect(),
            IdForm::Braced => format!("{{{lower}}}"),
            IdForm::Simple => id.simple().to_string(),
            IdForm::Urn => id.urn().to_string(),
            IdForm::Padded => format!(" {lower}\n"),
            IdForm::Truncated => lower[..35].to_owned(),
            IdForm::Extended => format!("{lower}0"),
            IdForm::NotHex => format!("g{}", &lower[1..]),
            IdForm::WithNul => format!("{lower}\u{0}"),
            IdForm::Fullwidth => lower
                .chars()
                .map(|c| match c {
                    '0'..='9' => char::from_u32(c as u32 - '0' as u32 + 0xFF10).unwrap(),
                    c => c,
                })
                .collect(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// What the strategies draw from, discovered from the demo data before the run.
struct Seeds {
    /// Real ids as JSON strings, for ids nested where no pool is consulted.
    id_strings: Vec<String>,
    /// Words and fragments of real titles and names, so that queries find something.
    fragments: Vec<String>,
}

/// Numbers at and beyond every edge: negative, fractional, integral floats, beyond u32, i64
/// and u64, and as large as JSON doubles go. (JSON has no NaN or infinity; see [`ODD`].)
fn edge_numbers() -> Vec<Value> {
    let two_70 = 2f64.powi(70);
    vec![
        json!(0),
        json!(-1),
        json!(1),
        json!(5),
        json!(6),
        json!(49),
        json!(50),
        json!(51),
        json!(-0.0),
        json!(0.0),
        json!(1.0),
        json!(5.0),
        json!(50.0),
        json!(0.5),
        json!(2.5),
        json!(4.999_999_999_999),
        json!(5.000_000_000_001),
        json!(-5.0),
        json!(1e-300),
        json!(f64::MIN_POSITIVE),
        json!(i32::MAX),
        json!(i32::MIN),
        json!(u32::MAX),
        json!(u64::from(u32::MAX) + 1),
        json!(f64::from(u32::MAX)),
        json!(f64::from(u32::MAX) + 1.0),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(9_007_199_254_740_993_u64),
        json!(2f64.powi(53)),
        json!(2f64.powi(63)),
        json!(2f64.powi(64)),
        json!(1e20),
        json!(-1e20),
        json!(two_70),
        json!(-two_70),
        json!(1e308),
        json!(-1e308),
        json!(f64::MAX),
        json!(f64::MIN),
    ]
}

/// Strings that have tripped parsers, SQL, LIKE patterns, case folding or length checks.
const ODD: &[&str] = &[
    "",
    " ",
    "   ",
    "\t\n\r",
    "\u{0}",
    "a\u{0}b",
    "NaN",
    "nan",
    "-NaN",
    "Infinity",
    "-Infinity",
    "+Infinity",
    "inf",
    "1e400",
    "-0",
    "0x10",
    "5",
    "5.0",
    " 5",
    "five",
    "10",
    "true",
    "false",
    "null",
    "undefined",
    "[]",
    "{}",
    "%",
    "_",
    "\\",
    "'",
    "\"",
    "%%",
    "_%_",
    "\\%",
    "\\_",
    "%_",
    "a%",
    "'; DROP TABLE reviews; --",
    "\"; DROP TABLE movies; --",
    "' OR '1'='1",
    "') OR 1=1 --",
    "Robert'); DROP TABLE authors;--",
    "%' ESCAPE '\\",
    "*",
    "?",
    "[a-z]",
    ".*",
    "\u{301}",
    "e\u{301}\u{302}\u{303}\u{304}\u{305}",
    "Z\u{35b}\u{35c}\u{35d}\u{35e}\u{35f}a\u{360}\u{361}l\u{362}g\u{363}o",
    "👨‍👩‍👧‍👦",
    "🎬🍿",
    "🏳️‍🌈",
    "\u{202E}drowkcab",
    "\u{202B}מילים\u{202C}",
    "مرحبا بالعالم",
    "עברית",
    "\u{FFFF}",
    "\u{FFFE}",
    "\u{FFFD}",
    "\u{10FFFF}",
    "\u{E0001}\u{E0061}",
    "\u{FEFF}",
    "\u{200B}",
    "\u{200D}",
    "\u{1F}",
    "\u{7F}",
    "\u{85}",
    "\u{2028}\u{2029}",
    "\u{D7FF}",
    "\u{E000}",
    "\u{F8FF}",
    "𝄞",
    "İ",
    "İstanbul",
    "ı",
    "ß",
    "ẞ",
    "STRASSE",
    "ǅ",
    "ﬁ",
    "Σ",
    "ς",
    "É",
    "ÉCOLE",
    "ü",
    "Ü",
    "Zoë Ångström",
    "José Núñez",
    "０１２",
    "١٢٣",
    "<script>alert(1)</script>",
    "${jndi:ldap://x}",
    "%s%n%x",
    "../../etc/passwd",
    "C:\\Windows",
    "00000000-0000-0000-0000-000000000000",
    "ffffffff-ffff-ffff-ffff-ffffffffffff",
    "not-a-uuid",
];

/// A long string: a unit repeated around the 100-character limit, or far beyond it.
fn long_string() -> impl Strategy<Value = String> {
    (
        select(vec![
            "a",
            "é",
            "😀",
            "e\u{301}",
            "\u{10FFFF}",
            "%",
            "'",
            " ",
            "\u{0}",
        ]),
        select(vec![99, 100, 101, 200, 1_000, 10_000, 100_000]),
    )
        .prop_map(|(unit, count)| unit.repeat(count))
}

/// Random characters (proptest biases `char` towards unusual ranges).
fn random_string() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..16).prop_map(String::from_iter)
}

fn odd_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(ODD).prop_map(str::to_owned),
        2 => random_string(),
        1 => long_string(),
    ]
    .boxed()
}

/// A string a search could sensibly be given: a real fragment, maybe in another case.
fn query_string(seeds: &Seeds) -> BoxedStrategy<String> {
    let fragment = select(seeds.fragments.clone());
    prop_oneof![
        6 => fragment.clone(),
        1 => fragment.clone().prop_map(|f| f.to_uppercase()),
        1 => fragment.clone().prop_map(|f| f.to_lowercase()),
        1 => fragment.prop_map(|f| format!("  {f}\t")),
        2 => select(ODD).prop_map(str::to_owned),
    ]
    .boxed()
}

/// Any JSON value, nested a few levels, with unusual keys, numbers and strings.
fn any_json(seeds: &Seeds) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        2 => Just(Value::Null),
        2 => any::<bool>().prop_map(Value::Bool),
        3 => select(edge_numbers()),
        2 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        2 => any::<f64>().prop_map(|f| json!(f)),
        4 => odd_string().prop_map(Value::String),
        2 => select(seeds.id_strings.clone()).prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((any_key(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
    .boxed()
}

/// Names close to a real argument name: other cases, snake case, typos, look-alikes.
fn near_misses(name: &str) -> Vec<String> {
    let snake: String = name
        .chars()
        .flat_map(|c| {
            if c.is_ascii_uppercase() {
                vec!['_', c.to_ascii_lowercase()]
            } else {
                vec![c]
            }
        })
        .collect();
    let mut capitalised = name.to_owned();
    capitalised[..1].make_ascii_uppercase();
    let mut swapped: Vec<char> = name.chars().collect();
    swapped.swap(1, 2);
    vec![
        snake.clone(),
        snake.replace('_', "-"),
        snake.to_uppercase(),
        name.to_lowercase(),
        name.to_uppercase(),
        capitalised,
        name.replace("Id", "ID"),
        format!("{name} "),
        format!(" {name}"),
        format!("{name}s"),
        format!("_{name}"),
        format!("{name}\u{0}"),
        format!("{name}\u{200B}"),
        name[..name.len() - 1].to_owned(),
        swapped.into_iter().collect(),
        name.replacen('o', "\u{43e}", 1),
        name.replacen('i', "\u{131}", 1),
        format!("\u{FF41}{}", &name[1..]),
    ]
}

/// A key: a real argument name, a near miss, empty, very long, or odd Unicode.
fn any_key() -> BoxedStrategy<String> {
    let real: Vec<String> = PARAMS.iter().map(|p| p.name().to_owned()).collect();
    let mut misses: Vec<String> = PARAMS.iter().flat_map(|p| near_misses(p.name())).collect();
    misses.extend(
        [
            "id",
            "q",
            "search",
            "title",
            "star",
            "page",
            "offest",
            "limt",
            "arguments",
            "__proto__",
        ]
        .map(str::to_owned),
    );
    prop_oneof![
        4 => select(real),
        4 => select(misses),
        1 => Just(String::new()),
        1 => select(vec![256, 1_000, 10_000])
            .prop_flat_map(|n| select(vec!["k", "é", "😀"]).prop_map(move |u| u.repeat(n))),
        2 => odd_string(),
    ]
    .boxed()
}

/// An id for an argument that expects one of `kind`: usually a real one, sometimes one of
/// another kind, a deleted review, an id that never existed, a malformed one or not a string.
fn id_value(kind: Pool, seeds: &Seeds) -> BoxedStrategy<Val> {
    let valid_form = select(vec![
        IdForm::Lower,
        IdForm::Lower,
        IdForm::Upper,
        IdForm::Mixed,
    ]);
    let index = any::<usize>();
    prop_oneof![
        40 => (valid_form.clone(), index).prop_map(move |(f, i)| Val::Id(kind, f, i)),
        2 => (
            select(vec![Pool::Movie, Pool::Author, Pool::Review, Pool::Deleted]),
            valid_form,
            index
        )
            .prop_map(|(p, f, i)| Val::Id(p, f, i)),
        2 => any::<u128>().prop_map(|n| Val::Json(json!(Uuid::from_u128(n).to_string()))),
        3 => (select(ID_FORMS.to_vec()), index).prop_map(move |(f, i)| Val::Id(kind, f, i)),
        2 => any_json(seeds).prop_map(Val::Json),
    ]
    .boxed()
}

/// An integer argument: usually in `valid`, sometimes written `5.0`, sometimes hostile.
fn integer_value(valid: std::ops::RangeInclusive<u32>, seeds: &Seeds) -> BoxedStrategy<Val> {
    prop_oneof![
        20 => valid.clone().prop_map(|n| Val::Json(json!(n))),
        1 => valid.prop_map(|n| Val::Json(json!(f64::from(n)))),
        3 => select(edge_numbers()).prop_map(Val::Json),
        1 => select(ODD).prop_map(|s| Val::Json(json!(s))),
        1 => any_json(seeds).prop_map(Val::Json),
    ]
    .boxed()
}

/// A value for `param`, biased towards a valid one.
fn param_value(param: Param, seeds: &Seeds) -> BoxedStrategy<Val> {
    match param {
        Param::Query => prop_oneof![
            14 => query_string(seeds).prop_map(|s| Val::Json(json!(s))),
            2 => odd_string().prop_map(|s| Val::Json(json!(s))),
            1 => Just(Val::Json(Value::Null)),
            2 => any_json(seeds).prop_map(Val::Json),
        ]
        .boxed(),
        Param::Offset => prop_oneof![
            3 => integer_value(0..=40, seeds),
            1 => integer_value(0..=1_100, seeds),
        ]
        .boxed(),
        Param::Limit => integer_value(1..=50, seeds),
        Param::Stars => integer_value(1..=5, seeds),
        Param::IncludeReviews => prop_oneof![
            12 => any::<bool>().prop_map(|b| Val::Json(json!(b))),
            1 => Just(Val::Json(Value::Null)),
            1 => select(vec![json!("true"), json!(1), json!(0), json!("false"), json!([true])])
                .prop_map(Val::Json),
            1 => any_json(seeds).prop_map(Val::Json),
        ]
        .boxed(),
        Param::MovieId => id_value(Pool::Movie, seeds),
        Param::AuthorId => id_value(Pool::Author, seeds),
        Param::ReviewId => id_value(Pool::Review, seeds),
        // A new key each time, so that no call is the retry of another (whose answer would be
        // that other call's review, which may be gone): their keeping is tested on its own.
        Param::IdempotencyKey => prop_oneof![
            12 => any::<u128>().prop_map(|n| Val::Json(json!(format!("key-{n:x}")))),
            1 => select(vec![json!(""), json!("two words"), json!("x".repeat(101)), json!(7)])
                .prop_map(Val::Json),
            1 => any_json(seeds).prop_map(Val::Json),
        ]
        .boxed(),
    }
}

/// Arguments that look like a real call of `tool`: each declared argument present with some
/// probability, and now and then an argument the tool does not declare.
fn plausible_arguments(tool: usize, seeds: &Seeds) -> BoxedStrategy<Vec<Arg>> {
    let declared = |param: Param, presence: f64| {
        proptest::option::weighted(presence, param_value(param, seeds))
            .prop_map(move |value| value.map(|value| (param.name().to_owned(), value)))
            .boxed()
    };
    // reviews_write either creates (movie and author) or changes (review) a review; creating
    // is the likelier, so that writes make up for the reviews that deletes take away.
    let shapes: Vec<(u32, Vec<BoxedStrategy<Option<Arg>>>)> = if tool == *REVIEWS_WRITE {
        vec![
            (
                3,
                vec![
                    declared(Param::Stars, 0.97),
                    declared(Param::MovieId, 0.97),
                    declared(Param::AuthorId, 0.97),
                    declared(Param::ReviewId, 0.05),
                    declared(Param::IdempotencyKey, 0.3),
                ],
            ),
            (
                1,
                vec![
                    declared(Param::Stars, 0.97),
                    declared(Param::MovieId, 0.05),
                    declared(Param::AuthorId, 0.05),
                    declared(Param::ReviewId, 0.95),
                    declared(Param::IdempotencyKey, 0.3),
                ],
            ),
        ]
    } else {
        let params = &TOOLS[tool].1;
        let presence = |param: Param| match param {
            Param::MovieId | Param::ReviewId if params.len() == 1 => 0.97,
            Param::ReviewId => 0.15,
            Param::Query => 0.6,
            _ => 0.35,
        };
        vec![(
            1,
            params.iter().map(|&p| declared(p, presence(p))).collect(),
        )]
    };
    let extra = proptest::option::weighted(0.08, (any_key(), any_json(seeds)));
    (Union::new_weighted(shapes), extra)
        .prop_map(|(declared, extra)| {
            let mut arguments: Vec<Arg> = declared.into_iter().flatten().collect();
            if let Some((key, value)) = extra {
                arguments.push((key, Val::Json(value)));
            }
            arguments
        })
        .boxed()
}

/// Arguments with any keys: real names with any values, near misses, garbage.
fn hostile_arguments(seeds: &Seeds) -> BoxedStrategy<Vec<Arg>> {
    let typed = Union::new(PARAMS.map(|p| param_value(p, seeds))).boxed();
    let value = prop_oneof![1 => typed, 2 => any_json(seeds).prop_map(Val::Json)];
    proptest::collection::vec((any_key(), value), 0..6).boxed()
}

/// A call of any tool; reviews_write, with the most arguments and two paths, twice as often.
fn case_strategy(seeds: &Seeds) -> BoxedStrategy<Case> {
    Union::new_weighted(
        (0..TOOLS.len())
            .map(|tool| {
                let weight = if tool == *REVIEWS_WRITE { 2 } else { 1 };
                let case = prop_oneof![
                    1 => Just(None),
                    14 => plausible_arguments(tool, seeds).prop_map(Some),
                    4 => hostile_arguments(seeds).prop_map(Some),
                ]
                .prop_map(move |arguments| Case { tool, arguments })
                .boxed();
                (weight, case)
            })
            .collect(),
    )
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Success,
    ValidationFailed,
    NotFound,
    Error,
}

const OUTCOMES: [Outcome; 4] = [
    Outcome::Success,
    Outcome::ValidationFailed,
    Outcome::NotFound,
    Outcome::Error,
];

impl Outcome {
    fn prefix(self) -> &'static str {
        match self {
            Outcome::Success => "(success)",
            Outcome::ValidationFailed => "Validation Failed:",
            Outcome::NotFound => "Not Found:",
            Outcome::Error => "Error:",
        }
    }
}

/// A broken promise: what was sent, what came back, and what is wrong with it.
#[derive(Debug)]
struct Failure {
    tool: &'static str,
    arguments: Option<Value>,
    answer: String,
    problem: String,
    /// The server may be stuck: don't call it again.
    fatal: bool,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let arguments = match &self.arguments {
            Some(arguments) => arguments.to_string(),
            None => "(no arguments object)".to_owned(),
        };
        write!(
            f,
            "{}\n  tool: {}\n  arguments: {}\n  answer: {}",
            self.problem,
            self.tool,
            clip(&arguments),
            clip(&self.answer)
        )
    }
}

fn clip(text: &str) -> String {
    const MAX: usize = 2_000;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}… ({} characters in all)", text.chars().count())
    }
}

/// A review as the model keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    stars: u64,
    movie: Uuid,
    author: Uuid,
}

/// The ids the cases draw from and the reviews the database should hold.
struct State {
    movies: Vec<Uuid>,
    authors: Vec<Uuid>,
    /// Live reviews, in a stable order so that an index picks the same one run after run.
    reviews: Vec<Uuid>,
    deleted: Vec<Uuid>,
    model: HashMap<Uuid, Row>,
    /// Successful writes that created a review, and that changed one.
    created: usize,
    changed: usize,
}

impl State {
    fn resolve(&self, pool: Pool, form: IdForm, index: usize) -> String {
        let ids = match pool {
            Pool::Movie => &self.movies,
            Pool::Author => &self.authors,
            Pool::Review => &self.reviews,
            Pool::Deleted => &self.deleted,
        };
        let id = if ids.is_empty() {
            // Nothing to pick (no review deleted yet): an id that never existed.
            Uuid::from_u128(0xdead_0000_0000_4000_8000_0000_0000_0000 | index as u128)
        } else {
            ids[index % ids.len()]
        };
        form.write(id)
    }

    fn arguments(&self, case: &Case) -> Option<Map<String, Value>> {
        case.arguments.as_ref().map(|arguments| {
            arguments
                .iter()
                .map(|(key, value)| {
                    let value = match value {
                        Val::Json(value) => value.clone(),
                        &Val::Id(pool, form, index) => json!(self.resolve(pool, form, index)),
                    };
                    (key.clone(), value)
                })
                .collect()
        })
    }

    /// Records a successful reviews_write or reviews_delete.
    fn record(&mut self, tool: usize, saved: &Value) -> Result<(), String> {
        let id = |key: &str| -> Result<Uuid, String> {
            saved[key]
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("no id in {key}"))
        };
        if tool == *REVIEWS_WRITE {
            let row = Row {
                stars: saved["stars"].as_u64().ok_or("no stars")?,
                movie: id("movieId")?,
                author: id("authorId")?,
            };
            let review = id("id")?;
            match self.model.insert(review, row) {
                None => {
                    self.reviews.push(review);
                    self.created += 1;
                }
                Some(old) if (old.movie, old.author) != (row.movie, row.author) => {
                    return Err(format!("the review moved: it was {old:?}"));
                }
                Some(_) => self.changed += 1,
            }
        } else if tool == *REVIEWS_DELETE {
            let review = id("reviewId")?;
            if saved["deleted"] != json!(true) {
                return Err("deleted is not true".to_owned());
            }
            if self.model.remove(&review).is_none() {
                return Err("deleted a review that was not there".to_owned());
            }
            self.reviews.retain(|&r| r != review);
            self.deleted.push(review);
        }
        Ok(())
    }
}

/// The client and the output schemas.
struct Fuzzer {
    client: TestClient,
    output_schemas: HashMap<String, Validator>,
}

impl Fuzzer {
    /// A server on `database` (new and empty), which it fills with the demo data as it starts.
    async fn start(database: &Database) -> Fuzzer {
        let store = movie_reviews_mcp::commands::open_or_create(database)
            .await
            .unwrap();
        let client =
            TestClient::connect(&movie_reviews_mcp::serve::every_tool(store).unwrap()).await;
        let output_schemas = output_schemas(&client.list_tools().await);
        Fuzzer {
            client,
            output_schemas,
        }
    }

    /// Makes one call and checks the answer's shape: `Ok` with the outcome and, for a
    /// success, `structuredContent`.
    async fn call(
        &self,
        tool: usize,
        arguments: Option<Map<String, Value>>,
    ) -> Result<(Outcome, Option<Value>), Failure> {
        let name = TOOLS[tool].0;
        let mut failure = Failure {
            tool: name,
            arguments: arguments.clone().map(Value::Object),
            answer: String::new(),
            problem: String::new(),
            fatal: false,
        };
        let panics = PANICS.load(Ordering::SeqCst);
        let arguments = arguments.map_or(Value::Null, Value::Object);
        let call = self.client.try_call(name, arguments);
        let answer = tokio::time::timeout(CALL_TIMEOUT, call).await;
        let result = match answer {
            Err(_) => {
                failure.problem = format!("no answer within {CALL_TIMEOUT:?}: a hang");
                failure.fatal = true;
                return Err(failure);
            }
            Ok(Err(error)) => {
                failure.problem = "a JSON-RPC or transport error, not a tool result".to_owned();
                failure.answer = format!("{error:?}");
                failure.fatal = PANICS.load(Ordering::SeqCst) != panics;
                return Err(failure);
            }
            Ok(Ok(result)) => result.into_raw(),
        };
        failure.answer = serde_json::to_string(&result).unwrap();
        if PANICS.load(Ordering::SeqCst) != panics {
            failure.problem = "the process panicked during the call".to_owned();
            return Err(failure);
        }
        let text = match result.content.as_slice() {
            [block] => block.as_text().map(|text| text.text.clone()),
            _ => None,
        };
        let Some(text) = text else {
            failure.problem = "not exactly one text block".to_owned();
            return Err(failure);
        };
        if result.is_error == Some(true) {
            if result.structured_content.is_some() {
                failure.problem = "an error with structuredContent".to_owned();
                return Err(failure);
            }
            let outcome = [Outcome::ValidationFailed, Outcome::NotFound, Outcome::Error]
                .into_iter()
                .find(|outcome| text.starts_with(outcome.prefix()));
            return outcome.map(|o| (o, None)).ok_or_else(|| {
                failure.problem = "an error text with none of the three prefixes".to_owned();
                failure
            });
        }
        if result.is_error != Some(false) {
            failure.problem = "isError is neither true nor false".to_owned();
            return Err(failure);
        }
        let Some(structured) = result.structured_content else {
            failure.problem = "a success without structuredContent".to_owned();
            return Err(failure);
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(parsed) if parsed == structured => {}
            _ => {
                failure.problem = "the text block is not structuredContent".to_owned();
                return Err(failure);
            }
        }
        if text != serde_json::to_string(&structured).unwrap() {
            failure.problem = "the text block is not compact JSON".to_owned();
            return Err(failure);
        }
        let errors: Vec<String> = self.output_schemas[name]
            .iter_errors(&structured)
            .map(|error| error.to_string())
            .collect();
        if !errors.is_empty() {
            failure.problem = format!("structuredContent breaks the outputSchema: {errors:?}");
            return Err(failure);
        }
        Ok((Outcome::Success, Some(structured)))
    }

    /// Runs a case and records a successful write or delete in `state`.
    async fn run(&self, state: &mut State, case: &Case) -> Result<Outcome, Failure> {
        let arguments = state.arguments(case);
        let sent = arguments.clone().map(Value::Object);
        let (outcome, structured) = self.call(case.tool, arguments).await?;
        if let Some(structured) = &structured {
            state
                .record(case.tool, structured)
                .map_err(|problem| Failure {
                    tool: TOOLS[case.tool].0,
                    arguments: sent,
                    answer: structured.to_string(),
                    problem: format!("the write disagrees with the model: {problem}"),
                    fatal: false,
                })?;
        }
        Ok(outcome)
    }

    /// A call that must succeed.
    async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let tool = TOOLS.iter().position(|(name, _)| *name == tool).unwrap();
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object");
        };
        match self.call(tool, Some(arguments)).await {
            Ok((Outcome::Success, Some(value))) => value,
            Ok((outcome, _)) => panic!("{} answered {outcome:?}", TOOLS[tool].0),
            Err(failure) => panic!("{failure}"),
        }
    }

    /// Every item of a list tool, 50 at a time.
    async fn all(&self, tool: &str, mut arguments: Value) -> Vec<Value> {
        let mut items = Vec::new();
        loop {
            arguments["offset"] = json!(items.len());
            arguments["limit"] = json!(50);
            let page = self.ok(tool, arguments.clone()).await;
            items.extend(page["items"].as_array().unwrap().iter().cloned());
            if page.get("nextOffset").is_none() {
                assert_eq!(json!(items.len()), page["totalCount"], "{tool} {arguments}");
                return items;
            }
        }
    }

    /// The demo data's ids and reviews, and fragments of its titles and names.
    async fn discover(&self) -> (State, Seeds) {
        let movies = self.all("movies_search", json!({})).await;
        let authors = self.all("authors_search", json!({})).await;
        let reviews = self.all("reviews_list", json!({})).await;
        let ids = |items: &[Value]| -> Vec<Uuid> {
            items
                .iter()
                .map(|item| item["id"].as_str().unwrap().parse().unwrap())
                .collect()
        };
        let model = reviews
            .iter()
            .map(|review| (uuid_of(&review["id"]), row_of(review)))
            .collect();
        let state = State {
            movies: ids(&movies),
            authors: ids(&authors),
            reviews: ids(&reviews),
            deleted: Vec::new(),
            model,
            created: 0,
            changed: 0,
        };
        let names = movies
            .iter()
            .map(|m| &m["title"])
            .chain(authors.iter().map(|a| &a["name"]))
            .map(|name| name.as_str().unwrap());
        let mut fragments: Vec<String> = vec![String::new(), "a".to_owned(), "e".to_owned()];
        for name in names {
            fragments.push(name.to_owned());
            for word in name.split_whitespace() {
                fragments.push(word.to_owned());
                fragments.push(word.chars().take(3).collect());
            }
        }
        fragments.sort();
        fragments.dedup();
        let id_strings = state
            .movies
            .iter()
            .chain(&state.authors)
            .chain(&state.reviews)
            .map(Uuid::to_string)
            .collect();
        (
            state,
            Seeds {
                id_strings,
                fragments,
            },
        )
    }

    /// Shrinks a failing case with the value tree, calling the same server; returns the
    /// smallest failure found.
    async fn shrink(
        &self,
        state: &mut State,
        tree: &mut impl ValueTree<Value = Case>,
        mut smallest: Failure,
    ) -> (Failure, usize) {
        let mut calls = 0;
        if smallest.fatal || !tree.simplify() {
            return (smallest, calls);
        }
        while calls < SHRINK_CALLS {
            calls += 1;
            match self.run(state, &tree.current()).await {
                Err(failure) => {
                    let fatal = failure.fatal;
                    smallest = failure;
                    if fatal || !self.healthy().await || !tree.simplify() {
                        break;
                    }
                }
                Ok(_) => {
                    if !tree.complicate() {
                        break;
                    }
                }
            }
        }
        (smallest, calls)
    }

    /// Writes a review with ordinary arguments (the `n`th such) and records it.
    async fn top_up(&self, state: &mut State, n: usize) {
        let movie = state.movies[n * 13 % state.movies.len()];
        let author = state.authors[n * 7 % state.authors.len()];
        let arguments = json!({"stars": n % 5 + 1, "movieId": movie, "authorId": author});
        let saved = self.ok("reviews_write", arguments).await;
        state.record(*REVIEWS_WRITE, &saved).unwrap();
    }

    /// Whether the server still answers a plain call.
    async fn healthy(&self) -> bool {
        matches!(
            self.call(0, Some(Map::new())).await,
            Ok((Outcome::Success, _))
        )
    }
}

fn uuid_of(value: &Value) -> Uuid {
    value.as_str().unwrap().parse().unwrap()
}

fn row_of(review: &Value) -> Row {
    Row {
        stars: review["stars"].as_u64().unwrap(),
        movie: uuid_of(&review["movieId"]),
        author: uuid_of(&review["authorId"]),
    }
}

/// The mean of `stars` to one decimal place, half away from zero, as the tools promise.
fn average(stars: &[u64]) -> Option<f64> {
    let count = stars.len() as u64;
    if count == 0 {
        return None;
    }
    let tenths = (20 * stars.iter().sum::<u64>() + count) / (2 * count);
    Some(tenths as f64 / 10.0)
}

/// Checks the database against the model, and that ordinary calls still work.
async fn check_consistency(fuzzer: &Fuzzer, state: &State) {
    // The same reviews, with the same stars, movies and authors.
    let reviews = fuzzer.all("reviews_list", json!({})).await;
    let listed: HashMap<Uuid, Row> = reviews
        .iter()
        .map(|review| (uuid_of(&review["id"]), row_of(review)))
        .collect();
    assert_eq!(listed.len(), reviews.len(), "a review listed twice");
    assert!(listed == state.model, "the reviews differ from the model");
    // The kept total, which a full first page reports, agrees.
    let first = fuzzer.ok("reviews_list", json!({"limit": 1})).await;
    assert_eq!(first["totalCount"], json!(state.model.len()), "{first}");

    // Every movie's and author's count and average, against the model.
    let mut by_movie: HashMap<Uuid, Vec<u64>> = HashMap::new();
    let mut by_author: HashMap<Uuid, Vec<u64>> = HashMap::new();
    for row in state.model.values() {
        by_movie.entry(row.movie).or_default().push(row.stars);
        by_author.entry(row.author).or_default().push(row.stars);
    }
    for (tool, by) in [("movies_search", &by_movie), ("authors_search", &by_author)] {
        let items = fuzzer.all(tool, json!({})).await;
        for item in &items {
            let stars = by.get(&uuid_of(&item["id"])).cloned().unwrap_or_default();
            assert_eq!(item["reviewCount"], json!(stars.len()), "{tool}: {item}");
            assert_eq!(
                item["averageStars"].as_f64(),
                average(&stars),
                "{tool}: {item}"
            );
        }
    }

    // For a sample of movies (the most reviewed, and every 10th), reviews_list by movieId and
    // movies_get agree with movies_search's reviewCount.
    let movies = fuzzer.all("movies_search", json!({})).await;
    let mut sample: Vec<&Value> = movies.iter().step_by(10).collect();
    sample.extend(movies.iter().max_by_key(|m| m["reviewCount"].as_u64()));
    for movie in sample {
        let id = &movie["id"];
        let page = fuzzer
            .ok("reviews_list", json!({"movieId": id, "limit": 1}))
            .await;
        assert_eq!(page["totalCount"], movie["reviewCount"], "{movie}");
        let got = fuzzer.ok("movies_get", json!({"movieId": id})).await;
        assert_eq!(got["reviewCount"], movie["reviewCount"], "{movie}");
        let nested = got["reviews"].as_array().map_or(0, Vec::len);
        assert_eq!(json!(nested), movie["reviewCount"], "{movie}");
    }

    // Ordinary calls still work: create, change, list and delete a review.
    let (movie, author) = (state.movies[0], state.authors[0]);
    let created = fuzzer
        .ok(
            "reviews_write",
            json!({"stars": 4, "movieId": movie, "authorId": author}),
        )
        .await;
    let review = &created["id"];
    let changed = fuzzer
        .ok("reviews_write", json!({"stars": 2, "reviewId": review}))
        .await;
    assert_eq!(changed["stars"], json!(2));
    let listed = fuzzer.ok("reviews_list", json!({"reviewId": review})).await;
    assert_eq!(listed["items"][0]["stars"], json!(2));
    let deleted = fuzzer
        .ok("reviews_delete", json!({"reviewId": review}))
        .await;
    assert_eq!(deleted, json!({"reviewId": review, "deleted": true}));
    let found = fuzzer.ok("movies_search", json!({"query": "a"})).await;
    assert!(found["totalCount"].as_u64().unwrap() > 0);
}

// ---------------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------------

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let text = text.trim().replace('_', "");
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name} must be a number, not {text:?}")))
}

/// A proptest runner whose random numbers come from `seed` alone.
fn runner(seed: u64) -> TestRunner {
    let mut state = seed;
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        // SplitMix64, to spread the seed over the 32 bytes ChaCha needs.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Installs the hook that counts panics, once for the process.
fn count_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.fetch_add(1, Ordering::SeqCst);
            previous(info);
        }));
    });
}

/// On a hang the server may never give its worker thread back, and the runtime would then
/// wait for it forever while the test unwinds: make sure the process ends.
fn end_process_soon() {
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(30));
        eprintln!("the server is stuck; ending the test process");
        std::process::exit(101);
    });
}

/// The test, run on each backend by the tests below on a new, empty `database`. Both backends
/// make the quick run's calls in about the same time (some 10 s each, debug build, 2 cores).
async fn fuzz(database: &Database) {
    let _turn = ONE_RUN_AT_A_TIME.lock().await;
    count_panics();
    let panics_before = PANICS.load(Ordering::SeqCst);
    let cases = env_number("FUZZ_CASES").map_or(QUICK_CASES, |n| n as usize);
    let seed = env_number("FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    println!(
        "fuzz on {database}: seed {seed:#x}, {cases} cases (FUZZ_SEED and FUZZ_CASES change them)"
    );

    let started = Instant::now();
    let fuzzer = Fuzzer::start(database).await;
    let (mut state, seeds) = fuzzer.discover().await;
    let strategy = case_strategy(&seeds);
    let mut runner = runner(seed);
    let setup = started.elapsed();

    let mut counts: BTreeMap<(usize, Outcome), usize> = BTreeMap::new();
    let mut errors: Vec<String> = Vec::new();
    let running = Instant::now();
    let mut top_ups = 0;
    for index in 0..cases {
        while state.reviews.len() < MIN_LIVE_REVIEWS {
            fuzzer.top_up(&mut state, top_ups).await;
            top_ups += 1;
        }
        let mut tree = strategy.new_tree(&mut runner).unwrap();
        let case = tree.current();
        match fuzzer.run(&mut state, &case).await {
            Ok(outcome) => {
                *counts.entry((case.tool, outcome)).or_default() += 1;
                if outcome == Outcome::Error && errors.len() < 5 {
                    // A failed call changed nothing, so the ids resolve as they did.
                    let arguments = state.arguments(&case).map(Value::Object);
                    errors.push(format!("{} {arguments:?}", TOOLS[case.tool].0));
                }
            }
            Err(failure) => {
                if failure.fatal {
                    end_process_soon();
                }
                let first = failure.to_string();
                let (smallest, calls) = fuzzer.shrink(&mut state, &mut tree, failure).await;
                if smallest.fatal {
                    end_process_soon();
                }
                panic!(
                    "case {index} of seed {seed:#x} broke the contract: {first}\n\n\
                     shrunk in {calls} calls to: {smallest}"
                );
            }
        }
    }
    let run = running.elapsed();

    let mut report = format!(
        "fuzz: {cases} cases in {run:.1?} (setup {setup:.1?}); reviews: {} created ({top_ups} of \
         them to keep {MIN_LIVE_REVIEWS} live), {} changed, {} deleted, {} live\n",
        state.created,
        state.changed,
        state.deleted.len(),
        state.reviews.len(),
    );
    write!(report, "{:<16}", "").unwrap();
    for outcome in OUTCOMES {
        write!(report, "{:>19}", outcome.prefix()).unwrap();
    }
    for (tool, (name, _)) in TOOLS.iter().enumerate() {
        write!(report, "\n{name:<16}").unwrap();
        for outcome in OUTCOMES {
            let n = counts.get(&(tool, outcome)).copied().unwrap_or(0);
            write!(report, "{n:>19}").unwrap();
        }
    }
    println!("{report}");
    for error in &errors {
        println!("an Error: answer for {error}");
    }
    // The contract allows `Error:`, but it means something went wrong inside the server, and
    // no argument a model can send should cause that.
    assert!(
        errors.is_empty(),
        "{} calls failed unexpectedly",
        errors.len()
    );

    // Not vacuous: every tool both succeeded and refused, and ids were both found and not.
    for (tool, (name, params)) in TOOLS.iter().enumerate() {
        let seen = |outcome| counts.contains_key(&(tool, outcome));
        assert!(seen(Outcome::Success), "{name} never succeeded");
        assert!(
            seen(Outcome::ValidationFailed),
            "{name} never failed validation"
        );
        let takes_ids = params
            .iter()
            .any(|p| matches!(p, Param::MovieId | Param::ReviewId));
        if takes_ids && cases >= 1_000 {
            assert!(seen(Outcome::NotFound), "{name} never answered Not Found");
        }
    }
    if cases >= 1_000 {
        assert!(state.created > top_ups, "no case created a review");
        assert!(state.changed > 0, "no case changed a review's stars");
    }

    check_consistency(&fuzzer, &state).await;
    let panics = PANICS.load(Ordering::SeqCst) - panics_before;
    assert_eq!(panics, 0, "a panic was caught");
}

mod sqlite {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hostile_arguments_get_a_tool_result_never_a_protocol_error_panic_or_hang() {
        let folder = tempfile::tempdir().unwrap();
        let database = Database::Sqlite(folder.path().join("fuzz.db"));
        fuzz(&database).await;
    }
}

mod postgres {
    use super::*;

    #[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn hostile_arguments_get_a_tool_result_never_a_protocol_error_panic_or_hang() {
        let cluster = postgres_cluster::cluster();
        let database = Database::named(PathBuf::from(cluster.new_database())).unwrap();
        fuzz(&database).await;
    }
}
