//! Lists and maps: valid ones, often at a count bound, and the changes that bring them near or
//! past an edge: a count at and past each bound, a duplicate element for a unique list (an
//! identical copy, or the same value written apart, like `1` and `1.0`), one element or value
//! replaced by a candidate or by one just past its own edges, a `null` element or value.

use std::collections::HashSet;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::Value;

use super::counts::{LONG_COUNT, between, near, past, pick, repeated};
use super::scalars::string;
use super::{candidate, edges_in, first_out, one_of, replaced, valid};
use crate::testing::agreement::json::{Object, equal, rewritten};
use crate::testing::agreement::schema::{Entries, List, Schema};

/// How many more elements or entries than its minimum a list or map with no maximum gets.
const UNBOUNDED_SPREAD: u64 = 4;

/// The distinct elements or values a long list or map is made of, at most.
const LONG_DRAWN: usize = 8;

/// The counts a list or map allows, as a range to draw from: its bounds, or its minimum and a
/// few more.
fn counts(min: Option<u64>, max: Option<u64>) -> (u64, u64) {
    let min = min.unwrap_or(0);
    (min, max.unwrap_or(min + UNBOUNDED_SPREAD))
}

/// Counts near the bounds: at each and one past each (none below 0), empty, and past the most.
fn counts_near(min: Option<u64>, max: Option<u64>) -> Vec<u64> {
    let (low, high) = counts(min, max);
    let mut near = vec![0, low, high, high + 1, high + 3];
    near.extend(low.checked_sub(1));
    near
}

/// The counts just past the bounds: one below the least (if above 0), one above the most.
fn counts_out(min: Option<u64>, max: Option<u64>) -> Vec<u64> {
    let below = min.filter(|&min| min > 0).map(|min| min - 1);
    below.into_iter().chain(max.map(|max| max + 1)).collect()
}

// Lists

/// A list the schema allows, often at its fewest or most elements.
pub fn list_valid(list: &List) -> BoxedStrategy<Value> {
    let (min, max) = counts(list.min_items, list.max_items);
    of_lengths(
        list,
        prop_oneof![2 => pick(vec![min, max], min, LONG_COUNT), 3 => between(min, max, LONG_COUNT)]
            .boxed(),
    )
}

/// Lists of valid elements, as many as `lengths` draws; distinct (as JSON), for a unique list,
/// as far as its elements' values allow (two booleans at most).
fn of_lengths(list: &List, lengths: BoxedStrategy<u64>) -> BoxedStrategy<Value> {
    let items = valid(&list.items);
    let unique = list.unique;
    lengths
        .prop_flat_map(move |length| {
            let length = usize::try_from(length).unwrap_or(0);
            if !unique && length > LONG_COUNT as usize {
                let drawn = vec(items.clone(), 1..=LONG_DRAWN);
                return drawn
                    .prop_map(move |drawn| Value::Array(repeated(&drawn, length)))
                    .boxed();
            }
            // A few spare elements for a unique list, in place of its duplicates.
            let spare = if unique { 3 } else { 0 };
            vec(items.clone(), length + spare)
                .prop_map(move |mut elements| {
                    if unique {
                        let mut distinct: Vec<Value> = Vec::with_capacity(elements.len());
                        for element in elements {
                            if !distinct.iter().any(|other| equal(other, &element)) {
                                distinct.push(element);
                            }
                        }
                        elements = distinct;
                    }
                    elements.truncate(length);
                    Value::Array(elements)
                })
                .boxed()
        })
        .boxed()
}

/// Lists near the edges: counts at and past the bounds, one element replaced or added (a
/// candidate), a `null` element, and for a unique list a duplicate.
pub fn list_near(list: &List) -> BoxedStrategy<Value> {
    let least = list.min_items.unwrap_or(0);
    let near_bounds = near(
        counts_near(list.min_items, list.max_items),
        least,
        LONG_COUNT,
    );
    let lengths = select(near_bounds).boxed();
    let one = (list_valid(list), any::<Index>(), candidate(&list.items));
    let mut choices = vec![
        (3, of_lengths(list, lengths)),
        (
            3,
            one.prop_map(|(items, index, value)| {
                Value::Array(replaced(elements(items), index, value))
            })
            .boxed(),
        ),
        (
            1,
            (list_valid(list), any::<Index>(), candidate(&list.items))
                .prop_map(|(items, index, value)| {
                    let mut items = elements(items);
                    items.insert(index.index(items.len() + 1), value);
                    Value::Array(items)
                })
                .boxed(),
        ),
        (
            1,
            (list_valid(list), any::<Index>())
                .prop_map(|(items, index)| {
                    let mut items = elements(items);
                    items.insert(index.index(items.len() + 1), Value::Null);
                    Value::Array(items)
                })
                .boxed(),
        ),
    ];
    if let Some(duplicated) = duplicated(list) {
        choices.push((3, duplicated));
    }
    one_of(choices)
}

