//! A `url::Url` argument: narrower than its schema on purpose, and by exactly what browsers
//! refuse.
//!
//! A URL publishes `format: uri`, but the server takes only what is both an RFC 3986 URI and a
//! URL as the WHATWG's URL standard (and the `url` crate) reads one: it refuses URIs whose host
//! or port a browser refuses (`http://a:65536/`, `https://1.2.3.256/`) or a web URL without a
//! host (`http:`). So its schema and its parser cannot agree exactly, and it is checked apart:
//! on the URI generators' strings, whatever the tool accepts the schema accepts (never wider);
//! whatever the schema accepts, the tool accepts exactly when `url::Url::parse` does (the
//! narrowing is WHATWG's and nothing else); and an accepted URL reaches the tool as
//! `Url::parse` writes it (`HTTP://A` as `http://a/`).

use std::cell::RefCell;

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestError};
use serde_json::{Value, json};
use url::Url;

use super::generate::{format_near, format_valid};
use super::schema::{Format, Kind, Schema};
use super::{compile, runner, schema_for_validator};
use crate::{Tool, ToolError};

/// What `pages` returns.
#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {}

/// A URL: published as a URI, read as browsers read URLs, so narrower than its schema.
#[derive(Tool, serde::Serialize)]
#[tool(name = "pages", title = "Pages", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
pub struct Pages {
    /// Required.
    pub page: Url,
}

/// The strings tried.
const CASES: u32 = 3000;

/// How often each answer occurred.
#[derive(Default)]
struct Counts {
    /// Both accepted, the URL written as sent.
    accepted_as_sent: u32,
    /// Both accepted, the URL written otherwise (normalised).
    accepted_normalised: u32,
    /// A URI the schema accepts and a browser refuses, so the tool refuses.
    narrowed: u32,
    /// Both refused.
    refused: u32,
}

/// What the schema, the tool and `Url::parse` said of one string, once they are consistent.
enum Answer {
    Accepted { normalised: bool },
    Narrowed,
    Refused,
}

/// Runs the URI generators' strings through the schema, the tool and `Url::parse`, failing on
/// the first (shrunk) string they are inconsistent on, then requires every answer, often.
#[test]
fn a_url_is_a_uri_that_a_browser_reads_too() {
    let spec = Pages::SPEC;
    let validator = compile(&schema_for_validator(spec), spec.name);
    let root = Schema::root(spec);
    let page = &root.fields()[0];
    assert!(
        matches!(page.schema.kind, Kind::Format(Format::Uri)),
        "{}: a URL is published as format uri",
        page.name
    );
    let counts = RefCell::new(Counts::default());
    let texts = prop_oneof![
        3 => format_valid(Format::Uri),
        2 => format_near(Format::Uri),
    ];
    let result = runner(CASES).run(&texts, |text| {
        let mut counts = counts.borrow_mut();
        match judge(&validator, &page.name, &text)? {
            Answer::Accepted { normalised: false } => counts.accepted_as_sent += 1,
            Answer::Accepted { normalised: true } => counts.accepted_normalised += 1,
            Answer::Narrowed => counts.narrowed += 1,
            Answer::Refused => counts.refused += 1,
        }
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, _)) => panic!("{}: {reason}", spec.name),
        Err(TestError::Abort(reason)) => panic!("{}: proptest aborted: {reason}", spec.name),
    }
    assert_every_answer(&counts.into_inner());
}

/// Asks the schema, the tool and `Url::parse` about `text` as the argument `name`; an
/// inconsistency fails the case with what each said.
fn judge(validator: &Validator, name: &str, text: &str) -> Result<Answer, TestCaseError> {
    let arguments = json!({ name: text });
    let schema_accepts = validator.is_valid(&arguments);
    let browser = Url::parse(text);
    let parsed = crate::parse::<Pages>(arguments.as_object());
    match (schema_accepts, &browser, parsed) {
        (true, Ok(url), Ok(pages)) => {
            let received =
                serde_json::to_value(&pages).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let expected = json!({ name: url.as_str() });
            if received == expected {
                Ok(Answer::Accepted {
                    normalised: url.as_str() != text,
                })
            } else {
                Err(TestCaseError::fail(format!(
                    "{text:?}: the tool receives {received} instead of {expected}"
                )))
            }
        }
        (true, Err(_), Err(ToolError::Invalid(_))) => Ok(Answer::Narrowed),
        (false, _, Err(ToolError::Invalid(_))) => Ok(Answer::Refused),
        (_, _, parsed) => {
            let parser_says = match parsed {
                Ok(pages) => format!(
                    "accepts, receiving {}",
                    serde_json::to_value(&pages).unwrap_or(Value::Null)
                ),
                Err(ToolError::Invalid(violations)) => format!("rejects: {violations}"),
                Err(other) => format!("fails unexpectedly: {other:?}"),
            };
            let browser_says = match browser {
                Ok(url) => format!("reads {}", url.as_str()),
                Err(error) => format!("refuses: {error}"),
            };
            Err(TestCaseError::fail(format!(
                "the schema, the tool and url::Url::parse are inconsistent\n  sent: {text:?}\n  \
                 schema: {}\n  tool:   {parser_says}\n  url:    {browser_says}",
                if schema_accepts { "accepts" } else { "rejects" }
            )))
        }
    }
}

/// Every answer, often: URLs accepted as sent and normalised, URIs narrowed away, strings
/// refused by all. The thresholds sit far below what the generators produce on average.
fn assert_every_answer(counts: &Counts) {
    eprintln!(
        "pages: {CASES} strings: accepted as sent {}, normalised {}; narrowed {}; refused {}",
        counts.accepted_as_sent, counts.accepted_normalised, counts.narrowed, counts.refused
    );
    let tenth = CASES / 10;
    assert!(
        counts.accepted_as_sent >= tenth,
        "accepted as sent: {}",
        counts.accepted_as_sent
    );
    assert!(
        counts.accepted_normalised >= tenth,
        "normalised: {}",
        counts.accepted_normalised
    );
    assert!(counts.narrowed >= 50, "narrowed: {}", counts.narrowed);
    assert!(counts.refused >= tenth, "refused: {}", counts.refused);
}
