//! The gate in front of rmcp at `/mcp`: the bearer token (401 without a valid one), the body
//! (read whole within its limit and deadline, and read as one JSON-RPC message, as rmcp will
//! read it), and the scope the called tool declares (403 without it). Entry point: the
//! [`guard`] middleware.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::Value;
use url::Url;

use super::json_response;
use super::observer::{HttpObserver, Refusal};
use crate::auth::Authenticator;
use crate::jsonrpc::{self, Read};
use crate::{Caller, ToolSpecs};

/// The least time between two info lines about refused tokens (each is logged at debug level:
/// anyone can send them, as fast as they like).
const REFUSALS_REPORT_INTERVAL: Duration = Duration::from_secs(60);

/// What the gate in front of `/mcp` needs.
pub(super) struct Gate {
    pub(super) auth: Option<Authenticator>,
    /// The public URL: the resource a token must be for.
    pub(super) resource: Url,
    pub(super) specs: ToolSpecs,
    pub(super) max_body_bytes: usize,
    pub(super) body_read_timeout: Duration,
    /// The URL of the metadata document, which every challenge names.
    pub(super) metadata_url: String,
    /// The paths the metadata is served at: the well-known path alone, followed by `/mcp`,
    /// and followed by the public URL's path (which `metadata_url` names).
    pub(super) metadata_paths: Vec<String>,
    pub(super) metadata: Value,
    pub(super) refusals: Refusals,
    pub(super) observer: Arc<dyn HttpObserver>,
}

/// Requests refused for an invalid token: each is logged at debug level, and their number at
/// info level at most once per [`REFUSALS_REPORT_INTERVAL`].
#[derive(Default)]
pub(super) struct Refusals {
    count: AtomicU64,
    last_report: std::sync::Mutex<Option<Instant>>,
}

impl Refusals {
    fn record(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
        // Another request reporting right now will count this one.
        let Ok(mut last_report) = self.last_report.try_lock() else {
            return;
        };
        if last_report.is_some_and(|last| last.elapsed() < REFUSALS_REPORT_INTERVAL) {
            return;
        }
        *last_report = Some(Instant::now());
        let count = self.count.swap(0, Ordering::Relaxed);
        tracing::info!(
            count,
            "refused {count} request(s) with an invalid token since the last such line (at most \
             one a minute; each is logged at debug level)"
        );
    }
}

/// The gate in front of rmcp: token, body, scope. See the module's documentation.
pub(super) async fn guard(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match &gate.auth {
        None => None,
        Some(auth) => match bearer_token(&parts.headers) {
            None => {
                tracing::debug!(method = %parts.method, "refused a request without a token");
                gate.observer.refused(Refusal::MissingToken);
                return gate.unauthorized(false);
            }
            Some(token) => match auth.authenticate(token, &gate.resource).await {
                Some(caller) => Some(caller),
                None => {
                    let method = &parts.method;
                    tracing::debug!(%method, "refused a request with an invalid token");
                    gate.refusals.record();
                    gate.observer.refused(Refusal::InvalidToken);
                    return gate.unauthorized(true);
                }
            },
        },
    };
    // Nothing past this point needs the token, so nothing past it can log it.
    parts.headers.remove(AUTHORIZATION);
    if parts.method != Method::POST {
        return next.run(Request::from_parts(parts, body)).await;
    }
    let read = read_body(&parts.headers, body, gate.max_body_bytes);
    let Ok(read) = tokio::time::timeout(gate.body_read_timeout, read).await else {
        let seconds = gate.body_read_timeout.as_secs();
        tracing::debug!(seconds, "stopped reading a request body that took too long");
        let text = format!("Request Timeout: a request body must arrive within {seconds} s\n");
        return (StatusCode::REQUEST_TIMEOUT, text).into_response();
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    let (message, for_rmcp) = match jsonrpc::read_for_rmcp(&bytes) {
        Read::Forward(read) => read,
        Read::Refuse(answer) => return json_response(StatusCode::BAD_REQUEST, &answer),
        // A notification is never answered with JSON-RPC; HTTP still says it was not taken.
        Read::Drop => {
            let text = "Bad Request: unreadable notification\n";
            return (StatusCode::BAD_REQUEST, text).into_response();
        }
    };
    if let Some(caller) = &caller {
        if let Some(missing) = gate.missing_scope(&message, caller) {
            let caller = &caller.subject;
            tracing::info!(%caller, needed = missing, "refused a call: the token lacks a scope");
            gate.observer.refused(Refusal::InsufficientScope);
            return gate.insufficient_scope(missing);
        }
        tracing::debug!(caller = %caller.subject, "authorized a request");
    }
    // The tools see who calls (`Context::caller`): rmcp hands them the request's parts.
    if let Some(caller) = caller {
        parts.extensions.insert(caller);
    }
    // rmcp reads these bytes as the very message checked here: most often they are the bytes
    // sent, passed on without a copy.
    let body = match for_rmcp {
        Cow::Borrowed(_) => Body::from(bytes),
        Cow::Owned(written) => {
            parts.headers.remove(CONTENT_LENGTH);
            Body::from(written)
        }
    };
    next.run(Request::from_parts(parts, body)).await
}

/// The token of an `Authorization: Bearer <token>` header; `None` when there is no such header
/// (another scheme counts as none). An empty token is returned as such, and refused as invalid.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// The request's body, read whole up to `limit` bytes (413 past it).
async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, Response> {
    let too_large = || {
        tracing::info!(limit, "refused a request body over the limit");
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload Too Large: a request body may hold at most {limit} bytes\n"),
        )
            .into_response()
    };
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<LengthLimitError>() => Err(too_large()),
        Err(_) => Err((StatusCode::BAD_REQUEST, "Bad Request: unreadable body\n").into_response()),
    }
}

