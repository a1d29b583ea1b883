//! The oracle's model of the arguments: all it knows of them, read from the input schema alone
//! (never from the spec the parser reads, so that it cannot share a mistake with the parser).
//!
//! A [`Schema`] describes one value, recursively: an argument, a field of an object, a list's
//! elements, a map's values. Reading panics on what the check cannot read, a keyword it does
//! not know or one on a type it does not expect: that would be a rule it does not check. Each
//! schema lists the [`Edge`]s a value can sit at and just past, which the tally counts.
//!
//! [`read`] reads the input schema into this model; [`edges`] holds the bounds and rules a value
//! can sit at.

mod edges;
mod read;

use crate::ToolSpec;
use jsonschema::Validator;
use serde_json::Value;

pub use edges::{Bound, Edge, Limit, Measure, Side};

/// One argument of a tool, or one field of an object inside one.
#[derive(Debug)]
pub struct Property {
    /// The wire name.
    pub name: String,
    /// Listed in its object's `required`.
    pub required: bool,
    pub schema: Schema,
}

/// What the input schema says of one value.
#[derive(Debug)]
pub struct Schema {
    /// Its number, in the order read (the root, the tool's arguments object, is 0): where the
    /// tally keeps its counts.
    pub id: usize,
    /// A JSON pointer to it in the input schema (`/properties/edits/items`), to take one of its
    /// keywords out.
    pub pointer: String,
    /// Where its values sit, in wire names, for messages: `edits[].oldText`, `headers{}`; empty
    /// for the root.
    pub path: String,
    pub kind: Kind,
    /// `default`, the value the tool receives when this field is left out.
    pub default: Option<Value>,
    /// `examples`, values a client could send.
    pub examples: Vec<Value>,
    /// The rules whose edges a value can sit at and just past.
    pub edges: Vec<Edge>,
    /// For an object, its rules about which fields are given together.
    pub together: Vec<Together>,
}

/// A rule about which fields of an object are given together, as its schema states it.
#[derive(Clone, Debug, PartialEq)]
pub enum Together {
    /// An entry of `not` (of its `anyOf`, when there are several), `{"required": [a, b]}`:
    /// never all of these.
    NotAll(Vec<String>),
    /// An entry of `not`, `{"not": {"anyOf": [{"required": [a]}, …]}}`: never none of these.
    NotNone(Vec<String>),
    /// `dependentRequired`: when the first is given, all of the others.
    Needs(String, Vec<String>),
}

/// A value's JSON type, as `type` and `format` give it, and its rules.
#[derive(Debug)]
pub enum Kind {
    /// `"type": "string"`.
    String(Text),
    /// `"type": "string", "format": "uuid"`.
    Uuid,
    /// `"type": "string"` with one of the other formats the toolkit publishes, and no other rule.
    Format(Format),
    /// `"type": "string", "enum": [...]`: its values.
    Choice(Vec<String>),
    /// `"type": "integer", "enum": [...]`: its values.
    Numbers(Vec<i64>),
    Boolean,
    /// `"type": "integer"`, with its bounds.
    Integer(Vec<Bound>),
    /// `"type": "number"`, held by the tool in this precision, with its bounds.
    Float(Precision, Vec<Bound>),
    /// `"type": "array"`.
    List(List),
    /// `"type": "array"` with `prefixItems`, `"items": false` and `minItems` the length: exactly
    /// these elements, in order.
    Tuple(Vec<Schema>),
    /// `"type": "object"` with `properties`, and `"additionalProperties": false`, or the schema
    /// of any other name's value (`true`: any JSON value).
    Object(Vec<Property>, Option<Box<Schema>>),
    /// `"type": "object"` whose `additionalProperties` is a schema: any keys.
    Map(Entries),
    /// No type: any JSON value, nested at most this many arrays and objects deep, as its
    /// description says (JSON Schema has no keyword for it).
    Any(usize),
    /// `"anyOf": [{…}, {"type": "null"}]`: a value of the first schema, or `null`, which for a
    /// field means something else than leaving it out.
    Nullable(Box<Schema>),
    /// `"type": "string", "const": "…"`: that one string (a tagged union's tag).
    Const(String),
    /// `oneOf` or `anyOf` of branches: a value one of them accepts.
    Union(Union),
}

/// The branches of a union, and what tells which one a value is of.
#[derive(Debug)]
pub struct Union {
    /// `oneOf` (exactly one branch accepts a value), rather than `anyOf` (at least one).
    pub exclusive: bool,
    pub branches: Vec<Schema>,
    /// Each branch on its own, compiled as the input schema is.
    pub validators: Vec<Validator>,
}

