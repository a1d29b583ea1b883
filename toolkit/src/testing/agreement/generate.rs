//! The generators: argument objects that are mostly valid, with a few changes applied, each
//! value drawn from what the oracle read of its schema ([`Schema`]), all the way down.
//!
//! Every schema has three generators: [`valid`], a value it must accept, often exactly at an
//! edge; [`first_out`], a value valid but for one edge, just past it, or for a format a near
//! miss of it (what the tally needs rejected for that edge or format alone); and
//! [`candidate`], what a change puts in place of a valid value: valid, near an edge in every
//! way the kind has (at, inside and past bounds, near misses of names, patterns, choices and
//! formats, duplicates, nested problems), past one edge, or of a wrong JSON type. Objects, the arguments object itself included, are changed the same way:
//! a field set to a candidate, left out, `null`, or an undeclared name added.

mod collections;
mod counts;
mod formats;
mod numbers;
mod others;
mod patterns;
mod scalars;

use std::fmt::Debug;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::strategy::Union;
use serde_json::Value;

use crate::testing::agreement::json::Object;
use crate::testing::agreement::schema::{Kind, Property, Schema, Together};
use others::wrong_type;

pub use counts::{LONG_COUNT, LONG_TEXT};
pub use formats::format_near;
#[cfg(test)]
pub use formats::{format_valid, no_a_labels};

/// Argument objects for the tool whose root schema is `root`: a valid object (optional
/// arguments sometimes left out), then zero to three changes; three objects in ten have none.
pub fn arguments(root: &Schema) -> BoxedStrategy<Object> {
    let changes = prop_oneof![
        6 => Just(0usize),
        9 => Just(1usize),
        3 => Just(2usize),
        2 => Just(3usize),
    ];
    let extra = match &root.kind {
        Kind::Object(_, extra) => extra.as_deref(),
        _ => None,
    };
    changed(root.fields(), extra, &root.together, changes.boxed())
}

/// A value `schema` must accept, often exactly at an edge, and sometimes one the schema
/// publishes as its `default` or among its `examples`, which it must accept too.
pub fn valid(schema: &Schema) -> BoxedStrategy<Value> {
    let published: Vec<Value> = (schema.default.iter().chain(&schema.examples))
        .cloned()
        .collect();
    if published.is_empty() {
        return drawn(schema);
    }
    prop_oneof![3 => drawn(schema), 1 => select(published)].boxed()
}

/// A value `schema` must accept, drawn from its kind and rules.
fn drawn(schema: &Schema) -> BoxedStrategy<Value> {
    match &schema.kind {
        Kind::String(text) => scalars::text_valid(text),
        Kind::Uuid => scalars::uuid_valid().prop_map(Value::String).boxed(),
        Kind::Format(format) => formats::format_valid(*format)
            .prop_map(Value::String)
            .boxed(),
        Kind::Choice(values) => select(values.clone()).prop_map(Value::String).boxed(),
        Kind::Numbers(values) => select(values.clone()).prop_map(Value::from).boxed(),
        Kind::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        Kind::Integer(_) => numbers::integer_valid(schema),
        Kind::Float(..) => numbers::float_valid(schema),
        Kind::List(list) => collections::list_valid(list),
        Kind::Tuple(elements) => collections::tuple_valid(elements),
        Kind::Map(entries) => collections::map_valid(entries),
        Kind::Object(properties, extra) => {
            object_valid(properties, extra.as_deref(), &schema.together)
        }
        Kind::Any(depth) => others::any_json(*depth),
        Kind::Nullable(inner) => prop_oneof![3 => valid(inner), 1 => Just(Value::Null)].boxed(),
        Kind::Const(value) => Just(Value::String(value.clone())).boxed(),
        // Each branch as often as it has edges, so that an edge deep in a branch is reached as
        // often as one in another.
        Kind::Union(union) => one_of(
            (union.branches.iter())
                .map(|branch| (1 + edges_in(branch), valid(branch)))
                .collect(),
        ),
    }
}

