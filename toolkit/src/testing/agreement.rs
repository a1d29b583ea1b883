//! The schema-agreement check: a property test that a tool's published input schema and its
//! parser accept exactly the same argument objects.
//!
//! Argument objects are generated from the input schema alone ([`generate`]): mostly valid
//! objects with a few changes applied, at, just inside and just outside every bound the schema
//! states, for every kind of argument, nested objects, lists, maps, unions and groups. A real
//! JSON Schema validator (the `jsonschema` crate, draft 2020-12, formats enforced) judges each
//! object against the schema a client is shown, and the tool's parser judges it too; the two
//! must agree, every refusal must name a place in the object sent (or a declared argument that
//! is missing), and, when asked, the values an accepted object gives the tool must be the ones
//! sent ([`expect`]). The first disagreement fails the check with the smallest object proptest
//! can shrink it to. At the end a tally ([`tally`]) requires that every bound, pattern and
//! format was met from both sides often enough, so that the check cannot pass without
//! exercising what it compares.
//!
//! The oracle knows a tool only through its input schema ([`schema`]): the values it generates,
//! the edges it aims at and the values it expects the tool to receive are read from the schema,
//! never from the spec the parser reads, so that it cannot share a mistake with the parser.
//!
//! Documented leniencies and departures that a plain schema or validator cannot express are
//! normalised before comparing: `null` for a declared argument or field means "left out"
//! ([`expect::without_null_fields`]); free-form JSON nests at most as deep as the parser takes
//! it ([`crate::arg::MAX_JSON_DEPTH`]), which JSON Schema cannot state, so no deeper value is
//! generated; the validator's `\b` is not ECMA-262's, so it is given the pattern with
//! ECMA-262's definition spelt out ([`ecma`]); the validator takes a display name
//! (`Ada <ada@example.com>`) for an email address, so such a value is given to it as no
//! address ([`mailbox`]); and the validator decodes an email domain's `xn--` labels as Punycode
//! where the parser takes them as written, so no such label is generated. Of the cross-argument
//! rules, the groups (`one_of`, `any_of`, `conflicts_with`, `requires`) are in scope;
//! `required_unless` and `ignored_with`, which JSON Schema cannot state, are not, and a tool
//! that declares them may see disagreements the check reports.

mod ecma;
mod expect;
mod generate;
mod json;
mod mailbox;
mod places;
mod rfc3339;
mod schema;
mod tally;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod urls;

use std::cell::RefCell;
use std::marker::PhantomData;

use jsonschema::Validator;
use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestError, TestRunner};
use serde_json::Value;

use crate::{Tool, ToolError, ToolSpec, Violations};
use ecma::word_boundaries_spelt_out;
use expect::{expected, for_validator, identical};
use generate::arguments;
use json::Object;
use rfc3339::Zone;
use schema::Schema;
use tally::Tally;

/// Generated argument objects per tool, at least.
const MIN_CASES: u32 = 2_000;

/// Generated argument objects per declared argument, for a tool with many: an object that
/// breaks one bound and nothing else is rarer the more arguments share its changes, and the
/// tally needs some at every edge.
const CASES_PER_ARGUMENT: u32 = 250;

/// Generated argument objects per tool, at most, unless [`Agreement::cases`] says otherwise:
/// with [`MAX_ROUNDS`], the bound on the check's run time.
const MAX_CASES: u32 = 10_000;

/// How many times the cases are generated, at most: again while the tally finds an edge met
/// too rarely (a deep one meets its share of the objects by chance), so that the check does
/// not fail for bad luck.
const MAX_ROUNDS: u32 = 3;

/// Runs the schema-agreement check on the tool `T` with the default settings, panicking with
/// the smallest disagreement found: see [`Agreement`].
///
/// ```
/// use toolkit::Tool;
///
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// pub struct Sum {
///     total: i64,
/// }
///
/// /// Adds two numbers.
/// #[derive(Tool)]
/// #[tool(name = "add", title = "Add", output = Sum,
///        read_only, destructive = false, idempotent, open_world = false)]
/// pub struct Add {
///     #[arg(max = 1000)]
///     a: u32,
///     #[arg(min = -5, max = 5, default = 0)]
///     b: i32,
/// }
///
/// toolkit::testing::check_agreement::<Add>();
/// ```
pub fn check_agreement<T: Tool>() {
    Agreement::<T>::new().check();
}

