//! Serving over HTTP from the command line (`--http ADDR`): the options read into the toolkit's
//! `HttpSettings` (static tokens from a file or the environment, a JWT issuer and its keys), the
//! database as what `/readyz` checks, and the metrics, counted from the transport's traffic and
//! served at `/metrics` on an address of their own (`--metrics-address`). The transport itself
//! is the toolkit's (`toolkit::http`).

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use toolkit::ToolSpecs;
use toolkit::auth::{JwtVerifier, StaticTokens, check_key_url};
use toolkit::http::{self as transport, HttpError, HttpSettings};

use crate::cli::HttpOptions;
use crate::error::Error;
use crate::metrics::{self, HttpTraffic};
use crate::serve::MovieReviews;

/// What every token minted by the `token` command starts with, so that secret scanners, and
/// people, can tell one apart.
const TOKEN_PREFIX: &str = "mrm_";

/// The HTTP server before it serves: its options checked, its addresses bound, authentication
/// set up. [`bind`] makes one, [`run`] serves on it.
pub struct Bound {
    http: transport::Bound,
    /// Where `/metrics` is served, if anywhere.
    metrics: Option<TcpListener>,
}

impl Bound {
    /// The address the server listens on (the port chosen when port 0 was asked for).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.http.local_addr()
    }
}

/// Checks the options, sets authentication up (reading the static tokens, fetching the JWT
/// issuer's keys) and binds `address`: everything that can fail before the database is
/// touched. `declared` is what every tool of the server declares, served here or not: with
/// authentication on, each must need a scope, and a token's scopes are checked against theirs.
pub async fn bind(
    address: SocketAddr,
    options: HttpOptions,
    declared: &ToolSpecs,
) -> Result<Bound, Error> {
    let metrics_address = options.metrics_address;
    let settings = settings(options, declared).await?;
    let http = transport::bind(address, settings, declared)
        .await
        .map_err(explain_refusal)?;
    let metrics = match metrics_address {
        None => None,
        Some(address) => Some(
            TcpListener::bind(address)
                .await
                .map_err(|error| format!("cannot listen on {address} for metrics: {error}"))?,
        ),
    };
    Ok(Bound { http, metrics })
}

/// Serves MCP over HTTP with `server` on `bound` until `shutdown` completes; then calls in
/// flight finish (for up to `--shutdown-timeout`). `/readyz` checks that the database answers.
/// The store stays open: whoever opened it closes it.
pub async fn run(
    bound: Bound,
    server: MovieReviews,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let store = server.state().clone();
    let http = bound.http.ready("the database", move || {
        let store = store.clone();
        async move { store.answers().await }
    });
    let scrapes = match bound.metrics {
        Some(listener) => Some(metrics::serve(listener, server.state().clone())?),
        None => None,
    };
    let served = http.serve(server, shutdown).await;
    if let Some(scrapes) = scrapes {
        scrapes.abort();
    }
    Ok(served?)
}