/// A value to put in place of a valid one: often valid, often near or just past an edge, or of
/// a wrong JSON type.
pub fn candidate(schema: &Schema) -> BoxedStrategy<Value> {
    let near = match &schema.kind {
        Kind::String(text) => scalars::text_near(text),
        Kind::Uuid => scalars::uuid_candidate().prop_map(Value::String).boxed(),
        Kind::Format(format) => formats::format_near(*format)
            .prop_map(Value::String)
            .boxed(),
        Kind::Choice(values) => scalars::choice_near(values),
        Kind::Numbers(values) => scalars::numbers_near(values),
        Kind::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
        Kind::Integer(_) => numbers::integer_near_bounds(schema),
        Kind::Float(..) => numbers::float_near_bounds(schema),
        Kind::List(list) => collections::list_near(list),
        Kind::Tuple(elements) => collections::tuple_near(elements),
        Kind::Map(entries) => collections::map_near(entries),
        Kind::Object(properties, extra) => {
            object_near(properties, extra.as_deref(), &schema.together)
        }
        Kind::Any(depth) => others::any_json(*depth),
        Kind::Nullable(inner) => prop_oneof![4 => candidate(inner), 1 => Just(Value::Null)].boxed(),
        Kind::Const(value) => scalars::choice_near(std::slice::from_ref(value)),
        Kind::Union(union) => one_of(
            (union.branches.iter())
                .map(|branch| (1 + edges_in(branch), candidate(branch)))
                .collect(),
        ),
    };
    let mut choices = vec![(2, valid(schema)), (4, near), (3, wrong_type())];
    // Each edge's first value out, on its own as well: the tallies need each rejected with no
    // other problem in the object, which few objects with several arguments are.
    if let Some(first_out) = first_out(schema) {
        choices.push((6, first_out));
    }
    one_of(choices)
}

/// A value valid but for one of `schema`'s edges, or one inside it, just past it, each edge as
/// likely as another (see [`edges_in`]); for a format (which has no edge: any string is as near
/// its rule as another), its near misses, most of which it refuses; `None` for a schema with
/// neither anywhere (a boolean, a UUID, free-form JSON).
pub fn first_out(schema: &Schema) -> Option<BoxedStrategy<Value>> {
    match &schema.kind {
        Kind::String(text) => scalars::text_first_out(text),
        Kind::Format(format) => Some(format_near(*format).prop_map(Value::String).boxed()),
        Kind::Choice(values) => scalars::choice_first_out(values),
        Kind::Numbers(values) => scalars::numbers_first_out(values),
        Kind::Integer(_) | Kind::Float(..) => numbers::number_first_out(schema),
        Kind::List(list) => collections::list_first_out(list),
        Kind::Tuple(elements) => collections::tuple_first_out(elements),
        Kind::Map(entries) => collections::map_first_out(entries),
        Kind::Object(properties, extra) => {
            object_first_out(properties, extra.as_deref(), &schema.together)
        }
        Kind::Nullable(inner) => first_out(inner),
        Kind::Const(value) => scalars::choice_first_out(std::slice::from_ref(value)),
        // A branch's first values out, each branch weighted by its edges.
        Kind::Union(union) => {
            let choices: Vec<(u32, BoxedStrategy<Value>)> = (union.branches.iter())
                .filter_map(|branch| Some((edges_in(branch), first_out(branch)?)))
                .collect();
            (!choices.is_empty()).then(|| one_of(choices))
        }
        Kind::Uuid | Kind::Boolean | Kind::Any(_) => None,
    }
}

/// How many edges `schema` and the schemas inside it have, a format counting as one: the
/// weight of its first values out among its siblings', so that an edge or a format deep inside
/// is as likely to be tried alone as one at the top.
fn edges_in(schema: &Schema) -> u32 {
    let format = |schema: &Schema| usize::from(matches!(schema.kind, Kind::Format(_)));
    let edges: usize = (schema.all().iter())
        .map(|schema| schema.edges.len() + format(schema))
        .sum();
    u32::try_from(edges).unwrap_or(u32::MAX)
}

