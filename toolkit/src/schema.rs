//! The JSON schemas a client sees: the input schema built from the same [`ToolSpec`] the parser
//! enforces, and the output schema derived from the output type with schemars, made
//! self-contained and free of `null` types.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::group::{self, Group};
use crate::{ArgSpec, Presence, ToolSpec};

/// The input schema of a tool: one property per argument with its type and rules (a nullable
/// one's as `anyOf` with `null`), the required ones listed, and no other names allowed.
pub fn input_schema(spec: &ToolSpec) -> Map<String, Value> {
    let mut schema = Map::new();
    object_schema(spec.args, spec.groups, &mut schema);
    schema
}

/// The schema of an object with the fields `args` (a tool's arguments, or a
/// `#[derive(Args)]` struct's fields): each field's property, the required ones listed, and no
/// other names allowed, or for a field with `#[arg(flatten)]` other names with its values.
pub fn object_schema(args: &[ArgSpec], groups: &[Group], schema: &mut Map<String, Value>) {
    tagged_object_schema(args, groups, None, schema);
}

/// [`object_schema`], with a tagged union's tag `(tag, name)` as the first property, required
/// and holding `name` alone.
pub(crate) fn tagged_object_schema(
    args: &[ArgSpec],
    groups: &[Group],
    tag: Option<(&str, &str)>,
    schema: &mut Map<String, Value>,
) {
    let mut properties = Map::new();
    let mut required = Vec::new();
    if let Some((tag, name)) = tag {
        properties.insert(tag.into(), json!({ "type": "string", "const": name }));
        required.push(json!(tag));
    }
    let mut others = json!(false);
    for arg in args {
        if let Some(flattened) = arg.flatten {
            others = flattened(&arg.rules);
            // Said of the values, where they have a schema of their own (not `true`).
            if let Value::Object(values) = &mut others
                && let Some(description) = description(values, arg.description)
            {
                values.insert("description".into(), json!(description));
            }
            continue;
        }
        let mut property = Map::new();
        (arg.schema)(&mut property, &arg.rules);
        match arg.presence {
            Presence::Required => required.push(json!(arg.name)),
            Presence::Default(default) => {
                property.insert("default".into(), default.json());
            }
            Presence::Optional | Presence::RequiredUnless(_) => {}
        }
        if !arg.examples.is_empty() {
            let examples = arg.examples.iter().map(|example| example.json()).collect();
            property.insert("examples".into(), Value::Array(examples));
        }
        let description = description(&mut property, arg.description);
        if arg.nullable {
            // `null` is a value of its own: either the type's value or `null`, described once.
            let either = json!([Value::Object(property), { "type": "null" }]);
            property = Map::from_iter([("anyOf".to_owned(), either)]);
        }
        if let Some(description) = description {
            property.insert("description".into(), json!(description));
        }
        properties.insert(arg.name.into(), Value::Object(property));
    }

    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), others);
    group::schema(args, groups, schema);
}

/// Takes the description a type wrote into `schema` (a `Choice`'s values) and puts `own`, the
/// declaration's doc comment, before it: the description the value is published with.
pub(crate) fn description(schema: &mut Map<String, Value>, own: Option<&str>) -> Option<String> {
    let described = schema.remove("description");
    match (own, described.as_ref().and_then(Value::as_str)) {
        (Some(own), Some(values)) => Some(format!("{own} {values}")),
        (Some(own), None) => Some(own.to_owned()),
        (None, values) => values.map(str::to_owned),
    }
}

/// Why an output type cannot be published as an MCP output schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputSchemaError {
    /// MCP needs the root of an output schema to be an object.
    NotAnObject,
    /// A recursive type keeps a `$ref`, which some clients cannot resolve.
    Reference,
}

/// The output schema of `T`: serialisation contract, every subschema inlined, no `$schema`,
/// no root title, and a property that is left out when absent not also typed `null`.
pub fn output_schema<T: JsonSchema>() -> Result<Map<String, Value>, OutputSchemaError> {
    let generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>().to_value();
    let Value::Object(mut schema) = schema else {
        return Err(OutputSchemaError::NotAnObject);
    };
    if schema.get("type") != Some(&json!("object")) {
        return Err(OutputSchemaError::NotAnObject);
    }
    schema.remove("title");
    schema.remove("$defs");
    let mut schema = Value::Object(schema);
    tidy(&mut schema);
    if mentions_reference(&schema) {
        return Err(OutputSchemaError::Reference);
    }
    match schema {
        Value::Object(schema) => Ok(schema),
        _ => Err(OutputSchemaError::NotAnObject),
    }
}

/// The `format`s schemars gives Rust number types. JSON Schema does not define them, and some
/// clients' validators refuse a schema with a format they do not know.
const NUMBER_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "int", "uint8", "uint16", "uint32", "uint64", "uint",
    "float", "double",
];

/// Removes `null` from the type of every property that is not required (the server leaves such
/// a property out rather than sending `null`: `skip_serializing_if = "Option::is_none"`), and
/// drops the non-standard number formats.
fn tidy(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            if object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| NUMBER_FORMATS.contains(&format))
            {
                object.remove("format");
            }
            let required: Vec<String> = object
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|name| name.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = object.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        drop_null(property);
                    }
                }
            }
            object.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

fn drop_null(property: &mut Value) {
    let Value::Object(object) = property else {
        return;
    };
    if let Some(Value::Array(types)) = object.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let kept = match <[Value; 1]>::try_from(kept) {
            Ok([single]) => single,
            Err(kept) => Value::Array(kept),
        };
        object.insert("type".into(), kept);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(choices)) = object.get_mut(key) {
            choices.retain(|choice| choice != &json!({ "type": "null" }));
            if choices.len() == 1 {
                let choice = choices.remove(0);
                object.remove(key);
                if let Value::Object(choice) = choice {
                    for (name, value) in choice {
                        object.entry(name).or_insert(value);
                    }
                }
            }
        }
    }
}

fn mentions_reference(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => {
            object.contains_key("$ref") || object.values().any(mentions_reference)
        }
        Value::Array(items) => items.iter().any(mentions_reference),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, JsonSchema)]
    struct Inner {
        stars: u8,
    }

    #[derive(serde::Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Outer {
        /// The average.
        #[serde(skip_serializing_if = "Option::is_none")]
        average_stars: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        inner: Option<Inner>,
        items: Vec<Inner>,
    }

    #[test]
    fn output_schema_is_inlined_and_never_nullable() {
        let schema = Value::Object(output_schema::<Outer>().unwrap());
        assert_eq!(
            schema["properties"]["averageStars"]["type"],
            json!("number")
        );
        assert_eq!(schema["properties"]["inner"]["type"], json!("object"));
        assert_eq!(
            schema["properties"]["items"]["items"]["type"],
            json!("object")
        );
        assert_eq!(schema["required"], json!(["items"]));
        let text = schema.to_string();
        for absent in ["$ref", "$defs", "$schema", "null", "\"title\"", "format"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
    }

    #[test]
    fn output_schema_root_must_be_an_object() {
        assert_eq!(output_schema::<u32>(), Err(OutputSchemaError::NotAnObject));
    }
}
