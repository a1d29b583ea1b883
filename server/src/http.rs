//! Serving MCP over Streamable HTTP: rmcp's stateless service at `/mcp` (any replica can answer
//! any request, so replicas behind a load balancer share nothing), `GET /healthz`, and, when
//! authentication is on, the OAuth protected-resource metadata (RFC 9728) and the bearer-token
//! gate in front of `/mcp`. Connections are accepted and timed in [`connections`]; CORS for
//! browser-based clients is [`cors`].
//!
//! One request to `/mcp` goes: the `Host` and `Origin` headers read strictly ([`head`]), then
//! CORS (a preflight is answered there), then the token (401 without a valid one), then the
//! body (read whole, up to the limit, 413 past it), then the scope the called tool declares (403
//! without it), then rmcp, which checks the `Host` and `Origin` against the allowed ones
//! (against DNS rebinding) and runs the call. The body has `--body-read-timeout` (408 past it). What rmcp parses is the JSON value
//! the gate checked, re-encoded, so the two can never read one body two ways. The whole request
//! has `--request-timeout` (503 past it).
//!
//! Every tool must declare a scope when authentication is on: the server refuses to start
//! otherwise, since a tool without one would be open to any valid token.

mod connections;
mod cors;
mod head;

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{ALLOW, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use reqwest::Url;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use toolkit::ToolSpecs;

use crate::auth::jwt::{self, JwtVerifier};
use crate::auth::tokens::StaticTokens;
use crate::auth::{Auth, Caller};
use crate::cli::HttpOptions;
use crate::jsonrpc::{self, Read};
use crate::{Error, MovieReviews, open_or_create, tools};
use connections::Limits;
use cors::Cors;

/// Where MCP is served.
const MCP_PATH: &str = "/mcp";

/// Where the protected-resource metadata is served; RFC 9728 clients first try this followed
/// by the resource's path (`/.well-known/oauth-protected-resource/mcp`).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The least time between two info lines about refused tokens (each is logged at debug level:
/// anyone can send them, as fast as they like).
const REFUSALS_REPORT_INTERVAL: Duration = Duration::from_secs(60);

/// Host names a client on this machine uses; always allowed.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Serves MCP over HTTP on `address` with the database at `database` until `shutdown`
/// completes; then calls in flight finish (for up to `--shutdown-timeout`) and the database is
/// closed.
pub async fn run(
    address: SocketAddr,
    options: HttpOptions,
    database: &Path,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<ExitCode, Error> {
    let mut settings = Settings::read(address, options)?;
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let bound = listener.local_addr()?;
    let public_url = settings.public_url(bound)?;
    let auth = settings.take_auth(&public_url).await?;
    let server = MovieReviews::new(open_or_create(database).await?)?;
    let store = server.store.clone();
    let stop_rmcp = CancellationToken::new();
    let app = app(server, &settings, &public_url, auth, stop_rmcp.clone());
    let limits = settings.limits;
    // Poll the shutdown future once, so its signal handlers are in place before the address is
    // announced: a SIGTERM right after the announcement must stop the server gracefully.
    let mut shutdown = Box::pin(shutdown);
    let signalled =
        std::future::poll_fn(|context| Poll::Ready(shutdown.as_mut().poll(context).is_ready()))
            .await;
    tracing::info!(
        address = %bound,
        url = %public_url,
        database = %database.display(),
        "serving MCP over HTTP on http://{bound}{MCP_PATH}"
    );
    if !signalled {
        connections::serve(listener, app, limits, shutdown).await;
    }
    stop_rmcp.cancel();
    store.close().await;
    tracing::info!("stopped serving");
    Ok(ExitCode::SUCCESS)
}

/// The command line's HTTP options, checked, with the token list read.
struct Settings {
    address: SocketAddr,
    public_url: Option<Url>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    request_timeout: Duration,
    limits: Limits,
    tokens: Option<StaticTokens>,
    jwt: Option<JwtSettings>,
    authorization_servers: Vec<String>,
}

struct JwtSettings {
    issuer: String,
    keys: KeySource,
}

enum KeySource {
    File(String),
    Url(Url),
}

impl Settings {
    fn read(address: SocketAddr, options: HttpOptions) -> Result<Settings, Error> {
        let tokens = match (&options.tokens_file, &options.tokens) {
            (Some(path), _) => {
                let text = std::fs::read_to_string(path).map_err(|error| {
                    format!("cannot read the tokens file {}: {error}", path.display())
                })?;
                Some(read_tokens(&text, &path.display().to_string())?)
            }
            (None, Some(entries)) => Some(read_tokens(entries, "MOVIE_REVIEWS_TOKENS")?),
            (None, None) => None,
        };
        if tokens.as_ref().is_some_and(StaticTokens::is_empty) {
            return Err(
                "the token list holds no entry, so every request would be refused; \
                        add one with `movie-reviews-mcp token --scopes …`"
                    .into(),
            );
        }
        let jwt = match (options.jwt_issuer, options.jwks_file, options.jwks_url) {
            (None, None, None) => None,
            (Some(issuer), Some(path), None) => Some(JwtSettings {
                issuer,
                keys: KeySource::File(std::fs::read_to_string(&path).map_err(|error| {
                    format!("cannot read the JWKS file {}: {error}", path.display())
                })?),
            }),
            (Some(issuer), None, Some(url)) => {
                // Before anything else starts: a plain-http URL is a mistake to fix, not to try.
                jwt::check_key_url(&url)?;
                Some(JwtSettings {
                    issuer,
                    keys: KeySource::Url(url),
                })
            }
            (Some(_), None, None) => {
                return Err(
                    "--jwt-issuer needs the issuer's keys: --jwks-url or --jwks-file".into(),
                );
            }
            (None, _, _) => {
                return Err(
                    "--jwks-url and --jwks-file need --jwt-issuer, the `iss` that \
                            tokens must carry"
                        .into(),
                );
            }
            (Some(_), Some(_), Some(_)) => {
                return Err("give the issuer's keys once: --jwks-url or --jwks-file".into());
            }
        };
        let auth_on = tokens.is_some() || jwt.is_some();
        if auth_on && options.insecure_no_auth {
            return Err(
                "--insecure-no-auth turns authentication off, but tokens are configured; \
                        drop one or the other"
                    .into(),
            );
        }
        if !auth_on && !address.ip().is_loopback() && !options.insecure_no_auth {
            return Err(format!(
                "refusing to serve {address} without authentication: anyone who can reach it \
                 could write and delete reviews. Turn authentication on (--tokens-file or \
                 --jwt-issuer), listen on a loopback address (127.0.0.1:{port}), or, if \
                 something in front of the server checks every caller, pass --insecure-no-auth",
                port = address.port()
            )
            .into());
        }
        if auth_on {
            require_scopes(&tools::declared_scopes()?)?;
        } else {
            tracing::warn!("authentication is off: every caller can use every tool");
        }
        let mut authorization_servers = options.authorization_servers;
        if authorization_servers.is_empty()
            && let Some(jwt) = &jwt
        {
            authorization_servers.push(jwt.issuer.clone());
        }
        Ok(Settings {
            address,
            public_url: options.public_url,
            allowed_hosts: options.allowed_hosts,
            allowed_origins: options.allowed_origins,
            max_body_bytes: options.max_body_bytes,
            body_read_timeout: Duration::from_secs(options.body_read_timeout),
            request_timeout: Duration::from_secs(options.request_timeout),
            limits: Limits {
                header_read_timeout: Duration::from_secs(options.header_read_timeout),
                shutdown_timeout: Duration::from_secs(options.shutdown_timeout),
                // A u32 always fits a usize on the platforms Tokio runs on.
                max_connections: usize::try_from(options.max_connections).unwrap_or(usize::MAX),
                max_connections_per_address: usize::try_from(options.max_connections_per_address)
                    .unwrap_or(usize::MAX),
            },
            tokens,
            jwt,
            authorization_servers,
        })
    }

    /// The URL clients reach MCP at: the resource a token's audience must name. By default
    /// `http://ADDRESS/mcp` for the bound address.
    fn public_url(&self, bound: SocketAddr) -> Result<Url, Error> {
        if let Some(url) = &self.public_url {
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
                return Err(format!("--public-url must be an http or https URL, not {url}").into());
            }
            return Ok(url.clone());
        }
        if (self.tokens.is_some() || self.jwt.is_some()) && self.address.ip().is_unspecified() {
            tracing::warn!(
                "listening on {} with authentication on but no --public-url: clients will be \
                 told the resource is http://{bound}{MCP_PATH}",
                self.address
            );
        }
        Ok(Url::parse(&format!("http://{bound}{MCP_PATH}"))?)
    }

    /// The configured authentication, or `None` when it is off. JWTs must name `public_url`
    /// as their audience.
    async fn take_auth(&mut self, public_url: &Url) -> Result<Option<Auth>, Error> {
        let tokens = self.tokens.take();
        let jwt = match self.jwt.take() {
            None => None,
            Some(JwtSettings { issuer, keys }) => {
                let audience = public_url.to_string();
                Some(match keys {
                    KeySource::File(jwks) => JwtVerifier::with_keys(issuer, audience, &jwks)?,
                    KeySource::Url(url) => JwtVerifier::with_key_url(issuer, audience, url).await?,
                })
            }
        };
        Ok((tokens.is_some() || jwt.is_some()).then(|| Auth::new(tokens, jwt)))
    }

    /// The `Host` values accepted: loopback names, the public URL's host, and those named.
    fn allowed_hosts(&self, public_url: &Url) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|&host| host.to_owned()).collect();
        hosts.extend(public_url.host_str().map(str::to_owned));
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts
    }

    /// The `Origin` values accepted (a request without one, as native clients send, is fine):
    /// the public URL's origin and those named.
    fn allowed_origins(&self, public_url: &Url) -> Vec<String> {
        let mut origins = Vec::new();
        if let (Some(host), Some(port)) =
            (public_url.host_str(), public_url.port_or_known_default())
        {
            origins.push(format!("{}://{host}:{port}", public_url.scheme()));
        }
        origins.extend(self.allowed_origins.iter().cloned());
        origins
    }
}

