//! [`Uuid`]: a string in the hyphenated 36-character form, in any case, published as
//! `format: uuid`.

use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::{Arg, Reading, Rules, json_type};

impl Arg for Uuid {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("string"));
        schema.insert("format".into(), json!("uuid"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("Must be a UUID string, not {}.", json_type(value)));
        };
        let Some(id) = hyphenated_uuid(text) else {
            return at.refuse_for(
                "format",
                "Must be a UUID in the form 3f2504e0-4f89-11d3-9a0c-0305e82c3301.",
            );
        };
        at.check(value, rules)?;
        Some(id)
    }
}

/// A UUID in the hyphenated 36-character form only, any case; braced, URN and unhyphenated
/// forms are refused even though `Uuid::parse_str` would take them.
fn hyphenated_uuid(text: &str) -> Option<Uuid> {
    hyphenated(text)
        .then(|| Uuid::parse_str(text).ok())
        .flatten()
}

/// Whether `text` is in the hyphenated form, 8-4-4-4-12 hexadecimal digits. A `const fn`, so
/// that a declared default or example is checked against it at compile time.
pub(crate) const fn hyphenated(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 36 {
        return false;
    }
    let mut index = 0;
    while index < bytes.len() {
        let fits = match index {
            8 | 13 | 18 | 23 => bytes[index] == b'-',
            _ => bytes[index].is_ascii_hexdigit(),
        };
        if !fits {
            return false;
        }
        index += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_only_in_hyphenated_form() {
        let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
        assert_eq!(hyphenated_uuid(id), Uuid::parse_str(id).ok());
        assert_eq!(hyphenated_uuid("3f2504e04f8911d39a0c0305e82c3301"), None);
        assert_eq!(
            hyphenated_uuid("{3f2504e0-4f89-11d3-9a0c-0305e82c3301}"),
            None
        );
        assert_eq!(
            hyphenated_uuid("3f2504e0-4f89-11d3-9a0c-0305e82c330g"),
            None
        );
        assert_eq!(hyphenated_uuid("3f2504e0-4f89-11d3-9a0c-0305e82c33é"), None);
    }
}
