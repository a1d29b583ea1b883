//! A validator for each tool's published output schema, to check every answer against it.

use std::collections::HashMap;

use jsonschema::Validator;

/// A validator for each tool's output schema (draft 2020-12, formats enforced), by tool name,
/// from the tools a client was listed.
pub fn output_schemas(tools: &[rmcp::model::Tool]) -> HashMap<String, Validator> {
    (tools.iter())
        .map(|tool| {
            let schema =
                (tool.output_schema.as_ref()).expect("every tool publishes an output schema");
            let validator = jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(&serde_json::Value::Object((**schema).clone()))
                .expect("the output schema is a valid JSON Schema");
            (tool.name.to_string(), validator)
        })
        .collect()
}
