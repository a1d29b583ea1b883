//! The check: generated objects through both the schema validator and the parser, each
//! disagreement a failure with everything needed to see why, and the tally's demands at the end.

use std::cell::RefCell;

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestError, TestRunner};
use serde_json::Value;
use toolkit::{Tool, ToolError, ToolSpec, Violations};

use crate::ecma::word_boundaries_spelt_out;
use crate::expect::{expected, for_validator, identical};
use crate::generate::arguments;
use crate::json::Object;
use crate::rfc3339::Zone;
use crate::schema::Schema;
use crate::tally::Tally;

/// Generated argument objects per declaration, at least.
const CASES: u32 = 2000;

/// Generated argument objects per declared argument, for a declaration with many: an object
/// that breaks one bound and nothing else is rarer the more arguments share its changes, and
/// the tallies need some at every edge.
const CASES_PER_ARGUMENT: u32 = 250;

/// Runs generated objects (`CASES`, more for many arguments) through both the schema and the
/// parser of `T`, failing on the first (shrunk) disagreement, then requires that both answers
/// occurred often enough. Any date-time `T` receives it holds with the offset sent.
pub fn check_agreement<T: Tool + serde::Serialize>() {
    check_agreement_in::<T>(Zone::Sent);
}

/// [`check_agreement`], for a tool that holds the date-times it receives in `zone`.
pub fn check_agreement_in<T: Tool + serde::Serialize>(zone: Zone) {
    let spec = T::SPEC;
    let schema = schema_for_validator(spec);
    let validator = compile(&schema, spec.name);
    let root = Schema::root(spec);
    published_values_are_valid(&root, &schema, spec.name);
    let arguments_count = u32::try_from(root.fields().len()).unwrap_or(u32::MAX);
    let cases = CASES.max(arguments_count.saturating_mul(CASES_PER_ARGUMENT));
    let tally = RefCell::new(Tally::new(&root, &schema, cases));
    let result = runner(cases).run(&arguments(&root), |object| {
        let (instance, verdict) = judge::<T>(&validator, &root, &object, zone)?;
        tally.borrow_mut().record(&root, &instance, &verdict);
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, _)) => panic!("{}: {reason}", spec.name),
        Err(TestError::Abort(reason)) => panic!("{}: proptest aborted: {reason}", spec.name),
    }
    tally.into_inner().assert_both_answers(spec.name, &root);
}

/// Every `default` and every entry of `examples` that the schema publishes is a value of its
/// own schema, so that a client that sends one is not refused for it. (The generators draw them
/// too, where the parser must take each as the schema does.)
fn published_values_are_valid(root: &Schema, schema: &Value, tool: &str) {
    for site in root.all() {
        for value in site.default.iter().chain(&site.examples) {
            let own = (schema.pointer(&site.pointer))
                .unwrap_or_else(|| panic!("{tool}: no schema at {:?}", site.pointer));
            assert!(
                compile(own, tool).is_valid(value),
                "{tool}: {} publishes {value}, which its own schema refuses",
                site.path
            );
        }
    }
}

/// A proptest runner for `cases` cases. No failure persistence: a failure prints its (shrunk)
/// value, which is all it takes to reproduce it, and the run writes no files.
/// PROPTEST_RNG_SEED fixes the seed. XorShift because ChaCha, unoptimised in a debug build,
/// would take most of the run time.
pub fn runner(cases: u32) -> TestRunner {
    TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    })
}

/// Judges one object, for a case worth pinning: panics if the schema and the parser disagree.
/// Any date-time `T` receives it holds with the offset sent.
pub fn check_one<T: Tool + serde::Serialize>(arguments: &Value) {
    let spec = T::SPEC;
    let validator = compile(&schema_for_validator(spec), spec.name);
    let object = (arguments.as_object()).unwrap_or_else(|| panic!("{arguments} is no object"));
    if let Err(failure) = judge::<T>(&validator, &Schema::root(spec), object, Zone::Sent) {
        panic!("{}: {failure}", spec.name);
    }
}

/// The tool's input schema as the validator is given it: with `\b` and `\B` spelt out (see
/// [`crate::ecma`]).
pub fn schema_for_validator(spec: &ToolSpec) -> Value {
    let mut schema = Value::Object(toolkit::input_schema(spec));
    word_boundaries_spelt_out(&mut schema);
    schema
}

/// `schema` compiled as draft 2020-12 with formats enforced (so that `format: uuid` counts).
pub fn compile(schema: &Value, what: &str) -> Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|error| panic!("{what}: the schema does not compile: {error}"))
}

/// What both sides said about one object, once they agree.
pub enum Verdict {
    Accepted,
    Rejected(Violations),
}

/// Asks the schema and the parser; a disagreement (or an accepted object whose values do not
/// reach the tool intact, its date-times held in `zone`) fails the case with everything needed
/// to see why. Gives the object as the validator judged it, with the verdict.
fn judge<T: Tool + serde::Serialize>(
    validator: &Validator,
    root: &Schema,
    object: &Object,
    zone: Zone,
) -> Result<(Value, Verdict), TestCaseError> {
    let arguments = Value::Object(object.clone());
    let instance = for_validator(root, &arguments);
    let schema_accepts = validator.is_valid(&instance);
    match (schema_accepts, toolkit::parse::<T>(Some(object))) {
        (true, Ok(tool)) => {
            let received =
                serde_json::to_value(&tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let expected = expected(root, Some(&arguments), zone);
            if identical(&received, &expected) {
                Ok((instance, Verdict::Accepted))
            } else {
                Err(TestCaseError::fail(format!(
                    "both accept {arguments}, but the tool receives {received} instead of \
                     {expected}"
                )))
            }
        }
        (false, Err(ToolError::Invalid(violations))) => {
            Ok((instance, Verdict::Rejected(violations)))
        }
        (_, parsed) => {
            let schema_says = if schema_accepts {
                "accepts".to_owned()
            } else {
                let errors: Vec<String> = validator
                    .iter_errors(&instance)
                    .map(|error| format!("{error} (at '{}')", error.instance_path()))
                    .collect();
                format!("rejects: {}", errors.join("; "))
            };
            let parser_says = match parsed {
                Ok(_) => "accepts".to_owned(),
                Err(ToolError::Invalid(violations)) => format!("rejects: {violations}"),
                Err(other) => format!("fails unexpectedly: {other:?}"),
            };
            let normalised = if instance == arguments {
                String::new()
            } else {
                format!("\n  schema was given (normalised): {instance}")
            };
            let schema = Value::Object(toolkit::input_schema(T::SPEC));
            Err(TestCaseError::fail(format!(
                "the input schema and the parser disagree\n  arguments: {arguments}\n  \
                 schema:    {schema_says}\n  parser:    {parser_says}{normalised}\n  \
                 input schema: {schema}"
            )))
        }
    }
}
