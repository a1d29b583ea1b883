//! The framework's schema-agreement check ([`toolkit::testing::Agreement`]) on the project's
//! tools: the declarations made for it in [`declarations`], which between them hold every
//! argument kind (bounded and free strings, patterns, choices, booleans, integers of every
//! width, `f64`s and `f32`s, UUIDs, the typed formats, lists, tuples, objects nested two deep
//! and open ones, tagged and untagged unions, groups of arguments, maps and free-form JSON;
//! required, optional and defaulted, at the top and inside objects), and the movie server's
//! six tools.
//!
//! The declarations derive `Serialize` under their wire names, so their checks also compare
//! the values each tool receives with the ones sent (`compare_received`); the movie server's
//! tools do not, so theirs compare what each side accepts and where each refusal points.
//! How the check works, and what it normalises, is told in the toolkit's `testing::agreement`
//! module; the oracle's own assumptions are pinned by that module's tests.

mod declarations;

use movie_reviews_mcp::tools::{
    AuthorsSearch, MoviesGet, MoviesSearch, ReviewsDelete, ReviewsList, ReviewsWrite,
};
use serde_json::json;
use toolkit::Tool;
use toolkit::testing::{Agreement, check_agreement};

use declarations::*;

/// The check on a declaration of [`declarations`], the values it receives compared too.
fn check_received<T: Tool + serde::Serialize>() {
    Agreement::<T>::new().compare_received().check();
}

#[test]
fn texts_schema_and_parser_agree() {
    check_received::<Texts>();
}

#[test]
fn numbers_schema_and_parser_agree() {
    check_received::<Numbers>();
}

#[test]
fn floats_schema_and_parser_agree() {
    check_received::<Floats>();
}

#[test]
fn ids_schema_and_parser_agree() {
    check_received::<Ids>();
}

#[test]
fn choices_schema_and_parser_agree() {
    check_received::<Choices>();
}

#[test]
fn lists_schema_and_parser_agree() {
    check_received::<Lists>();
}

#[test]
fn tuples_schema_and_parser_agree() {
    check_received::<Tuples>();
}

#[test]
fn case_conventions_schema_and_parser_agree() {
    check_received::<Cases>();
}

#[test]
fn nulls_schema_and_parser_agree() {
    check_received::<Nulls>();
}

#[test]
fn unions_schema_and_parser_agree() {
    check_received::<Unions>();
}

#[test]
fn open_objects_schema_and_parser_agree() {
    check_received::<Open>();
}

#[test]
fn groups_schema_and_parser_agree() {
    check_received::<Groups>();
}

#[test]
fn objects_schema_and_parser_agree() {
    check_received::<EditFile>();
}

#[test]
fn maps_schema_and_parser_agree() {
    check_received::<Maps>();
}

#[test]
fn patterns_schema_and_parser_agree() {
    check_received::<Patterns>();
}

#[test]
fn json_schema_and_parser_agree() {
    check_received::<Json>();
}

#[test]
fn unique_numbers_schema_and_parser_agree() {
    check_received::<UniqueNumbers>();
}

#[test]
fn everything_schema_and_parser_agree() {
    check_received::<Everything>();
}

#[test]
fn formats_schema_and_parser_agree() {
    check_received::<Formats>();
}

#[test]
fn instants_schema_and_parser_agree() {
    Agreement::<Instants>::new()
        .compare_received()
        .date_times_in_utc()
        .check();
}

/// A whole number beyond 2^53 written once as an integer and once as a float is one number
/// twice, as JSON Schema compares them: pinned, as the smallest such case.
#[test]
fn a_unique_list_refuses_2_to_the_53_twice() {
    Agreement::<UniqueNumbers>::new()
        .compare_received()
        .check_one(&json!({
            "integers": [9_007_199_254_740_992u64, 9_007_199_254_740_992.0],
            "floats": [],
        }));
}

#[test]
fn movies_search_schema_and_parser_agree() {
    check_agreement::<MoviesSearch>();
}

#[test]
fn movies_get_schema_and_parser_agree() {
    check_agreement::<MoviesGet>();
}

#[test]
fn authors_search_schema_and_parser_agree() {
    check_agreement::<AuthorsSearch>();
}

#[test]
fn reviews_list_schema_and_parser_agree() {
    check_agreement::<ReviewsList>();
}

#[test]
fn reviews_write_schema_and_parser_agree() {
    check_agreement::<ReviewsWrite>();
}

#[test]
fn reviews_delete_schema_and_parser_agree() {
    check_agreement::<ReviewsDelete>();
}
