//! Reading the input schema into the oracle's model, keyword by keyword: a keyword the check
//! does not know, or one it does not expect beside the others, panics, since it would be a
//! rule the check does not test.

use serde_json::{Map, Value};

use super::edges::{Bound, Limit, Measure, Side};
use super::{Entries, Format, Kind, List, Precision, Property, Schema, Text, Together, Union};
use crate::testing::agreement::compile;
use crate::testing::agreement::ecma::word_boundaries_spelt_out;
use crate::testing::agreement::json::integral;

/// Reads the schema `json` found at `pointer` (where values sit at `path`), numbering it and
/// those inside it from `id`.
pub(super) fn schema_at(json: &Value, pointer: String, path: String, id: &mut usize) -> Schema {
    let this = *id;
    *id += 1;
    let keywords =
        (json.as_object()).unwrap_or_else(|| panic!("{path}: a schema is an object, not {json}"));
    if let Some(branches) = keywords.get("oneOf") {
        return union_at(keywords, (branches, true), pointer, path, id, this);
    }
    if let Some(branches) = keywords.get("anyOf") {
        let null = serde_json::json!({ "type": "null" });
        return match branches.as_array().map(Vec::as_slice) {
            Some([_, second]) if second == &null => {
                nullable_at(keywords, branches, pointer, path, id, this)
            }
            _ => union_at(keywords, (branches, false), pointer, path, id, this),
        };
    }
    let kind_name = (keywords.get("type")).map(|kind| {
        kind.as_str()
            .unwrap_or_else(|| panic!("{path}: type is {kind}"))
    });
    let known: &[&str] = match (kind_name, keywords.contains_key("enum")) {
        (Some("string"), true) => &["enum"],
        (Some("string"), false) if keywords.contains_key("const") => &["const"],
        (Some("string"), false) => &["format", "minLength", "maxLength", "pattern"],
        (Some("integer"), true) => &["enum"],
        (Some("integer" | "number"), _) => {
            &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
        }
        (Some("array"), _) if keywords.contains_key("prefixItems") => {
            &["prefixItems", "items", "minItems"]
        }
        (Some("array"), _) => &["items", "minItems", "maxItems", "uniqueItems"],
        (Some("object"), _) => &[
            "properties",
            "required",
            "additionalProperties",
            "minProperties",
            "maxProperties",
            "not",
            "dependentRequired",
        ],
        (Some("boolean") | None, _) => &[],
        (Some(other), _) => panic!("{path}: the agreement check does not know the type {other:?}"),
    };
    let always = ["type", "description", "default", "examples"];
    if let Some(unknown) = (keywords.keys())
        .find(|key| !always.contains(&key.as_str()) && !known.contains(&key.as_str()))
    {
        panic!("{path}: the agreement check does not know the keyword {unknown:?} here: {json}");
    }
    let kind = match kind_name {
        Some("string") => read_string(keywords, &path),
        Some("boolean") => Kind::Boolean,
        Some("integer") if keywords.contains_key("enum") => read_numbers(keywords, &path),
        Some("integer" | "number") => read_number(keywords, &path),
        Some("array") if keywords.contains_key("prefixItems") => {
            read_tuple(keywords, &pointer, &path, id)
        }
        Some("array") => {
            let items = keywords
                .get("items")
                .unwrap_or_else(|| panic!("{path}: no items"));
            let unique = match keywords.get("uniqueItems") {
                None => false,
                Some(Value::Bool(unique)) => *unique,
                Some(other) => panic!("{path}: uniqueItems is {other}"),
            };
            Kind::List(List {
                items: Box::new(schema_at(
                    items,
                    format!("{pointer}/items"),
                    format!("{path}[]"),
                    id,
                )),
                min_items: count(keywords, "minItems", &path),
                max_items: count(keywords, "maxItems", &path),
                unique,
            })
        }
        Some("object") => read_object(keywords, &pointer, &path, id),
        _ => Kind::Any(read_depth(keywords, &path)),
    };
    let together = read_together(keywords, &path);
    let examples = match keywords.get("examples") {
        None => Vec::new(),
        Some(Value::Array(examples)) => examples.clone(),
        Some(other) => panic!("{path}: examples is {other}"),
    };
    let mut schema = Schema {
        id: this,
        pointer,
        path,
        kind,
        default: keywords.get("default").cloned(),
        examples,
        edges: Vec::new(),
        together,
    };
    schema.edges = schema.read_edges();
    schema
}

