//! Unions: a `#[derive(Args)]` enum, one branch per variant, where a value fits one of several
//! shapes.
//!
//! - Tagged (`#[args(tag = "type")]`): every branch is an object whose tag field names it
//!   (`{"type": "file", "path": "…"}`). Published as `oneOf`, each branch with the tag as a
//!   required `const`; read by the branch the tag names, so that its own fields are reported
//!   one by one.
//! - Untagged (`#[args(untagged)]`): a branch is one value of an argument type, or an object.
//!   Published as `anyOf` of the branches, or `oneOf` when no two branches take the same JSON
//!   type; read by the first branch that fits, as a validator of `anyOf` accepts a value any
//!   branch accepts. A value that fits none is refused with one sentence per branch.

use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type, quoted};
use crate::error::join_or;
use crate::group::Group;
use crate::read::Fields;
use crate::schema::{description, tagged_object_schema};
use crate::{ArgSpec, Violations};

/// An argument that fits one of several shapes: what `#[derive(Args)]` implements for an enum,
/// with its [`Arg`] impl.
pub trait Union: Arg {
    /// The name of the field that says which branch an object is (`"type"`), for a tagged
    /// union; `None` for an untagged one.
    const TAG: Option<&'static str>;

    /// The branches, one per variant, in declaration order: the order an untagged union tries
    /// them in.
    const BRANCHES: &'static [Branch];
}

/// One branch of a union: one variant.
#[derive(Debug)]
pub struct Branch {
    /// The tag's value that names the branch (`"file"`), for a tagged union; for an untagged
    /// one, the variant's name in snake_case, which nothing on the wire shows.
    pub name: &'static str,
    /// The variant's doc comment, published as the branch's description.
    pub description: Option<&'static str>,
    pub shape: Shape,
}

/// What a branch holds.
#[derive(Debug)]
pub enum Shape {
    /// An object with these fields: a struct variant's, or the `#[derive(Args)]` struct's a
    /// newtype variant holds (none for a unit variant of a tagged union, whose object holds
    /// the tag alone).
    Object {
        fields: &'static [ArgSpec],
        /// Which of them are given together.
        groups: &'static [Group],
    },
    /// One value of a type, with the rules declared on it: a newtype variant of an untagged
    /// union (`Name(String)`).
    Value {
        /// Writes the JSON Schema of the value's type: its [`Arg::schema`].
        schema: fn(&mut Map<String, Value>, &Rules),
        rules: Rules,
    },
}

impl Branch {
    /// The fields of an object branch; none for a value.
    pub fn fields(&self) -> &'static [ArgSpec] {
        match self.shape {
            Shape::Object { fields, .. } => fields,
            Shape::Value { .. } => &[],
        }
    }

    /// Which fields of an object branch are given together; none for a value.
    pub fn groups(&self) -> &'static [Group] {
        match self.shape {
            Shape::Object { groups, .. } => groups,
            Shape::Value { .. } => &[],
        }
    }

    /// The rules of a value branch; none for an object.
    pub fn rules(&self) -> &Rules {
        match &self.shape {
            Shape::Object { .. } => &Rules::NONE,
            Shape::Value { rules, .. } => rules,
        }
    }

    /// The branch's schema on its own: an object's, with the tag as a required `const` first
    /// for a tagged union, or the value's type's; described by the variant's doc comment.
    fn schema(&self, tag: Option<&str>) -> Map<String, Value> {
        let mut schema = Map::new();
        match &self.shape {
            Shape::Object { fields, groups } => {
                let tag = tag.map(|tag| (tag, self.name));
                tagged_object_schema(fields, groups, tag, &mut schema);
            }
            Shape::Value {
                schema: write,
                rules,
            } => write(&mut schema, rules),
        }
        if let Some(description) = description(&mut schema, self.description) {
            schema.insert("description".into(), json!(description));
        }
        schema
    }
}

/// The schema of union `U`: `oneOf` its branches for a tagged union (an object, whichever);
/// for an untagged one `anyOf`, or `oneOf` when no two branches take the same JSON type.
pub fn schema<U: Union>(schema: &mut Map<String, Value>, rules: &Rules) {
    let branches: Vec<Map<String, Value>> = U::BRANCHES
        .iter()
        .map(|branch| branch.schema(U::TAG))
        .collect();
    let keyword = if U::TAG.is_some() || disjoint(&branches) {
        "oneOf"
    } else {
        "anyOf"
    };
    if U::TAG.is_some() {
        schema.insert("type".into(), json!("object"));
    }
    let branches = branches.into_iter().map(Value::Object).collect();
    schema.insert(keyword.into(), Value::Array(branches));
    rules.publish(schema);
}

