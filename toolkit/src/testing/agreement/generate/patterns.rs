//! Strings for a `pattern`: ones it matches, and near misses of them.
//!
//! Matching strings come from proptest's regex generator, given the pattern rewritten in the
//! ECMA-262 meanings the schema's reader gives it: `\d` as `[0-9]`, `\w` as `[0-9A-Za-z_]`, `.`
//! as anything but a line terminator, anchors and word boundaries taken out (proptest cannot
//! generate them; what surrounds a match is left to the near misses), unbounded repetitions cut
//! to a length. This reading only steers the generators: whether a string matches is the
//! validator's verdict, and the tally's (see [`crate::testing::agreement::tally`]).
//!
//! Near misses change a matching string by one character (ASCII letters and digits, `_`, `-`,
//! spaces, line terminators, and the non-ASCII digits and letters `\d` and `\w` must not match,
//! `١` and `é`), change its case, or surround it (a line terminator before or after tests the
//! anchors; a word character or `é` beside it the word boundaries).

use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::scalars::{insert_char, remove_char, replace_char};

/// Characters to put in or beside a matching string.
const FOREIGN: [char; 20] = [
    'a', 'z', 'A', 'Z', '0', '9', '_', '-', ' ', '.', '\n', '\r', '\u{2028}', '\u{2029}', 'é', 'É',
    '١', '٣', '０', 'ß',
];

/// What can surround a matching string.
const CONTEXT: [&str; 10] = ["", " ", "x", "_", "1", "é", "\n", "a cat", "-", "É"];

/// Strings `pattern` matches (as far as this reading of it goes), each unbounded repetition at
/// most `longest` long.
pub fn matching(pattern: &str, longest: u64) -> BoxedStrategy<String> {
    let form = generation_form(pattern, longest);
    proptest::string::string_regex(&form)
        .unwrap_or_else(|error| {
            panic!(
                "{pattern}: the agreement check cannot generate strings for it ({form}): {error}"
            )
        })
        .boxed()
}

/// Matching strings made `lengths` characters long, by repeating their last character or
/// cutting them short: at a length bound, often still matching.
pub fn at_lengths(pattern: &str, longest: u64, lengths: Vec<u64>) -> BoxedStrategy<String> {
    (matching(pattern, longest), select(lengths))
        .prop_map(|(text, length)| {
            let length = usize::try_from(length).unwrap_or(0);
            let mut chars: Vec<char> = text.chars().collect();
            let last = chars.last().copied().unwrap_or('a');
            chars.resize(length, last);
            chars.into_iter().collect()
        })
        .boxed()
}

/// Near misses of matching strings: one character replaced, added or taken out, the case
/// changed, or something around it.
pub fn near_misses(pattern: &str, longest: u64) -> BoxedStrategy<String> {
    let text = matching(pattern, longest);
    let foreign = || select(FOREIGN.to_vec());
    let context = || select(CONTEXT.to_vec());
    let at = |text: &str, index: Index| index.index(text.chars().count().max(1));
    prop_oneof![
        4 => (text.clone(), any::<Index>(), foreign())
            .prop_map(move |(text, index, c)| replace_char(&text, at(&text, index), c)),
        2 => (text.clone(), any::<Index>(), foreign())
            .prop_map(move |(text, index, c)| insert_char(&text, at(&text, index) + 1, c)),
        1 => (text.clone(), any::<Index>())
            .prop_map(move |(text, index)| remove_char(&text, at(&text, index))),
        1 => text.clone().prop_map(|text| text.to_uppercase()),
        1 => text.clone().prop_map(|text| text.to_lowercase()),
        3 => (context(), text, context())
            .prop_map(|(before, text, after)| format!("{before}{text}{after}")),
    ]
    .boxed()
}

/// `pattern` as proptest's generator is to read it (see the module's documentation), each
/// unbounded repetition at most `longest` long. Panics on what it cannot rewrite: an anchor
/// inside the pattern, `\s` (no declaration has either).
fn generation_form(pattern: &str, longest: u64) -> String {
    let mut chars: Vec<char> = pattern.chars().collect();
    if chars.first() == Some(&'^') {
        chars.remove(0);
    }
    // A final `$` is an anchor unless escaped, by an odd number of backslashes.
    let backslashes = chars
        .iter()
        .rev()
        .skip(1)
        .take_while(|c| **c == '\\')
        .count();
    if chars.last() == Some(&'$') && backslashes % 2 == 0 {
        chars.pop();
    }
    let mut form = String::new();
    let mut in_class = false;
    let mut chars = chars.into_iter();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars.next().expect("a backslash escapes something");
                match (escaped, in_class) {
                    ('d', false) => form.push_str("[0-9]"),
                    ('d', true) => form.push_str("0-9"),
                    ('D', false) => form.push_str("[^0-9]"),
                    ('w', false) => form.push_str("[0-9A-Za-z_]"),
                    ('w', true) => form.push_str("0-9A-Za-z_"),
                    ('W', false) => form.push_str("[^0-9A-Za-z_]"),
                    // Left to what surrounds the string.
                    ('b' | 'B', false) => {}
                    ('s' | 'S', _) => {
                        panic!("{pattern}: the agreement check does not generate for \\s")
                    }
                    (other, _) => {
                        form.push('\\');
                        form.push(other);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                form.push(c);
            }
            ']' if in_class => {
                in_class = false;
                form.push(c);
            }
            '.' if !in_class => form.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '^' | '$' if !in_class => {
                panic!(
                    "{pattern}: the agreement check does not generate for an anchor inside a pattern"
                )
            }
            '+' if !in_class => form.push_str(&format!("{{1,{}}}", longest.max(1))),
            '*' if !in_class => form.push_str(&format!("{{0,{longest}}}")),
            '{' if !in_class => {
                let quantifier: String = chars.by_ref().take_while(|&c| c != '}').collect();
                match quantifier.strip_suffix(',') {
                    Some(min) => {
                        let min: u64 = min.parse().expect("a repetition's minimum");
                        form.push_str(&format!("{{{min},{}}}", longest.max(min)));
                    }
                    None => form.push_str(&format!("{{{quantifier}}}")),
                }
            }
            _ => form.push(c),
        }
    }
    form
}
