//! Where a refusal may point: each violation the parser reports must name a place the caller
//! can find, a value in the object sent (`title`, `edits[1].oldText`, `headers["X-Id"]`), a
//! declared argument or field that was left out, an object whose fields broke a rule together
//! (a group, the arguments object itself for one of the tool's own), or a count of the
//! undeclared names an object had past those listed (`3 more names`, `filter: 3 more names`).
//!
//! Names are matched as a message may show them: as sent, with control characters escaped, or
//! cut short and ended with `…`; a map's keys as JSON strings in brackets, possibly cut the
//! same way.

use std::collections::HashSet;

use serde_json::Value;

use super::schema::Schema;
use crate::Violations;

/// The first place among `violations` that names nothing in `sent` nor a declared argument
/// or field of the schema `root`, if any.
pub fn unplaced<'v>(root: &Schema, sent: &Value, violations: &'v Violations) -> Option<&'v str> {
    let declared: HashSet<&str> = (root.all().into_iter())
        .flat_map(|schema| schema.fields().iter().map(|field| field.name.as_str()))
        .collect();
    (violations.iter())
        .map(|violation| violation.argument.as_str())
        .find(|place| !placed(place, sent, &declared))
}

/// Whether `place` names something in `sent`, the arguments object.
fn placed(place: &str, sent: &Value, declared: &HashSet<&str>) -> bool {
    if let Some(before) = place.strip_suffix(" more names") {
        let (object, count) = before.rsplit_once(": ").unwrap_or(("", before));
        let counted = !count.is_empty() && count.chars().all(|c| c.is_ascii_digit() || c == ',');
        return counted && within(object, sent, true, declared, true);
    }
    within(place, sent, true, declared, false)
}

/// Whether `rest`, the remainder of a place, names something inside `value` (an object when
/// `object` is set); `top` for the arguments object, whose names start a place without a dot.
fn within(rest: &str, value: &Value, top: bool, declared: &HashSet<&str>, object: bool) -> bool {
    if rest.is_empty() {
        return !object || value.is_object();
    }
    match value {
        Value::Array(items) => {
            let Some((index, after)) = index(rest) else {
                return false;
            };
            (items.get(index)).is_some_and(|item| within(after, item, false, declared, object))
        }
        Value::Object(fields) => {
            let named = |after: &str, value: &Value| within(after, value, false, declared, object);
            let dotted = if top {
                Some(rest)
            } else {
                rest.strip_prefix('.')
            };
            let by_dot = dotted.is_some_and(|dotted| {
                let field = |(name, value): (&String, &Value)| {
                    (shown_after(dotted, name).into_iter()).any(|after| named(after, value))
                };
                fields.iter().any(field)
                    || (!object && declared.contains(dotted) && !fields.contains_key(dotted))
            });
            by_dot
                || fields.iter().any(|(key, value)| {
                    (quoted_after(rest, key).into_iter()).any(|after| named(after, value))
                })
        }
        _ => false,
    }
}

/// `[index]` at the start of `rest`: the index, and what follows.
fn index(rest: &str) -> Option<(usize, &str)> {
    let (digits, after) = rest.strip_prefix('[')?.split_once(']')?;
    let index = digits.parse().ok().filter(|_| !digits.starts_with('+'))?;
    Some((index, after))
}

/// What follows `name` at the start of `rest`, the name shown with control characters escaped,
/// whole or cut short with `…`: every way it can be read there.
fn shown_after<'r>(rest: &'r str, name: &str) -> Vec<&'r str> {
    let shown: String = (name.chars())
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    let mut after: Vec<&str> = rest.strip_prefix(shown.as_str()).into_iter().collect();
    for (at, _) in rest.match_indices('…') {
        if shown.starts_with(&rest[..at]) {
            after.push(&rest[at + '…'.len_utf8()..]);
        }
    }
    after
}

/// What follows the map key `key` at the start of `rest`, written `["key"]` (a JSON string),
/// whole or cut short (`["ke"…]`): every way it can be read there.
fn quoted_after<'r>(rest: &'r str, key: &str) -> Vec<&'r str> {
    let Some(inside) = rest.strip_prefix('[') else {
        return Vec::new();
    };
    let mut after = Vec::new();
    for (at, _) in inside.match_indices(']') {
        let written = &inside[..at];
        let (text, cut) = match written.strip_suffix('…') {
            Some(text) => (text, true),
            None => (written, false),
        };
        let Ok(read) = serde_json::from_str::<String>(text) else {
            continue;
        };
        if read == key || (cut && key.starts_with(&read)) {
            after.push(&inside[at + 1..]);
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn placed_in(place: &str, sent: &Value) -> bool {
        placed(place, sent, &HashSet::from(["title", "oldText"]))
    }

    #[test]
    fn places_in_the_object_sent_are_found() {
        let sent = json!({
            "title": "x",
            "edits": [{ "oldText": 1 }, { "newText": "a.b", "odd\nname": 2 }],
            "headers": { "X-Id": "1", "a\"b": 2 },
        });
        for place in [
            "",
            "title",
            "edits",
            "edits[1]",
            "edits[0].oldText",
            "edits[1].newText",
            "edits[1].odd\\nname",
            "edits[1].odd…",
            "edits[1].oldText",
            "headers[\"X-Id\"]",
            "headers[\"a\\\"b\"]",
            "headers[\"X-\"…]",
            "3 more names",
            "edits[1]: 1,200 more names",
        ] {
            assert!(placed_in(place, &sent), "{place:?}");
        }
        for place in [
            "titles",
            "edits[2]",
            "edits[+1]",
            "edits.oldText",
            "edits[0]oldText",
            "headers.X-Id.more",
            "headers[\"Y\"]",
            "headers[\"X-\"]",
            "title: 3 more names",
            "more names",
            ".title",
        ] {
            assert!(!placed_in(place, &sent), "{place:?}");
        }
    }
}
