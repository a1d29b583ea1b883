//! `fluent_uri::Uri<String>` (the `uri` feature): a URI exactly as RFC 3986 has it (a scheme,
//! then the rest), published as `format: uri`, which is RFC 3986's `URI` rule. The text the
//! tool receives is the text sent, unchanged.

use fluent_uri::Uri;
use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type, quoted};

pub(super) const FORM: &str = "Must be an absolute URI, like https://example.com/page";

impl Arg for Uri<String> {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        uri_schema(schema, rules);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("{FORM}, not {}.", json_type(value)));
        };
        let Ok(uri) = Uri::parse(text.to_owned()) else {
            return at.refuse_for("format", format!("{FORM}, not {}.", quoted(text)));
        };
        at.check(value, rules)?;
        Some(uri)
    }
}

/// A string of `format: uri`, and the rules'.
pub(super) fn uri_schema(schema: &mut Map<String, Value>, rules: &Rules) {
    schema.insert("type".into(), json!("string"));
    schema.insert("format".into(), json!("uri"));
    rules.publish(schema);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::read_alone;

    #[test]
    fn any_uri_rfc_3986_has_and_nothing_else() {
        for good in [
            "https://example.com/page?q=1#top",
            "mailto:ada@example.com",
            "urn:isbn:0451450523",
            "http:",
            "http://a:65536/",
            "foo://[v1.x]/",
        ] {
            let read: Result<Uri<String>, String> = read_alone(json!(good));
            assert_eq!(read.map(|uri| uri.as_str().to_owned()).as_deref(), Ok(good));
        }
        for bad in [
            "/relative",
            "http://a b",
            "http://a/b#c#d",
            "http://a@b@c/",
            "é://x",
        ] {
            let read: Result<Uri<String>, String> = read_alone(json!(bad));
            assert_eq!(read.err(), Some(format!("{FORM}, not {}.", quoted(bad))));
        }
    }
}
