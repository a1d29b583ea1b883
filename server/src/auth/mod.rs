//! Who may call the tools over HTTP: bearer tokens checked against static tokens (hashes kept
//! by the operator, [`tokens`]) and JWT access tokens from an OAuth authorization server
//! ([`jwt`], checked against the issuer's keys from `jwks`). The HTTP layer asks
//! [`Auth::check`] for the [`Caller`] a token stands for, then compares the caller's scopes with
//! the scope the tool declares.
//!
//! A token never leaves this module except as the `&str` being checked: no type here holds
//! one, so no `Debug` or log line can print one.

mod jwks;
pub mod jwt;
pub mod tokens;

use jwt::JwtVerifier;
use tokens::StaticTokens;

/// Who a valid token stands for, as the tools see it (`Context::caller`). Its subject reveals
/// nothing of the token: a JWT's `sub`, or `token:` and the start of a static token's hash.
pub use toolkit::Caller;

/// The ways a token can be accepted; at least one is configured when authentication is on.
#[derive(Default)]
pub struct Auth {
    tokens: Option<StaticTokens>,
    jwt: Option<JwtVerifier>,
}

impl Auth {
    /// Authentication with the given static tokens and JWT verifier (either may be absent).
    pub fn new(tokens: Option<StaticTokens>, jwt: Option<JwtVerifier>) -> Auth {
        Auth { tokens, jwt }
    }

    /// The caller `token` stands for, or `None` if no configured way accepts it. A static
    /// token is tried first (cheap, and its shape is not a JWT's); then, if the token has a
    /// JWT's three parts, the JWT verifier.
    pub async fn check(&self, token: &str) -> Option<Caller> {
        if let Some(caller) = self.tokens.as_ref().and_then(|tokens| tokens.check(token)) {
            return Some(caller);
        }
        match &self.jwt {
            Some(jwt) if token.split('.').count() == 3 => jwt.check(token).await,
            _ => None,
        }
    }
}