/// A list valid but for one edge: a count one past a bound, a duplicate in a unique list, or
/// one element just past one of its own edges, each edge as likely as another.
pub fn list_first_out(list: &List) -> Option<BoxedStrategy<Value>> {
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    let outs = counts_out(list.min_items, list.max_items);
    if !outs.is_empty() {
        let weight = u32::try_from(outs.len()).unwrap_or(1);
        let least = list.min_items.unwrap_or(0);
        let out = past(
            outs,
            (least, LONG_COUNT),
            |count| of_lengths(list, Just(count).boxed()),
            || list_valid(list),
        );
        choices.push((weight, out));
    }
    choices.extend(duplicated(list).map(|duplicated| (1, duplicated)));
    if let Some(element) = first_out(&list.items) {
        let (min, max) = counts(list.min_items, list.max_items);
        let lengths = between(min.max(1), max.max(1), LONG_COUNT);
        let one = (of_lengths(list, lengths), any::<Index>(), element);
        let one = one.prop_map(|(items, index, value)| {
            Value::Array(replaced(elements(items), index, value))
        });
        choices.push((edges_in(&list.items), one.boxed()));
    }
    (!choices.is_empty()).then(|| one_of(choices))
}

/// For a unique list that may hold two elements: a valid list of two or more, one of whose
/// elements is replaced by a copy of another, identical or written apart (see
/// [`rewritten`]).
fn duplicated(list: &List) -> Option<BoxedStrategy<Value>> {
    let (min, max) = counts(list.min_items, list.max_items);
    if !list.unique || max < 2 {
        return None;
    }
    let lengths = between(min.max(2), max, LONG_COUNT);
    let copies = (
        of_lengths(list, lengths),
        any::<Index>(),
        any::<Index>(),
        any::<bool>(),
    );
    let duplicated = copies.prop_map(|(items, from, to, apart)| {
        let mut items = elements(items);
        if items.len() >= 2 {
            let from = from.index(items.len());
            // Any other element: one of the others, counted on from `from`.
            let to = (from + 1 + to.index(items.len() - 1)) % items.len();
            let copy = &items[from];
            items[to] = if apart { rewritten(copy) } else { copy.clone() };
        }
        Value::Array(items)
    });
    Some(duplicated.boxed())
}

/// The elements of a list or tuple the generators made.
fn elements(list: Value) -> Vec<Value> {
    match list {
        Value::Array(items) => items,
        _ => Vec::new(),
    }
}

// Tuples

/// A tuple the schema allows: a valid value for each element.
pub fn tuple_valid(parts: &[Schema]) -> BoxedStrategy<Value> {
    let values: Vec<BoxedStrategy<Value>> = parts.iter().map(valid).collect();
    values.prop_map(Value::Array).boxed()
}

/// Tuples near the edges: one element a candidate, one too few or too many, empty.
pub fn tuple_near(parts: &[Schema]) -> BoxedStrategy<Value> {
    let candidates: Vec<BoxedStrategy<Value>> = parts.iter().map(candidate).collect();
    let one =
        (tuple_valid(parts), any::<Index>(), candidates).prop_map(|(items, index, candidates)| {
            let mut items = elements(items);
            let at = index.index(items.len().max(1));
            if let Some(candidate) = candidates.into_iter().nth(at) {
                items[at] = candidate;
            }
            Value::Array(items)
        });
    one_of(vec![
        (4, one.boxed()),
        (
            2,
            tuple_first_out(parts).unwrap_or_else(|| tuple_valid(parts)),
        ),
        (1, Just(Value::Array(Vec::new())).boxed()),
    ])
}

/// A tuple valid but for one edge: its length one short or one over, or one element just past
/// one of its own edges, each edge as likely as another.
pub fn tuple_first_out(parts: &[Schema]) -> Option<BoxedStrategy<Value>> {
    let shorter = tuple_valid(parts).prop_map(|items| {
        let mut items = elements(items);
        items.pop();
        Value::Array(items)
    });
    let longer = (tuple_valid(parts), valid(&parts[parts.len() - 1])).prop_map(|(items, extra)| {
        let mut items = elements(items);
        items.push(extra);
        Value::Array(items)
    });
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> =
        vec![(1, shorter.boxed()), (1, longer.boxed())];
    for (index, element) in parts.iter().enumerate() {
        if let Some(out) = first_out(element) {
            let one = (tuple_valid(parts), out).prop_map(move |(items, value)| {
                let mut items = elements(items);
                items[index] = value;
                Value::Array(items)
            });
            choices.push((edges_in(element), one.boxed()));
        }
    }
    Some(one_of(choices))
}

// Maps

