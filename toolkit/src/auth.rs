//! Who may call the tools over HTTP: [`Authenticate`] turns a request's bearer token into the
//! [`Caller`] it stands for, and the HTTP transport then compares the caller's scopes with the
//! scope the called tool declares. Two ways are provided: static tokens whose hashes the
//! operator keeps ([`StaticTokens`]), and JWT access tokens from an OAuth authorization server,
//! checked against the issuer's published keys ([`JwtVerifier`], feature `jwt`).
//!
//! A token never leaves this module except as the `&str` being checked: no type here holds
//! one, so no `Debug` or log line can print one.

#[cfg(feature = "jwt")]
mod jwks;
#[cfg(feature = "jwt")]
mod jwt;
mod tokens;

use std::future::Future;
use std::pin::Pin;

use url::Url;

use crate::Caller;

#[cfg(feature = "jwt")]
pub use jwks::{JwksError, check_key_url};
#[cfg(feature = "jwt")]
pub use jwt::JwtVerifier;
pub use tokens::{Minted, StaticTokens, TokensError};

/// A way to tell who a bearer token stands for.
///
/// `resource` is the URL clients reach the server at (its public URL), which OAuth calls the
/// resource: a token minted for another resource must not be accepted here (RFC 8707).
///
/// ```
/// use toolkit::Caller;
/// use toolkit::auth::Authenticate;
///
/// /// Lets in one shared token, with every scope.
/// struct Shared(String);
///
/// impl Authenticate for Shared {
///     async fn authenticate(&self, token: &str, _resource: &url::Url) -> Option<Caller> {
///         (token == self.0).then(|| Caller::new("shared", vec!["notes.read".into()]))
///     }
/// }
/// ```
///
/// A pair tries its first way, then its second; `None` lets no one in. So static tokens and
/// JWTs both, each only if configured, are `(Option<StaticTokens>, Option<JwtVerifier>)`.
pub trait Authenticate: Send + Sync + 'static {
    /// The caller `token` stands for, or `None` if it stands for no one. Why a token is
    /// refused belongs in a debug-level log line at most, and never the token itself.
    fn authenticate(
        &self,
        token: &str,
        resource: &Url,
    ) -> impl Future<Output = Option<Caller>> + Send;
}

impl<A: Authenticate> Authenticate for Option<A> {
    async fn authenticate(&self, token: &str, resource: &Url) -> Option<Caller> {
        match self {
            Some(way) => way.authenticate(token, resource).await,
            None => None,
        }
    }
}

impl<A: Authenticate, B: Authenticate> Authenticate for (A, B) {
    async fn authenticate(&self, token: &str, resource: &Url) -> Option<Caller> {
        match self.0.authenticate(token, resource).await {
            Some(caller) => Some(caller),
            None => self.1.authenticate(token, resource).await,
        }
    }
}

/// An [`Authenticate`] the HTTP transport can hold without knowing its type.
pub(crate) type Authenticator = Box<dyn AuthenticateDyn>;

/// [`Authenticate`] with its future boxed, so that it can be a trait object.
pub(crate) trait AuthenticateDyn: Send + Sync + 'static {
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
        resource: &'a Url,
    ) -> Pin<Box<dyn Future<Output = Option<Caller>> + Send + 'a>>;
}

impl<T: Authenticate> AuthenticateDyn for T {
    fn authenticate<'a>(
        &'a self,
        token: &'a str,
        resource: &'a Url,
    ) -> Pin<Box<dyn Future<Output = Option<Caller>> + Send + 'a>> {
        Box::pin(Authenticate::authenticate(self, token, resource))
    }
}
