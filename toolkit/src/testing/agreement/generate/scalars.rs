//! Strings (by length, or by pattern), choices and UUIDs: valid values, values near and past
//! each edge, as the schema states them.

use crate::Uuid;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

use super::counts::{LONG_TEXT, between, near, past, pick, repeated};
use super::{one_of, patterns};
use crate::testing::agreement::json::float;
use crate::testing::agreement::schema::Text;

// Strings

/// A string the rules of `text` allow, often exactly at a length bound; for a pattern, one it
/// matches (see [`patterns`]).
pub fn text_valid(text: &Text) -> BoxedStrategy<Value> {
    let min = text.min_length.unwrap_or(0);
    if let Some(pattern) = &text.pattern {
        let longest = text.max_length.unwrap_or(6);
        let mut choices = vec![(3, patterns::matching(pattern, longest))];
        let edges: Vec<u64> = text.max_length.into_iter().chain(text.min_length).collect();
        if !edges.is_empty() {
            choices.push((1, patterns::at_lengths(pattern, longest, edges)));
        }
        return one_of(choices).prop_map(Value::String).boxed();
    }
    let strings = match text.max_length {
        Some(max) => prop_oneof![
            2 => string(pick(vec![min, max], min, LONG_TEXT)),
            3 => string(between(min, max, LONG_TEXT)),
        ]
        .boxed(),
        None => prop_oneof![
            1 => string(Just(min)),
            3 => string(min..=min + 20),
            1 => string(min + 100..=min + 300),
        ]
        .boxed(),
    };
    strings.prop_map(Value::String).boxed()
}

/// Strings near `text`'s edges: lengths one either side of each bound, at it, empty or long,
/// and for a pattern its near misses and matching strings of those lengths.
pub fn text_near(text: &Text) -> BoxedStrategy<Value> {
    let lengths = string_near_bounds(text.min_length, text.max_length);
    let Some(pattern) = &text.pattern else {
        return lengths;
    };
    let longest = text.max_length.unwrap_or(6) + 1;
    let mut edges: Vec<u64> = vec![0, 1];
    edges.extend(
        text.min_length
            .into_iter()
            .flat_map(|min| [min, min.saturating_sub(1)]),
    );
    edges.extend(text.max_length.into_iter().flat_map(|max| [max, max + 1]));
    prop_oneof![
        4 => patterns::near_misses(pattern, longest).prop_map(Value::String),
        2 => patterns::at_lengths(pattern, longest, edges).prop_map(Value::String),
        1 => lengths,
    ]
    .boxed()
}

/// A string one character too short or too long; for a pattern, one of its near misses (most
/// of which it does not match), or a matching string made a character too short or too long.
pub fn text_first_out(text: &Text) -> Option<BoxedStrategy<Value>> {
    let mut lengths: Vec<u64> = Vec::new();
    lengths.extend(text.min_length.filter(|&min| min > 0).map(|min| min - 1));
    lengths.extend(text.max_length.map(|max| max + 1));
    let Some(pattern) = &text.pattern else {
        let least = text.min_length.unwrap_or(0);
        return (!lengths.is_empty()).then(|| {
            let made = |length| string(Just(length)).prop_map(Value::String).boxed();
            past(lengths, (least, LONG_TEXT), made, || text_valid(text))
        });
    };
    let longest = text.max_length.unwrap_or(6);
    let mut choices = vec![(3, patterns::near_misses(pattern, longest))];
    if !lengths.is_empty() {
        choices.push((1, patterns::at_lengths(pattern, longest + 1, lengths)));
    }
    Some(one_of(choices).prop_map(Value::String).boxed())
}

/// Characters of one to four bytes, a combining mark (a character of its own), quotes,
/// escapes, control characters and anything else, so lengths in bytes and in characters differ.
/// One draw picks among them by weight (a union per character would cost more than the
/// string: proptest forks a random number generator for each option before the one picked).
fn character() -> BoxedStrategy<char> {
    const ODD: [(u32, char); 10] = [
        (2, 'é'),
        (2, '😀'),
        (2, '\u{301}'),
        (1, '中'),
        (1, '"'),
        (1, '\\'),
        (1, '\n'),
        (1, '\u{0}'),
        (1, '\u{feff}'),
        (1, '\u{10ffff}'),
    ];
    const LETTERS: u32 = 8;
    const ANY: u32 = 2;
    let total: u32 = LETTERS + ANY + ODD.iter().map(|(weight, _)| weight).sum::<u32>();
    // Drawn as numbers: proptest's own characters cost more than the rest of a string.
    (0..total, b'a'..=b'z', 0..=u32::from(char::MAX))
        .prop_map(|(pick, letter, other)| {
            let Some(mut rest) = pick.checked_sub(LETTERS) else {
                return char::from(letter);
            };
            for (weight, c) in ODD {
                if rest < weight {
                    return c;
                }
                rest -= weight;
            }
            // A surrogate is no character: the replacement character in its place.
            char::from_u32(other).unwrap_or(char::REPLACEMENT_CHARACTER)
        })
        .boxed()
}

