//! The input schema a client is shown and the parser the server runs agree.
//!
//! For each small tool declared in [`declarations`] (between them every argument kind: bounded
//! and free strings, patterns, choices, booleans, integers of every width, `f64`s and `f32`s,
//! UUIDs, the typed formats (URIs, dates, date-times kept at their offset or in UTC, email
//! addresses), lists, tuples, objects nested two deep and open ones, tagged and untagged
//! unions, groups of arguments, maps and free-form JSON; required, optional and defaulted, at the top and inside objects), proptest
//! generates argument objects, and a real JSON Schema validator (`jsonschema`, draft 2020-12,
//! with `format` enforced so that `uuid`, `uri`, `date`, `date-time` and `email` count) run on
//! `toolkit::input_schema(T::SPEC)` must accept exactly the objects `toolkit::parse::<T>`
//! accepts. When both accept, the values the
//! tool receives must be the ones sent (or the declared defaults, inside objects too): for a
//! float, the number sent as the nearest `f64`, or `f32` for an `f32`, compared bit for bit;
//! for a date-time, the text chrono writes back for it, worked out without chrono
//! ([`rfc3339`]).
//!
//! The generated objects are mostly valid objects with a few changes applied ([`generate`]):
//! values at, just inside and just outside each bound, inclusive or exclusive (string lengths
//! in characters, with multi-byte characters and combining marks; integers and floats at and
//! one step either side of a bound, written every way JSON can; counts of elements and entries
//! at and one past each bound), duplicates in unique lists (`1` beside `1.0` among them),
//! strings a pattern matches and near misses of them (with non-ASCII digits and letters,
//! which `\d` and `\w` must not match, and line terminators, which `.` must not), near misses
//! of choices, wrong JSON types, UUIDs in refused forms, URIs, dates, date-times and addresses
//! built from random parts of their grammars and near misses of each, missing and `null`
//! arguments and fields, and unknown names (random ones and near misses of the real names), at
//! the top and in nested objects. The tally ([`tally`]) counts both answers, overall, per
//! argument, at every edge of every schema in the tree and at every format, so that the test
//! cannot pass without exercising them.
//!
//! The oracle knows the tools only through their input schemas ([`schema`]): the values it
//! generates, the edges it aims at and the values it expects the tool to receive are all read
//! from the schema, never from the spec the parser reads, so that it cannot share a mistake
//! with the parser. That includes telling an `f32` from an `f64` (see
//! [`schema::Precision`]). The one exception is a date-time's zone: a `DateTime<FixedOffset>`
//! and a `DateTime<Utc>` publish the same schema, so the test of each declaration says which
//! it holds ([`rfc3339::Zone`]); `DateTime<Utc>`s are declared apart, in [`Instants`], so that
//! both are compared exactly, not merely as instants.
//!
//! A `url::Url` publishes `format: uri` but is narrower on purpose (it must be a URL a browser
//! reads as well), so it is checked apart ([`urls`]): never wider than its schema, narrower by
//! exactly what `url::Url::parse` refuses, and received as that parser writes it.
//!
//! Documented leniencies and departures that a plain schema or validator cannot express are
//! normalised before comparing: `null` for a declared argument, or a declared field of a
//! nested object, means "left out", so such keys are removed before the object goes to the
//! validator ([`expect::without_null_fields`]; an unknown name stays, even with `null`, and a
//! `null` element of a list is just an invalid element); free-form JSON nests at most as deep
//! as its description says (32; for the other names of an open object, published as `true`,
//! `toolkit::arg::MAX_JSON_DEPTH`), which JSON Schema cannot state, so no deeper value is
//! generated; the validator's `\b` is not ECMA-262's, so it is given the pattern with
//! ECMA-262's definition spelt out ([`ecma`]); the validator takes a display name
//! (`Ada <ada@example.com>`) for an email address, which RFC 5321's `Mailbox` has none of, so
//! an email value ending with `>` is given to it as no address ([`mailbox`]); and the
//! validator decodes an email domain's `xn--` labels as Punycode (and takes only a lower-case
//! `xn` for the prefix) where the server takes them as written, so no such label is generated
//! (pinned by `the_validator_decodes_a_labels`). Of the cross-argument rules, the groups
//! (`one_of`, `any_of`, `conflicts_with`, `requires`) are in scope; `required_unless`,
//! `ignored_with` and `exists` are not, and no declaration uses them.