/// One of `choices`, by weight (none of weight 0). A tree of unions of at most four each: a
/// proptest union forks a random number generator for every option before the one it picks,
/// which for a union of dozens costs more than the value it picks.
fn one_of<T: Debug + 'static>(choices: Vec<(u32, BoxedStrategy<T>)>) -> BoxedStrategy<T> {
    const BRANCHES: usize = 4;
    let mut choices: Vec<(u32, BoxedStrategy<T>)> = choices
        .into_iter()
        .filter(|(weight, _)| *weight > 0)
        .collect();
    while choices.len() > BRANCHES {
        let mut rest = choices.into_iter().peekable();
        let mut grouped = Vec::new();
        while rest.peek().is_some() {
            let mut group: Vec<(u32, BoxedStrategy<T>)> = rest.by_ref().take(BRANCHES).collect();
            let weight = group.iter().map(|(weight, _)| weight).sum();
            let union = match group.len() {
                1 => group.remove(0).1,
                _ => Union::new_weighted(group).boxed(),
            };
            grouped.push((weight, union));
        }
        choices = grouped;
    }
    Union::new_weighted(choices).boxed()
}

// Objects

/// One edit applied to a valid object.
#[derive(Clone, Debug)]
enum Change {
    /// Give field `index` this value.
    Set(usize, Value),
    /// Leave field `index` out.
    Remove(usize),
    /// Send field `index` as `null`.
    Null(usize),
    /// Add a name the object does not declare.
    Unknown(String, Value),
    /// All of these: a group broken at once.
    Several(Vec<Change>),
}

impl Change {
    /// Applies the change to `object`, whose fields are named `names`.
    fn apply(self, names: &[String], object: &mut Object) {
        match self {
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
            Change::Several(changes) => {
                for change in changes {
                    change.apply(names, object);
                }
            }
        }
    }
}

/// The changes that break each of `together`, a group of these fields, and nothing else in a
/// valid object: none of a set given where one must be, all of a set given where they may not
/// be, a field given without the ones it needs.
fn group_breaks(properties: &[Property], together: &[Together]) -> Vec<BoxedStrategy<Change>> {
    let index = |name: &String| (properties.iter()).position(|property| &property.name == name);
    let set = |name: &String| {
        let index = index(name)?;
        Some(valid(&properties[index].schema).prop_map(move |value| Change::Set(index, value)))
    };
    let remove = |name: &String| Some(Just(Change::Remove(index(name)?)));
    let several = |changes: Vec<BoxedStrategy<Change>>| changes.prop_map(Change::Several).boxed();
    (together.iter())
        .map(|rule| match rule {
            Together::NotNone(group) => {
                several(group.iter().filter_map(remove).map(|r| r.boxed()).collect())
            }
            Together::NotAll(group) => {
                several(group.iter().filter_map(set).map(|s| s.boxed()).collect())
            }
            Together::Needs(name, needed) => {
                let given = set(name).into_iter().map(|s| s.boxed());
                let missing = needed.iter().filter_map(remove).map(|r| r.boxed());
                several(given.chain(missing).collect())
            }
        })
        .collect()
}

/// A valid object with these fields, each that may be left out left out one time in five, then
/// given or left out as its groups (`together`) need.
fn fields_valid(properties: &[Property], together: &[Together]) -> BoxedStrategy<Object> {
    if together.is_empty() {
        return free_fields_valid(properties);
    }
    let all: Vec<BoxedStrategy<Value>> = properties.iter().map(|p| valid(&p.schema)).collect();
    let names = names(properties);
    let together = together.to_vec();
    (free_fields_valid(properties), all, any::<usize>())
        .prop_map(move |(mut object, all, pick)| {
            keep_groups(&mut object, (&names, &all), &together, pick);
            object
        })
        .boxed()
}

