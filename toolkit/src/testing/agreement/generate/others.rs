//! Values of wrong JSON types, names an object does not declare, and free-form JSON.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use super::scalars::string;
use crate::testing::agreement::json::float;
use crate::testing::agreement::schema::Property;

/// Values of every JSON type, including strings that look like numbers, booleans or `null`.
pub fn wrong_type() -> BoxedStrategy<Value> {
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
        string(0..6u64).prop_map(Value::String),
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

/// A name the object does not declare: a near miss of a real one (snake_case, another case, a
/// letter more or less, padded), a random identifier, or an odd one.
pub fn unknown_name(properties: &[Property]) -> BoxedStrategy<String> {
    let names: Vec<String> = properties.iter().map(|arg| arg.name.clone()).collect();
    let mut near: Vec<String> = names.iter().flat_map(|name| near_misses(name)).collect();
    near.retain(|name| !names.contains(name));
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
        .prop_filter_map("declared", move |name: String| {
            (!names.contains(&name)).then_some(name)
        })
        .boxed();
    if near.is_empty() {
        prop_oneof![2 => random, 1 => select(odd)].boxed()
    } else {
        prop_oneof![4 => select(near), 2 => random, 1 => select(odd)].boxed()
    }
}

/// Names a client might send for `name` by mistake: snake_case and kebab-case (as the Rust
/// field might be named), another case, capitalised, a letter more or less, padded.
fn near_misses(name: &str) -> Vec<String> {
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
pub fn unknown_value() -> BoxedStrategy<Value> {
    prop_oneof![3 => wrong_type(), 1 => Just(Value::Null)].boxed()
}

/// Free-form JSON nested at most `deepest` arrays and objects deep: small values of every kind
/// (`null`, numbers of every size, strings, arrays and objects a few levels deep), and chains
/// of arrays and objects up to exactly `deepest` deep. Nothing deeper: that is the one rule
/// the schema cannot state (see the crate's documentation).
pub fn any_json(deepest: usize) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|value| json!(value)),
        any::<u64>().prop_map(|value| json!(value)),
        select(vec![0.0, -0.0, 1.0, 1.5, -2.5e-300, 1e300]).prop_map(float),
        string(0..6u64).prop_map(Value::String),
    ];
    let nested = leaf.clone().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((string(0..3u64), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    });
    let chain = (1..=deepest, leaf, any::<u32>()).prop_map(|(depth, leaf, shape)| {
        (0..depth).fold(leaf, |inner, level| {
            if shape >> (level % 32) & 1 == 0 {
                json!([inner])
            } else {
                json!({ "a": inner })
            }
        })
    });
    prop_oneof![
        4 => nested,
        1 => chain,
        1 => Just(deepest).prop_map(|depth| (0..depth).fold(json!(1), |inner, _| json!([inner]))),
    ]
    .boxed()
}