impl Union {
    /// The first branch that accepts `value`, as the validator is given it (see
    /// [`crate::testing::agreement::expect::for_validator`]; each branch reads a declared field's `null` as left out
    /// on its own terms); `None` when none does.
    pub fn branch_of(&self, value: &Value) -> Option<usize> {
        (self.branches.iter().zip(&self.validators)).position(|(branch, validator)| {
            validator.is_valid(&crate::testing::agreement::expect::without_null_fields(
                branch, value,
            ))
        })
    }

    /// The branches a value is visited in: the one it is of, or when none accepts it, every
    /// one (the tally then asks the validator which rule alone kept it out).
    fn visited(&self, value: &Value) -> Vec<&Schema> {
        match self.branch_of(value) {
            Some(index) => vec![&self.branches[index]],
            None => self.branches.iter().collect(),
        }
    }
}

/// A string format other than `uuid`, as JSON Schema (draft 2020-12) names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    /// `uri`: RFC 3986's `URI`, a scheme and the rest.
    Uri,
    /// `date`: RFC 3339's `full-date`.
    Date,
    /// `date-time`: RFC 3339's `date-time`, with its offset.
    DateTime,
    /// `email`: RFC 5321's `Mailbox`.
    Email,
}

impl Format {
    /// The format as the schema names it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
            Format::Email => "email",
        }
    }

    /// The format the schema names `name`, if the check knows it.
    pub fn named(name: &str) -> Option<Format> {
        [Format::Uri, Format::Date, Format::DateTime, Format::Email]
            .into_iter()
            .find(|format| format.name() == name)
    }
}

/// A string's rules.
#[derive(Debug)]
pub struct Text {
    /// `minLength` and `maxLength`, in characters.
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// `pattern`, as published: ECMA-262 syntax.
    pub pattern: Option<String>,
}

/// A list's elements and rules.
#[derive(Debug)]
pub struct List {
    /// `items`.
    pub items: Box<Schema>,
    /// `minItems` and `maxItems`.
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    /// `uniqueItems`.
    pub unique: bool,
}

/// A map's values and rules.
#[derive(Debug)]
pub struct Entries {
    /// `additionalProperties`.
    pub values: Box<Schema>,
    /// `minProperties` and `maxProperties`.
    pub min_entries: Option<u64>,
    pub max_entries: Option<u64>,
}

/// The float type a `number` is held in. JSON Schema has no word for it, so it is read from the
/// range: only an `f32` publishes `f32`'s largest value as a `minimum` or `maximum`. (An `f32`
/// declaring both `min` and `max` would publish neither and be read as an `f64`; the values it
/// received would then fail the comparison, loudly. None of the declarations does.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    Single,
    Double,
}

impl Precision {
    /// The number the tool holds for `number` (as serde_json reads the JSON number, the nearest
    /// `f64`): itself, or for an `f32` the nearest `f32` (as `as` rounds), widened back exactly,
    /// as serde_json serialises an `f32`.
    pub fn held(self, number: f64) -> f64 {
        match self {
            Precision::Double => number,
            Precision::Single => f64::from(number as f32),
        }
    }
}

impl Schema {
    /// The input schema of `spec`: the root, the arguments object. Its fields are the tool's
    /// arguments, in the schema's order.
    pub fn root(spec: &ToolSpec) -> Schema {
        let schema = Value::Object(crate::input_schema(spec));
        let root = read::schema_at(&schema, String::new(), String::new(), &mut 0);
        assert!(
            matches!(root.kind, Kind::Object(..)),
            "{}: the input schema is not an object with properties",
            spec.name
        );
        root
    }

    /// The fields of an object, the tool's arguments for the root; none for another kind.
    pub fn fields(&self) -> &[Property] {
        match &self.kind {
            Kind::Object(properties, _) => properties,
            _ => &[],
        }
    }

    /// Every schema in this one, itself first, in the order of their ids.
    pub fn all(&self) -> Vec<&Schema> {
        let mut all = vec![self];
        match &self.kind {
            Kind::List(list) => all.extend(list.items.all()),
            Kind::Tuple(elements) => {
                for element in elements {
                    all.extend(element.all());
                }
            }
            Kind::Map(entries) => all.extend(entries.values.all()),
            Kind::Nullable(inner) => all.extend(inner.all()),
            Kind::Union(union) => {
                for branch in &union.branches {
                    all.extend(branch.all());
                }
            }
            Kind::Object(properties, others) => {
                for property in properties {
                    all.extend(property.schema.all());
                }
                if let Some(others) = others {
                    all.extend(others.all());
                }
            }
            _ => {}
        }
        all
    }

