//! How long: counts of characters, elements and entries to draw, long ones rarely.
//!
//! A debug build takes a good part of a second to generate 100,000 strings, and tens of
//! milliseconds to validate and read them, so that a value at a bound of 100,000 costs what a
//! thousand short ones do. Past [`LONG_COUNT`] elements or entries, or [`LONG_TEXT`]
//! characters, a value is long, and made of a few drawn parts over and over; past twice the
//! fewest its schema allows too, it is far ([`is_far`]): drawn only at a bound or one past it
//! (between the bounds, or near them, a far count is no nearer an edge than a short one), and
//! there rarely.

use proptest::prelude::*;
use serde_json::Value;

use super::one_of;

/// Past this many elements or entries a list or map is long.
pub const LONG_COUNT: u64 = 64;

/// Past this many characters a string is long.
pub const LONG_TEXT: u64 = 1_000;

/// How much likelier a short count is drawn than a long one.
const LONG_ODDS: u32 = 24;

/// One value past a bound in how many is long, where every value past it is: fewer than
/// [`LONG_ODDS`], since only these are refused for that bound alone.
const LONG_OUT_ODDS: u32 = 12;

/// Whether `count` is far: past `long`, and past twice `least`, the fewest a value may have
/// (so that where every value is long, the ones near the fewest are not far).
pub fn is_far(count: u64, least: u64, long: u64) -> bool {
    count > long.max(least.saturating_mul(2))
}

/// One of `counts`, a far one [`LONG_ODDS`] times less likely than another.
pub fn pick(counts: Vec<u64>, least: u64, long: u64) -> BoxedStrategy<u64> {
    let weighted = (counts.into_iter())
        .map(|count| {
            let weight = if is_far(count, least, long) {
                1
            } else {
                LONG_ODDS
            };
            (weight, Just(count).boxed())
        })
        .collect();
    one_of(weighted)
}

/// `counts` without the far ones, which the valid values and the values past a bound reach
/// (near a bound, a far count is no nearer an edge than one of those); `least` if all are.
pub fn near(counts: Vec<u64>, least: u64, long: u64) -> Vec<u64> {
    let near: Vec<u64> = (counts.into_iter())
        .filter(|&count| !is_far(count, least, long))
        .collect();
    if near.is_empty() { vec![least] } else { near }
}

/// Values past a bound, one for each of `outs` (counts past a bound, each as likely as
/// another) made by `made`; a far one only one time in [`LONG_OUT_ODDS`], and `instead` (a
/// valid value) the other times.
pub fn past(
    outs: Vec<u64>,
    (least, long): (u64, u64),
    made: impl Fn(u64) -> BoxedStrategy<Value>,
    instead: impl Fn() -> BoxedStrategy<Value>,
) -> BoxedStrategy<Value> {
    let choices = (outs.into_iter())
        .map(|count| {
            let out = made(count);
            if is_far(count, least, long) {
                (
                    1,
                    prop_oneof![1 => out, LONG_OUT_ODDS - 1 => instead()].boxed(),
                )
            } else {
                (1, out)
            }
        })
        .collect();
    one_of(choices)
}

/// A count from `min` to `max`, each as likely as another, but none past `min + long`: between
/// the bounds, a long count is no nearer an edge than a short one.
pub fn between(min: u64, max: u64, long: u64) -> BoxedStrategy<u64> {
    (min..=max.min(min.saturating_add(long))).boxed()
}

/// `drawn` repeated to `length` items.
pub fn repeated<T: Clone>(drawn: &[T], length: usize) -> Vec<T> {
    drawn.iter().cycle().take(length).cloned().collect()
}
