//! The input schema with one rule taken out: what tells whether an object the schema refuses
//! is refused for that rule alone.

use serde_json::Value;

use crate::testing::agreement::schema::{Edge, Schema, Together};

/// `keywords` with the group at `index` of `together` (read from them, in order) taken out:
/// its entry of `not`, or its name of `dependentRequired`. What was taken out, if anything.
fn without_group(
    keywords: &mut serde_json::Map<String, Value>,
    together: &[Together],
    index: usize,
) -> Option<Value> {
    if let Together::Needs(name, _) = &together[index] {
        let dependent = keywords.get_mut("dependentRequired")?.as_object_mut()?;
        return dependent.remove(name);
    }
    let not = keywords.get_mut("not")?;
    let several = not.get("required").is_none();
    match not.get_mut("anyOf").and_then(Value::as_array_mut) {
        Some(entries) if several => {
            let removed = entries.remove(index);
            // `anyOf` of nothing holds for no value: take `not` out with its last entry.
            if entries.is_empty() {
                keywords.remove("not");
            }
            Some(removed)
        }
        _ => keywords.remove("not"),
    }
}

/// `schema` with the `format` of `site` taken out: any string is let in there.
pub fn without_format(schema: &Value, site: &Schema) -> Value {
    let mut schema = schema.clone();
    let Some(Value::Object(keywords)) = schema.pointer_mut(&site.pointer) else {
        panic!("{}: no schema at {:?}", site.path, site.pointer);
    };
    let removed = keywords.remove("format");
    assert!(removed.is_some(), "{}: no format to take out", site.path);
    schema
}

/// `schema` with the keyword of `edge` at `site` taken out: a bound's, `uniqueItems`,
/// `pattern`, `enum`, one name of `required`, or `additionalProperties` (then any other name
/// is allowed).
pub fn without(schema: &Value, site: &Schema, edge: &Edge) -> Value {
    let mut schema = schema.clone();
    let Some(Value::Object(keywords)) = schema.pointer_mut(&site.pointer) else {
        panic!("{}: no schema at {:?}", site.path, site.pointer);
    };
    let removed = match edge {
        Edge::Bound(bound) => keywords.remove(bound.keyword),
        Edge::Unique => keywords.remove("uniqueItems"),
        Edge::Pattern(_) => keywords.remove("pattern"),
        Edge::Choice => keywords.remove("enum"),
        Edge::Const => keywords.remove("const"),
        Edge::Closed => keywords.remove("additionalProperties"),
        Edge::Together(index) => without_group(keywords, &site.together, *index),
        Edge::Required(name) => {
            let names = keywords.get_mut("required").and_then(Value::as_array_mut);
            let names = names.unwrap_or_else(|| panic!("{}: no required list", site.path));
            let before = names.len();
            names.retain(|other| other != name);
            (names.len() < before).then_some(Value::Null)
        }
    };
    assert!(
        removed.is_some(),
        "{}: no {} to take out",
        site.path,
        edge.keyword()
    );
    schema
}