/// `oneOf` (`exclusive`) or `anyOf` of branches, beside nothing but a description, and for a
/// tagged union `"type": "object"` (every branch an object): a union. Each branch is read as a
/// schema of its own, at the union's place (`source#0` in messages), and compiled on its own
/// to tell which branch a value is of.
fn union_at(
    keywords: &Map<String, Value>,
    (branches, exclusive): (&Value, bool),
    pointer: String,
    path: String,
    id: &mut usize,
    this: usize,
) -> Schema {
    let keyword = if exclusive { "oneOf" } else { "anyOf" };
    if let Some(unknown) =
        (keywords.keys()).find(|key| ![keyword, "description", "type"].contains(&key.as_str()))
    {
        panic!(
            "{path}: the agreement check does not know the keyword {unknown:?} beside {keyword}"
        );
    }
    let branches =
        (branches.as_array()).unwrap_or_else(|| panic!("{path}: {keyword} is {branches}"));
    if let Some(kind) = keywords.get("type") {
        assert_eq!(kind, "object", "{path}: a union's type, if any, is object");
        for branch in branches {
            assert_eq!(
                branch["type"], "object",
                "{path}: a branch of an object union: {branch}"
            );
        }
    }
    let validators = (branches.iter())
        .map(|branch| {
            let mut branch = branch.clone();
            word_boundaries_spelt_out(&mut branch);
            compile(&branch, &path)
        })
        .collect();
    let branches = (branches.iter().enumerate())
        .map(|(index, branch)| {
            let pointer = format!("{pointer}/{keyword}/{index}");
            schema_at(branch, pointer, format!("{path}#{index}"), id)
        })
        .collect();
    Schema {
        id: this,
        pointer,
        path,
        kind: Kind::Union(Union {
            exclusive,
            branches,
            validators,
        }),
        default: None,
        examples: Vec::new(),
        edges: Vec::new(),
        together: Vec::new(),
    }
}

/// `"anyOf": [{…}, {"type": "null"}]` beside nothing but a description: a nullable value.
fn nullable_at(
    keywords: &Map<String, Value>,
    branches: &Value,
    pointer: String,
    path: String,
    id: &mut usize,
    this: usize,
) -> Schema {
    if let Some(unknown) =
        (keywords.keys()).find(|key| !["anyOf", "description"].contains(&key.as_str()))
    {
        panic!("{path}: the agreement check does not know the keyword {unknown:?} beside anyOf");
    }
    let [value, null] = (branches.as_array().map(Vec::as_slice))
        .unwrap_or_else(|| panic!("{path}: anyOf is {branches}"))
    else {
        panic!("{path}: the agreement check only knows anyOf of a value and null, not {branches}");
    };
    assert_eq!(
        null,
        &serde_json::json!({ "type": "null" }),
        "{path}: the second branch is not null"
    );
    let inner = schema_at(value, format!("{pointer}/anyOf/0"), path.clone(), id);
    Schema {
        id: this,
        pointer,
        path,
        kind: Kind::Nullable(Box::new(inner)),
        default: None,
        examples: Vec::new(),
        edges: Vec::new(),
        together: Vec::new(),
    }
}

/// The rules about which fields are given together: each entry of `not` (the `anyOf` inside
/// it, when there are several), and each name of `dependentRequired`.
fn read_together(keywords: &Map<String, Value>, path: &str) -> Vec<Together> {
    let names = |value: &Value| -> Vec<String> {
        (value
            .as_array()
            .unwrap_or_else(|| panic!("{path}: {value} is no list of names")))
        .iter()
        .map(|name| name.as_str().expect("a name").to_owned())
        .collect()
    };
    let entry = |entry: &Value| -> Together {
        if let Some(required) = entry.get("required") {
            return Together::NotAll(names(required));
        }
        let each = (entry.pointer("/not/anyOf").and_then(Value::as_array)).unwrap_or_else(|| {
            panic!("{path}: the agreement check does not know the group {entry}")
        });
        let names = (each.iter())
            .map(|one| {
                let Ok([name]) = <[String; 1]>::try_from(names(&one["required"])) else {
                    panic!("{path}: the agreement check does not know the group {entry}");
                };
                name
            })
            .collect();
        Together::NotNone(names)
    };
    let mut together = Vec::new();
    if let Some(not) = keywords.get("not") {
        match not.get("anyOf").and_then(Value::as_array) {
            Some(entries) if not.get("required").is_none() => {
                together.extend(entries.iter().map(entry));
            }
            _ => together.push(entry(not)),
        }
    }
    if let Some(Value::Object(dependent)) = keywords.get("dependentRequired") {
        for (name, needed) in dependent {
            together.push(Together::Needs(name.clone(), names(needed)));
        }
    }
    together
}