    /// Calls `visit` with each schema in this one and each value at it in `value` (a declared
    /// field given, not `null`; each element; each map value), this one first.
    pub fn visit<'a>(&'a self, value: &'a Value, visit: &mut impl FnMut(&'a Schema, &'a Value)) {
        visit(self, value);
        match (&self.kind, value) {
            (Kind::List(list), Value::Array(items)) => {
                for item in items {
                    list.items.visit(item, visit);
                }
            }
            (Kind::Tuple(elements), Value::Array(items)) => {
                for (element, item) in elements.iter().zip(items) {
                    element.visit(item, visit);
                }
            }
            (Kind::Map(entries), Value::Object(object)) => {
                for value in object.values() {
                    entries.values.visit(value, visit);
                }
            }
            (Kind::Nullable(inner), value) if !value.is_null() => inner.visit(value, visit),
            (Kind::Union(union), value) => {
                for branch in union.visited(value) {
                    branch.visit(value, visit);
                }
            }
            (Kind::Object(properties, others), Value::Object(object)) => {
                for property in properties {
                    if let Some(value) = object.get(&property.name).filter(|v| !v.is_null()) {
                        property.schema.visit(value, visit);
                    }
                }
                if let Some(others) = others {
                    for (name, value) in object {
                        if !properties.iter().any(|property| &property.name == name) {
                            others.visit(value, visit);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Calls `visit` with each schema in this one and each value at it in `value`, as
    /// [`Schema::visit`] does, each value given to change.
    pub fn visit_mut(&self, value: &mut Value, visit: &mut impl FnMut(&Schema, &mut Value)) {
        visit(self, value);
        match (&self.kind, value) {
            (Kind::List(list), Value::Array(items)) => {
                for item in items {
                    list.items.visit_mut(item, visit);
                }
            }
            (Kind::Tuple(elements), Value::Array(items)) => {
                for (element, item) in elements.iter().zip(items) {
                    element.visit_mut(item, visit);
                }
            }
            (Kind::Map(entries), Value::Object(object)) => {
                for value in object.values_mut() {
                    entries.values.visit_mut(value, visit);
                }
            }
            (Kind::Nullable(inner), value) if !value.is_null() => inner.visit_mut(value, visit),
            (Kind::Union(union), value) => {
                for branch in union.visited(value) {
                    branch.visit_mut(value, visit);
                }
            }
            (Kind::Object(properties, others), Value::Object(object)) => {
                for property in properties {
                    if let Some(value) = object.get_mut(&property.name).filter(|v| !v.is_null()) {
                        property.schema.visit_mut(value, visit);
                    }
                }
                if let Some(others) = others {
                    for (name, value) in object.iter_mut() {
                        if !properties.iter().any(|property| &property.name == name) {
                            others.visit_mut(value, visit);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Every bound this number states, inclusive or exclusive, tight or not; none for another
    /// kind.
    pub fn bounds(&self) -> &[Bound] {
        match &self.kind {
            Kind::Integer(bounds) | Kind::Float(_, bounds) => bounds,
            _ => &[],
        }
    }

    /// The outermost values this number lets in below and above, if it has an edge there.
    fn range(&self) -> (Option<Limit>, Option<Limit>) {
        let last_in = |side| {
            self.edges.iter().find_map(|edge| match edge {
                Edge::Bound(bound) if bound.side == side => Some(bound.last_in()),
                _ => None,
            })
        };
        (last_in(Side::Lower), last_in(Side::Upper))
    }

    /// The integers this integer allows, as a range the generators can draw from: its edges,
    /// else the widest a JSON integer the tests send can be.
    pub fn integer_range(&self) -> (i128, i128) {
        let whole = |limit: Option<Limit>, otherwise: i128| match limit {
            Some(Limit::Whole(value)) => value,
            _ => otherwise,
        };
        let (low, high) = self.range();
        (
            whole(low, i128::from(i64::MIN)),
            whole(high, i128::from(u64::MAX)),
        )
    }

    /// The `f64`s this number allows, both ends included: for an exclusive bound, the next
    /// `f64` inside it, else the widest a JSON number can be.
    pub fn float_range(&self) -> (f64, f64) {
        let real = |limit: Option<Limit>, otherwise: f64| match limit {
            Some(Limit::Real(value)) => value,
            _ => otherwise,
        };
        let (low, high) = self.range();
        (real(low, f64::MIN), real(high, f64::MAX))
    }
}
