//! Serving MCP over Streamable HTTP (feature `http`): rmcp's stateless service at `/mcp` (any
//! replica can answer any request, so replicas behind a load balancer share nothing),
//! `GET /healthz` (the process answers), `GET /readyz` (it can serve calls: every check the
//! application adds with [`Bound::ready`] passes, and it is not stopping), and, when
//! authentication is on, the OAuth protected-resource metadata (RFC 9728). [`HttpSettings`]
//! says how; connections are accepted and timed in `connections`.
//!
//! One request to `/mcp` goes: the `Host` and `Origin` headers read strictly (`head`), then
//! CORS (`cors`; a preflight is answered there), then the limit on requests in flight (503 with
//! `Retry-After` past it), then the `gate`: the token (401 without a
//! valid one), the body (read whole, up to the limit, 413 past it, within the body-read
//! timeout, 408 past it), the scope the called tool declares (403 without it); then rmcp, which
//! checks the `Host` and `Origin` against the allowed ones (against DNS rebinding) and runs the
//! call. rmcp parses bytes it reads as the very message the gate checked (the bytes sent, or,
//! for the rare body two readers could read two ways, the gate's reading written out again),
//! so the two can never read one body two ways. The whole request has the request timeout (503
//! past it).
//!
//! Every tool must declare a scope when authentication is on: [`bind`] refuses to serve
//! otherwise, since a tool without one would be open to any valid token.
//!
//! ```no_run
//! use toolkit::auth::StaticTokens;
//! use toolkit::http::HttpSettings;
//! # use toolkit::{Context, Run, Server, Tool, ToolError};
//! # /// A greeting.
//! # #[derive(serde::Serialize, schemars::JsonSchema)]
//! # struct Greeting {
//! #     /// What it says.
//! #     text: String,
//! # }
//! # /// Says hello.
//! # #[derive(Tool)]
//! # #[tool(name = "hello", title = "Say hello", output = Greeting, scope = "hello", read_only,
//! #        destructive = false, idempotent, open_world = false)]
//! # struct Hello {}
//! # impl Run<()> for Hello {
//! #     async fn run(self, _: &(), _: &Context) -> Result<Greeting, ToolError> {
//! #         Ok(Greeting { text: "hello".into() })
//! #     }
//! # }
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let entries = std::env::var("HELLO_TOKENS")?;
//! let settings = HttpSettings::default().authenticate(StaticTokens::parse(&entries, "HELLO_TOKENS")?);
//! Server::new("hello", "1.0.0")
//!     .tool::<Hello>()
//!     .serve_http((), "127.0.0.1:8080".parse()?, settings)
//!     .await?;
//! # Ok(())
//! # }
//! ```

mod connections;
mod cors;
mod error;
mod gate;
mod head;
mod observer;
mod settings;

