//! The input schema a client is shown and the parser the server runs agree.
//!
//! For each small tool declared in [`declarations`] (between them every argument kind: bounded
//! and free strings, patterns, choices, booleans, integers of every width, `f64`s and `f32`s,
//! UUIDs, lists, objects nested two deep, maps and free-form JSON; required, optional and
//! defaulted, at the top and inside objects), proptest generates argument objects, and a real
//! JSON Schema validator (`jsonschema`, draft 2020-12, with `format` enforced so `format: uuid`
//! counts) run on `toolkit::input_schema(T::SPEC)` must accept exactly the objects
//! `toolkit::parse::<T>` accepts. When both accept, the values the tool receives must be the
//! ones sent (or the declared defaults, inside objects too): for a float, the number sent as
//! the nearest `f64`, or `f32` for an `f32`, compared bit for bit.
//!
//! The generated objects are mostly valid objects with a few changes applied ([`generate`]):
//! values at, just inside and just outside each bound, inclusive or exclusive (string lengths
//! in characters, with multi-byte characters and combining marks; integers and floats at and
//! one step either side of a bound, written every way JSON can; counts of elements and entries
//! at and one past each bound), duplicates in unique lists (`1` beside `1.0` among them),
//! strings a pattern matches and near misses of them (with non-ASCII digits and letters,
//! which `\d` and `\w` must not match, and line terminators, which `.` must not), near misses
//! of choices, wrong JSON types, UUIDs in refused forms, missing and `null` arguments and
//! fields, and unknown names (random ones and near misses of the real names), at the top and
//! in nested objects. The tally ([`tally`]) counts both answers, overall, per argument and at
//! every edge of every schema in the tree, so that the test cannot pass without exercising
//! them.
//!
//! The oracle knows the tools only through their input schemas ([`schema`]): the values it
//! generates, the edges it aims at and the values it expects the tool to receive are all read
//! from the schema, never from the spec the parser reads, so that it cannot share a mistake
//! with the parser. That includes telling an `f32` from an `f64` (see
//! [`schema::Precision`]).
//!
//! Documented leniencies and departures that a plain schema or validator cannot express are
//! normalised before comparing: `null` for a declared argument, or a declared field of a
//! nested object, means "left out", so such keys are removed before the object goes to the
//! validator ([`expect::without_null_fields`]; an unknown name stays, even with `null`, and a
//! `null` element of a list is just an invalid element); free-form JSON nests at most as deep
//! as its description says (32), which JSON Schema cannot state, so no deeper value is
//! generated; and the validator's `\b` is not ECMA-262's, so it is given the pattern with
//! ECMA-262's definition spelt out ([`ecma`]). The cross-argument rules (`required_unless`,
//! `ignored_with`) and `exists` are out of scope here and no declaration uses them.

mod check;
mod declarations;
mod ecma;
mod expect;
mod generate;
mod json;
mod schema;
mod tally;

use serde_json::json;
use toolkit::Tool;

use check::{check_agreement, check_one, compile, schema_for_validator};
use declarations::*;
use json::float;
use schema::{Kind, Precision, Schema};

#[test]
fn texts_schema_and_parser_agree() {
    check_agreement::<Texts>();
}

#[test]
fn numbers_schema_and_parser_agree() {
    check_agreement::<Numbers>();
}

#[test]
fn floats_schema_and_parser_agree() {
    check_agreement::<Floats>();
}

#[test]
fn ids_schema_and_parser_agree() {
    check_agreement::<Ids>();
}

#[test]
fn choices_schema_and_parser_agree() {
    check_agreement::<Choices>();
}

#[test]
fn lists_schema_and_parser_agree() {
    check_agreement::<Lists>();
}

#[test]
fn objects_schema_and_parser_agree() {
    check_agreement::<EditFile>();
}

#[test]
fn maps_schema_and_parser_agree() {
    check_agreement::<Maps>();
}

#[test]
fn patterns_schema_and_parser_agree() {
    check_agreement::<Patterns>();
}