/// Gives or leaves out fields of `object` until it keeps every group, once: one of a set never
/// all given (the `pick`th, round) is left out, one of a set never none given is given (its
/// value from `all`, by name), and a field's needed ones are given.
fn keep_groups(
    object: &mut Object,
    (names, all): (&[String], &[Value]),
    together: &[Together],
    pick: usize,
) {
    let given = |object: &Object, name: &String| object.get(name).is_some_and(|v| !v.is_null());
    let value = |name: &String| {
        let index = names.iter().position(|other| other == name);
        index.map_or(Value::Null, |index| all[index].clone())
    };
    for rule in together {
        match rule {
            Together::NotAll(group) => {
                if group.iter().all(|name| given(object, name))
                    && let Some(one) = group.get(pick % group.len().max(1))
                {
                    object.remove(one);
                }
            }
            Together::NotNone(group) => {
                if !group.iter().any(|name| given(object, name))
                    && let Some(one) = group.get(pick % group.len().max(1))
                {
                    object.insert(one.clone(), value(one));
                }
            }
            Together::Needs(name, needed) => {
                if given(object, name) {
                    let missing: Vec<&String> = needed
                        .iter()
                        .filter(|other| !given(object, other))
                        .collect();
                    for other in missing {
                        object.insert(other.clone(), value(other));
                    }
                }
            }
        }
    }
}

/// A valid object with these fields, each that may be left out left out one time in five.
fn free_fields_valid(properties: &[Property]) -> BoxedStrategy<Object> {
    let fields: Vec<BoxedStrategy<Option<Value>>> = (properties.iter())
        .map(|property| {
            let valid = valid(&property.schema).prop_map(Some);
            if property.required {
                valid.boxed()
            } else {
                prop_oneof![4 => valid, 1 => Just(None)].boxed()
            }
        })
        .collect();
    let names = names(properties);
    fields
        .prop_map(move |values| {
            (names.iter().zip(values))
                .filter_map(|(name, value)| Some((name.clone(), value?)))
                .collect()
        })
        .boxed()
}

/// A valid object with these fields, and in an open object zero to two other names whose
/// values `extra` accepts.
fn with_extra(
    properties: &[Property],
    extra: Option<&Schema>,
    together: &[Together],
) -> BoxedStrategy<Object> {
    let Some(extra) = extra else {
        return fields_valid(properties, together);
    };
    let entries = vec((others::unknown_name(properties), valid(extra)), 0..=2);
    (fields_valid(properties, together), entries)
        .prop_map(|(mut object, entries)| {
            for (name, value) in entries {
                object.entry(name).or_insert(value);
            }
            object
        })
        .boxed()
}

/// A valid object, closed or open.
fn object_valid(
    properties: &[Property],
    extra: Option<&Schema>,
    together: &[Together],
) -> BoxedStrategy<Value> {
    with_extra(properties, extra, together)
        .prop_map(Value::Object)
        .boxed()
}

/// A valid object with these fields, then `count` changes.
fn changed(
    properties: &[Property],
    extra: Option<&Schema>,
    together: &[Together],
    count: BoxedStrategy<usize>,
) -> BoxedStrategy<Object> {
    let change = change(properties, extra);
    let changes = count.prop_flat_map(move |count| vec(change.clone(), count));
    let names = names(properties);
    (with_extra(properties, extra, together), changes)
        .prop_map(move |(mut object, changes)| {
            for change in changes {
                change.apply(&names, &mut object);
            }
            object
        })
        .boxed()
}