/// The schema-agreement check on the tool `T`, with its settings.
///
/// [`check`](Self::check) generates argument objects from `T`'s published input schema (by
/// default 2,000, or 250 per declared argument for a tool with more than eight, up to 10,000)
/// and requires, of each, that a JSON Schema 2020-12 validator given that schema and `T`'s
/// parser both accept it or both refuse it, and that each refusal names a place in the object
/// sent or a declared argument. The first disagreement panics with the smallest object that
/// shows it (proptest shrinks it), what each side said and the schema. Objects are drawn again,
/// up to three times as many in all, while some bound, pattern or format was met too rarely.
/// `PROPTEST_RNG_SEED` fixes the seed.
///
/// In a debug build a tool of a few arguments takes under a second; one of some twenty
/// arguments of every kind (4,500 objects) about three.
pub struct Agreement<T> {
    cases: Option<u32>,
    received: Option<Received<T>>,
    zone: Zone,
    tool: PhantomData<fn() -> T>,
}

/// How a tool that serialises shows the values it received.
type Received<T> = fn(&T) -> Result<Value, String>;

impl<T: Tool> Agreement<T> {
    /// The check with the default settings.
    pub fn new() -> Self {
        Self {
            cases: None,
            received: None,
            zone: Zone::Sent,
            tool: PhantomData,
        }
    }

    /// Generates `cases` argument objects instead of the default. The check requires every
    /// bound, pattern and format to be met from both sides a few times, so too few cases fail
    /// it with what was not met.
    pub fn cases(mut self, cases: u32) -> Self {
        self.cases = Some(cases);
        self
    }

    /// Also requires that an accepted object gives the tool the values sent: serialised, `T`
    /// must equal the object sent with each value as the schema reads it (integers exact,
    /// floats as the nearest `f64`, or `f32` for a field whose schema states an `f32`'s range,
    /// UUIDs in lower case, date-times as chrono writes them back) and each left-out field as
    /// its published default (or `null`), all the way down. `T`'s `Serialize` must write
    /// each field under its wire name (`#[serde(rename_all = "camelCase")]` beside
    /// `#[derive(Tool)]`, say).
    pub fn compare_received(mut self) -> Self
    where
        T: serde::Serialize,
    {
        self.received = Some(|tool| serde_json::to_value(tool).map_err(|error| error.to_string()));
        self
    }

    /// With [`compare_received`](Self::compare_received): the tool holds its date-times
    /// converted to UTC (`DateTime<Utc>`) rather than at the offset sent
    /// (`DateTime<FixedOffset>`), which its schema cannot say.
    pub fn date_times_in_utc(mut self) -> Self {
        self.zone = Zone::Utc;
        self
    }

    /// Runs the check, panicking with the smallest disagreement found, or with what the
    /// generated objects did not exercise.
    pub fn check(&self) {
        let spec = T::SPEC;
        let schema = schema_for_validator(spec);
        let validator = compile(&schema, spec.name);
        let root = Schema::root(spec);
        published_values_are_valid(&root, &schema, spec.name);
        let cases = self.cases.unwrap_or_else(|| default_cases(&root));
        let tally = RefCell::new(Tally::new(&root, &schema));
        let strategy = arguments(&root);
        let mut runner = runner(cases);
        for round in 0..MAX_ROUNDS {
            if round > 0 {
                // A runner counts the cases it ran: the next round's is new, and draws on.
                runner = TestRunner::new_with_rng(runner.config().clone(), runner.new_rng());
            }
            let result = runner.run(&strategy, |object| {
                let (instance, verdict) = self.judge(&validator, &root, object)?;
                tally.borrow_mut().record(&root, &instance, &verdict);
                Ok(())
            });
            match result {
                Ok(()) => {}
                Err(TestError::Fail(reason, _)) => panic!("{}: {reason}", spec.name),
                Err(TestError::Abort(reason)) => {
                    panic!("{}: proptest aborted: {reason}", spec.name)
                }
            }
            if tally
                .borrow()
                .shortfalls(spec.name, &root, false)
                .is_empty()
            {
                break;
            }
        }
        let shortfalls = tally.borrow().shortfalls(spec.name, &root, true);
        assert!(
            shortfalls.is_empty(),
            "the generated objects did not exercise everything the schema states (more `cases` \
             may help):\n  {}",
            shortfalls.join("\n  ")
        );
    }