/// The count `key` states (a length, a number of elements or entries), if it is there.
fn count(keywords: &Map<String, Value>, key: &str, path: &str) -> Option<u64> {
    (keywords.get(key)).map(|value| {
        (value.as_u64()).unwrap_or_else(|| panic!("{path}: {key} is {value}, not a count"))
    })
}

/// A string, a UUID or another format, a choice, or one string alone.
fn read_string(keywords: &Map<String, Value>, path: &str) -> Kind {
    if let Some(value) = keywords.get("const") {
        let value = (value.as_str()).unwrap_or_else(|| panic!("{path}: const is {value}"));
        return Kind::Const(value.to_owned());
    }
    if let Some(values) = keywords.get("enum") {
        let values = (values.as_array())
            .unwrap_or_else(|| panic!("{path}: enum is {values}"))
            .iter()
            .map(|value| match value {
                Value::String(name) => name.clone(),
                other => {
                    panic!("{path}: the agreement check only knows string choices, not {other}")
                }
            })
            .collect();
        return Kind::Choice(values);
    }
    let text = Text {
        min_length: count(keywords, "minLength", path),
        max_length: count(keywords, "maxLength", path),
        pattern: keywords.get("pattern").map(|pattern| {
            (pattern.as_str().map(str::to_owned))
                .unwrap_or_else(|| panic!("{path}: pattern is {pattern}"))
        }),
    };
    let Some(format) = keywords.get("format") else {
        return Kind::String(text);
    };
    let plain = text.min_length.is_none() && text.max_length.is_none() && text.pattern.is_none();
    let kind = match format.as_str() {
        Some("uuid") => Kind::Uuid,
        Some(name) => Kind::Format(Format::named(name).unwrap_or_else(|| {
            panic!("{path}: the agreement check does not know the format {format}")
        })),
        None => panic!("{path}: format is {format}"),
    };
    // The generators and the expectations know a format alone, not beside a length or pattern.
    assert!(plain, "{path}: rules beside format {format}");
    kind
}

/// An integer choice: the integers its `enum` lists.
fn read_numbers(keywords: &Map<String, Value>, path: &str) -> Kind {
    let values = (keywords["enum"].as_array())
        .unwrap_or_else(|| panic!("{path}: enum is {}", keywords["enum"]))
        .iter()
        .map(|value| {
            (value.as_i64()).unwrap_or_else(|| panic!("{path}: {value} is no integer choice"))
        })
        .collect();
    Kind::Numbers(values)
}

/// An integer or a number, with its bounds; an `f32` told from an `f64` by its range.
fn read_number(keywords: &Map<String, Value>, path: &str) -> Kind {
    const BOUNDS: [(&str, Side, bool); 4] = [
        ("minimum", Side::Lower, false),
        ("exclusiveMinimum", Side::Lower, true),
        ("maximum", Side::Upper, false),
        ("exclusiveMaximum", Side::Upper, true),
    ];
    let integer = keywords["type"] == "integer";
    // An `f32`'s own range, as the `f64`s it publishes it in.
    let f32_range = |key: &str| {
        let largest = f64::from(f32::MAX);
        keywords.get(key).and_then(Value::as_f64)
            == Some(if key == "minimum" { -largest } else { largest })
    };
    let precision = if f32_range("minimum") || f32_range("maximum") {
        Precision::Single
    } else {
        Precision::Double
    };
    let bounds = (BOUNDS.into_iter())
        .filter_map(|(keyword, side, exclusive)| {
            let number = match keywords.get(keyword)? {
                Value::Number(number) => number,
                other => panic!("{path}: {keyword} is {other}"),
            };
            let limit = if integer {
                Limit::Whole(integral(number).expect("an integral bound"))
            } else {
                let real = number.as_f64().expect("a bound serde_json reads as f64");
                // A whole bound beyond 2^53 would be compared as the nearest f64.
                let exact = number.is_f64() || integral(number) == Some(real as i128);
                assert!(exact, "{path}: {keyword} {number} is not exactly an f64");
                Limit::Real(real)
            };
            Some(Bound {
                keyword,
                measure: Measure::Number,
                side,
                exclusive,
                limit,
            })
        })
        .collect();
    if integer {
        Kind::Integer(bounds)
    } else {
        Kind::Float(precision, bounds)
    }
}