/// A string whose length in characters is drawn from `lengths`.
pub fn string(lengths: impl Strategy<Value = u64> + 'static) -> BoxedStrategy<String> {
    lengths
        .prop_flat_map(|length| {
            let length = usize::try_from(length).unwrap_or(0);
            if length > LONG_TEXT as usize {
                // A long string: a few drawn characters over and over.
                let drawn = vec(character(), 1..=8);
                return drawn
                    .prop_map(move |drawn| repeated(&drawn, length))
                    .boxed();
            }
            vec(character(), length).boxed()
        })
        .prop_map(|chars| chars.into_iter().collect())
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
    let least = min.unwrap_or(0);
    prop_oneof![
        3 => string(select(near(at, least, LONG_TEXT))),
        3 => string(select(near(past, least, LONG_TEXT))),
        1 => string(200..=400u64),
    ]
    .prop_map(Value::String)
    .boxed()
}

// Choices

/// The choices and strings near them: the mistakes [`choice_misses`] lists, and any string.
pub fn choice_near(values: &[String]) -> BoxedStrategy<Value> {
    prop_oneof![
        3 => select(values.to_vec()),
        4 => select(choice_misses(values)),
        1 => string(0..8u64),
    ]
    .prop_map(Value::String)
    .boxed()
}

/// A string that is not one of the choices: one of [`choice_misses`] that is none of them.
pub fn choice_first_out(values: &[String]) -> Option<BoxedStrategy<Value>> {
    let mut misses = choice_misses(values);
    misses.retain(|miss| !values.contains(miss));
    Some(select(misses).prop_map(Value::String).boxed())
}

/// Numbers near an integer choice's: its values, written as integers or as floats (`3.0`), its
/// misses ([`numbers_misses`]), and each value as a string.
pub fn numbers_near(values: &[i64]) -> BoxedStrategy<Value> {
    let as_float = select(values.to_vec()).prop_map(|value| float(value as f64));
    let as_string = select(values.to_vec()).prop_map(|value| Value::String(value.to_string()));
    prop_oneof![
        3 => select(values.to_vec()).prop_map(Value::from),
        2 => as_float,
        4 => select(numbers_misses(values)).prop_map(Value::from),
        1 => as_string,
    ]
    .boxed()
}

/// An integer that is none of the choice's: one of [`numbers_misses`].
pub fn numbers_first_out(values: &[i64]) -> Option<BoxedStrategy<Value>> {
    Some(select(numbers_misses(values)).prop_map(Value::from).boxed())
}

/// Integers a client might send for an integer choice that are none of its values: one either
/// side of each, 0 and -1.
fn numbers_misses(values: &[i64]) -> Vec<i64> {
    let mut misses: Vec<i64> = (values.iter())
        .flat_map(|value| [value - 1, value + 1])
        .chain([0, -1])
        .collect();
    misses.retain(|miss| !values.contains(miss));
    misses.dedup();
    misses
}

/// Mistakes a client might make in a choice: another case, capitalised, padded, a letter less
/// or more, kebab-case for snake_case and back, camelCase, empty.
fn choice_misses(values: &[String]) -> Vec<String> {
    let mut misses = vec![String::new(), "null".to_owned()];
    for value in values {
        let mut capitalised = value.clone();
        capitalised[..1].make_ascii_uppercase();
        let mut shorter = value.chars();
        shorter.next_back();
        let mut camel = String::new();
        let mut upper = false;
        for c in value.chars() {
            match c {
                '_' | '-' => upper = true,
                c if upper => {
                    camel.push(c.to_ascii_uppercase());
                    upper = false;
                }
                c => camel.push(c),
            }
        }
        misses.extend([
            value.to_uppercase(),
            capitalised,
            format!("{value} "),
            format!(" {value}"),
            shorter.as_str().to_owned(),
            format!("{value}s"),
            value.replace('_', "-"),
            value.replace('-', "_"),
            camel,
        ]);
    }
    misses.sort();
    misses.dedup();
    misses
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
pub fn uuid_valid() -> BoxedStrategy<String> {
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
pub fn uuid_candidate() -> BoxedStrategy<String> {
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

/// `text` with its character at `at` replaced by `with` (unchanged past its end).
pub fn replace_char(text: &str, at: usize, with: char) -> String {
    text.chars()
        .enumerate()
        .map(|(index, c)| if index == at { with } else { c })
        .collect()
}

/// `text` without its character at `at` (unchanged past its end).
pub fn remove_char(text: &str, at: usize) -> String {
    text.chars()
        .enumerate()
        .filter_map(|(index, c)| (index != at).then_some(c))
        .collect()
}

/// `text` with `c` inserted before its character at `at` (at its end, past it).
pub fn insert_char(text: &str, at: usize, c: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    chars.insert(at.min(chars.len()), c);
    chars.into_iter().collect()
}