use std::fmt::Display;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::{ALLOW, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, Method, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::{Handler, ServeError, ToolSpecs};
use gate::{Gate, Refusals, guard};

pub use error::HttpError;
pub use http::StatusCode;
pub use observer::{HttpObserver, Refusal};
pub use settings::HttpSettings;

/// Where MCP is served.
const MCP_PATH: &str = "/mcp";

/// How long `/readyz` waits for each readiness check before it says the server is not ready.
const READY_WITHIN: Duration = Duration::from_secs(2);

/// Where the protected-resource metadata is served; RFC 9728 clients first try this followed
/// by the resource's path (`/.well-known/oauth-protected-resource/mcp`).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The HTTP server before it serves: its settings checked, its address bound. [`bind`] makes
/// one; [`Bound::serve`] serves on it.
pub struct Bound {
    listener: TcpListener,
    settings: HttpSettings,
    public_url: Url,
    checks: Vec<ReadinessCheck>,
}

/// Checks `settings` for serving the tools `declared` (every tool of the server, served here or
/// not: with authentication on, each must declare a scope) and binds `address`: everything that
/// can fail before the application opens what its tools need (a database, say).
pub async fn bind(
    address: SocketAddr,
    settings: HttpSettings,
    declared: &ToolSpecs,
) -> Result<Bound, HttpError> {
    settings.check(address, declared)?;
    let listen_error = |error| HttpError::Listen { address, error };
    let listener = TcpListener::bind(address).await.map_err(listen_error)?;
    let bound = listener.local_addr().map_err(listen_error)?;
    let public_url = settings.resolved_public_url(address, bound)?;
    Ok(Bound {
        listener,
        settings,
        public_url,
        checks: Vec::new(),
    })
}

impl Bound {
    /// The address the server listens on (the port chosen when port 0 was asked for).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The URL clients reach MCP at, and the resource a token must be for.
    pub fn public_url(&self) -> &Url {
        &self.public_url
    }

    /// Adds a check to `/readyz`: the server is ready only while `check` answers `Ok` within
    /// two seconds. `what` names the thing checked (`the database`): `/readyz` then answers
    /// `503 not ready: the database does not answer`, and logs why.
    pub fn ready<F, Fut, E>(mut self, what: impl Into<String>, check: F) -> Bound
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Display,
    {
        let check: Check = Arc::new(move || {
            let checked = check();
            Box::pin(async move { checked.await.map_err(|error| error.to_string()) })
        });
        self.checks.push(ReadinessCheck {
            what: what.into(),
            check,
        });
        self
    }

    /// Serves MCP with `handler` until `shutdown` completes: then it goes on serving for the
    /// shutdown delay (with `/readyz` saying it is stopping), stops accepting, and lets calls in
    /// flight finish for up to the shutdown timeout.
    pub async fn serve<S: Send + Sync + 'static>(
        self,
        handler: Handler<S>,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let Bound {
            listener,
            settings,
            public_url,
            checks,
        } = self;
        let address = listener.local_addr()?;
        let stop_rmcp = CancellationToken::new();
        let readiness = Readiness {
            checks: checks.into(),
            stopping: CancellationToken::new(),
        };
        let stopping = readiness.stopping.clone();
        let delay = settings.shutdown_delay;
        let limits = settings.limits;
        let observer = Arc::clone(&settings.observer);
        let app = app(handler, settings, &public_url, readiness, stop_rmcp.clone());
        // After the signal, go on serving for the delay with `/readyz` saying so.
        let shutdown = async move {
            shutdown.await;
            stopping.cancel();
            if !delay.is_zero() {
                tracing::info!(
                    seconds = delay.as_secs(),
                    "stopping: /readyz answers 503; serving on for {} s",
                    delay.as_secs()
                );
                tokio::time::sleep(delay).await;
            }
        };
        // Poll the shutdown future once, so its signal handlers are in place before the address
        // is announced: a SIGTERM right after the announcement must stop the server gracefully.
        let mut shutdown = Box::pin(shutdown);
        let signalled =
            std::future::poll_fn(|context| Poll::Ready(shutdown.as_mut().poll(context).is_ready()))
                .await;
        tracing::info!(
            %address,
            url = %public_url,
            "serving MCP over HTTP on http://{address}{MCP_PATH}"
        );
        if !signalled {
            connections::serve(listener, app, limits, observer, shutdown).await;
        }
        stop_rmcp.cancel();
        tracing::info!("stopped serving");
        Ok(())
    }
}

