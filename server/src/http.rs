//! Serving MCP over Streamable HTTP: rmcp's stateless service at `/mcp` (any replica can answer
//! any request, so replicas behind a load balancer share nothing), `GET /healthz` (the process
//! answers), `GET /readyz` (it can serve calls: its database answers, and it is not stopping),
//! and, when authentication is on, the OAuth protected-resource metadata (RFC 9728). The command
//! line's options are checked in [`settings`]; connections are accepted and timed in
//! [`connections`]. `/metrics` is served on an address of its own (`--metrics-address`).
//!
//! One request to `/mcp` goes: the `Host` and `Origin` headers read strictly ([`head`]), then
//! CORS ([`cors`]; a preflight is answered there), then the [`gate`]: the token (401 without a
//! valid one), the body (read whole, up to the limit, 413 past it, within
//! `--body-read-timeout`, 408 past it), the scope the called tool declares (403 without it);
//! then rmcp, which checks the `Host` and `Origin` against the allowed ones (against DNS
//! rebinding) and runs the call. What rmcp parses is the JSON value the gate checked,
//! re-encoded, so the two can never read one body two ways. The whole request has
//! `--request-timeout` (503 past it).
//!
//! Every tool must declare a scope when authentication is on: the server refuses to start
//! otherwise, since a tool without one would be open to any valid token.

mod connections;
mod cors;
mod gate;
mod head;
mod settings;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::{ALLOW, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use reqwest::Url;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use toolkit::ToolSpecs;

use crate::auth::Auth;
use crate::cli::HttpOptions;
use crate::error::Error;
use crate::metrics::metrics;
use crate::serve::MovieReviews;
use cors::Cors;
use gate::{Gate, Refusals, guard};
use settings::Settings;
use store::Store;

/// Where MCP is served.
const MCP_PATH: &str = "/mcp";

/// How long `/readyz` waits for the database to answer before it says the server is not ready.
const READY_WITHIN: Duration = Duration::from_secs(2);

/// Where the protected-resource metadata is served; RFC 9728 clients first try this followed
/// by the resource's path (`/.well-known/oauth-protected-resource/mcp`).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The HTTP server before it serves: its options checked, its address bound, authentication
/// set up. [`bind`] makes one, [`run`] serves on it.
pub struct Bound {
    listener: TcpListener,
    /// Where `/metrics` is served, if anywhere.
    metrics_listener: Option<TcpListener>,
    settings: Settings,
    public_url: Url,
    auth: Option<Auth>,
}

/// Checks the options, binds `address`, and sets authentication up (reading the static tokens,
/// fetching the JWT issuer's keys): everything that can fail before the database is touched.
/// `declared` is what every tool of the server declares, served here or not: with
/// authentication on, each must need a scope, and a token's scopes are checked against theirs.
pub async fn bind(
    address: SocketAddr,
    options: HttpOptions,
    declared: &ToolSpecs,
) -> Result<Bound, Error> {
    let mut settings = Settings::read(address, options, declared)?;
    let listener = TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let metrics_listener = match settings.metrics_address {
        None => None,
        Some(address) => Some(
            TcpListener::bind(address)
                .await
                .map_err(|error| format!("cannot listen on {address} for metrics: {error}"))?,
        ),
    };
    let public_url = settings.public_url(listener.local_addr()?)?;
    let auth = settings.take_auth(&public_url).await?;
    Ok(Bound {
        listener,
        metrics_listener,
        settings,
        public_url,
        auth,
    })
}

impl Bound {
    /// The address the server listens on (the port chosen when port 0 was asked for).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// Serves MCP over HTTP with `server` on `bound` until `shutdown` completes; then calls in
/// flight finish (for up to `--shutdown-timeout`). The store stays open: whoever opened it
/// closes it.
pub async fn run(
    bound: Bound,
    server: MovieReviews,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let Bound {
        listener,
        metrics_listener,
        settings,
        public_url,
        auth,
    } = bound;
    let address = listener.local_addr()?;
    let store = server.state().clone();
    let stop_rmcp = CancellationToken::new();
    let readiness = Readiness {
        store: store.clone(),
        stopping: CancellationToken::new(),
    };
    let stopping = readiness.stopping.clone();
    let delay = settings.shutdown_delay;
    let app = app(
        server,
        &settings,
        &public_url,
        auth,
        readiness,
        stop_rmcp.clone(),
    );
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
    // Poll the shutdown future once, so its signal handlers are in place before the address is
    // announced: a SIGTERM right after the announcement must stop the server gracefully.
    let mut shutdown = Box::pin(shutdown);
    let signalled =
        std::future::poll_fn(|context| Poll::Ready(shutdown.as_mut().poll(context).is_ready()))
            .await;
    tracing::info!(
        %address,
        url = %public_url,
        "serving MCP over HTTP on http://{address}{MCP_PATH}"
    );
    let scrapes = match metrics_listener {
        Some(listener) => Some(serve_metrics(listener, store.clone())?),
        None => None,
    };
    if !signalled {
        connections::serve(listener, app, settings.limits, shutdown).await;
    }
    if let Some(scrapes) = scrapes {
        scrapes.abort();
    }
    stop_rmcp.cancel();
    tracing::info!("stopped serving");
    Ok(())
}

fn app(
    server: MovieReviews,
    settings: &Settings,
    public_url: &Url,
    auth: Option<Auth>,
    readiness: Readiness,
    stop: CancellationToken,
) -> Router {
    let specs = server.served().clone();
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
        .route("/readyz", get(move || readyz(readiness.clone())))
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
        .layer(middleware::from_fn(count_response))
}

/// Serves `/metrics` on `listener` until the task is aborted.
fn serve_metrics(
    listener: TcpListener,
    store: Store,
) -> Result<tokio::task::JoinHandle<()>, Error> {
    let address = listener.local_addr()?;
    tracing::info!(%address, "serving metrics on http://{address}/metrics");
    let scrape = move || {
        let text = metrics().scrape(&store);
        async move { ([(CONTENT_TYPE, OPENMETRICS_TEXT)], text) }
    };
    let router = Router::new().route("/metrics", get(scrape));
    Ok(tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, router).await {
            tracing::error!(%error, "serving metrics failed");
        }
    }))
}

