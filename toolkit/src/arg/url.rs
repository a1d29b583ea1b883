//! `url::Url` (the `url` feature): an absolute URI, published as `format: uri`.
//!
//! The `url` crate reads URLs as browsers do, and would take a space or a `^` that RFC 3986,
//! which JSON Schema's `uri` follows, refuses; so a value must also hold only the characters
//! RFC 3986 allows, with every `%` starting an escape.

use serde_json::{Map, Value, json};
use url::Url;

use super::{Arg, Reading, Rules, json_type, quoted};

const FORM: &str = "Must be an absolute URI, like https://example.com/page";

impl Arg for Url {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("string"));
        schema.insert("format".into(), json!("uri"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("{FORM}, not {}.", json_type(value)));
        };
        let url = rfc3986_characters(text)
            .then(|| Url::parse(text).ok())
            .flatten();
        let Some(url) = url else {
            return at.refuse(format!("{FORM}, not {}.", quoted(text)));
        };
        at.check(value, rules)?;
        Some(url)
    }
}

/// Whether `text` holds only RFC 3986's characters (unreserved, reserved and `%HH`).
fn rfc3986_characters(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        if byte == b'%' {
            let escape = bytes.get(index + 1..index + 3);
            if !escape.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                return false;
            }
            index += 3;
            continue;
        }
        if !(byte.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&byte)) {
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
    fn only_absolute_uris_of_rfc_3986s_characters() {
        for good in [
            "https://example.com/page?q=1#top",
            "mailto:ada@example.com",
            "urn:isbn:0451450523",
            "http://a/%20b",
        ] {
            assert!(
                rfc3986_characters(good) && Url::parse(good).is_ok(),
                "{good}"
            );
        }
        for bad in [
            "http://a b",
            "http://a/^",
            "http://a/%2",
            "/relative",
            "é://x",
        ] {
            assert!(
                !(rfc3986_characters(bad) && Url::parse(bad).is_ok()),
                "{bad}"
            );
        }
    }
}