impl Gate {
    /// The scope `message` needs that `caller` lacks, if any. A `tools/call` needs the scope
    /// its tool declares (every tool declares one: `bind` checks). A call of a tool
    /// that does not exist needs no scope: rmcp answers it with the protocol's "tool not found"
    /// error, and no tool runs. Other methods (initialize, tools/list, ping) need only a valid
    /// token. (A batch never gets this far: it is refused as an Invalid Request.)
    fn missing_scope(
        &self,
        message: &ClientJsonRpcMessage,
        caller: &Caller,
    ) -> Option<&'static str> {
        let JsonRpcMessage::Request(request) = message else {
            return None;
        };
        let ClientRequest::CallToolRequest(call) = &request.request else {
            return None;
        };
        let scope = self.specs.get(&call.params.name)?.scope?;
        (!caller.has_scope(scope)).then_some(scope)
    }

    /// 401 with the challenge that points to the metadata; `invalid` for a token that was
    /// presented and refused (RFC 6750 §3.1).
    fn unauthorized(&self, invalid: bool) -> Response {
        let error = if invalid {
            "error=\"invalid_token\", "
        } else {
            ""
        };
        let challenge = format!("Bearer {error}resource_metadata=\"{}\"", self.metadata_url);
        challenge_response(
            StatusCode::UNAUTHORIZED,
            challenge,
            "Unauthorized: this server needs a valid bearer token",
        )
    }

    /// 403 with the scope challenge the MCP specification describes: the scopes the call needs.
    fn insufficient_scope(&self, missing: &str) -> Response {
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{missing}\", resource_metadata=\"{}\"",
            self.metadata_url
        );
        challenge_response(
            StatusCode::FORBIDDEN,
            challenge,
            "Forbidden: the token lacks the scope this call needs",
        )
    }
}

fn challenge_response(status: StatusCode, challenge: String, text: &'static str) -> Response {
    let mut response = (status, format!("{text}\n")).into_response();
    // The challenge is built from the public URL (a parsed URL, so without quotes or control
    // characters) and scope names (checked at compile time to be printable ASCII).
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bearer_authorization_carries_a_token() {
        let headers = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            headers
        };
        assert_eq!(bearer_token(&headers("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(&headers("bearer  abc ")), Some("abc"));
        assert_eq!(bearer_token(&headers("Bearer")), Some(""));
        assert_eq!(bearer_token(&headers("Basic YTpi")), None);
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