/// The toolkit's settings for the command line's options.
async fn settings(options: HttpOptions, declared: &ToolSpecs) -> Result<HttpSettings, Error> {
    let tokens = match (&options.tokens_file, &options.tokens) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                format!("cannot read the tokens file {}: {error}", path.display())
            })?;
            Some(read_tokens(&text, &path.display().to_string(), declared)?)
        }
        (None, Some(entries)) => Some(read_tokens(entries, "MOVIE_REVIEWS_TOKENS", declared)?),
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
        (Some(issuer), Some(path), None) => {
            let jwks = std::fs::read_to_string(&path).map_err(|error| {
                format!("cannot read the JWKS file {}: {error}", path.display())
            })?;
            Some(JwtVerifier::with_keys(issuer.clone(), &jwks).map(|jwt| (issuer, jwt))?)
        }
        (Some(issuer), None, Some(url)) => {
            // Before anything else starts: a plain-http URL is a mistake to fix, not to try.
            check_key_url(&url)?;
            Some((
                issuer.clone(),
                JwtVerifier::with_key_url(issuer, url).await?,
            ))
        }
        (Some(_), None, None) => {
            return Err("--jwt-issuer needs the issuer's keys: --jwks-url or --jwks-file".into());
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
    let mut authorization_servers = options.authorization_servers;
    let (issuer, jwt) = jwt.unzip();
    if authorization_servers.is_empty() {
        authorization_servers.extend(issuer);
    }
    let mut settings = HttpSettings::default()
        .allowed_hosts(options.allowed_hosts)
        .allowed_origins(options.allowed_origins)
        .max_body_bytes(options.max_body_bytes)
        .header_read_timeout(Duration::from_secs(options.header_read_timeout))
        .body_read_timeout(Duration::from_secs(options.body_read_timeout))
        .request_timeout(Duration::from_secs(options.request_timeout))
        .shutdown_timeout(Duration::from_secs(options.shutdown_timeout))
        .shutdown_delay(Duration::from_secs(options.shutdown_delay))
        // A u32 always fits a usize on the platforms Tokio runs on.
        .max_connections(usize::try_from(options.max_connections).unwrap_or(usize::MAX))
        .max_connections_per_address(
            usize::try_from(options.max_connections_per_address).unwrap_or(usize::MAX),
        )
        .max_requests_in_flight(
            usize::try_from(options.max_requests_in_flight).unwrap_or(usize::MAX),
        )
        .authorization_servers(authorization_servers)
        .insecure_no_auth(options.insecure_no_auth)
        .observe(HttpTraffic);
    if let Some(url) = options.public_url {
        settings = settings.public_url(url);
    }
    if auth_on {
        // A static token is tried first: cheap, and its shape is not a JWT's.
        settings = settings.authenticate((tokens, jwt));
    }
    Ok(settings)
}

/// The toolkit's refusal to serve, in the words of the command line's options.
fn explain_refusal(error: HttpError) -> Error {
    match error {
        HttpError::Unauthenticated(address) => format!(
            "refusing to serve {address} without authentication: anyone who can reach it \
             could write and delete reviews. Turn authentication on (--tokens-file or \
             --jwt-issuer), listen on a loopback address (127.0.0.1:{port}), or, if \
             something in front of the server checks every caller, pass --insecure-no-auth",
            port = address.port()
        )
        .into(),
        HttpError::PublicUrl(url) => {
            format!("--public-url must be an http or https URL, not {url}").into()
        }
        error => error.into(),
    }
}

/// The static tokens in `text` (read from `source`), with a warning for each scope that no
/// tool `declared` needs: most likely a typo, and a token with it alone could call nothing.
fn read_tokens(text: &str, source: &str, declared: &ToolSpecs) -> Result<StaticTokens, Error> {
    let tokens = StaticTokens::parse(text, source)
        .map_err(|error| format!("{error}, as printed by `movie-reviews-mcp token --scopes …`"))?;
    // Every tool's, served here or not: a token may be meant for other replicas too.
    let known = declared.scopes();
    for (line, scope) in tokens.unknown_scopes(&known) {
        tracing::warn!(
            "{source}, entry {line}: no tool needs the scope {scope:?}; the scopes are {}",
            known.join(", ")
        );
    }
    Ok(tokens)
}

/// The `token` command: mints a token with `scopes` (each one some tool needs: `known`) and
/// prints it on stdout, each part under a comment that says where it goes.
pub fn print_new_token(scopes: &[String], known: &[&str]) -> Result<(), Error> {
    if let Some(unknown) = scopes.iter().find(|scope| !known.contains(&scope.as_str())) {
        return Err(format!(
            "no tool needs the scope `{unknown}`; the scopes are {}",
            known.join(", ")
        )
        .into());
    }
    let minted = StaticTokens::mint(TOKEN_PREFIX, scopes)?;
    println!(
        "# The token, for the client's `Authorization: Bearer` header. It is shown only now.\n\
         {}\n\
         # The line to add to the tokens file (--tokens-file): the token's SHA-256 and scopes.\n\
         {}",
        minted.token, minted.entry
    );
    Ok(())
}
