//! The input schema a client is shown and the parser the server runs agree.
//!
//! For each small tool declared below (between them every argument kind: bounded and free
//! strings, optional strings, booleans with a default, integers of every width with negative,
//! declared, exclusive and only-the-type's bounds, `f64`s and `f32`s with inclusive and
//! exclusive, whole and fractional bounds and whole and fractional defaults, UUIDs and optional
//! UUIDs), proptest generates argument objects, and a real JSON Schema validator (`jsonschema`,
//! draft 2020-12, with `format` enforced so `format: uuid` counts) run on
//! `toolkit::input_schema(T::SPEC)` must accept exactly the objects `toolkit::parse::<T>`
//! accepts. When both accept, the values the tool receives must be the ones sent (or the
//! declared defaults): for a float, the number sent as the nearest `f64`, or `f32` for an `f32`,
//! compared bit for bit.
//!
//! The generated objects are mostly valid objects with a few changes applied: values at, just
//! inside and just outside each bound, inclusive or exclusive (string lengths in characters,
//! with multi-byte characters and combining marks; integers at and one either side of a bound,
//! written as integers, as integral floats like `5.0`, as fractions, and as floats beyond
//! `i64`/`u64` like `1e20` and 2^70; floats at a bound, one `f64` either side of it
//! (`f64::next_up`) and a fraction either side, integers sent to floats, `f32`'s largest value
//! and just beyond it (3.5e38), ±1e300 and `f64::MAX`, subnormals and -0.0), wrong JSON types,
//! UUIDs in every case and in refused forms (braced, unhyphenated, URN, a bad hex digit, a wrong
//! length), missing and `null` arguments, and unknown names (random ones and near misses of the
//! real names). Each test counts both answers, overall, per argument and at each bound (the
//! outermost value it lets in and the first it keeps out), so it cannot pass without exercising
//! them.
//!
//! The oracle knows the tools only through their input schemas: the arguments it generates, the
//! bounds it aims at and the values it expects the tool to receive (the value sent, or the
//! schema's `default`) are all read from the schema (see [`Property`]), never from the spec the
//! parser reads, so that it cannot share a mistake with the parser. That includes telling an
//! `f32` from an `f64` (see [`Precision`]).
//!
//! One documented leniency of the parser that a plain schema cannot express is normalised
//! before comparing: `null` for a declared argument means "left out", so such keys are removed
//! before the object goes to the schema validator (an unknown name stays, even with `null`).
//! The cross-argument rules (`required_unless`, `ignored_with`) and `exists` are out of scope
//! here and no declaration below uses them.

use std::cell::RefCell;

use jsonschema::Validator;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;
use proptest::test_runner::{RngAlgorithm, TestCaseError, TestError, TestRunner};
use serde_json::{Map, Number, Value, json};
use toolkit::{Tool, ToolError, ToolSpec, Uuid, Violations};

/// Generated argument objects per declaration, at least.
const CASES: u32 = 2000;

/// Generated argument objects per declared argument, for a declaration with many: an object
/// that breaks one bound and nothing else is rarer the more arguments share its changes, and
/// the tallies need some at every edge.
const CASES_PER_ARGUMENT: u32 = 250;

type Object = Map<String, Value>;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Out {}

// The declarations. `Serialize` (camelCase, like the wire names) lets a test compare what the
// tool receives with what was sent.

/// Strings with and without length rules, and a boolean with a default.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "texts", title = "Texts", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
struct Texts {
    /// Two to eight characters.
    #[arg(min_chars = 2, max_chars = 8)]
    title: String,
    /// Any text, or none.
    note: Option<String>,
    /// At most five characters, or none.
    #[arg(max_chars = 5)]
    label: Option<String>,
    /// One to twelve characters, `title` when left out.
    #[arg(min_chars = 1, max_chars = 12, default = "title")]
    order: String,
    /// True when left out.
    #[arg(default = true)]
    verbose: bool,
}

/// Integers of every width, with negative, declared and only the type's own bounds.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "numbers", title = "Numbers", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
struct Numbers {
    /// Between -10 and -1.
    #[arg(min = -10, max = -1)]
    delta: i32,
    /// Any `i64`.
    anything: i64,
    /// Between 1 and 50, 10 when left out.
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
    /// Any `u64`.
    size: u64,
    /// Any `u32`, 0 when left out.
    #[arg(default = 0)]
    offset: u32,
    /// Any `i32`, or none.
    level: Option<i32>,
    /// Any `i8`.
    tiny: i8,
    /// From -1000 to any `i16`.
    #[arg(min = -1000)]
    small: i16,
    /// At most 200, 5 when left out.
    #[arg(max = 200, default = 5)]
    byte: u8,
    /// Any `u16`, or none.
    port: Option<u16>,
    /// More than 0 and less than 10: both exclusive bounds beside the type's own.
    #[arg(exclusive_min = 0, exclusive_max = 10)]
    step: i32,
    /// Any negative `i64`, or none.
    #[arg(exclusive_max = 0)]
    debt: Option<i64>,
}

/// Floats with exclusive and inclusive, whole and fractional bounds, whole and fractional
/// defaults, `f32`'s own range and none at all.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "floats", title = "Floats", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
struct Floats {
    /// More than 0 and at most 600, 30 when left out.
    #[arg(exclusive_min = 0, max = 600, default = 30)]
    timeout: f64,
    /// From -90.5 to 90.5.
    #[arg(min = -90.5, max = 90.5)]
    latitude: f64,
    /// At least 0 and less than 1, in `f32` precision.
    #[arg(min = 0, exclusive_max = 1)]
    ratio: f32,
    /// Any `f64`.
    anything: f64,
    /// Any `f32`, or none.
    scale: Option<f32>,
    /// More than -1500, 0.25 when left out.
    #[arg(exclusive_min = -1.5e3, default = 0.25)]
    offset: f64,
}

/// A required and an optional UUID.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "ids", title = "Ids", output = Out,
       read_only, destructive = false, idempotent, open_world = false)]
struct Ids {
    /// Required.
    id: Uuid,
    /// Optional.
    parent_id: Option<Uuid>,
}

/// Every kind in one tool, so that problems in several arguments meet.
#[derive(Tool, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[tool(name = "everything", title = "Everything", output = Out,
       read_only = false, destructive, idempotent = false, open_world = false)]
