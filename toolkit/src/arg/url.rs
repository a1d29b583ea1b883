//! `url::Url` (the `url` feature): an absolute URL, published as `format: uri`.
//!
//! The `url` crate reads URLs as browsers do, which takes text RFC 3986 (and so JSON Schema's
//! `uri`) refuses, a space or a second `#`; so a value must be an RFC 3986 URI as well. What
//! the tool receives is the URL as the `url` crate writes it (`HTTP://A` is `http://a/`).
//! Being both, it is narrower than `format: uri`: a URI whose host or port a browser refuses
//! (`http://a:65536/`, `https://1.2.3.256/`), or a web URL without a host (`http:`), is
//! refused. `fluent_uri::Uri<String>` (the `uri` feature) takes exactly the URIs.

use fluent_uri::Uri;
use serde_json::{Map, Value};
use url::Url;

use super::uri::{FORM, uri_schema};
use super::{Arg, Reading, Rules, json_type, quoted};

impl Arg for Url {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        uri_schema(schema, rules);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("{FORM}, not {}.", json_type(value)));
        };
        if Uri::parse(text).is_err() {
            return at.refuse_for("format", format!("{FORM}, not {}.", quoted(text)));
        }
        let url = match Url::parse(text) {
            Ok(url) => url,
            // An RFC 3986 port is any run of digits; a URL's must fit 16 bits.
            Err(url::ParseError::InvalidPort) => {
                return at.refuse_for(
                    "format",
                    format!("Must have a port from 0 to 65535, not {}.", quoted(text)),
                );
            }
            Err(_) => return at.refuse_for("format", format!("{FORM}, not {}.", quoted(text))),
        };
        at.check(value, rules)?;
        Some(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arg::read_alone;
    use serde_json::json;

    #[test]
    fn urls_that_are_also_rfc_3986_uris() {
        for (sent, received) in [
            (
                "https://example.com/page?q=1#top",
                "https://example.com/page?q=1#top",
            ),
            ("HTTP://Example.COM", "http://example.com/"),
            ("mailto:ada@example.com", "mailto:ada@example.com"),
            ("urn:isbn:0451450523", "urn:isbn:0451450523"),
            ("http://a/%20b", "http://a/%20b"),
        ] {
            let read: Result<Url, String> = read_alone(json!(sent));
            assert_eq!(read.map(String::from).as_deref(), Ok(received));
        }
        for refused in [
            "http://a b",
            "http://a/^",
            "http://a/%2",
            "http://a/b#c#d",
            "http://a@b@c/",
            "/relative",
            "é://x",
            // RFC 3986 URIs a browser refuses.
            "http:",
            "https://1.2.3.256/",
        ] {
            let read: Result<Url, String> = read_alone(json!(refused));
            assert_eq!(
                read.err(),
                Some(format!("{FORM}, not {}.", quoted(refused)))
            );
        }
        let read: Result<Url, String> = read_alone(json!("http://a:65536/"));
        assert_eq!(
            read.err().as_deref(),
            Some(r#"Must have a port from 0 to 65535, not "http://a:65536/"."#)
        );
    }
}
