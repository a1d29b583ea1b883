//! Integers and floats: valid values (often an end of the range), values at, one step either
//! side of and a fraction either side of each bound, written every way JSON can write them, and
//! the extremes of every integer type and of `f32` and `f64`.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Value, json};

use super::one_of;
use crate::testing::agreement::json::{exact_integer, float, written};
use crate::testing::agreement::schema::{Edge, Limit, Schema};

// Integers

/// An integer the bounds allow: often an end of its range or one inside it, or a small one
/// (which a float holds exactly, so that a duplicate can be written apart, `1` and `1.0`),
/// written as a JSON integer.
pub fn integer_valid(schema: &Schema) -> BoxedStrategy<Value> {
    let (min, max) = schema.integer_range();
    prop_oneof![
        2 => select(vec![min, max, (min + 1).min(max), (max - 1).max(min)]),
        3 => min..=max,
        1 => (-3i128..=3).prop_map(move |small| small.clamp(min, max)),
    ]
    .prop_map(exact_integer)
    .boxed()
}

/// The first value past one of the number's edges, where a JSON value can carry it: one step
/// out (the bound itself if exclusive).
pub fn number_first_out(schema: &Schema) -> Option<BoxedStrategy<Value>> {
    let outs: Vec<Limit> = (schema.edges.iter())
        .filter_map(|edge| match edge {
            Edge::Bound(bound) => Some(bound.first_out()),
            _ => None,
        })
        .filter(|limit| limit.sendable())
        .collect();
    if outs.is_empty() {
        return None;
    }
    let value = select(outs).prop_map(|limit| match limit {
        Limit::Whole(value) => exact_integer(value),
        Limit::Real(value) => float(value),
    });
    Some(value.boxed())
}

/// Numbers at and one either side of each bound (inclusive or exclusive, tight or only the
/// type's own beside an exclusive one) and the edges of every integer type, written as JSON
/// integers, as integral floats (`5.0`) and with fractions (`5.5`); floats beyond `i64` and
/// `u64` (`1e20`, 2^70); and arbitrary integers and floats.
pub fn integer_near_bounds(schema: &Schema) -> BoxedStrategy<Value> {
    let (min, max) = schema.integer_range();
    let bounds: Vec<i128> = (schema.bounds().iter())
        .filter_map(|bound| match bound.limit {
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
        1 => any_float().prop_map(float),
    ]
    .boxed()
}

// Floats

/// Any finite `f64`, of every magnitude and sign, subnormals and zeros among them.
fn any_float() -> BoxedStrategy<f64> {
    (proptest::num::f64::POSITIVE
        | proptest::num::f64::NEGATIVE
        | proptest::num::f64::NORMAL
        | proptest::num::f64::SUBNORMAL
        | proptest::num::f64::ZERO)
        .boxed()
}

/// A float's valid values: each end of its range (a bound, or the next `f64` inside an
/// exclusive one), as a float or, when whole, an integer; whole numbers within it (and small
/// ones more often) as JSON integers; and numbers spread across it, evenly and across
/// magnitudes.
pub fn float_valid(schema: &Schema) -> BoxedStrategy<Value> {
    let (low, high) = schema.float_range();
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
            any_float()
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
        let (first, last) = (first as i64, last as i64);
        choices.push((2, (first..=last).prop_map(|whole| json!(whole)).boxed()));
        // And small ones, as for an integer.
        let small = (-3i64..=3).prop_map(move |small| json!(small.clamp(first, last)));
        choices.push((1, small.boxed()));
    }
    one_of(choices)
}

/// Numbers at each bound (inclusive or exclusive, tight or only `f32`'s range beside a declared
/// one), one `f64` either side of it, a fraction either side (scaled to the bound, so that it
/// still moves 3.4e38), and one either side of a whole bound as JSON integers; `f32`'s largest
/// value and what lies just beyond it, ±1e300, `f64::MAX`, subnormals and -0.0; integers of
/// every size, `u64::MAX`, 2^53 + 1 (which no `f64` holds) and 2^24 + 1 (which no `f32` holds)
/// among them; and arbitrary floats.
pub fn float_near_bounds(schema: &Schema) -> BoxedStrategy<Value> {
    let bounds: Vec<f64> = (schema.bounds().iter())
        .filter_map(|bound| match bound.limit {
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
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = vec![
        (2, select(extremes).prop_map(float).boxed()),
        (1, select(integers).boxed()),
        (1, any::<i64>().prop_map(|value| json!(value)).boxed()),
        (1, any::<u64>().prop_map(|value| json!(value)).boxed()),
        (1, any_float().prop_map(float).boxed()),
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
    one_of(choices)
}