struct Everything {
    #[arg(min_chars = 2, max_chars = 8)]
    title: String,
    note: Option<String>,
    #[arg(default = false)]
    verbose: bool,
    #[arg(min = -10, max = -1)]
    delta: i32,
    anything: i64,
    #[arg(min = 1, max = 50, default = 10)]
    limit: u32,
    size: u64,
    #[arg(exclusive_min = 0, exclusive_max = 10)]
    step: i32,
    #[arg(exclusive_min = 0, default = 2.5)]
    weight: f32,
    #[arg(min = -90.5, max = 90.5)]
    latitude: Option<f64>,
    id: Uuid,
    parent_id: Option<Uuid>,
}

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
fn everything_schema_and_parser_agree() {
    check_agreement::<Everything>();
}

/// Guards the setup: with format validation off, `format: uuid` would accept any string.
#[test]
fn the_validator_enforces_uuid_format() {
    let validator = validator_for(Ids::SPEC);
    assert!(validator.is_valid(&json!({ "id": "3F2504E0-4f89-11d3-9a0c-0305e82c3301" })));
    assert!(!validator.is_valid(&json!({ "id": "not a uuid" })));
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
/// published, on at least one side) from an `f64`.
#[test]
fn the_schema_tells_an_f32_from_an_f64() {
    let precisions: Vec<(String, Type)> = Property::all(Floats::SPEC)
        .into_iter()
        .map(|property| (property.name, property.kind))
        .collect();
    let double = Type::Float(Precision::Double);
    let single = Type::Float(Precision::Single);
    assert_eq!(
        precisions,
        [
            ("timeout".to_owned(), double),
            ("latitude".to_owned(), double),
            ("ratio".to_owned(), single),
            ("anything".to_owned(), double),
            ("scale".to_owned(), single),
            ("offset".to_owned(), double),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// The check

/// Runs generated objects (`CASES`, more for many arguments) through both the schema and the
/// parser of `T`, failing on the first (shrunk) disagreement, then requires that both answers
/// occurred often enough.
fn check_agreement<T: Tool + serde::Serialize>() {
    let spec = T::SPEC;
    let validator = validator_for(spec);
    let properties = Property::all(spec);
    let arguments_count = u32::try_from(properties.len()).unwrap_or(u32::MAX);
    let cases = CASES.max(arguments_count.saturating_mul(CASES_PER_ARGUMENT));
    let tally = RefCell::new(Tally::new(&properties, cases));
    // No failure persistence: a failure prints its (shrunk) object, which is all it takes to
    // reproduce it, and the run writes no files. PROPTEST_RNG_SEED fixes the seed. XorShift
    // because ChaCha, unoptimised in a debug build, would take most of the run time.
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    });
    let result = runner.run(&arguments(&properties), |object| {
        let verdict = judge::<T>(&validator, &properties, &object)?;
        tally.borrow_mut().record(&properties, &object, &verdict);
        Ok(())
    });
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, _)) => panic!("{}: {reason}", spec.name),
        Err(TestError::Abort(reason)) => panic!("{}: proptest aborted: {reason}", spec.name),
    }
    tally
        .into_inner()
        .assert_both_answers(spec.name, &properties);
}

/// The tool's input schema, compiled as draft 2020-12 with formats enforced.
fn validator_for(spec: &ToolSpec) -> Validator {
    let schema = Value::Object(toolkit::input_schema(spec));
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|error| panic!("{}: the input schema does not compile: {error}", spec.name))
}

/// What both sides said about one object, once they agree.
enum Verdict {
    Accepted,
    Rejected(Violations),
}