/// A change to one of these fields (a candidate, and more often the more edges it has, a value
/// just past one of them), or an undeclared name (in an open object, often with a candidate of
/// the schema of other names); the more fields, the more often an undeclared name, so that some
/// objects have only that wrong.
fn change(properties: &[Property], extra: Option<&Schema>) -> BoxedStrategy<Change> {
    let mut choices: Vec<(u32, BoxedStrategy<Change>)> = Vec::new();
    for (index, property) in properties.iter().enumerate() {
        let set = candidate(&property.schema).prop_map(move |value| Change::Set(index, value));
        choices.push((8, set.boxed()));
        if let Some(first_out) = first_out(&property.schema) {
            let out = first_out.prop_map(move |value| Change::Set(index, value));
            choices.push((2 * edges_in(&property.schema), out.boxed()));
        }
        choices.push((1, Just(Change::Remove(index)).boxed()));
        choices.push((1, Just(Change::Null(index)).boxed()));
    }
    let unknown = (others::unknown_name(properties), other_value(extra))
        .prop_map(|(name, value)| Change::Unknown(name, value))
        .boxed();
    let unknown_weight = u32::try_from(properties.len()).unwrap_or(1).max(1) * 2;
    choices.push((unknown_weight, unknown));
    one_of(choices)
}

/// The value of an undeclared name: of a wrong type or `null`, or in an open object often a
/// candidate of the schema of other names.
fn other_value(extra: Option<&Schema>) -> BoxedStrategy<Value> {
    match extra {
        Some(extra) => prop_oneof![1 => others::unknown_value(), 3 => candidate(extra)].boxed(),
        None => others::unknown_value(),
    }
}

/// An object inside an argument, changed once or twice, or empty.
fn object_near(
    properties: &[Property],
    extra: Option<&Schema>,
    together: &[Together],
) -> BoxedStrategy<Value> {
    let count = prop_oneof![3 => Just(1usize), 1 => Just(2usize)].boxed();
    prop_oneof![
        8 => changed(properties, extra, together, count),
        1 => Just(Object::new()),
    ]
    .prop_map(Value::Object)
    .boxed()
}

/// A valid object but for one thing: a field just past one of its edges, a required field left
/// out or `null`, or an undeclared name (in an open object, with a value its schema refuses).
fn object_first_out(
    properties: &[Property],
    extra: Option<&Schema>,
    together: &[Together],
) -> Option<BoxedStrategy<Value>> {
    let mut changes: Vec<(u32, BoxedStrategy<Change>)> = Vec::new();
    for (index, property) in properties.iter().enumerate() {
        if let Some(first_out) = first_out(&property.schema) {
            let out = first_out.prop_map(move |value| Change::Set(index, value));
            changes.push((edges_in(&property.schema), out.boxed()));
        }
        if property.required {
            let gone = prop_oneof![Just(Change::Remove(index)), Just(Change::Null(index))];
            changes.push((1, gone.boxed()));
        }
    }
    let refused = match extra.and_then(first_out) {
        Some(first_out) => prop_oneof![others::unknown_value(), first_out].boxed(),
        None => others::unknown_value(),
    };
    let unknown = (others::unknown_name(properties), refused)
        .prop_map(|(name, value)| Change::Unknown(name, value));
    changes.push((1, unknown.boxed()));
    for broken in group_breaks(properties, together) {
        changes.push((1, broken));
    }
    let names = names(properties);
    let object = (with_extra(properties, extra, together), one_of(changes)).prop_map(
        move |(mut object, change)| {
            change.apply(&names, &mut object);
            Value::Object(object)
        },
    );
    Some(object.boxed())
}

/// The fields' wire names, in order: all a change needs to know of them.
fn names(properties: &[Property]) -> Vec<String> {
    properties
        .iter()
        .map(|property| property.name.clone())
        .collect()
}

/// An element of `items` at `index` (modulo its length) replaced by `value`, or `value` added
/// to an empty list.
fn replaced(mut items: Vec<Value>, index: Index, value: Value) -> Vec<Value> {
    if items.is_empty() {
        items.push(value);
    } else {
        let at = index.index(items.len());
        items[at] = value;
    }
    items
}