/// Whether no JSON value fits two of `branches` by its type alone: each states its `type`, and
/// no two share one (an `integer` is a `number`).
fn disjoint(branches: &[Map<String, Value>]) -> bool {
    let mut taken: Vec<&str> = Vec::new();
    for branch in branches {
        let Some(types) = json_types(branch) else {
            return false;
        };
        let types: Vec<&str> = types
            .into_iter()
            .map(|name| if name == "integer" { "number" } else { name })
            .collect();
        if types.iter().any(|name| taken.contains(name)) {
            return false;
        }
        taken.extend(types);
    }
    true
}

/// The JSON types a schema's `type` names; `None` where it names none (any value).
fn json_types(schema: &Map<String, Value>) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => names.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// Reads the tag of a tagged union `U`'s object: the branch it names, with the object's fields
/// to read as that branch's, the tag among them. A value that is not an object, or whose tag
/// is missing or names no branch, is refused.
pub fn read_tagged<'a, U: Union>(
    value: &'a Value,
    at: &'a mut Reading<'_>,
) -> Option<(usize, Fields<'a>)> {
    // The derive implements `Union` with a tag for a tagged enum only.
    let tag = U::TAG?;
    let names = || U::BRANCHES.iter().map(|branch| branch.name);
    let Some(object) = value.as_object() else {
        return at.refuse(format!(
            "Must be an object whose {tag} is {}, not {}.",
            join_or(names(), "or"),
            json_type(value)
        ));
    };
    let index = match object.get(tag) {
        Some(Value::String(text)) => match names().position(|name| name == text) {
            Some(index) => index,
            None => {
                let mut sentence = format!(
                    "Must be one of {}, not {}.",
                    names().collect::<Vec<_>>().join(", "),
                    quoted(text)
                );
                if let Some(meant) = did_you_mean::closest(text, names()) {
                    sentence.push_str(&format!(" Did you mean {meant}?"));
                }
                return refuse_tag(at, tag, "enum", sentence);
            }
        },
        None | Some(Value::Null) => {
            let sentence = format!(
                "This field is required: it says which kind of object this is, {}.",
                join_or(names(), "or")
            );
            return refuse_tag(at, tag, "required", sentence);
        }
        Some(other) => {
            let sentence = format!(
                "Must be one of {}, not {}.",
                names().collect::<Vec<_>>().join(", "),
                json_type(other)
            );
            return refuse_tag(at, tag, "enum", sentence);
        }
    };
    let branch = U::BRANCHES.get(index)?;
    let fields = Fields::nested(branch.fields(), value, at)?
        .with_tag(tag)
        .with_groups(branch.groups());
    Some((index, fields))
}

/// Reports a problem of the tag itself, under its place (`source.type`).
fn refuse_tag<T>(
    at: &mut Reading<'_>,
    tag: &str,
    rule: &'static str,
    sentence: String,
) -> Option<T> {
    let place = format!("{}.{tag}", at.wire_path());
    at.violations().push_broken(place, false, rule, sentence);
    None
}

