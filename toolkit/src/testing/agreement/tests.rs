//! The oracle's assumptions about the validator, chrono and serde_json, each pinned so that a
//! change in one of them fails here, by name, rather than as a puzzling disagreement; and the
//! check run on a tool of every scalar kind.

use serde_json::json;

use super::json::float;
use super::rfc3339::{self, Zone};
use super::schema::{Kind, Precision, Schema};
use super::{compile, ecma, expect, generate, mailbox, schema_for_validator};
use crate::{Tool, Uuid};

/// What the declarations below return.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// An email address alone.
#[derive(Tool, serde::Serialize)]
#[tool(name = "mail", title = "Mail", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Mail {
    /// Required.
    #[arg(format = "email")]
    pub to: String,
}

/// Floats of both precisions, at the top and in lists, and UUIDs.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "precisions", title = "Precisions", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Precisions {
    /// More than 0 and at most 600.
    #[arg(exclusive_min = 0, max = 600, default = 30)]
    timeout: f64,
    /// At least 0 and less than 1, in `f32` precision.
    #[arg(min = 0, exclusive_max = 1)]
    ratio: f32,
    /// Any `f32`, or none.
    scale: Option<f32>,
    /// Weights more than -1 and at most 1.5.
    #[arg(each(exclusive_min = -1, max = 1.5))]
    weights: Vec<f64>,
    /// Up to two rows of up to two `f32`s.
    #[arg(max_items = 2, each(max_items = 2))]
    matrix: Vec<Vec<f32>>,
    /// A required and an optional UUID.
    id: Uuid,
    parent_id: Option<Uuid>,
}

/// Bounds far out: values at them are long, which the generators draw rarely and cheaply.
#[derive(Tool, serde::Serialize)]
#[tool(name = "long", title = "Long", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Long {
    /// Up to 100,000 characters.
    #[arg(max_chars = 100_000)]
    body: String,
    /// 2,000 to 50,000 lines.
    #[arg(min_items = 2_000, max_items = 50_000, each(max_chars = 5))]
    lines: Vec<String>,
    /// Up to 10,000 headers.
    #[arg(max_entries = 10_000)]
    headers: Option<std::collections::HashMap<String, u8>>,
}

#[test]
fn scalars_schema_and_parser_agree() {
    super::Agreement::<Precisions>::new()
        .compare_received()
        .check();
}

#[test]
fn long_values_schema_and_parser_agree() {
    super::Agreement::<Long>::new().compare_received().check();
}

/// Guards the set-up: with format validation off, any string would do for a format.
#[test]
fn the_validator_enforces_every_format() {
    for (format, good, bad) in [
        ("uuid", "3F2504E0-4f89-11d3-9a0c-0305e82c3301", "not a uuid"),
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
    let server_says = |to: &str| crate::parse::<Mail>(json!({ "to": to }).as_object()).is_ok();
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
        let model = |zone| rfc3339::received(sent, zone);
        assert_eq!(model(Zone::Sent).as_deref(), Some(kept), "{sent}");
        assert_eq!(model(Zone::Utc).as_deref(), Some(utc), "{sent}");
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
    let precisions: Vec<(String, Precision)> = (Schema::root(Precisions::SPEC).all().into_iter())
        .filter_map(|schema| match schema.kind {
            Kind::Float(precision, _) => Some((schema.path.clone(), precision)),
            _ => None,
        })
        .collect();
    let (double, single) = (Precision::Double, Precision::Single);
    let expected: Vec<(String, Precision)> = [
        ("timeout", double),
        ("ratio", single),
        ("scale", single),
        ("weights[]", double),
        ("matrix[][]", single),
    ]
    .into_iter()
    .map(|(name, precision)| (name.to_owned(), precision))
    .collect();
    assert_eq!(precisions, expected);
}
