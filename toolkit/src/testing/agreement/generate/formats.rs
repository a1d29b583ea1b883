//! Strings of the typed formats: URIs, dates, date-times and email addresses, valid ones built
//! from random parts of each grammar (RFC 3986's `URI`, RFC 3339's `full-date` and
//! `date-time`, RFC 5321's `Mailbox`), and near misses of them.
//!
//! A near miss is a valid string with one troublesome piece put in, put in place of a
//! character or a character taken out (many still valid: a `#` may start a fragment, a `%` may
//! meet two hex digits), or a mistake of the format's own: a missing or digit-first scheme and
//! broken address literals; days past a month's end (February 29th of 1900 and 2100 among
//! them), months and hours past their last, a leap second anywhere but at the last second of a
//! UTC day, offsets of 24 hours, one-digit and five-digit fields, no offset; display names,
//! non-ASCII, a second `@`, misplaced dots, `_`, labels and domains one character too long, bad
//! address literals, hyphens third and fourth. Wrong JSON types come from
//! [`super::others::wrong_type`]. Whether a string is valid is the validator's verdict, and the
//! parser's; this grammar only steers the generators.
//!
//! No email domain has a label starting `xn--` in any case: the validator decodes such a label
//! as Punycode (refusing one that does not decode) and takes only a lower-case `xn` for the
//! prefix, where the server takes any `xn--` label as written, a documented difference (pinned
//! by `the_validator_decodes_a_labels`). Every generated email string goes through
//! [`no_a_labels`].

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};

mod dates;
mod email;
mod uri;

use super::one_of;
use crate::testing::agreement::schema::Format;
use dates::{date_near, date_time_near, date_time_valid, date_valid};
#[cfg(test)]
pub use email::no_a_labels;
use email::{email_near, email_valid};
pub use uri::{uri_near, uri_valid};

/// A string `format` allows.
pub fn format_valid(format: Format) -> BoxedStrategy<String> {
    match format {
        Format::Uri => uri_valid(),
        Format::Date => date_valid(),
        Format::DateTime => date_time_valid(),
        Format::Email => email_valid(),
    }
}

/// Near misses of `format`'s strings (see the module's documentation): most refused, some
/// still valid.
pub fn format_near(format: Format) -> BoxedStrategy<String> {
    match format {
        Format::Uri => uri_near(),
        Format::Date => date_near(),
        Format::DateTime => date_time_near(),
        Format::Email => email_near(),
    }
}

// Pieces of strings

/// What the near misses of every format put in: characters a URI, a date or an address cannot
/// hold as they are (or only in some places), a broken percent-encoding, non-ASCII letters of
/// two and four bytes, a line feed.
const TROUBLE: [&str; 13] = [
    " ", "^", "#", "%", "%2", "[", "]", "@", "\\", "{", "é", "😀", "\n",
];

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdefABCDEF";

/// The characters of `parts`, once each.
fn chars(parts: &[&str]) -> Vec<char> {
    let mut chars: Vec<char> = parts.iter().flat_map(|part| part.chars()).collect();
    chars.sort_unstable();
    chars.dedup();
    chars
}

/// A string of `lengths` characters, each drawn from `set`.
fn drawn(set: Vec<char>, lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    vec(select(set), lengths)
        .prop_map(|chars| chars.into_iter().collect())
        .boxed()
}

/// A string of `lengths` pieces, each a character drawn from `set` or, one time in six, a
/// percent-encoded byte (`%` and two hex digits in either case).
fn encoded(set: Vec<char>, lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    let hex = chars(&[HEX]);
    let piece = (0..6u8, select(set), select(hex.clone()), select(hex));
    vec(piece, lengths)
        .prop_map(|pieces| {
            (pieces.into_iter())
                .map(|(pick, c, high, low)| match pick {
                    0 => format!("%{high}{low}"),
                    _ => c.to_string(),
                })
                .collect()
        })
        .boxed()
}

/// `text` with `piece` put before its character at `at`.
fn inserted(text: &str, at: usize, piece: &str) -> String {
    let split = text.char_indices().nth(at).map_or(text.len(), |(at, _)| at);
    format!("{}{piece}{}", &text[..split], &text[split..])
}

/// `text` with its character at `at` replaced by `piece` (unchanged past its end).
fn replaced(text: &str, at: usize, piece: &str) -> String {
    match text.char_indices().nth(at) {
        Some((at, c)) => format!("{}{piece}{}", &text[..at], &text[at + c.len_utf8()..]),
        None => text.to_owned(),
    }
}

/// `text` without its character at `at` (unchanged past its end).
fn removed(text: &str, at: usize) -> String {
    replaced(text, at, "")
}

/// Strings from `texts` with one piece of [`TROUBLE`] or of `own` put in, or put in place of a
/// character, or with a character taken out.
fn mutated(texts: BoxedStrategy<String>, own: &[&'static str]) -> BoxedStrategy<String> {
    let mut pieces: Vec<&'static str> = TROUBLE.to_vec();
    pieces.extend_from_slice(own);
    (texts, 0..3u8, any::<Index>(), select(pieces))
        .prop_map(|(text, how, index, piece)| {
            let at = index.index(text.chars().count() + 1);
            match how {
                0 => inserted(&text, at, piece),
                1 => replaced(&text, at, piece),
                _ => removed(&text, at),
            }
        })
        .boxed()
}

/// `strategy`'s string, or (one time in `1 + absent`) an empty one.
fn sometimes(strategy: BoxedStrategy<String>, absent: u32) -> BoxedStrategy<String> {
    prop_oneof![absent => Just(String::new()), 1 => strategy].boxed()
}