/// A key of a map: short, odd or empty ones, or any short string.
fn key() -> BoxedStrategy<String> {
    let odd = vec![
        "",
        "a",
        "A",
        "Accept",
        "__proto__",
        "$ref",
        "é",
        "x y",
        "1",
        "null",
    ];
    prop_oneof![
        1 => select(odd).prop_map(str::to_owned),
        2 => string(0..6u64),
    ]
    .boxed()
}

/// A map the schema allows, often at its fewest or most entries.
pub fn map_valid(entries: &Entries) -> BoxedStrategy<Value> {
    let (min, max) = counts(entries.min_entries, entries.max_entries);
    of_counts(
        entries,
        prop_oneof![2 => pick(vec![min, max], min, LONG_COUNT), 3 => between(min, max, LONG_COUNT)]
            .boxed(),
    )
}

/// Maps of valid values, as many entries as `counts` draws.
fn of_counts(entries: &Entries, counts: BoxedStrategy<u64>) -> BoxedStrategy<Value> {
    let values = valid(&entries.values);
    counts
        .prop_flat_map(move |count| {
            let count = usize::try_from(count).unwrap_or(0);
            // A long map's keys past the drawn ones are made up, its values drawn ones repeated.
            let drawn = if count > LONG_COUNT as usize {
                LONG_DRAWN
            } else {
                count
            };
            let values =
                vec(values.clone(), drawn).prop_map(move |values| repeated(&values, count));
            (vec(key(), drawn + 3), values).prop_map(move |(keys, values)| {
                // Distinct keys: the spare ones in place of repeated ones, then made up.
                let mut distinct: Vec<String> = Vec::with_capacity(count);
                let mut seen: HashSet<String> = HashSet::with_capacity(count);
                for key in keys {
                    if distinct.len() < count && seen.insert(key.clone()) {
                        distinct.push(key);
                    }
                }
                let mut made_up = 0;
                while distinct.len() < count {
                    let key = format!("key{made_up}");
                    made_up += 1;
                    if seen.insert(key.clone()) {
                        distinct.push(key);
                    }
                }
                Value::Object(distinct.into_iter().zip(values).collect())
            })
        })
        .boxed()
}

/// Maps near the edges: counts at and past the bounds, one value replaced or added (a
/// candidate), a `null` value.
pub fn map_near(entries: &Entries) -> BoxedStrategy<Value> {
    let least = entries.min_entries.unwrap_or(0);
    let counts = select(near(
        counts_near(entries.min_entries, entries.max_entries),
        least,
        LONG_COUNT,
    ))
    .boxed();
    prop_oneof![
        3 => of_counts(entries, counts),
        3 => (map_valid(entries), any::<Index>(), candidate(&entries.values))
            .prop_map(|(map, index, value)| with_value(map, index, value)),
        1 => (map_valid(entries), key(), candidate(&entries.values))
            .prop_map(|(map, key, value)| {
                let mut map = fields(map);
                map.insert(key, value);
                Value::Object(map)
            }),
        1 => (map_valid(entries), any::<Index>())
            .prop_map(|(map, index)| with_value(map, index, Value::Null)),
    ]
    .boxed()
}

/// A map valid but for one edge: a count one past a bound, or one value just past one of its
/// own edges, each edge as likely as another.
pub fn map_first_out(entries: &Entries) -> Option<BoxedStrategy<Value>> {
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    let outs = counts_out(entries.min_entries, entries.max_entries);
    if !outs.is_empty() {
        let weight = u32::try_from(outs.len()).unwrap_or(1);
        let least = entries.min_entries.unwrap_or(0);
        let out = past(
            outs,
            (least, LONG_COUNT),
            |count| of_counts(entries, Just(count).boxed()),
            || map_valid(entries),
        );
        choices.push((weight, out));
    }
    if let Some(value) = first_out(&entries.values) {
        let (min, max) = counts(entries.min_entries, entries.max_entries);
        let counts = between(min.max(1), max.max(1), LONG_COUNT);
        let one = (of_counts(entries, counts), any::<Index>(), value)
            .prop_map(|(map, index, value)| with_value(map, index, value));
        choices.push((edges_in(&entries.values), one.boxed()));
    }
    (!choices.is_empty()).then(|| one_of(choices))
}

/// `map` with its value at `index` (modulo its size) replaced by `value`, or `value` under a
/// key of its own in an empty map.
fn with_value(map: Value, index: Index, value: Value) -> Value {
    let mut map = fields(map);
    let key = match map.len() {
        0 => "key".to_owned(),
        size => map
            .keys()
            .nth(index.index(size))
            .cloned()
            .unwrap_or_default(),
    };
    map.insert(key, value);
    Value::Object(map)
}

/// The entries of a map the generators made.
fn fields(map: Value) -> Object {
    match map {
        Value::Object(map) => map,
        _ => Object::new(),
    }
}
