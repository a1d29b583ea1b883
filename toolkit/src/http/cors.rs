//! CORS, for browser-based clients (the MCP Inspector) on an origin the server accepts: a
//! preflight is answered here, before the token gate (a browser sends it without the
//! `Authorization` header), and every answer to such an origin carries the headers that let the
//! page read it, a 401's challenge included. Entry point: the [`cors`] middleware.
//!
//! Origins are matched as rmcp matches them against DNS rebinding (`:*` for any port; an origin
//! named without a port accepts any port too), so a page may read exactly the answers rmcp lets
//! it have. A disallowed origin gets no CORS header at all.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_METHOD, ORIGIN,
    VARY,
};
use axum::http::{HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// What a browser may send: the methods of Streamable HTTP and the headers MCP clients set.
const ALLOW_METHODS: &str = "GET, POST, DELETE, OPTIONS";
const ALLOW_HEADERS: &str =
    "authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id";

/// What a page may read: the challenge of a 401 or 403, and the session id.
const EXPOSE_HEADERS: &str = "www-authenticate, mcp-session-id";

/// How long a browser may reuse a preflight's answer, in seconds.
const MAX_AGE: &str = "600";

/// The origins whose pages may call the server.
#[derive(Debug, Default)]
pub struct Cors {
    allowed: Vec<Allowed>,
}

#[derive(Debug, PartialEq, Eq)]
enum Allowed {
    /// `null`, the origin of sandboxed frames and files.
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Port,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Port {
    /// `:*`, or no port named.
    Any,
    Exact(u16),
}

/// An origin as a browser sends it: `scheme://host[:port]`, or `null`.
#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl Cors {
    /// The origins named by `allowed` (as given to rmcp); unreadable entries are skipped, as
    /// rmcp skips them.
    pub fn new(allowed: &[String]) -> Cors {
        Cors {
            allowed: allowed
                .iter()
                .filter_map(|entry| parse_allowed(entry))
                .collect(),
        }
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        let Some(origin) = origin.to_str().ok().and_then(parse_origin) else {
            return false;
        };
        self.allowed.iter().any(|allowed| match (allowed, &origin) {
            (Allowed::Null, Origin::Null) => true,
            (
                Allowed::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: origin_scheme,
                    host: origin_host,
                    port: origin_port,
                },
            ) => {
                scheme == origin_scheme
                    && host == origin_host
                    && match port {
                        Port::Any => true,
                        Port::Exact(port) => {
                            origin_port.or_else(|| default_port(origin_scheme)) == Some(*port)
                        }
                    }
            }
            _ => false,
        })
    }
}

/// Answers preflights, and adds the CORS headers to answers for an allowed origin.
pub async fn cors(State(cors): State<Arc<Cors>>, request: Request, next: Next) -> Response {
    let origin = request.headers().get(ORIGIN).cloned();
    let allowed = origin.filter(|origin| cors.allows(origin));
    let preflight = request.method() == Method::OPTIONS
        && request.headers().contains_key(ORIGIN)
        && request
            .headers()
            .contains_key(ACCESS_CONTROL_REQUEST_METHOD);
    if preflight {
        return answer_preflight(allowed);
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.append(VARY, HeaderValue::from_static("origin"));
    if let Some(origin) = allowed {
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
    response
}

/// 204 with what may be sent, for an allowed origin; 403 without a CORS header otherwise, so
/// the browser refuses to send the request.
fn answer_preflight(allowed: Option<HeaderValue>) -> Response {
    let Some(origin) = allowed else {
        tracing::debug!("refused a CORS preflight from an origin not allowed");
        let mut response =
            (StatusCode::FORBIDDEN, "Forbidden: Origin is not allowed\n").into_response();
        response
            .headers_mut()
            .insert(VARY, HeaderValue::from_static("origin"));
        return response;
    };
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(ALLOW_METHODS),
    );
    headers.insert(
        ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(ALLOW_HEADERS),
    );
    headers.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    headers.insert(VARY, HeaderValue::from_static("origin"));
    response
}

fn parse_origin(text: &str) -> Option<Origin> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri: Uri = text.parse().ok()?;
    let authority = uri.authority()?;
    Some(Origin::Tuple {
        scheme: uri.scheme_str()?.to_ascii_lowercase(),
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

fn parse_allowed(entry: &str) -> Option<Allowed> {
    let entry = entry.trim();
    let (entry, any_port) = match entry.strip_suffix(":*") {
        Some(base) => (base, true),
        None => (entry, false),
    };
    Some(match parse_origin(entry)? {
        Origin::Null if !any_port => Allowed::Null,
        Origin::Null => return None,
        Origin::Tuple { port: Some(_), .. } if any_port => return None,
        Origin::Tuple { scheme, host, port } => Allowed::Tuple {
            scheme,
            host,
            port: port.map_or(Port::Any, Port::Exact),
        },
    })
}

fn normalize_host(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

/// The port a scheme implies when an origin leaves it out (RFC 6454 §4).
fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_match_as_rmcp_matches_them() {
        let cors = Cors::new(&[
            "http://127.0.0.1:8080".to_owned(),
            "http://localhost:6274".to_owned(),
            "https://app.example.com".to_owned(),
            "http://[::1]:*".to_owned(),
            "not an origin".to_owned(),
        ]);
        let allows = |origin: &str| cors.allows(&HeaderValue::from_str(origin).unwrap());
        assert!(allows("http://127.0.0.1:8080"));
        assert!(allows("http://LOCALHOST:6274"));
        assert!(allows("https://app.example.com:8443"));
        assert!(allows("http://[::1]:1234"));
        assert!(!allows("http://localhost:6275"));
        assert!(!allows("https://localhost:6274"));
        assert!(!allows("http://evil.example.com"));
        assert!(!allows("null"));
        assert!(!allows(""));
    }
}
