//! Groups of arguments: rules about which of an object's fields are given together, declared
//! on a tool or a `#[derive(Args)]` struct (`one_of`, `any_of`) or on a field
//! (`conflicts_with`, `requires`). Each is published in the object's schema with the keyword
//! JSON Schema has for it, and checked once every field is read, as one plain sentence.
//!
//! A field counts as given when it is sent and not `null` (a nullable field's `null` counts),
//! as JSON Schema's `required` counts a name once the parser's leniency about `null` is taken
//! out.

use serde_json::{Map, Value, json};

use crate::error::join_or;
use crate::{ArgSpec, Presence};

/// One rule about which fields are given together, by the fields' indexes in their object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Exactly one of these (`one_of(a, b)`): `oneOf` of one `required` name each.
    OneOf(&'static [usize]),
    /// At least one of these (`any_of(a, b)`): `anyOf` of one `required` name each.
    AnyOf(&'static [usize]),
    /// Never both (`conflicts_with`): `not` of both `required`.
    Conflicts(usize, usize),
    /// The first only with the second (`requires`): `dependentRequired`.
    Requires(usize, usize),
}

/// The wire name of the field at `index`. Generated code names only the indexes of the fields
/// it declared.
fn name(args: &[ArgSpec], index: usize) -> &'static str {
    args.get(index).map_or("", |arg| arg.name)
}

/// Writes `groups` into the schema of an object with the fields `args`: `dependentRequired`
/// for every `requires`, and for the others, and each field's `required_unless`, `not` of the
/// ways to break them (`anyOf` of them when there are several): `{"required": [a, b]}` for two
/// given where at most one may be, and `{"not": {"anyOf": [{"required": [a]}, …]}}` for none
/// given where one must be.
///
/// Not `oneOf` or `anyOf` of the groups themselves: a client that hands the schema to
/// Anthropic's API has it refused with any of `oneOf`, `anyOf` or `allOf` at the top of a
/// tool's input schema, where `not` and `dependentRequired` pass.
pub fn schema(args: &[ArgSpec], groups: &[Group], schema: &mut Map<String, Value>) {
    let required = |indexes: &[usize]| {
        let names: Vec<&str> = indexes.iter().map(|&index| name(args, index)).collect();
        json!({ "required": names })
    };
    let none_of = |indexes: &[usize]| {
        let each: Vec<Value> = indexes.iter().map(|&index| required(&[index])).collect();
        json!({ "not": { "anyOf": each } })
    };
    let mut broken = Vec::new();
    let mut dependent = Map::new();
    for group in groups {
        match *group {
            Group::OneOf(indexes) => {
                broken.push(none_of(indexes));
                for (at, &first) in indexes.iter().enumerate() {
                    for &second in &indexes[at + 1..] {
                        broken.push(required(&[first, second]));
                    }
                }
            }
            Group::AnyOf(indexes) => broken.push(none_of(indexes)),
            Group::Conflicts(first, second) => broken.push(required(&[first, second])),
            Group::Requires(first, second) => {
                let needed = dependent
                    .entry(name(args, first))
                    .or_insert_with(|| json!([]));
                if let Value::Array(needed) = needed {
                    needed.push(json!(name(args, second)));
                }
            }
        }
    }
    // `required_unless = other` is `any_of(this, other)` on one field.
    for (index, arg) in args.iter().enumerate() {
        if let Presence::RequiredUnless(other) = arg.presence {
            broken.push(none_of(&[index, other]));
        }
    }
    if !dependent.is_empty() {
        schema.insert("dependentRequired".into(), Value::Object(dependent));
    }
    match <[Value; 1]>::try_from(broken) {
        Ok([only]) => {
            schema.insert("not".into(), only);
        }
        Err(broken) if broken.is_empty() => {}
        Err(broken) => {
            schema.insert("not".into(), json!({ "anyOf": broken }));
        }
    }
}

/// The rule's name (`one_of`, `any_of`, `conflicts_with`, `requires`) and the sentence for each
/// broken group, given which fields were given (`given(index)`).
pub fn broken(
    args: &[ArgSpec],
    groups: &[Group],
    given: impl Fn(usize) -> bool,
) -> Vec<(&'static str, String)> {
    let names = |indexes: &[usize]| join_or(indexes.iter().map(|&i| name(args, i)), "or");
    let sentence = |group: Group| match group {
        Group::OneOf(indexes) => {
            let sent: Vec<usize> = indexes.iter().copied().filter(|&i| given(i)).collect();
            match sent.len() {
                1 => None,
                0 => Some(format!("Give exactly one of {}.", names(indexes))),
                _ if indexes.len() == 2 => {
                    Some(format!("Give exactly one of {}, not both.", names(indexes)))
                }
                _ => Some(format!(
                    "Give exactly one of {}, not {}.",
                    names(indexes),
                    join_or(sent.iter().map(|&i| name(args, i)), "and")
                )),
            }
        }
        Group::AnyOf(indexes) => (!indexes.iter().any(|&i| given(i)))
            .then(|| format!("Give at least one of {}.", names(indexes))),
        Group::Conflicts(first, second) => (given(first) && given(second))
            .then(|| format!("Give at most one of {}.", names(&[first, second]))),
        Group::Requires(first, second) => (given(first) && !given(second)).then(|| {
            format!(
                "Give {} with {}, or leave {} out.",
                name(args, second),
                name(args, first),
                name(args, first)
            )
        }),
    };
    groups
        .iter()
        .filter_map(|&group| Some((group.name(), sentence(group)?)))
        .collect()
}

impl Group {
    /// The group's name, as declared: `one_of`, `any_of`, `conflicts_with`, `requires`.
    pub fn name(self) -> &'static str {
        match self {
            Group::OneOf(_) => "one_of",
            Group::AnyOf(_) => "any_of",
            Group::Conflicts(..) => "conflicts_with",
            Group::Requires(..) => "requires",
        }
    }
}