/// Asks the schema and the parser; a disagreement (or an accepted object whose values do not
/// reach the tool intact) fails the case with everything needed to see why.
fn judge<T: Tool + serde::Serialize>(
    validator: &Validator,
    properties: &[Property],
    object: &Object,
) -> Result<Verdict, TestCaseError> {
    let instance = Value::Object(without_null_arguments(properties, object));
    let schema_accepts = validator.is_valid(&instance);
    match (schema_accepts, toolkit::parse::<T>(Some(object))) {
        (true, Ok(tool)) => {
            let received =
                serde_json::to_value(&tool).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let expected = Value::Object(expected_values(properties, object));
            if identical(&received, &expected) {
                Ok(Verdict::Accepted)
            } else {
                Err(TestCaseError::fail(format!(
                    "both accept {}, but the tool receives {received} instead of {expected}",
                    Value::Object(object.clone())
                )))
            }
        }
        (false, Err(ToolError::Invalid(violations))) => Ok(Verdict::Rejected(violations)),
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
            let arguments = Value::Object(object.clone());
            let normalised = if instance == arguments {
                String::new()
            } else {
                format!("\n  schema was given (nulls left out): {instance}")
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

/// The object with `null`-valued declared arguments removed: the parser reads `null` as "left
/// out", a leniency the schema cannot state. Unknown names are kept whatever their value.
fn without_null_arguments(properties: &[Property], object: &Object) -> Object {
    object
        .iter()
        .filter(|(name, value)| !(value.is_null() && declared(properties, name)))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

fn declared(properties: &[Property], name: &str) -> bool {
    properties.iter().any(|property| property.name == name)
}

/// What an accepted object should give the tool, as the tool serialises it: each value sent
/// (integers as exact integers, floats as their precision holds them, UUIDs in lower case), else
/// the schema's default, else `null`.
fn expected_values(properties: &[Property], object: &Object) -> Object {
    let expected = |property: &Property| {
        let sent = object.get(&property.name).filter(|value| !value.is_null());
        match (sent, property.kind) {
            (Some(Value::Number(number)), Type::Integer) => {
                integral(number).map_or(Value::Null, exact_integer)
            }
            (Some(Value::String(text)), Type::Uuid) => json!(text.to_lowercase()),
            // A float, sent or by default, and written `5` or `5.0`, is held as a float and
            // serialised as one (`5.0`, never the integer 5).
            (sent, Type::Float(precision)) => sent
                .or(property.default.as_ref())
                .and_then(Value::as_f64)
                .map_or(Value::Null, |number| float(precision.held(number))),
            (Some(value), _) => value.clone(),
            (None, _) => property.default.clone().unwrap_or(Value::Null),
        }
    };
    properties
        .iter()
        .map(|property| (property.name.clone(), expected(property)))
        .collect()
}

/// Whether the tool received exactly what was expected: `==`, except that two floats must be
/// the same `f64` bit for bit, where `==` would take -0.0 for 0.0.
fn identical(received: &Value, expected: &Value) -> bool {
    match (received, expected) {
        (Value::Object(received), Value::Object(expected)) => {
            received.len() == expected.len()
                && (received.iter()).all(|(name, value)| {
                    expected
                        .get(name)
                        .is_some_and(|other| identical(value, other))
                })
        }
        (Value::Number(received), Value::Number(expected))
            if received.is_f64() && expected.is_f64() =>
        {
            received.as_f64().map(f64::to_bits) == expected.as_f64().map(f64::to_bits)
        }
        _ => received == expected,
    }
}

// ---------------------------------------------------------------------------------------------
// The arguments, as the schema describes them

/// A property's JSON type, as `type` and `format` give it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Type {
    String,
    Boolean,
    Integer,
    /// `"type": "number"`, held by the tool in this precision.
    Float(Precision),
    /// `"type": "string", "format": "uuid"`.
    Uuid,
}

/// The float type a `number` property is held in. JSON Schema has no word for it, so it is read
/// from the range: only an `f32` publishes `f32`'s largest value as a `minimum` or `maximum`.
/// (An `f32` declaring both `min` and `max` would publish neither and be read as an `f64`; the
/// values it received would then fail the comparison, loudly. None below does.)
#[derive(Clone, Copy, Debug, PartialEq)]
enum Precision {
    Single,
    Double,
}

impl Precision {
    /// The number the tool holds for `number` (as serde_json reads the JSON number, the nearest
    /// `f64`): itself, or for an `f32` the nearest `f32` (as `as` rounds), widened back exactly,
    /// as serde_json serialises an `f32`.
    fn held(self, number: f64) -> f64 {
        match self {
            Precision::Double => number,
            Precision::Single => f64::from(number as f32),
        }
    }
}

/// Which end of the allowed values a bound closes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Lower,
    Upper,
}

/// A bound's value, or a value measured against one: an exact integer for a length or an
/// integer property (so that `u64::MAX` stays exact), an `f64` for a number property, which the
/// tool holds as a float anyway. One property's limits are all of one kind, so the derived
/// order (variant first) compares them as numbers.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Limit {
    Whole(i128),
    Real(f64),
}

impl Limit {
    /// The next value up or down: one integer, or one `f64`.
    fn next(self, up: bool) -> Limit {
        match (self, up) {
            (Limit::Whole(value), true) => Limit::Whole(value + 1),
            (Limit::Whole(value), false) => Limit::Whole(value - 1),
            (Limit::Real(value), true) => Limit::Real(value.next_up()),
            (Limit::Real(value), false) => Limit::Real(value.next_down()),
        }
    }

    /// Whether a JSON value can carry exactly this value: `i64::MIN - 1` becomes a float equal
    /// to `i64::MIN`, and no JSON number is infinite.
    fn sendable(self) -> bool {
        match self {
            Limit::Whole(value) => {
                exact_integer(value).as_number().and_then(integral) == Some(value)
            }
            Limit::Real(value) => value.is_finite(),
        }
    }
}

/// One bound of a property, as its schema states it.
#[derive(Clone, Copy, Debug)]
struct Bound {
    /// `minimum`, `exclusiveMaximum`, `minLength`..., for messages.
    keyword: &'static str,
    side: Side,
    /// Whether the bound's own value is kept out.
    exclusive: bool,
    limit: Limit,
}

impl Bound {
    /// The outermost value this bound lets in: the bound itself, or one step inside an
    /// exclusive one.
    fn last_in(self) -> Limit {
        if self.exclusive {
            self.limit.next(self.side == Side::Lower)
        } else {
            self.limit
        }
    }

    /// The first value past [`Bound::last_in`], which this bound keeps out: the bound itself
    /// when exclusive.
    fn first_out(self) -> Limit {
        if self.exclusive {
            self.limit
        } else {
            self.limit.next(self.side == Side::Upper)
        }
    }
}

/// One argument as the input schema describes it: all the oracle knows of it.
#[derive(Clone, Debug)]
struct Property {
    name: String,
    kind: Type,
    required: bool,
    default: Option<Value>,
    /// `minLength` and `maxLength`.
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `minimum`, `exclusiveMinimum`, `maximum` and `exclusiveMaximum`, those present. An
    /// integer's own range stands beside a declared exclusive bound, and an `f32`'s beside any
    /// bound it does not replace, so a side can have two.
    bounds: Vec<Bound>,
}

impl Property {
    /// The properties of `spec`'s input schema, in its order. Panics on what this test cannot
    /// read: a keyword it does not know would be a rule it does not check.
    fn all(spec: &ToolSpec) -> Vec<Property> {
        let schema = toolkit::input_schema(spec);
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = schema["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("{}: the schema has no properties object", spec.name));
        properties
            .iter()
            .map(|(name, property)| {
                Property::read(name, property, required.contains(&name.as_str()))
            })
            .collect()
    }

    fn read(name: &str, schema: &Value, required: bool) -> Property {
        const KNOWN: [&str; 10] = [
            "type",
            "format",
            "description",
            "default",
            "minLength",
            "maxLength",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
        ];
        const BOUNDS: [(&str, Side, bool); 4] = [
            ("minimum", Side::Lower, false),
            ("exclusiveMinimum", Side::Lower, true),
            ("maximum", Side::Upper, false),
            ("exclusiveMaximum", Side::Upper, true),
        ];
        let keywords = schema
            .as_object()
            .expect("a property's schema is an object");
        if let Some(unknown) = keywords.keys().find(|key| !KNOWN.contains(&key.as_str())) {
            panic!("{name}: this test does not know the keyword {unknown:?}");
        }
        let number = |key: &str| match &schema[key] {
            Value::Number(number) => number.clone(),
            other => panic!("{name}: {key} is {other}"),
        };
        // An `f32`'s own range, as the `f64`s it publishes it in.
        let f32_range = |key: &str| {
            let largest = f64::from(f32::MAX);
            schema.get(key).and_then(Value::as_f64)
                == Some(if key == "minimum" { -largest } else { largest })
        };
        let kind = match (schema["type"].as_str(), schema["format"].as_str()) {
            (Some("string"), Some("uuid")) => Type::Uuid,
            (Some("string"), None) => Type::String,
            (Some("boolean"), None) => Type::Boolean,
            (Some("integer"), None) => Type::Integer,
            (Some("number"), None) if f32_range("minimum") || f32_range("maximum") => {
                Type::Float(Precision::Single)
            }
            (Some("number"), None) => Type::Float(Precision::Double),
            other => panic!("{name}: this test does not know the type {other:?}"),
        };
        let count = |key: &str| {
            schema
                .get(key)
                .map(|value| value.as_u64().expect("a count"))
        };
        let bounds = (BOUNDS.into_iter())
            .filter(|(keyword, ..)| schema.get(keyword).is_some())
            .map(|(keyword, side, exclusive)| {
                let number = number(keyword);
                let limit = match kind {
                    Type::Integer => Limit::Whole(integral(&number).expect("an integral bound")),
                    Type::Float(_) => {
                        let real = number.as_f64().expect("a bound serde_json reads as f64");
                        // A whole bound beyond 2^53 would be compared as the nearest f64.
                        let exact = number.is_f64() || integral(&number) == Some(real as i128);
                        assert!(exact, "{name}: {keyword} {number} is not exactly an f64");
                        Limit::Real(real)
                    }
                    _ => panic!("{name}: {keyword} on a {kind:?}"),
                };
                Bound {
                    keyword,
                    side,
                    exclusive,
                    limit,
                }
            })
            .collect();
        Property {
            name: name.to_owned(),
            kind,
            required,
            default: schema.get("default").cloned(),
            min_length: count("minLength"),
            max_length: count("maxLength"),
            bounds,
        }
    }

    /// The bounds a value can sit at and just past, one a side at most: a string's length
    /// bounds (not a `minLength` of 0, which no length lies past), and for a number the tighter
    /// bound of each side (the one whose [`Bound::last_in`] is innermost).
    fn edges(&self) -> Vec<Bound> {
        let length = |keyword, side, length: u64| Bound {
            keyword,
            side,
            exclusive: false,
            limit: Limit::Whole(length.into()),
        };
        match self.kind {
            Type::String => {
                let min = self.min_length.filter(|&min| min > 0);
                let min = min.map(|min| length("minLength", Side::Lower, min));
                let max = (self.max_length).map(|max| length("maxLength", Side::Upper, max));
                min.into_iter().chain(max).collect()
            }
            Type::Integer | Type::Float(_) => [Side::Lower, Side::Upper]
                .into_iter()
                .filter_map(|side| {
                    let inner = |a: &Bound, b: &Bound| match side {
                        Side::Lower => a.last_in() >= b.last_in(),
                        Side::Upper => a.last_in() <= b.last_in(),
                    };
                    (self.bounds.iter().copied())
                        .filter(|bound| bound.side == side)
                        .reduce(|a, b| if inner(&a, &b) { a } else { b })
                })
                .collect(),
            Type::Boolean | Type::Uuid => Vec::new(),
        }
    }

    /// The outermost values this property lets in below and above, if it has an edge there.
    fn range(&self) -> (Option<Limit>, Option<Limit>) {
        let edges = self.edges();
        let last_in = |side| {
            (edges.iter())
                .find(|edge| edge.side == side)
                .map(|edge| edge.last_in())
        };
        (last_in(Side::Lower), last_in(Side::Upper))
    }

    /// The integers this property allows, as a range the generators can draw from: its edges,
    /// else the widest a JSON integer the tests send can be.
    fn integer_range(&self) -> (i128, i128) {
        let whole = |limit: Option<Limit>, otherwise: i128| match limit {
            Some(Limit::Whole(value)) => value,
            _ => otherwise,
        };
        let (low, high) = self.range();
        (
            whole(low, i128::from(i64::MIN)),
            whole(high, i128::from(u64::MAX)),
        )
    }

    /// The `f64`s this property allows, both ends included: for an exclusive bound, the next
    /// `f64` inside it, else the widest a JSON number can be.
    fn float_range(&self) -> (f64, f64) {
        let real = |limit: Option<Limit>, otherwise: f64| match limit {
            Some(Limit::Real(value)) => value,
            _ => otherwise,
        };
        let (low, high) = self.range();
        (real(low, f64::MIN), real(high, f64::MAX))
    }

    /// Every number this property's bounds state, inclusive or exclusive, tight or not.
    fn limits(&self) -> impl Iterator<Item = Limit> + '_ {
        self.bounds.iter().map(|bound| bound.limit)
    }
}

// ---------------------------------------------------------------------------------------------
// Counting both answers

/// How often each answer occurred, overall and per argument.
struct Tally {
    /// The objects generated.
    cases: u32,
    accepted: u32,
    rejected: u32,
    /// Rejected only for unknown names.
    unknown_alone: u32,
    args: Vec<ArgTally>,
}

struct ArgTally {
    /// Accepted with this argument given.
    given: u32,
    /// Rejected for this argument alone.
    blamed_alone: u32,
    /// Per edge of the argument ([`Property::edges`]), in that order.
    edges: Vec<EdgeTally>,
}

#[derive(Default)]
struct EdgeTally {
    /// Accepted with this argument at the outermost value the edge lets in.
    let_in: u32,
    /// Rejected for this argument alone, at the first value past the edge.
    kept_out: u32,
}

/// Where a value sits at an edge: the outermost value it lets in, or the first it keeps out
/// (an inclusive bound and one step past it, or one step inside an exclusive bound and the
/// bound itself).
#[derive(PartialEq)]
enum Crossing {
    LastIn,
    FirstOut,
}

impl Tally {
    fn new(properties: &[Property], cases: u32) -> Self {
        let arg = |property: &Property| ArgTally {
            given: 0,
            blamed_alone: 0,
            edges: property
                .edges()
                .iter()
                .map(|_| EdgeTally::default())
                .collect(),
        };
        Tally {
            cases,
            accepted: 0,
            rejected: 0,
            unknown_alone: 0,
            args: properties.iter().map(arg).collect(),
        }
    }

    fn record(&mut self, properties: &[Property], object: &Object, verdict: &Verdict) {
        let given = |arg: &Property| object.get(&arg.name).filter(|value| !value.is_null());
        match verdict {
            Verdict::Accepted => {
                self.accepted += 1;
                for (arg, tally) in properties.iter().zip(&mut self.args) {
                    if let Some(value) = given(arg) {
                        tally.given += 1;
                        for (edge, counts) in arg.edges().into_iter().zip(&mut tally.edges) {
                            let at = crossing(arg, edge, value) == Some(Crossing::LastIn);
                            counts.let_in += u32::from(at);
                        }
                    }
                }
            }
            Verdict::Rejected(violations) => {
                self.rejected += 1;
                let blamed: Vec<Option<usize>> = violations
                    .iter()
                    .map(|violation| {
                        // A violation names its argument by its wire name, capitalised or not.
                        let unknown = violation.sentence.starts_with("Not an argument");
                        let index = (properties.iter())
                            .position(|arg| arg.name.eq_ignore_ascii_case(&violation.argument));
                        index.filter(|_| !unknown)
                    })
                    .collect();
                if blamed.iter().all(Option::is_none) {
                    self.unknown_alone += 1;
                } else if let [Some(index), rest @ ..] = blamed.as_slice()
                    && rest.iter().all(|other| other == &Some(*index))
                {
                    let (arg, tally) = (&properties[*index], &mut self.args[*index]);
                    tally.blamed_alone += 1;
                    if let Some(value) = given(arg) {
                        for (edge, counts) in arg.edges().into_iter().zip(&mut tally.edges) {
                            let past = crossing(arg, edge, value) == Some(Crossing::FirstOut);
                            counts.kept_out += u32::from(past);
                        }
                    }
                }
            }
        }
    }

    /// Both answers, often: overall, for each argument, at each edge (accepted at the last
    /// value in, rejected at the first value out, where a JSON value can carry it), and for
    /// unknown names. The thresholds sit far below what the generators produce on average.
    fn assert_both_answers(&self, name: &str, properties: &[Property]) {
        let total = self.accepted + self.rejected;
        eprintln!(
            "{name}: {total} cases, {} accepted, {} rejected, {} for unknown names alone",
            self.accepted, self.rejected, self.unknown_alone
        );
        assert_eq!(total, self.cases, "{name}: every case must be judged once");
        assert!(
            self.accepted >= self.cases / 5,
            "{name}: only {} accepted",
            self.accepted
        );
        assert!(
            self.rejected >= self.cases / 5,
            "{name}: only {} rejected",
            self.rejected
        );
        assert!(
            self.unknown_alone >= 20,
            "{name}: unknown names alone: {}",
            self.unknown_alone
        );
        for (arg, tally) in properties.iter().zip(&self.args) {
            let arg_name = &arg.name;
            eprintln!(
                "  {arg_name}: accepted given {}; rejected alone {}",
                tally.given, tally.blamed_alone
            );
            assert!(
                tally.given >= 50,
                "{name}.{arg_name}: accepted given: {}",
                tally.given
            );
            assert!(
                tally.blamed_alone >= 5,
                "{name}.{arg_name}: rejected for it alone: {}",
                tally.blamed_alone
            );
            for (edge, counts) in arg.edges().iter().zip(&tally.edges) {
                let keyword = edge.keyword;
                let (last_in, first_out) = (edge.last_in(), edge.first_out());
                eprintln!(
                    "    {keyword}: accepted at {last_in:?} {}, rejected at {first_out:?} {}",
                    counts.let_in, counts.kept_out
                );
                assert!(
                    counts.let_in >= 10,
                    "{name}.{arg_name}: accepted at {keyword}'s last value in, {last_in:?}: {}",
                    counts.let_in
                );
                assert!(
                    counts.kept_out >= 1 || !first_out.sendable(),
                    "{name}.{arg_name}: rejected at {keyword}'s first value out, {first_out:?}: {}",
                    counts.kept_out
                );
            }
        }
    }
}

/// Where `value` sits at `edge` of `arg`, measured as the edge is: a string's length in
/// characters, an integer exactly, a float as the `f64` serde_json reads (only counted, so a
/// rounded `u64` does no harm).
fn crossing(arg: &Property, edge: Bound, value: &Value) -> Option<Crossing> {
    let measure = match (arg.kind, value) {
        (Type::String, Value::String(text)) => {
            Limit::Whole(i128::try_from(text.chars().count()).ok()?)
        }
        (Type::Integer, Value::Number(number)) => Limit::Whole(integral(number)?),
        (Type::Float(_), Value::Number(number)) => Limit::Real(number.as_f64()?),
        _ => return None,
    };
    if measure == edge.last_in() {
        Some(Crossing::LastIn)
    } else if measure == edge.first_out() {
        Some(Crossing::FirstOut)
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers

/// The integer a JSON number stands for exactly, if it has no fractional part; floats beyond
/// `i128` saturate. Used to classify values and to predict what the tool receives.
fn integral(number: &Number) -> Option<i128> {
    if let Some(value) = number.as_i64() {
        return Some(value.into());
    }
    if let Some(value) = number.as_u64() {
        return Some(value.into());
    }
    let float = number.as_f64()?;
    (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
}

/// `value` as a JSON integer where `i64` or `u64` holds it, else as the nearest float.
fn exact_integer(value: i128) -> Value {
    if let Ok(signed) = i64::try_from(value) {
        json!(signed)
    } else if let Ok(unsigned) = u64::try_from(value) {
        json!(unsigned)
    } else {
        float(value as f64)
    }
}

/// A JSON float (`5.0` stays a float, not the integer 5).
fn float(value: f64) -> Value {
    Number::from_f64(value).map_or(Value::Null, Value::Number)
}

// ---------------------------------------------------------------------------------------------
// Generators

/// One edit applied to a valid object.
#[derive(Clone, Debug)]
enum Change {
    /// Give argument `index` this value: inside, at or past a bound, or of a wrong type.
    Set(usize, Value),
    /// Leave argument `index` out.
    Remove(usize),
    /// Send argument `index` as `null`.
    Null(usize),
    /// Add a name the tool does not declare.
    Unknown(String, Value),
}

/// Argument objects for `spec`: a valid object (optional arguments sometimes left out), then
/// zero to three changes; three objects in ten have none.
fn arguments(properties: &[Property]) -> BoxedStrategy<Object> {
    let base: Vec<BoxedStrategy<Option<Value>>> = properties.iter().map(valid_or_absent).collect();
    let names: Vec<String> = properties.iter().map(|arg| arg.name.clone()).collect();
    let changes = prop_oneof![
        6 => Just(0usize),
        9 => Just(1usize),
        3 => Just(2usize),
        2 => Just(3usize),
    ]
    .prop_flat_map({
        let properties = properties.to_vec();
        move |count| vec(change(&properties), count)
    });
    (base, changes)
        .prop_map(move |(base, changes)| {
            let mut object: Object = (names.iter().zip(base))
                .filter_map(|(name, value)| Some((name.clone(), value?)))
                .collect();
            for change in changes {
                match change {
                    Change::Set(index, value) => {
                        object.insert(names[index].clone(), value);
                    }
                    Change::Remove(index) => {
                        object.remove(&names[index]);
                    }
                    Change::Null(index) => {
                        object.insert(names[index].clone(), Value::Null);
                    }
                    Change::Unknown(name, value) => {
                        object.insert(name, value);
                    }
                }
            }
            object
        })
        .boxed()
}

fn change(properties: &[Property]) -> BoxedStrategy<Change> {
    let mut choices: Vec<(u32, BoxedStrategy<Change>)> = Vec::new();
    for (index, arg) in properties.iter().enumerate() {
        let set = candidate(arg).prop_map(move |value| Change::Set(index, value));
        choices.push((8, set.boxed()));
        choices.push((1, Just(Change::Remove(index)).boxed()));
        choices.push((1, Just(Change::Null(index)).boxed()));
    }
    let unknown = (unknown_name(properties), unknown_value())
        .prop_map(|(name, value)| Change::Unknown(name, value))
        .boxed();
    let unknown_weight = u32::try_from(properties.len()).unwrap_or(1).max(1) * 2;
    choices.push((unknown_weight, unknown));
    Union::new_weighted(choices).boxed()
}

/// A valid value; an argument that may be left out is left out one time in five.
fn valid_or_absent(arg: &Property) -> BoxedStrategy<Option<Value>> {
    let valid = valid(arg).prop_map(Some);
    if arg.required {
        valid.boxed()
    } else {
        prop_oneof![4 => valid, 1 => Just(None)].boxed()
    }
}

/// A value the argument must accept, often exactly at a bound.
fn valid(arg: &Property) -> BoxedStrategy<Value> {
    match arg.kind {
        Type::String => {
            let min = arg.min_length.unwrap_or(0);
            match arg.max_length {
                Some(max) => prop_oneof![
                    2 => text(select(vec![min, max])),
                    3 => text(min..=max),
                ]
                .boxed(),
                None => prop_oneof![
                    1 => text(Just(min)),
                    3 => text(min..=min + 20),
                    1 => text(min + 100..=min + 300),
                ]
                .boxed(),
            }
        }
        Type::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Integer => {
            let (min, max) = arg.integer_range();
            prop_oneof![
                2 => select(vec![min, max, (min + 1).min(max), (max - 1).max(min)]),
                3 => min..=max,
            ]
            .prop_map(exact_integer)
            .boxed()
        }
        Type::Float(_) => float_valid(arg),
        Type::Uuid => uuid_valid().prop_map(Value::String).boxed(),
    }
}

/// A value to put in place of a valid one: often valid, often at or just past a bound, or of a
/// wrong JSON type.
fn candidate(arg: &Property) -> BoxedStrategy<Value> {
    let near = match arg.kind {
        Type::String => string_near_bounds(arg.min_length, arg.max_length),
        Type::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Integer => integer_near_bounds(arg),
        Type::Float(_) => float_near_bounds(arg),
        Type::Uuid => uuid_candidate().prop_map(Value::String).boxed(),
    };
    let mut choices = vec![(2, valid(arg)), (4, near), (3, wrong_type())];
    // Each edge's first value out, on its own as well: the tallies need each rejected with no
    // other problem in the object, which few objects with several arguments are.
    if let Some(first_out) = first_out(arg) {
        choices.push((6, first_out));
    }
    Union::new_weighted(choices).boxed()
}

/// The first value past one of `arg`'s edges, where a JSON value can carry it: a string one
/// character too short or too long, a number one step out (the bound itself if exclusive).
fn first_out(arg: &Property) -> Option<BoxedStrategy<Value>> {
    let outs: Vec<Limit> = (arg.edges().iter())
        .map(|edge| edge.first_out())
        .filter(|limit| limit.sendable())
        .collect();
    if outs.is_empty() {
        return None;
    }
    let value = if arg.kind == Type::String {
        let lengths: Vec<u64> = (outs.iter())
            .filter_map(|limit| match *limit {
                Limit::Whole(length) => u64::try_from(length).ok(),
                Limit::Real(_) => None,
            })
            .collect();
        text(select(lengths))
    } else {
        select(outs)
            .prop_map(|limit| match limit {
                Limit::Whole(value) => exact_integer(value),
                Limit::Real(value) => float(value),
            })
            .boxed()
    };
    Some(value)
}

// Strings

/// Characters of one to four bytes, a combining mark (a character of its own), quotes,
/// escapes, control characters and anything else, so lengths in bytes and in characters differ.
fn character() -> BoxedStrategy<char> {
    prop_oneof![
        8 => proptest::char::range('a', 'z'),
        2 => Just('é'),
        2 => Just('😀'),
        2 => Just('\u{301}'),
        1 => Just('中'),
        1 => Just('"'),
        1 => Just('\\'),
        1 => Just('\n'),
        1 => Just('\u{0}'),
        1 => Just('\u{feff}'),
        1 => Just('\u{10ffff}'),
        2 => any::<char>(),
    ]
    .boxed()
}

/// A string whose length in characters is drawn from `lengths`.
fn text(lengths: impl Strategy<Value = u64> + 'static) -> BoxedStrategy<Value> {
    lengths
        .prop_flat_map(|length| vec(character(), usize::try_from(length).unwrap_or(0)))
        .prop_map(|chars| Value::String(chars.into_iter().collect()))
        .boxed()
}

/// Strings one character either side of each bound, at it, empty, or long.
fn string_near_bounds(min: Option<u64>, max: Option<u64>) -> BoxedStrategy<Value> {
    let mut at = vec![0, 1];
    let mut past = vec![];
    if let Some(min) = min {
        at.push(min);
        past.extend(min.checked_sub(1));
    }
    if let Some(max) = max {
        at.push(max);
        past.push(max + 1);
    }
    if past.is_empty() {
        past.push(0);
    }
    prop_oneof![
        3 => text(select(at)),
        3 => text(select(past)),
        1 => text(200..=400u64),
    ]
    .boxed()
}

// Integers

/// Numbers at and one either side of each bound (inclusive or exclusive, tight or only the
/// type's own beside an exclusive one) and the edges of every integer type, written as JSON
/// integers, as integral floats (`5.0`) and with fractions (`5.5`); floats beyond `i64` and
/// `u64` (`1e20`, 2^70); and arbitrary integers and floats.
fn integer_near_bounds(arg: &Property) -> BoxedStrategy<Value> {
    let (min, max) = arg.integer_range();
    let bounds: Vec<i128> = (arg.limits())
        .filter_map(|limit| match limit {
            Limit::Whole(value) => Some(value),
            Limit::Real(_) => None,
        })
        .collect();
    // One either side of each bound, where JSON can say it exactly (i64::MIN - 1 would round
    // to a float equal to i64::MIN; it still comes up among the other edges).
    let beside: Vec<i128> = (bounds.iter())
        .flat_map(|&bound| [bound - 1, bound + 1])
        .filter(|&value| Limit::Whole(value).sendable())
        .collect();
    let others = vec![
        min - 1,
        min + 1,
        max - 1,
        max + 1,
        -1,
        0,
        1,
        i128::from(i32::MIN) - 1,
        i128::from(i32::MAX) + 1,
        i128::from(u32::MAX) + 1,
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        i128::from(i64::MAX) + 1,
        i128::from(u64::MAX),
        i128::from(u64::MAX) + 1,
    ];
    let edges: Vec<i128> = [bounds.clone(), beside.clone(), others.clone()].concat();
    let two = 2f64;
    let extremes = vec![
        1e20,
        -1e20,
        two.powi(70),
        -two.powi(70),
        two.powi(63),
        -two.powi(63),
        two.powi(64),
        two.powi(53) + 1.0,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        -0.0,
        0.5,
        -0.5,
        5.5,
    ];
    let fractions = vec![0.5, -0.5, 0.25, 1e-6];
    let any_float = proptest::num::f64::POSITIVE
        | proptest::num::f64::NEGATIVE
        | proptest::num::f64::NORMAL
        | proptest::num::f64::SUBNORMAL
        | proptest::num::f64::ZERO;
    prop_oneof![
        3 => select(bounds).prop_map(exact_integer),
        6 => select(beside).prop_map(exact_integer),
        3 => select(others).prop_map(exact_integer),
        2 => select(edges.clone()).prop_map(|value| float(value as f64)),
        2 => (select(edges), select(fractions))
            .prop_map(|(value, fraction)| float(value as f64 + fraction)),
        2 => select(extremes).prop_map(float),
        1 => (min..=max).prop_map(|value| float(value as f64)),
        1 => any::<i64>().prop_map(|value| json!(value)),
        1 => any::<u64>().prop_map(|value| json!(value)),
        1 => any_float.prop_map(float),
    ]
    .boxed()
}

// Floats

/// A float argument's valid values: each end of its range (a bound, or the next `f64` inside an
/// exclusive one), as a float or, when whole, an integer; whole numbers within it as JSON
/// integers; and numbers spread across it, evenly and across magnitudes.
fn float_valid(arg: &Property) -> BoxedStrategy<Value> {
    let (low, high) = arg.float_range();
    let any_float = proptest::num::f64::POSITIVE
        | proptest::num::f64::NEGATIVE
        | proptest::num::f64::NORMAL
        | proptest::num::f64::SUBNORMAL
        | proptest::num::f64::ZERO;
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = vec![
        (
            2,
            (select(vec![low, high]), any::<bool>())
                .prop_map(|(end, whole)| written(end, whole))
                .boxed(),
        ),
        // `low * (1 - t) + high * t` cannot overflow where `high - low` would.
        (
            2,
            (0.0..=1.0f64)
                .prop_map(move |t| float((low * (1.0 - t) + high * t).clamp(low, high)))
                .boxed(),
        ),
        (
            1,
            any_float
                .prop_map(move |number| float(number.clamp(low, high)))
                .boxed(),
        ),
    ];
    // The whole numbers inside, clipped to `i64` (a `u64` beyond it is a candidate).
    let first = low.ceil().max(i64::MIN as f64);
    let last = high.floor().min(i64::MAX as f64);
    if first <= last {
        // Both are whole, so the casts are exact, but for 2^63 (the `f64` nearest `i64::MAX`),
        // which `as` saturates to `i64::MAX`.
        let wholes = (first as i64)..=(last as i64);
        choices.push((2, wholes.prop_map(|whole| json!(whole)).boxed()));
    }
    Union::new_weighted(choices).boxed()
}

/// Numbers at each bound (inclusive or exclusive, tight or only `f32`'s range beside a declared
/// one), one `f64` either side of it, a fraction either side (scaled to the bound, so that it
/// still moves 3.4e38), and one either side of a whole bound as JSON integers; `f32`'s largest
/// value and what lies just beyond it, ±1e300, `f64::MAX`, subnormals and -0.0; integers of
/// every size, `u64::MAX`, 2^53 + 1 (which no `f64` holds) and 2^24 + 1 (which no `f32` holds)
/// among them; and arbitrary floats.
fn float_near_bounds(arg: &Property) -> BoxedStrategy<Value> {
    let bounds: Vec<f64> = (arg.limits())
        .filter_map(|limit| match limit {
            Limit::Real(value) => Some(value),
            Limit::Whole(_) => None,
        })
        .collect();
    let steps: Vec<f64> = (bounds.iter())
        .flat_map(|&bound| [bound.next_down(), bound.next_up()])
        .collect();
    let fractions: Vec<f64> = (bounds.iter())
        .flat_map(|&bound| {
            let small = 1e-6 * bound.abs().max(1.0);
            [bound - 0.25, bound + 0.25, bound - small, bound + small]
        })
        .collect();
    let wholes: Vec<Value> = (bounds.iter())
        .filter(|bound| bound.fract() == 0.0 && bound.abs() < 1e15)
        .flat_map(|&bound| [bound - 1.0, bound, bound + 1.0])
        .map(|whole| written(whole, true))
        .collect();
    let largest = f64::from(f32::MAX);
    // Halfway from `f32::MAX` to the next power of two: from there on, `as f32` gives infinity.
    let f32_overflow = largest + 2f64.powi(103);
    let extremes = vec![
        largest,
        -largest,
        largest.next_up(),
        -largest.next_up(),
        f32_overflow.next_down(),
        f32_overflow,
        -f32_overflow,
        3.5e38,
        -3.5e38,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        -f64::from_bits(1),
        f32::MIN_POSITIVE.into(),
        0.0,
        -0.0,
        0.1,
        -1.1,
    ];
    let integers = vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(i64::MIN),
        json!(i64::MAX),
        json!(u64::MAX),
        json!((1u64 << 53) + 1),
        json!(16_777_217),
    ];
    let any_float = proptest::num::f64::POSITIVE
        | proptest::num::f64::NEGATIVE
        | proptest::num::f64::NORMAL
        | proptest::num::f64::SUBNORMAL
        | proptest::num::f64::ZERO;
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = vec![
        (2, select(extremes).prop_map(float).boxed()),
        (1, select(integers).boxed()),
        (1, any::<i64>().prop_map(|value| json!(value)).boxed()),
        (1, any::<u64>().prop_map(|value| json!(value)).boxed()),
        (1, any_float.prop_map(float).boxed()),
    ];
    // An `f64` without bounds has none of these.
    if !bounds.is_empty() {
        choices.push((4, select(bounds).prop_map(float).boxed()));
        choices.push((6, select(steps).prop_map(float).boxed()));
        choices.push((2, select(fractions).prop_map(float).boxed()));
    }
    if !wholes.is_empty() {
        choices.push((3, select(wholes).boxed()));
    }
    Union::new_weighted(choices).boxed()
}

/// `number` as a JSON integer when `whole` asks for it and it is one within `i64`, else as a
/// float.
fn written(number: f64, whole: bool) -> Value {
    let integer = number.fract() == 0.0 && number.abs() < 9e18;
    if whole && integer {
        json!(number as i64)
    } else {
        float(number)
    }
}

// UUIDs

/// A hyphenated UUID in lower case, random or one of the all-zero and all-`f` ids.
fn uuid_text() -> BoxedStrategy<String> {
    prop_oneof![
        8 => any::<[u8; 16]>().prop_map(|bytes| Uuid::from_bytes(bytes).to_string()),
        1 => Just(Uuid::nil().to_string()),
        1 => Just(Uuid::max().to_string()),
    ]
    .boxed()
}

/// A hyphenated UUID in lower, upper or mixed case: all valid.
fn uuid_valid() -> BoxedStrategy<String> {
    (uuid_text(), 0..3u8, vec(any::<bool>(), 36))
        .prop_map(|(text, case, mask)| match case {
            0 => text,
            1 => text.to_uppercase(),
            _ => text
                .chars()
                .zip(mask)
                .map(|(c, upper)| if upper { c.to_ascii_uppercase() } else { c })
                .collect(),
        })
        .boxed()
}

/// Valid UUIDs and the forms the hyphenated one is not: braced, unhyphenated, URN, a wrong
/// character, a character too few or too many, a misplaced hyphen, padding, empty.
fn uuid_candidate() -> BoxedStrategy<String> {
    let wrong_chars = vec!['g', 'G', 'z', 'x', '-', ' ', '_', 'é', '0'];
    prop_oneof![
        4 => uuid_valid(),
        1 => uuid_valid().prop_map(|text| format!("{{{text}}}")),
        1 => uuid_valid().prop_map(|text| text.replace('-', "")),
        1 => uuid_valid().prop_map(|text| format!("urn:uuid:{text}")),
        2 => (uuid_valid(), 0..36usize, select(wrong_chars))
            .prop_map(|(text, at, c)| replace_char(&text, at, c)),
        1 => (uuid_valid(), 0..36usize).prop_map(|(text, at)| remove_char(&text, at)),
        1 => (uuid_valid(), 0..=36usize, select(vec!['a', '0', '-']))
            .prop_map(|(text, at, c)| insert_char(&text, at, c)),
        1 => uuid_valid().prop_map(|text| format!("{}-{}", &text[..7], text[7..].replacen('-', "", 1))),
        1 => uuid_valid().prop_map(|text| format!(" {text}")),
        1 => uuid_valid().prop_map(|text| format!("{text}\n")),
        1 => Just(String::new()),
    ]
    .boxed()
}

fn replace_char(text: &str, at: usize, with: char) -> String {
    text.chars()
        .enumerate()
        .map(|(index, c)| if index == at { with } else { c })
        .collect()
}

fn remove_char(text: &str, at: usize) -> String {
    text.chars()
        .enumerate()
        .filter_map(|(index, c)| (index != at).then_some(c))
        .collect()
}

fn insert_char(text: &str, at: usize, c: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    chars.insert(at.min(chars.len()), c);
    chars.into_iter().collect()
}

// Wrong types and unknown names

/// Values of every JSON type, including strings that look like numbers, booleans or `null`.
fn wrong_type() -> BoxedStrategy<Value> {
    prop_oneof![
        select(vec![
            "",
            "5",
            "-1",
            "true",
            "null",
            "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        ])
        .prop_map(|text| json!(text)),
        text(0..6u64),
        any::<i64>().prop_map(|value| json!(value)),
        select(vec![0.0, 1.5, -2.0, 1e20]).prop_map(float),
        any::<bool>().prop_map(Value::Bool),
        Just(json!([])),
        Just(json!([1, "a", null])),
        Just(json!(["3f2504e0-4f89-11d3-9a0c-0305e82c3301"])),
        Just(json!({})),
        Just(json!({ "value": 5 })),
    ]
    .boxed()
}

/// A name the tool does not declare: a near miss of a real one (snake_case, another case, a
/// letter more or less, padded), a random identifier, or an odd one.
fn unknown_name(properties: &[Property]) -> BoxedStrategy<String> {
    let mut near: Vec<String> = properties.iter().flat_map(near_misses).collect();
    near.retain(|name| !declared(properties, name));
    near.sort();
    near.dedup();
    let odd = vec![
        String::new(),
        "$schema".to_owned(),
        "__proto__".to_owned(),
        "arguments".to_owned(),
        "título".to_owned(),
        "x".repeat(100),
    ];
    let random = "[a-zA-Z_][a-zA-Z0-9_]{0,12}"
        .prop_filter_map("declared", {
            let names: Vec<String> = properties.iter().map(|arg| arg.name.clone()).collect();
            move |name: String| (!names.contains(&name)).then_some(name)
        })
        .boxed();
    if near.is_empty() {
        prop_oneof![2 => random, 1 => select(odd)].boxed()
    } else {
        prop_oneof![4 => select(near), 2 => random, 1 => select(odd)].boxed()
    }
}

/// Names a client might send for `arg` by mistake: snake_case and kebab-case (as the Rust field
/// might be named), another case, capitalised, a letter more or less, padded.
fn near_misses(arg: &Property) -> Vec<String> {
    let name = arg.name.as_str();
    let snake: String = name
        .chars()
        .flat_map(|c| {
            let lower = c.to_ascii_lowercase();
            if c.is_ascii_uppercase() {
                vec!['_', lower]
            } else {
                vec![lower]
            }
        })
        .collect();
    let mut chars = name.chars();
    chars.next_back();
    let mut capitalised = name.to_owned();
    capitalised[..1].make_ascii_uppercase();
    vec![
        snake.replace('_', "-"),
        snake,
        name.to_lowercase(),
        name.to_uppercase(),
        capitalised,
        format!("{name}s"),
        chars.as_str().to_owned(),
        format!("{name} "),
        format!(" {name}"),
    ]
}

/// The value under an unknown name: any value, `null` included (an unknown name is refused
/// even when `null`).
fn unknown_value() -> BoxedStrategy<Value> {
    prop_oneof![3 => wrong_type(), 1 => Just(Value::Null)].boxed()
}
