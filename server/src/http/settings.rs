//! The command line's HTTP options, checked before anything starts: authentication on or off
//! (and refused off on a non-loopback address), the static tokens read, the JWT issuer and its
//! keys, the public URL, and the hosts and origins accepted.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::Url;

use super::MCP_PATH;
use super::connections::Limits;
use crate::auth::Auth;
use crate::auth::jwt::{self, JwtVerifier};
use crate::auth::tokens::StaticTokens;
use crate::cli::HttpOptions;
use crate::error::Error;
use toolkit::ToolSpecs;

/// Host names a client on this machine uses; always allowed.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The command line's HTTP options, checked, with the token list read.
pub(super) struct Settings {
    address: SocketAddr,
    public_url: Option<Url>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    pub(super) max_body_bytes: usize,
    pub(super) body_read_timeout: Duration,
    pub(super) request_timeout: Duration,
    pub(super) shutdown_delay: Duration,
    pub(super) metrics_address: Option<SocketAddr>,
    pub(super) limits: Limits,
    tokens: Option<StaticTokens>,
    jwt: Option<JwtSettings>,
    pub(super) authorization_servers: Vec<String>,
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
    pub(super) fn read(
        address: SocketAddr,
        options: HttpOptions,
        declared: &ToolSpecs,
    ) -> Result<Settings, Error> {
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
            let scopes: Vec<(String, Option<&str>)> = declared
                .iter()
                .map(|spec| (spec.name.to_owned(), spec.scope))
                .collect();
            require_scopes(&scopes)?;
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
            shutdown_delay: Duration::from_secs(options.shutdown_delay),
            metrics_address: options.metrics_address,
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
    pub(super) fn public_url(&self, bound: SocketAddr) -> Result<Url, Error> {
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
    pub(super) async fn take_auth(&mut self, public_url: &Url) -> Result<Option<Auth>, Error> {
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
    pub(super) fn allowed_hosts(&self, public_url: &Url) -> Vec<String> {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|&host| host.to_owned()).collect();
        hosts.extend(public_url.host_str().map(str::to_owned));
        hosts.extend(self.allowed_hosts.iter().cloned());
        hosts
    }

    /// The `Origin` values accepted (a request without one, as native clients send, is fine):
    /// the public URL's origin and those named.
    pub(super) fn allowed_origins(&self, public_url: &Url) -> Vec<String> {
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
/// tool `declared` needs: most likely a typo, and a token with it alone could call nothing.
fn read_tokens(text: &str, source: &str, declared: &ToolSpecs) -> Result<StaticTokens, Error> {
    let tokens = StaticTokens::parse(text, source)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