/// A tuple: its elements' schemas, closed by `"items": false` at a length `minItems` states.
fn read_tuple(keywords: &Map<String, Value>, pointer: &str, path: &str, id: &mut usize) -> Kind {
    let elements = (keywords["prefixItems"].as_array())
        .unwrap_or_else(|| panic!("{path}: prefixItems is not an array"));
    assert_eq!(
        keywords.get("items"),
        Some(&Value::Bool(false)),
        "{path}: the agreement check only knows tuples closed by items: false"
    );
    assert_eq!(
        count(keywords, "minItems", path),
        Some(elements.len() as u64),
        "{path}: a tuple whose minItems is not its length"
    );
    let elements = (elements.iter().enumerate())
        .map(|(index, element)| {
            let pointer = format!("{pointer}/prefixItems/{index}");
            schema_at(element, pointer, format!("{path}[{index}]"), id)
        })
        .collect();
    Kind::Tuple(elements)
}

/// An object with declared fields (`"additionalProperties": false`), or a map (a schema as
/// `additionalProperties`, and no declared fields).
fn read_object(keywords: &Map<String, Value>, pointer: &str, path: &str, id: &mut usize) -> Kind {
    match keywords.get("additionalProperties") {
        Some(others) if keywords.contains_key("properties") => {
            let counts = ["minProperties", "maxProperties"];
            assert!(
                counts.iter().all(|key| !keywords.contains_key(*key)),
                "{path}: the agreement check does not know entry counts on an object with fields"
            );
            let required: Vec<&str> = match keywords.get("required") {
                None => Vec::new(),
                Some(names) => (names.as_array().into_iter().flatten())
                    .map(|name| name.as_str().expect("a required name"))
                    .collect(),
            };
            let properties = (keywords.get("properties").and_then(Value::as_object))
                .unwrap_or_else(|| panic!("{path}: an object with no properties object"));
            for name in &required {
                assert!(
                    properties.contains_key(*name),
                    "{path}: {name} is required, not declared"
                );
            }
            let properties = (properties.iter())
                .map(|(name, json)| {
                    let path = if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}.{name}")
                    };
                    let pointer = format!("{pointer}/properties/{}", escaped(name));
                    Property {
                        name: name.clone(),
                        required: required.contains(&name.as_str()),
                        schema: schema_at(json, pointer, path, id),
                    }
                })
                .collect();
            let others_path = if path.is_empty() {
                "*".to_owned()
            } else {
                format!("{path}.*")
            };
            let others = match others {
                Value::Bool(false) => None,
                // Any JSON value, which the parser reads as free-form JSON: nested at most
                // `MAX_JSON_DEPTH` deep, the one rule `true` cannot state.
                Value::Bool(true) => Some(Box::new(Schema {
                    id: {
                        *id += 1;
                        *id - 1
                    },
                    pointer: format!("{pointer}/additionalProperties"),
                    path: others_path,
                    kind: Kind::Any(crate::arg::MAX_JSON_DEPTH),
                    default: None,
                    examples: Vec::new(),
                    edges: Vec::new(),
                    together: Vec::new(),
                })),
                schema => Some(Box::new(schema_at(
                    schema,
                    format!("{pointer}/additionalProperties"),
                    others_path,
                    id,
                ))),
            };
            Kind::Object(properties, others)
        }
        Some(values @ Value::Object(_)) => {
            let fields = ["properties", "required"];
            assert!(
                fields.iter().all(|key| !keywords.contains_key(*key)),
                "{path}: the agreement check does not know a map with declared fields"
            );
            Kind::Map(Entries {
                values: Box::new(schema_at(
                    values,
                    format!("{pointer}/additionalProperties"),
                    format!("{path}{{}}"),
                    id,
                )),
                min_entries: count(keywords, "minProperties", path),
                max_entries: count(keywords, "maxProperties", path),
            })
        }
        other => panic!("{path}: the agreement check does not know additionalProperties {other:?}"),
    }
}

/// How deep free-form JSON may nest, as its description says ("nested at most 32 deep"): the
/// one rule of it that JSON Schema cannot state, and which the generators keep to.
fn read_depth(keywords: &Map<String, Value>, path: &str) -> usize {
    const SAYS: &str = "nested at most ";
    let description = keywords.get("description").and_then(Value::as_str);
    let depth = description.and_then(|description| {
        let after = &description[description.find(SAYS)? + SAYS.len()..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    });
    depth.unwrap_or_else(|| panic!("{path}: free-form JSON whose description gives no depth"))
}

/// `name` as one step of a JSON pointer.
fn escaped(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
