//! The validator's one known departure from ECMA-262, corrected in the schema it is given.
//!
//! A schema's `pattern` is an ECMA-262 regular expression, whose `\b` and `\B` are ASCII word
//! boundaries (`é` is not a word character, so `écat` has the word `cat`). The `jsonschema`
//! crate translates `\d`, `\w`, `\s` and `.` to their ECMA-262 meanings but leaves `\b` to its
//! regex engine, which reads it with Unicode's word characters and so finds no word `cat` in
//! `écat`. The server matches ECMA-262's meaning, so the validator is given each `\b` and `\B`
//! spelt out with ECMA-262's definition, as look-arounds on `[A-Za-z0-9_]` (which its engine,
//! `fancy-regex`, supports). The test `the_validator_needs_word_boundaries_spelt_out` notices
//! when the crate no longer needs it.

use serde_json::Value;

/// An ASCII word character, as ECMA-262's `\w` and `\b` have it.
const WORD: &str = "[A-Za-z0-9_]";

/// `schema` with every `pattern` keyword's `\b` and `\B` spelt out (`\b` inside a class is a
/// backspace, and stays).
pub fn word_boundaries_spelt_out(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(pattern) if key == "pattern" => *pattern = spelt_out(pattern),
                    other => word_boundaries_spelt_out(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(word_boundaries_spelt_out),
        _ => {}
    }
}

/// `pattern` with `\b` and `\B` outside classes written as ECMA-262 defines them: a word
/// character on exactly one side (`\b`), or on both or neither (`\B`).
pub fn spelt_out(pattern: &str) -> String {
    let boundary = format!("(?:(?<={WORD})(?!{WORD})|(?<!{WORD})(?={WORD}))");
    let inside = format!("(?:(?<={WORD})(?={WORD})|(?<!{WORD})(?!{WORD}))");
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('b') if !in_class => out.push_str(&boundary),
                Some('B') if !in_class => out.push_str(&inside),
                Some(escaped) => {
                    out.push('\\');
                    out.push(escaped);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}
