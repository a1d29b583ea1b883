//! The request head's `Host` and `Origin`, read strictly before anything else sees them, so that
//! the checks behind (rmcp's against DNS rebinding, CORS) judge one unambiguous value. Entry
//! point: the [`check_head`] middleware.
//!
//! - `Host`: exactly one, a host with an optional port of digits (RFC 9112 §3.2 answers 400
//!   otherwise). A request target in absolute form (`POST http://host/mcp`) names the host
//!   instead: the `Host` header is then replaced by its authority, as RFC 9112 §3.2.2 requires
//!   of an origin server, so the host checked is the one the target names.
//! - `Origin`: at most one, and exactly as a browser serializes it (RFC 6454 §6.2): `null`, or
//!   `scheme://host[:port]` in lowercase with no path, not even `/`. Anything else is refused
//!   (403), so no page whose origin is written otherwise is ever let through or named in an
//!   answer.

use axum::extract::Request;
use axum::http::header::{HOST, ORIGIN};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a request whose `Host` or `Origin` is not one well-formed value; see the module's
/// documentation.
pub async fn check_head(mut request: Request, next: Next) -> Response {
    let authority = request
        .uri()
        .authority()
        .map(|authority| authority.as_str());
    let host = match authority {
        Some(authority) => HeaderValue::from_str(authority).ok(),
        None => single(request.headers().get_all(HOST).iter()).cloned(),
    };
    let Some(host) = host.filter(|host| host.to_str().is_ok_and(is_host)) else {
        tracing::debug!("refused a request without exactly one well-formed Host");
        return refuse(
            StatusCode::BAD_REQUEST,
            "Bad Request: the Host is missing, repeated or malformed",
        );
    };
    let origins = request.headers().get_all(ORIGIN);
    let origin_is_fine = || {
        single(origins.iter())
            .and_then(|origin| origin.to_str().ok())
            .is_some_and(is_serialized_origin)
    };
    if origins.iter().next().is_some() && !origin_is_fine() {
        tracing::debug!("refused a request without exactly one well-formed Origin");
        return refuse(
            StatusCode::FORBIDDEN,
            "Forbidden: the Origin is repeated or not written as a browser writes it",
        );
    }
    request.headers_mut().insert(HOST, host);
    next.run(request).await
}

fn refuse(status: StatusCode, text: &'static str) -> Response {
    (status, format!("{text}\n")).into_response()
}

/// The only value of a header, or `None` when it has none or several.
fn single<'a>(mut values: impl Iterator<Item = &'a HeaderValue>) -> Option<&'a HeaderValue> {
    let first = values.next()?;
    values.next().is_none().then_some(first)
}

/// Whether `text` is `host[:port]`: a registered name or an IPv4 address, or an IPv6 address in
/// brackets, and a port of one to five digits up to 65535.
fn is_host(text: &str) -> bool {
    let (host, port) = match text.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((address, port)) => {
                if address.parse::<std::net::Ipv6Addr>().is_err() {
                    return false;
                }
                (None, port)
            }
            None => return false,
        },
        None => match text.find(':') {
            Some(colon) => (Some(&text[..colon]), &text[colon..]),
            None => (Some(text), ""),
        },
    };
    let name_is_fine = host.is_none_or(|host| {
        !host.is_empty()
            && host
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_'))
    });
    let port_is_fine = match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => {
            (1..=5).contains(&digits.len())
                && digits.bytes().all(|byte| byte.is_ascii_digit())
                && digits.parse::<u32>().is_ok_and(|port| port <= 65535)
        }
    };
    name_is_fine && port_is_fine
}

/// Whether `text` is an origin as a browser serializes it: `null`, or a lowercase scheme,
/// `://`, a lowercase host and an optional port, and nothing after.
fn is_serialized_origin(text: &str) -> bool {
    if text == "null" {
        return true;
    }
    let Some((scheme, authority)) = text.split_once("://") else {
        return false;
    };
    let scheme_is_fine = !scheme.is_empty()
        && scheme.bytes().all(|byte| {
            byte.is_ascii_lowercase() || byte.is_ascii_digit() || b"+-.".contains(&byte)
        });
    scheme_is_fine && !authority.bytes().any(|byte| byte.is_ascii_uppercase()) && is_host(authority)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_a_name_or_address_and_an_optional_numeric_port() {
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:9",
            "[::1]",
            "reviews.example.com:65535",
        ] {
            assert!(is_host(host), "{host}");
        }
        for host in [
            "",
            "localhost:",
            "localhost:evil",
            "localhost:65536",
            "localhost:123456",
            "a b",
            "user@localhost",
            "localhost/mcp",
            "[::1",
            "[nope]:1",
            "::1",
            "localhost:8080:1",
        ] {
            assert!(!is_host(host), "{host}");
        }
    }

    #[test]
    fn origins_are_accepted_only_as_browsers_write_them() {
        for origin in [
            "http://127.0.0.1:8080",
            "https://app.example.com",
            "http://[::1]:6274",
            "null",
        ] {
            assert!(is_serialized_origin(origin), "{origin}");
        }
        for origin in [
            "http://127.0.0.1:8080/",
            "HTTP://127.0.0.1:8080",
            "http://LOCALHOST:8080",
            "http://127.0.0.1:8080/path",
            "http://user@127.0.0.1",
            "127.0.0.1:8080",
            "Null",
            "",
        ] {
            assert!(!is_serialized_origin(origin), "{origin}");
        }
    }
}
