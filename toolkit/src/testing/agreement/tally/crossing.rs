//! Where a value sits at one of its schema's edges: at the outermost value the edge lets in,
//! or at the first it keeps out, measured as the edge measures.

use jsonschema::Validator;
use serde_json::Value;

use crate::testing::agreement::json::{equal, integral};
use crate::testing::agreement::schema::{Bound, Edge, Kind, Limit, Measure, Schema, Together};

/// Where the values at one schema sit, in one object, at one of its edges: at the outermost
/// value it lets in, at the first it keeps out (an inclusive bound and one step past it, or
/// one step inside an exclusive bound and the bound itself).
#[derive(Clone, Copy, Default)]
pub struct Crossings {
    pub last_in: bool,
    pub first_out: bool,
    /// For uniqueness: two elements equal but not written alike.
    pub written_apart: bool,
}

/// Where `value`, at `site`, sits at `edge`: measured as the edge is (a string's length in
/// characters, an integer exactly, a float as the `f64` serde_json reads, only counted, so a
/// rounded `u64` does no harm; a count of elements or entries), or for the other rules as
/// their own definition has it, `matches` telling a string that matches a pattern.
pub fn crossing(
    site: &Schema,
    edge: &Edge,
    value: &Value,
    matches: Option<&Validator>,
) -> Crossings {
    let both = |last_in, first_out| Crossings {
        last_in,
        first_out,
        written_apart: false,
    };
    match (edge, value) {
        (Edge::Bound(bound), value) => {
            let Some(measure) = measure(site, bound, value) else {
                return Crossings::default();
            };
            both(measure == bound.last_in(), measure == bound.first_out())
        }
        (Edge::Unique, Value::Array(items)) if items.len() >= 2 => {
            let pairs = || {
                (items.iter().enumerate())
                    .flat_map(|(index, a)| items[index + 1..].iter().map(move |b| (a, b)))
            };
            let repeated = pairs().any(|(a, b)| equal(a, b));
            Crossings {
                last_in: !repeated,
                first_out: repeated,
                written_apart: repeated && !pairs().any(|(a, b)| a == b),
            }
        }
        (Edge::Pattern(_), Value::String(_)) => {
            let matched = matches.is_some_and(|pattern| pattern.is_valid(value));
            both(matched, !matched)
        }
        (Edge::Choice, Value::String(text)) => {
            let Kind::Choice(values) = &site.kind else {
                return Crossings::default();
            };
            let known = values.contains(text);
            both(known, !known)
        }
        // A number, which JSON Schema's `enum` compares by value (`3.0` is `3`).
        (Edge::Choice, Value::Number(number)) => {
            let Kind::Numbers(values) = &site.kind else {
                return Crossings::default();
            };
            let known =
                integral(number).is_some_and(|n| values.iter().any(|v| i128::from(*v) == n));
            both(known, !known)
        }
        (Edge::Const, Value::String(text)) => {
            let Kind::Const(value) = &site.kind else {
                return Crossings::default();
            };
            both(text == value, text != value)
        }
        (Edge::Required(name), Value::Object(object)) => {
            let given = object.get(name).is_some_and(|value| !value.is_null());
            both(given, !given)
        }
        (Edge::Together(index), Value::Object(object)) => {
            let given = |name: &String| object.get(name).is_some_and(|value| !value.is_null());
            match &site.together[*index] {
                Together::NotAll(names) => {
                    let count = names.iter().filter(|name| given(name)).count();
                    both(count + 1 == names.len(), count == names.len())
                }
                Together::NotNone(names) => {
                    let count = names.iter().filter(|name| given(name)).count();
                    both(count == 1, count == 0)
                }
                Together::Needs(name, needed) => {
                    let all = needed.iter().all(given);
                    both(given(name) && all, given(name) && !all)
                }
            }
        }
        (Edge::Closed, Value::Object(object)) => {
            let fields = site.fields();
            let declared = |name: &String| fields.iter().any(|field| &field.name == name);
            // A field of a group never all given may be the one left out.
            let apart = |name: &String| {
                (site.together.iter())
                    .any(|rule| matches!(rule, Together::NotAll(names) if names.contains(name)))
            };
            let all_given = (fields.iter()).all(|field| {
                apart(&field.name)
                    || object
                        .get(&field.name)
                        .is_some_and(|value| !value.is_null())
            });
            let other = object.keys().any(|name| !declared(name));
            both(all_given && !other, other)
        }
        _ => Crossings::default(),
    }
}

/// What `bound` measures of `value`, if it is of the kind the bound applies to.
fn measure(site: &Schema, bound: &Bound, value: &Value) -> Option<Limit> {
    let count = |length: usize| i128::try_from(length).ok().map(Limit::Whole);
    match (bound.measure, value) {
        (Measure::Characters, Value::String(text)) => count(text.chars().count()),
        (Measure::Number, Value::Number(number)) => match site.kind {
            Kind::Integer(_) => integral(number).map(Limit::Whole),
            _ => number.as_f64().map(Limit::Real),
        },
        (Measure::Items, Value::Array(items)) => count(items.len()),
        (Measure::Entries, Value::Object(object)) => count(object.len()),
        _ => None,
    }
}