fn app<S: Send + Sync + 'static>(
    handler: Handler<S>,
    settings: HttpSettings,
    public_url: &Url,
    readiness: Readiness,
    stop: CancellationToken,
) -> Router {
    let specs = handler.served().clone();
    let title = handler.implementation().title.clone();
    let resource_name = title.unwrap_or_else(|| handler.implementation().name.clone());
    let origins = settings.origins(public_url);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(settings.hosts(public_url))
        .with_allowed_origins(origins.clone())
        .enforce_origin_validation()
        .with_max_request_body_bytes(settings.max_body_bytes)
        .with_cancellation_token(stop);
    let mcp = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let mut metadata = json!({
        "resource": public_url.as_str(),
        "scopes_supported": specs.scopes(),
        "bearer_methods_supported": ["header"],
        "resource_name": resource_name,
    });
    // Optional in RFC 9728: static tokens come from the operator, not from an OAuth server.
    if !settings.authorization_servers.is_empty() {
        metadata["authorization_servers"] = json!(settings.authorization_servers);
    }
    let cors = Arc::new(cors::Cors::new(&origins));
    let request_timeout = settings.request_timeout;
    let in_flight = Arc::new(Semaphore::new(settings.max_requests_in_flight));
    let observer = Arc::clone(&settings.observer);
    let gate = Arc::new(Gate {
        auth: settings.authenticator,
        resource: public_url.clone(),
        specs,
        max_body_bytes: settings.max_body_bytes,
        body_read_timeout: settings.body_read_timeout,
        metadata_url: metadata_url(public_url),
        metadata_paths: metadata_paths(public_url),
        metadata,
        refusals: Refusals::default(),
        observer: Arc::clone(&observer),
    });
    Router::new()
        .route_service(MCP_PATH, mcp)
        .route_layer(middleware::from_fn_with_state(Arc::clone(&gate), guard))
        .route_layer(middleware::from_fn_with_state(in_flight, limit_in_flight))
        .route("/healthz", get(healthz))
        .route("/readyz", get(move || readyz(readiness.clone())))
        // The metadata's paths come from the public URL, which may hold characters axum reads
        // as route syntax (`{`, `*`, `:`), so they are compared as text instead of routed.
        .fallback(metadata_or_not_found)
        .with_state(gate)
        .layer(middleware::from_fn_with_state(request_timeout, limit_time))
        .layer(middleware::from_fn_with_state(cors, cors::cors))
        .layer(middleware::from_fn(head::check_head))
        .layer(middleware::from_fn_with_state(observer, observe_request))
}

/// Tells the observer of a request while it is answered, then of its answer's status.
async fn observe_request(
    State(observer): State<Arc<dyn HttpObserver>>,
    request: Request,
    next: Next,
) -> Response {
    let mut in_flight = InFlight::start(observer);
    let response = next.run(request).await;
    in_flight.status = Some(response.status());
    response
}

/// A request in flight, told to the observer as finished when dropped (also when its
/// connection goes away mid-way, with no status).
struct InFlight {
    observer: Arc<dyn HttpObserver>,
    status: Option<StatusCode>,
}

impl InFlight {
    fn start(observer: Arc<dyn HttpObserver>) -> InFlight {
        observer.request_started();
        InFlight {
            observer,
            status: None,
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.observer.request_finished(self.status);
    }
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

/// A check `/readyz` makes, as [`Bound::ready`] adds it.
struct ReadinessCheck {
    what: String,
    check: Check,
}

type Check =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync>;

/// What `/readyz` looks at.
#[derive(Clone)]
struct Readiness {
    checks: Arc<[ReadinessCheck]>,
    /// Cancelled once the server has been told to stop.
    stopping: CancellationToken,
}

/// 200 when every check answers `Ok` within [`READY_WITHIN`]; 503 when one does not, or once
/// the server is stopping, so that a load balancer sends calls elsewhere.
async fn readyz(readiness: Readiness) -> Response {
    if readiness.stopping.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "not ready: stopping\n").into_response();
    }
    for ReadinessCheck { what, check } in readiness.checks.iter() {
        match tokio::time::timeout(READY_WITHIN, check()).await {
            Ok(Ok(())) => continue,
            Ok(Err(error)) => tracing::warn!(%error, "not ready: {what} does not answer"),
            Err(_) => tracing::warn!(
                "not ready: {what} did not answer within {} s",
                READY_WITHIN.as_secs()
            ),
        }
        let text = format!("not ready: {what} does not answer\n");
        return (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
    }
    (StatusCode::OK, "ready\n").into_response()
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

/// Answers 503 with `Retry-After: 1` for a request to MCP past the most served at once (see
/// [`HttpSettings::max_requests_in_flight`]), before its token or body is read.
async fn limit_in_flight(
    State(in_flight): State<Arc<Semaphore>>,
    request: Request,
    next: Next,
) -> Response {
    let Ok(_permit) = in_flight.try_acquire() else {
        tracing::debug!("refused a request: the most requests in flight are being served");
        let text = "Service Unavailable: the server is serving all the requests it can at once\n";
        let mut response = (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
        response
            .headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("1"));
        return response;
    };
    next.run(request).await
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

pub(super) fn json_response(status: StatusCode, value: &Value) -> Response {
    let mut response = (status, value.to_string()).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
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
}
