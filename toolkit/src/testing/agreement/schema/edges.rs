//! The edges of a value's rules: bounds on a length, a number or a count (where a value sits at
//! the last value in or the first out), and the other rules a value keeps or breaks narrowly
//! (uniqueness, a pattern, the choices, a required field, the refusal of other names).

use super::{Kind, Schema};
use crate::testing::agreement::generate::{LONG_COUNT, LONG_TEXT};
use crate::testing::agreement::json::{exact_integer, integral};

/// Which end of the allowed values a bound closes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Side {
    Lower,
    Upper,
}

/// A bound's value, or a value measured against one: an exact integer for a length, a count
/// or an integer (so that `u64::MAX` stays exact), an `f64` for a number, which the tool holds
/// as a float anyway. One bound's values are all of one kind, so the derived order (variant
/// first) compares them as numbers.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub enum Limit {
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
    pub fn sendable(self) -> bool {
        match self {
            Limit::Whole(value) => {
                exact_integer(value).as_number().and_then(integral) == Some(value)
            }
            Limit::Real(value) => value.is_finite(),
        }
    }
}

/// What a bound measures of a value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    /// A string's length in characters.
    Characters,
    /// The number itself.
    Number,
    /// A list's number of elements.
    Items,
    /// An object's number of entries.
    Entries,
}

/// One bound of a value, as its schema states it.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// `minimum`, `exclusiveMaximum`, `minLength`, `maxItems`...: the keyword stating it.
    pub keyword: &'static str,
    pub measure: Measure,
    pub side: Side,
    /// Whether the bound's own value is kept out.
    pub exclusive: bool,
    pub limit: Limit,
}

impl Bound {
    /// The outermost value this bound lets in: the bound itself, or one step inside an
    /// exclusive one.
    pub fn last_in(self) -> Limit {
        if self.exclusive {
            self.limit.next(self.side == Side::Lower)
        } else {
            self.limit
        }
    }

    /// Whether the values at this bound are long (see [`LONG_COUNT`] and [`LONG_TEXT`]), which
    /// the generators draw rarely.
    pub fn is_long(self) -> bool {
        let long = match self.measure {
            Measure::Items | Measure::Entries => LONG_COUNT,
            Measure::Characters => LONG_TEXT,
            Measure::Number => return false,
        };
        matches!(self.last_in(), Limit::Whole(count) if count > i128::from(long))
    }

    /// The first value past [`Bound::last_in`], which this bound keeps out: the bound itself
    /// when exclusive.
    pub fn first_out(self) -> Limit {
        if self.exclusive {
            self.limit
        } else {
            self.limit.next(self.side == Side::Upper)
        }
    }
}

/// A rule a value can keep narrowly or break narrowly: the tally wants both seen, each break
/// the only reason for a rejection.
#[derive(Clone, Debug)]
pub enum Edge {
    /// A bound on a length, a number or a count: in at [`Bound::last_in`], out at
    /// [`Bound::first_out`].
    Bound(Bound),
    /// `uniqueItems`: in, two elements or more all distinct; out, two equal.
    Unique,
    /// `pattern`: in, a string it matches; out, one it does not.
    Pattern(String),
    /// `enum`: in, one of its values; out, any other string.
    Choice,
    /// `const`: in, its string; out, any other string.
    Const,
    /// One name of `required`: in, an object with it; out, one without it (or with `null`).
    Required(String),
    /// `"additionalProperties": false`: in, an object with every declared name and no other;
    /// out, one with another name.
    Closed,
    /// A group (see [`Together`]), by its place in the object's list: in, an object that
    /// keeps it with a field of the group given; out, one that breaks it.
    Together(usize),
}

impl Edge {
    /// The keyword stating it, for messages.
    pub fn keyword(&self) -> String {
        match self {
            Edge::Bound(bound) => bound.keyword.to_owned(),
            Edge::Unique => "uniqueItems".to_owned(),
            Edge::Pattern(pattern) => format!("pattern {pattern}"),
            Edge::Choice => "enum".to_owned(),
            Edge::Const => "const".to_owned(),
            Edge::Required(name) => format!("required {name}"),
            Edge::Closed => "additionalProperties".to_owned(),
            Edge::Together(index) => format!("group {index}"),
        }
    }
}

impl Schema {
    /// The edges of this value's rules: a length's and a count's (not a minimum of 0, which no
    /// value lies below), for a number the tighter bound of each side (the one whose
    /// [`Bound::last_in`] is innermost), uniqueness, a pattern, the choices, each required
    /// field and the refusal of other names.
    pub(super) fn read_edges(&self) -> Vec<Edge> {
        let count = |keyword, measure, side, value: Option<u64>| {
            let value = value.filter(|&value| side == Side::Upper || value > 0)?;
            Some(Edge::Bound(Bound {
                keyword,
                measure,
                side,
                exclusive: false,
                limit: Limit::Whole(value.into()),
            }))
        };
        match &self.kind {
            Kind::String(text) => {
                let min = count(
                    "minLength",
                    Measure::Characters,
                    Side::Lower,
                    text.min_length,
                );
                let max = count(
                    "maxLength",
                    Measure::Characters,
                    Side::Upper,
                    text.max_length,
                );
                let pattern = text.pattern.clone().map(Edge::Pattern);
                min.into_iter().chain(max).chain(pattern).collect()
            }
            Kind::Integer(bounds) | Kind::Float(_, bounds) => [Side::Lower, Side::Upper]
                .into_iter()
                .filter_map(|side| {
                    let inner = |a: &Bound, b: &Bound| match side {
                        Side::Lower => a.last_in() >= b.last_in(),
                        Side::Upper => a.last_in() <= b.last_in(),
                    };
                    (bounds.iter().copied())
                        .filter(|bound| bound.side == side)
                        .reduce(|a, b| if inner(&a, &b) { a } else { b })
                        .map(Edge::Bound)
                })
                .collect(),
            Kind::Choice(_) | Kind::Numbers(_) => vec![Edge::Choice],
            Kind::Const(_) => vec![Edge::Const],
            Kind::List(list) => {
                let min = count("minItems", Measure::Items, Side::Lower, list.min_items);
                let max = count("maxItems", Measure::Items, Side::Upper, list.max_items);
                let unique = list.unique.then_some(Edge::Unique);
                min.into_iter().chain(max).chain(unique).collect()
            }
            // Its length, stated twice: `minItems` below, `"items": false` past the last.
            Kind::Tuple(elements) => {
                let length = elements.len() as u64;
                let min = count("minItems", Measure::Items, Side::Lower, Some(length));
                let max = count("items", Measure::Items, Side::Upper, Some(length));
                min.into_iter().chain(max).collect()
            }
            Kind::Map(entries) => {
                let min = count(
                    "minProperties",
                    Measure::Entries,
                    Side::Lower,
                    entries.min_entries,
                );
                let max = count(
                    "maxProperties",
                    Measure::Entries,
                    Side::Upper,
                    entries.max_entries,
                );
                min.into_iter().chain(max).collect()
            }
            Kind::Object(properties, others) => (properties.iter())
                .filter(|property| property.required)
                .map(|property| Edge::Required(property.name.clone()))
                .chain(others.is_none().then_some(Edge::Closed))
                .chain((0..self.together.len()).map(Edge::Together))
                .collect(),
            Kind::Uuid
            | Kind::Format(_)
            | Kind::Boolean
            | Kind::Any(_)
            | Kind::Nullable(_)
            | Kind::Union(_) => Vec::new(),
        }
    }
}