/// Reads an untagged union `U`'s value by the first branch that fits it (`read` reads it as
/// the branch at an index); when none does, refuses it with what each branch is, and why it
/// does not fit where it takes the value's JSON type.
pub fn read_untagged<U: Union>(
    value: &Value,
    rules: &Rules,
    at: &mut Reading<'_>,
    mut read: impl FnMut(usize, &Value, &mut Reading<'_>) -> Option<U>,
) -> Option<U> {
    let mut misses = Vec::with_capacity(U::BRANCHES.len());
    for index in 0..U::BRANCHES.len() {
        let mut violations = Violations::default();
        if let Some(read) = read(index, value, &mut Reading::quiet(&mut violations)) {
            at.check(value, rules)?;
            return Some(read);
        }
        misses.push(violations);
    }
    at.refuse(no_fit(U::BRANCHES, value, &misses))
}

/// Reasons given for one branch, at most; more are counted.
const MAX_REASONS_PER_BRANCH: usize = 3;

/// The sentence for a value no branch fits. Where no branch takes its JSON type:
/// `Must be a string or an object with url, not a number.`; else each branch with, for those
/// that take it, why it does not fit:
/// `Must be one of: a string (Must be 8 characters or fewer, not 9), or an object with url.`
fn no_fit(branches: &[Branch], value: &Value, misses: &[Violations]) -> String {
    let schemas: Vec<Map<String, Value>> =
        branches.iter().map(|branch| branch.schema(None)).collect();
    let nouns: Vec<String> = branches
        .iter()
        .zip(&schemas)
        .map(|(branch, schema)| noun(branch, schema))
        .collect();
    let takes = |schema: &Map<String, Value>| {
        json_types(schema).is_none_or(|types| types.iter().any(|name| is_of_type(value, name)))
    };
    if !schemas.iter().any(takes) {
        return format!(
            "Must be {}, not {}.",
            join_or(nouns.iter().map(String::as_str), "or"),
            json_type(value)
        );
    }
    let described: Vec<String> = nouns
        .into_iter()
        .zip(&schemas)
        .zip(misses)
        .map(|((noun, schema), miss)| {
            if takes(schema) && !miss.is_empty() {
                format!("{noun} ({})", reasons(miss))
            } else {
                noun
            }
        })
        .collect();
    format!("Must be one of: {}.", described.join(", or "))
}

/// Why a value does not fit a branch: its first few violations, each under its place inside
/// the value (`url: This field is required.`), the last without its full stop.
fn reasons(miss: &Violations) -> String {
    let mut reasons: Vec<String> = miss
        .iter()
        .take(MAX_REASONS_PER_BRANCH)
        .map(|violation| {
            let place = violation.argument.trim_start_matches('.');
            if place.is_empty() {
                violation.sentence.clone()
            } else {
                format!("{place}: {}", violation.sentence)
            }
        })
        .collect();
    let more = miss.len().saturating_sub(MAX_REASONS_PER_BRANCH);
    if more > 0 {
        reasons.push(format!("and {more} more."));
    }
    let text = reasons.join(" ");
    text.strip_suffix('.').map(str::to_owned).unwrap_or(text)
}

/// What a branch is, in a sentence: `a string`, `an object with url and headers`, `one of low
/// or high`.
fn noun(branch: &Branch, schema: &Map<String, Value>) -> String {
    if let Shape::Object { fields, .. } = branch.shape {
        return object_noun(fields.iter().map(|field| field.name));
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let values: Vec<String> = values
            .iter()
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect();
        return format!(
            "one of {}",
            join_or(values.iter().map(String::as_str), "or")
        );
    }
    let Some(types) = json_types(schema) else {
        return format!("any value ({})", branch.name);
    };
    let nouns: Vec<String> = types
        .iter()
        .map(|name| match *name {
            "object" => match schema.get("properties") {
                Some(Value::Object(properties)) => {
                    object_noun(properties.keys().map(String::as_str))
                }
                _ => "an object".to_owned(),
            },
            "array" => "an array".to_owned(),
            "integer" => "an integer".to_owned(),
            "null" => "null".to_owned(),
            other => format!("a {other}"),
        })
        .collect();
    join_or(nouns.iter().map(String::as_str), "or")
}

/// An object by its fields: `an object with url and headers`, `an empty object`.
fn object_noun<'a>(fields: impl ExactSizeIterator<Item = &'a str>) -> String {
    if fields.len() == 0 {
        "an empty object".to_owned()
    } else {
        format!("an object with {}", join_or(fields, "and"))
    }
}

/// Whether `value` is of the JSON Schema type `name` (an `integer` a number with no fraction).
fn is_of_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(number)) => {
            number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branches_of_different_json_types_are_disjoint() {
        let of = |value: Value| match value {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let string = of(json!({ "type": "string" }));
        let object = of(json!({ "type": "object" }));
        let integer = of(json!({ "type": "integer" }));
        let number = of(json!({ "type": ["number", "null"] }));
        let any = of(json!({}));
        assert!(disjoint(&[string.clone(), object.clone()]));
        assert!(disjoint(&[string.clone(), integer.clone()]));
        assert!(!disjoint(&[integer, number]));
        assert!(!disjoint(&[string.clone(), string.clone()]));
        assert!(!disjoint(&[string, any]));
    }

    #[test]
    fn an_integer_is_a_number_with_no_fraction() {
        assert!(is_of_type(&json!(3), "integer"));
        assert!(is_of_type(&json!(3.0), "integer"));
        assert!(!is_of_type(&json!(3.5), "integer"));
        assert!(is_of_type(&json!(3.5), "number"));
        assert!(!is_of_type(&json!("3"), "number"));
    }
}