    /// Judges one argument object, panicking if the schema and the parser disagree on it: a
    /// disagreement the check found, pinned as a test of its own.
    pub fn check_one(&self, arguments: &Value) {
        let spec = T::SPEC;
        let validator = compile(&schema_for_validator(spec), spec.name);
        let Some(object) = arguments.as_object() else {
            panic!("{}: {arguments} is no object", spec.name);
        };
        if let Err(failure) = self.judge(&validator, &Schema::root(spec), object.clone()) {
            panic!("{}: {failure}", spec.name);
        }
    }

    /// Asks the schema and the parser; a disagreement, a refusal that names no place, or an
    /// accepted object whose values do not reach the tool intact fails the case with everything
    /// needed to see why. Gives the object as the validator judged it, with the verdict.
    fn judge(
        &self,
        validator: &Validator,
        root: &Schema,
        object: Object,
    ) -> Result<(Value, Verdict), TestCaseError> {
        let arguments = Value::Object(object);
        let instance = for_validator(root, &arguments);
        let schema_accepts = validator.is_valid(&instance);
        match (schema_accepts, crate::parse::<T>(arguments.as_object())) {
            (true, Ok(tool)) => {
                if let Some(received) = self.received {
                    let received = received(&tool).map_err(TestCaseError::fail)?;
                    let expected = expected(root, Some(&arguments), self.zone);
                    if !identical(&received, &expected) {
                        return Err(TestCaseError::fail(format!(
                            "both accept {arguments}, but the tool receives {received} instead \
                             of {expected}"
                        )));
                    }
                }
                Ok((instance, Verdict::Accepted))
            }
            (false, Err(ToolError::Invalid(violations))) => {
                if let Some(place) = places::unplaced(root, &arguments, &violations) {
                    return Err(TestCaseError::fail(format!(
                        "the parser refuses {arguments} at `{place}`, which is neither a place \
                         in the object sent nor a declared argument or field\n  parser: \
                         {violations}"
                    )));
                }
                Ok((instance, Verdict::Rejected(violations)))
            }
            (_, parsed) => Err(TestCaseError::fail(disagreement::<T>(
                validator, &arguments, &instance, parsed,
            ))),
        }
    }
}

impl<T: Tool> Default for Agreement<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// What both sides said about one object, once they agree.
enum Verdict {
    Accepted,
    Rejected(Violations),
}

/// The failure's text when the schema (given `instance`, the normalised `arguments`) and the
/// parser disagree.
fn disagreement<T: Tool>(
    validator: &Validator,
    arguments: &Value,
    instance: &Value,
    parsed: Result<T, ToolError>,
) -> String {
    let schema_says = if validator.is_valid(instance) {
        "accepts".to_owned()
    } else {
        let errors: Vec<String> = validator
            .iter_errors(instance)
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
    let schema = Value::Object(crate::input_schema(T::SPEC));
    format!(
        "the input schema and the parser disagree\n  arguments: {arguments}\n  \
         schema:    {schema_says}\n  parser:    {parser_says}{normalised}\n  \
         input schema: {schema}"
    )
}

/// The default number of cases for the tool whose root schema is `root`.
fn default_cases(root: &Schema) -> u32 {
    let arguments = u32::try_from(root.fields().len()).unwrap_or(u32::MAX);
    (arguments.saturating_mul(CASES_PER_ARGUMENT)).clamp(MIN_CASES, MAX_CASES)
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
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    })
}

/// The tool's input schema as the validator is given it: with `\b` and `\B` spelt out (see
/// [`ecma`]).
fn schema_for_validator(spec: &ToolSpec) -> Value {
    let mut schema = Value::Object(crate::input_schema(spec));
    word_boundaries_spelt_out(&mut schema);
    schema
}

/// `schema` compiled as draft 2020-12 with formats enforced (so that `format: uuid` counts).
fn compile(schema: &Value, what: &str) -> Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|error| panic!("{what}: the schema does not compile: {error}"))
}