/// The static tokens in `text` (read from `source`), with a warning for each scope that no
/// tool needs: most likely a typo, and a token with it alone could call nothing.
fn read_tokens(text: &str, source: &str) -> Result<StaticTokens, Error> {
    let tokens = StaticTokens::parse(text, source)?;
    let known = tools::specs().scopes();
    for (line, scope) in tokens.unknown_scopes(&known) {
        tracing::warn!(
            "{source}, entry {line}: no tool needs the scope {scope:?}; the scopes are {}",
            known.join(", ")
        );
    }
    Ok(tokens)
}

/// Refuses to authenticate callers while a tool declares no scope: any valid token could call
/// it, which is easy to miss when a tool is added.
fn require_scopes(tools: &[(String, Option<&'static str>)]) -> Result<(), Error> {
    let unscoped: Vec<&str> = tools
        .iter()
        .filter(|(_, scope)| scope.is_none())
        .map(|(name, _)| name.as_str())
        .collect();
    if unscoped.is_empty() {
        return Ok(());
    }
    Err(format!(
        "authentication is on, but these tools declare no scope, so any valid token could \
         call them: {}; give each one `scope = \"…\"` in its #[tool(...)]",
        unscoped.join(", ")
    )
    .into())
}

/// What the gate in front of `/mcp` needs.
struct Gate {
    auth: Option<Auth>,
    specs: ToolSpecs,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    /// The URL of the metadata document, which every challenge names.
    metadata_url: String,
    /// The paths the metadata is served at: the well-known path alone, followed by `/mcp`,
    /// and followed by the public URL's path (which `metadata_url` names).
    metadata_paths: Vec<String>,
    metadata: Value,
    refusals: Refusals,
}

/// Requests refused for an invalid token: each is logged at debug level, and their number at
/// info level at most once per [`REFUSALS_REPORT_INTERVAL`].
#[derive(Default)]
struct Refusals {
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

fn app(
    server: MovieReviews,
    settings: &Settings,
    public_url: &Url,
    auth: Option<Auth>,
    stop: CancellationToken,
) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(settings.allowed_hosts(public_url))
        .with_allowed_origins(settings.allowed_origins(public_url))
        .enforce_origin_validation()
        .with_max_request_body_bytes(settings.max_body_bytes)
        .with_cancellation_token(stop);
    let mcp = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let specs = tools::specs();
    let mut metadata = json!({
        "resource": public_url.as_str(),
        "scopes_supported": specs.scopes(),
        "bearer_methods_supported": ["header"],
        "resource_name": "Movie reviews",
    });
    // Optional in RFC 9728: static tokens come from the operator, not from an OAuth server.
    if !settings.authorization_servers.is_empty() {
        metadata["authorization_servers"] = json!(settings.authorization_servers);
    }
    let gate = Arc::new(Gate {
        auth,
        specs,
        max_body_bytes: settings.max_body_bytes,
        body_read_timeout: settings.body_read_timeout,
        metadata_url: metadata_url(public_url),
        metadata_paths: metadata_paths(public_url),
        metadata,
        refusals: Refusals::default(),
    });
    let cors = Arc::new(Cors::new(&settings.allowed_origins(public_url)));
    Router::new()
        .route_service(MCP_PATH, mcp)
        .route_layer(middleware::from_fn_with_state(Arc::clone(&gate), guard))
        .route("/healthz", get(healthz))
        // The metadata's paths come from the public URL, which may hold characters axum reads
        // as route syntax (`{`, `*`, `:`), so they are compared as text instead of routed.
        .fallback(metadata_or_not_found)
        .with_state(gate)
        .layer(middleware::from_fn_with_state(
            settings.request_timeout,
            limit_time,
        ))
        .layer(middleware::from_fn_with_state(cors, cors::cors))
        .layer(middleware::from_fn(head::check_head))
}

/// The paths the metadata is served at; see [`Gate::metadata_paths`].
fn metadata_paths(public_url: &Url) -> Vec<String> {
    let mut paths = vec![
        METADATA_PATH.to_owned(),
        format!("{METADATA_PATH}{MCP_PATH}"),
    ];
    let public = format!("{METADATA_PATH}{}", public_url.path().trim_end_matches('/'));
    if !paths.contains(&public) {
        paths.push(public);
    }
    paths
}

/// RFC 9728 §3.1: the well-known path goes between the resource's host and its path.
fn metadata_url(public_url: &Url) -> String {
    let mut url = public_url.clone();
    let path = public_url.path().trim_end_matches('/');
    url.set_path(&format!("{METADATA_PATH}{path}"));
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

async fn healthz() -> &'static str {
    "ok\n"
}

/// The protected-resource metadata at any of its paths (there is none when authentication is
/// off); 404 for every other path.
async fn metadata_or_not_found(
    State(gate): State<Arc<Gate>>,
    method: Method,
    uri: Uri,
) -> Response {
    if gate.auth.is_none() || !gate.metadata_paths.iter().any(|path| path == uri.path()) {
        return StatusCode::NOT_FOUND.into_response();
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    json_response(StatusCode::OK, &gate.metadata)
}

/// Answers 503 for a request not answered within `timeout`, reading its body included, so a
/// client that sends its body slowly holds a connection only so long.
async fn limit_time(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            let seconds = timeout.as_secs();
            tracing::info!(
                seconds,
                "stopped a request that took longer than {seconds} s"
            );
            let text = format!("Service Unavailable: a request may take at most {seconds} s\n");
            (StatusCode::SERVICE_UNAVAILABLE, text).into_response()
        }
    }
}

/// The gate in front of rmcp: token, body, scope. See the module's documentation.
async fn guard(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match &gate.auth {
        None => None,
        Some(auth) => match bearer_token(&parts.headers) {
            None => {
                tracing::debug!(method = %parts.method, "refused a request without a token");
                return gate.unauthorized(false);
            }
            Some(token) => match auth.check(token).await {
                Some(caller) => Some(caller),
                None => {
                    let method = &parts.method;
                    tracing::debug!(%method, "refused a request with an invalid token");
                    gate.refusals.record();
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
    let read = read_message(&parts.headers, body, gate.max_body_bytes);
    let Ok(read) = tokio::time::timeout(gate.body_read_timeout, read).await else {
        let seconds = gate.body_read_timeout.as_secs();
        tracing::debug!(seconds, "stopped reading a request body that took too long");
        let text = format!("Request Timeout: a request body must arrive within {seconds} s\n");
        return (StatusCode::REQUEST_TIMEOUT, text).into_response();
    };
    let message = match read {
        Ok(message) => message,
        Err(response) => return response,
    };
    if let Some(caller) = &caller {
        if let Some(missing) = gate.missing_scope(&message, caller) {
            let caller = &caller.id;
            tracing::info!(%caller, needed = missing, "refused a call: the token lacks a scope");
            return gate.insufficient_scope(missing);
        }
        tracing::debug!(caller = %caller.id, "authorized a request");
    }
    let Ok(body) = serde_json::to_vec(&message) else {
        // Encoding a `Value` fails only for a map with non-string keys, which JSON cannot have.
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    parts.headers.remove(CONTENT_LENGTH);
    next.run(Request::from_parts(parts, Body::from(body))).await
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

/// The request's JSON-RPC message, read up to `limit` bytes and checked as on stdio (see
/// [`jsonrpc`]): what rmcp could not read is answered here, 400 with the JSON-RPC error.
async fn read_message(headers: &HeaderMap, body: Body, limit: usize) -> Result<Value, Response> {
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
    let bytes: Bytes = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<LengthLimitError>() => return Err(too_large()),
        Err(_) => {
            return Err((StatusCode::BAD_REQUEST, "Bad Request: unreadable body\n").into_response());
        }
    };
    match jsonrpc::read(&bytes) {
        Read::Forward(incoming) => Ok(incoming.json),
        Read::Refuse(answer) => Err(json_response(StatusCode::BAD_REQUEST, &answer)),
        // A notification is never answered with JSON-RPC; HTTP still says it was not taken.
        Read::Drop => Err((
            StatusCode::BAD_REQUEST,
            "Bad Request: unreadable notification\n",
        )
            .into_response()),
    }
}

impl Gate {
    /// The scope `message` needs that `caller` lacks, if any. A `tools/call` needs the scope
    /// its tool declares (every tool declares one: see [`require_scopes`]). A call of a tool
    /// that does not exist needs no scope: rmcp answers it with the protocol's "tool not found"
    /// error, and no tool runs. Other methods (initialize, tools/list, ping) need only a valid
    /// token. (A batch never gets this far: it is refused as an Invalid Request.)
    fn missing_scope(&self, message: &Value, caller: &Caller) -> Option<&'static str> {
        if message.get("method")?.as_str()? != "tools/call" {
            return None;
        }
        let tool = message.get("params")?.get("name")?.as_str()?;
        let scope = self.specs.get(tool)?.scope?;
        (!caller.has(scope)).then_some(scope)
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

fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = (status, value.to_string()).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
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
    fn the_metadata_url_puts_the_well_known_path_before_the_resource_path() {
        let url = |text: &str| metadata_url(&Url::parse(text).unwrap());
        assert_eq!(
            url("http://127.0.0.1:8080/mcp"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            url("https://reviews.example.com/"),
            "https://reviews.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn the_metadata_is_served_at_the_public_urls_path_too() {
        let paths = |text: &str| metadata_paths(&Url::parse(text).unwrap());
        assert_eq!(
            paths("http://127.0.0.1:8080/mcp"),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp"
            ]
        );
        assert_eq!(
            paths("https://reviews.example.com/api/mcp/"),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource/api/mcp"
            ]
        );
    }

    #[test]
    fn authentication_needs_a_scope_on_every_tool() {
        let tools = |list: &[(&str, Option<&'static str>)]| {
            list.iter()
                .map(|(name, scope)| ((*name).to_owned(), *scope))
                .collect::<Vec<_>>()
        };
        assert!(require_scopes(&tools(&[("a", Some("x.read")), ("b", Some("x.write"))])).is_ok());
        let error = require_scopes(&tools(&[("a", Some("x.read")), ("b", None), ("c", None)]))
            .unwrap_err()
            .to_string();
        assert!(error.contains("declare no scope"), "{error}");
        assert!(error.contains(": b, c;"), "{error}");
    }

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