mod check;
mod declarations;
mod ecma;
mod expect;
mod generate;
mod json;
mod mailbox;
mod rfc3339;
mod schema;
mod tally;
mod urls;

use serde_json::json;
use toolkit::Tool;

use check::{check_agreement, check_agreement_in, check_one, compile, schema_for_validator};
use declarations::*;
use json::float;
use rfc3339::Zone;
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
fn tuples_schema_and_parser_agree() {
    check_agreement::<Tuples>();
}

#[test]
fn case_conventions_schema_and_parser_agree() {
    check_agreement::<Cases>();
}

#[test]
fn nulls_schema_and_parser_agree() {
    check_agreement::<Nulls>();
}

#[test]
fn unions_schema_and_parser_agree() {
    check_agreement::<Unions>();
}

#[test]
fn open_objects_schema_and_parser_agree() {
    check_agreement::<Open>();
}

#[test]
fn groups_schema_and_parser_agree() {
    check_agreement::<Groups>();
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

#[test]
fn formats_schema_and_parser_agree() {
    check_agreement::<Formats>();
}

#[test]
fn instants_schema_and_parser_agree() {
    check_agreement_in::<Instants>(Zone::Utc);
}

#[test]
fn a_url_is_a_uri_that_a_browser_reads_too() {
    urls::check_url_narrowing();
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

/// Guards the setup for the other formats: with format validation off, any string would do.
#[test]
fn the_validator_enforces_every_format() {
    for (format, good, bad) in [
        ("uri", "https://example.com/a", "example.com/a"),
        ("date", "2024-02-29", "2023-02-29"),
        ("date-time", "2024-05-31T14:30:00Z", "2024-05-31 14:30:00Z"),
        ("email", "ada@example.com", "ada.example.com"),
    ] {
        let validator = compile(&json!({ "type": "string", "format": format }), format);
        assert!(validator.is_valid(&json!(good)), "{format}: {good}");
        assert!(!validator.is_valid(&json!(bad)), "{format}: {bad}");
    }
}

/// Guards [`mailbox`]: the validator takes a display name for an email address, until the
/// object it is given says otherwise; should the plain validator refuse them, the correction
/// is no longer needed. No address is taken for a display name.
#[test]
fn the_validator_takes_display_names_for_addresses() {
    let plain = compile(&json!({ "type": "string", "format": "email" }), "plain");
    for display in [
        "Ada <ada@example.com>",
        "Ada <ada@example.com> ",
        " <ada@example.com>",
    ] {
        assert!(
            plain.is_valid(&json!(display)),
            "the validator now refuses {display:?}"
        );
        assert!(mailbox::display_name(display), "{display:?}");
    }
    let root = Schema::root(Mail::SPEC);
    let validator = compile(&schema_for_validator(Mail::SPEC), "mail");
    let judged = |to: &str| validator.is_valid(&expect::for_validator(&root, &json!({ "to": to })));
    assert!(!judged("Ada <ada@example.com>"));
    for address in [
        "ada@example.com",
        "\"a >\"@example.com",
        "ada@[192.0.2.1]",
        "\"\"@example.com",
    ] {
        assert!(!mailbox::display_name(address), "{address}");
        assert!(judged(address), "{address}");
    }
}

/// Pins a documented difference, which the generators keep away from (see
/// [`generate::no_a_labels`]): the validator decodes an email domain's `xn--` label as Punycode,
/// refusing one that does not decode (`xn--a`), and takes only a lower-case `xn` for the
/// prefix, refusing `XN--` and `Xn--` labels for their hyphens; the server takes any label
/// starting `xn--`, in any case, as written (RFC 5891 keeps that shape for encoded names; the
/// encoding is not checked). Elsewhere, hyphens third and fourth are refused by both.
#[test]
fn the_validator_decodes_a_labels() {
    let validator = compile(&schema_for_validator(Mail::SPEC), "mail");
    let schema_says = |to: &str| validator.is_valid(&json!({ "to": to }));
    let server_says = |to: &str| toolkit::parse::<Mail>(json!({ "to": to }).as_object()).is_ok();
    for (to, schema, server) in [
        ("ada@xn--bcher-kva.example", true, true),
        ("ada@xn--a.example", false, true),
        ("ada@xn--zz.example", false, true),
        ("ada@XN--bcher-kva.example", false, true),
        ("ada@Xn--bcher-kva.example", false, true),
        ("ada@ab--c.example", false, false),
    ] {
        assert_eq!((schema_says(to), server_says(to)), (schema, server), "{to}");
    }
    assert_eq!(
        generate::no_a_labels("XN--a@xN--b.xn--c"),
        "aN--a@aN--b.an--c"
    );
}

/// Guards [`rfc3339`]'s model of what chrono writes back, on the cases it documents: a zero
/// offset as `Z` (not `+00:00`), the fraction cut to nanoseconds in groups of three, a leap
/// second, years past 0000 and 9999 once in UTC.
#[test]
fn the_model_writes_what_chrono_writes() {
    for (sent, kept, utc) in [
        (
            "2024-05-31T14:30:00Z",
            "2024-05-31T14:30:00Z",
            "2024-05-31T14:30:00Z",
        ),
        (
            "2024-05-31t14:30:00-00:00",
            "2024-05-31T14:30:00Z",
            "2024-05-31T14:30:00Z",
        ),
        (
            "2024-05-31T14:30:00.5+02:00",
            "2024-05-31T14:30:00.500+02:00",
            "2024-05-31T12:30:00.500Z",
        ),
        (
            "2024-05-31T14:30:00.1234567891+02:00",
            "2024-05-31T14:30:00.123456789+02:00",
            "2024-05-31T12:30:00.123456789Z",
        ),
        (
            "2024-05-31T14:30:00.000z",
            "2024-05-31T14:30:00Z",
            "2024-05-31T14:30:00Z",
        ),
        (
            "0000-01-01T00:59:60.0001+01:00",
            "0000-01-01T00:59:60.000100+01:00",
            "-0001-12-31T23:59:60.000100Z",
        ),
        (
            "9999-12-31T23:30:00-01:00",
            "9999-12-31T23:30:00-01:00",
            "+10000-01-01T00:30:00Z",
        ),
        (
            "2000-03-01T00:00:00+23:59",
            "2000-03-01T00:00:00+23:59",
            "2000-02-29T00:01:00Z",
        ),
    ] {
        let time = chrono::DateTime::parse_from_rfc3339(sent).ok();
        let written = |value: Option<serde_json::Value>| {
            value.and_then(|value| value.as_str().map(str::to_owned))
        };
        let chrono_kept = written(time.and_then(|time| serde_json::to_value(time).ok()));
        let in_utc = time.map(|time| time.with_timezone(&chrono::Utc));
        let chrono_utc = written(in_utc.and_then(|time| serde_json::to_value(time).ok()));
        assert_eq!(chrono_kept.as_deref(), Some(kept), "chrono, {sent}");
        assert_eq!(chrono_utc.as_deref(), Some(utc), "chrono in UTC, {sent}");
        assert_eq!(
            rfc3339::received(sent, Zone::Sent).as_deref(),
            Some(kept),
            "{sent}"
        );
        assert_eq!(
            rfc3339::received(sent, Zone::Utc).as_deref(),
            Some(utc),
            "{sent}"
        );
    }
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