/// The content type of the text `/metrics` answers.
const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Counts a request in flight while it is answered, then its answer by status.
async fn count_response(request: Request, next: Next) -> Response {
    let in_flight = InFlight::start();
    let response = next.run(request).await;
    drop(in_flight);
    metrics().response(response.status().as_u16());
    response
}

/// A request in flight, counted until dropped (also when its connection goes away mid-way).
struct InFlight;

impl InFlight {
    fn start() -> InFlight {
        metrics().in_flight().inc();
        InFlight
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics().in_flight().dec();
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

/// What `/readyz` looks at.
#[derive(Clone)]
struct Readiness {
    store: Store,
    /// Cancelled once the server has been told to stop.
    stopping: CancellationToken,
}

/// 200 when the database answers a trivial query within [`READY_WITHIN`]; 503 when it does not,
/// or once the server is stopping, so that a load balancer sends calls elsewhere.
async fn readyz(readiness: Readiness) -> Response {
    if readiness.stopping.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "not ready: stopping\n").into_response();
    }
    match tokio::time::timeout(READY_WITHIN, readiness.store.answers()).await {
        Ok(Ok(())) => (StatusCode::OK, "ready\n").into_response(),
        Ok(Err(error)) => {
            tracing::warn!(%error, "not ready: the database does not answer");
            let text = "not ready: the database does not answer\n";
            (StatusCode::SERVICE_UNAVAILABLE, text).into_response()
        }
        Err(_) => {
            tracing::warn!(
                "not ready: the database did not answer within {} s",
                READY_WITHIN.as_secs()
            );
            let text = "not ready: the database does not answer\n";
            (StatusCode::SERVICE_UNAVAILABLE, text).into_response()
        }
    }
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