#[test]
fn json_schema_and_parser_agree() {
    check_agreement::<Json>();
}

#[test]
fn unique_numbers_schema_and_parser_agree() {
    check_agreement::<UniqueNumbers>();
}

#[test]
fn everything_schema_and_parser_agree() {
    check_agreement::<Everything>();
}

/// A whole number beyond 2^53 written once as an integer and once as a float is one number
/// twice, as JSON Schema compares them: pinned, as the smallest such case.
#[test]
fn a_unique_list_refuses_2_to_the_53_twice() {
    check_one::<UniqueNumbers>(&json!({
        "integers": [9_007_199_254_740_992u64, 9_007_199_254_740_992.0],
        "floats": [],
    }));
}

/// Guards the setup: with format validation off, `format: uuid` would accept any string.
#[test]
fn the_validator_enforces_uuid_format() {
    let validator = compile(&schema_for_validator(Ids::SPEC), "ids");
    assert!(validator.is_valid(&json!({ "id": "3F2504E0-4f89-11d3-9a0c-0305e82c3301" })));
    assert!(!validator.is_valid(&json!({ "id": "not a uuid" })));
}

/// Guards [`ecma`]: the validator reads `\b` with Unicode's word characters, where ECMA-262
/// (and so a client, and the server) reads ASCII's, until it is spelt out; should the plain
/// validator read it as ECMA-262 does, the spelling out is no longer needed.
#[test]
fn the_validator_needs_word_boundaries_spelt_out() {
    let plain = json!({ "type": "string", "pattern": "\\bcat\\b" });
    let plain = compile(&plain, "plain");
    let spelt_out = json!({ "type": "string", "pattern": ecma::spelt_out("\\bcat\\b") });
    let spelt_out = compile(&spelt_out, "spelt out");
    // In ECMA-262, `é` is no word character, so `écat` has the word `cat`, and `_cat` has not.
    assert!(
        !plain.is_valid(&json!("écat")),
        "the validator now reads \\b as ECMA-262 does"
    );
    assert!(spelt_out.is_valid(&json!("écat")));
    for (text, word) in [
        ("a cat.", true),
        ("cat", true),
        ("_cat", false),
        ("cats", false),
    ] {
        assert_eq!(plain.is_valid(&json!(text)), word, "{text}");
        assert_eq!(spelt_out.is_valid(&json!(text)), word, "{text}");
    }
}

/// Guards the oracle's model of what an `f32` gives the tool: serde_json serialises an `f32` as
/// its exact widening to `f64` (1.100000023841858), not as the shortest decimal that reads back
/// as it (1.1).
#[test]
fn an_f32_serialises_as_its_widening_to_f64() {
    let serialised = serde_json::to_value(1.1f32).ok();
    assert_eq!(serialised, Some(float(f64::from(1.1f32))));
    assert_ne!(serialised, Some(json!(1.1)));
}

/// Guards the oracle's reading of precision: only the schema tells an `f32` (its range
/// published, on at least one side) from an `f64`, inside lists too.
#[test]
fn the_schema_tells_an_f32_from_an_f64() {
    let precisions = |spec| -> Vec<(String, Precision)> {
        (Schema::root(spec).all().into_iter())
            .filter_map(|schema| match schema.kind {
                Kind::Float(precision, _) => Some((schema.path.clone(), precision)),
                _ => None,
            })
            .collect()
    };
    let (double, single) = (Precision::Double, Precision::Single);
    let named = |pairs: &[(&str, Precision)]| -> Vec<(String, Precision)> {
        (pairs.iter())
            .map(|(name, precision)| ((*name).to_owned(), *precision))
            .collect()
    };
    assert_eq!(
        precisions(Floats::SPEC),
        named(&[
            ("timeout", double),
            ("latitude", double),
            ("ratio", single),
            ("anything", double),
            ("scale", single),
            ("offset", double),
        ])
    );
    assert_eq!(
        precisions(Lists::SPEC),
        named(&[("weights[]", double), ("matrix[][]", single)])
    );
}
