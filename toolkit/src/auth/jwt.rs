//! JWT access tokens from an OAuth authorization server: the signature checked against the
//! issuer's keys ([`jwks`](super::jwks)), then the issuer, the audience (this server's own
//! resource URL, RFC 8707), `exp` and `nbf`, then the scopes.
//!
//! Only RS256, ES256 and EdDSA are accepted, and the algorithm comes from the key, never from
//! the token's header: a header that names another algorithm than its key's is refused, so
//! `none` and the HMAC family (which would turn a public key into a shared secret) never pass.
//!
//! A token that passes is remembered until it expires ([`verified`]), so a client sending the
//! same token with every request costs one signature check, not one per request.

mod verified;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::Validation;
use serde::Deserialize;
use url::Url;

use super::Authenticate;
use super::jwks::{JwksError, Keys, TIMING, Timing, shown};
use crate::Caller;
use verified::{Verified, VerifiedTokens, digest};

/// How far `exp` and `nbf` may be off, for clocks that disagree a little.
const LEEWAY_SECONDS: u64 = 60;

/// Checks JWT access tokens from one issuer, for this server: by default a token's audience
/// must be the server's public URL (the resource, RFC 8707).
pub struct JwtVerifier {
    issuer: String,
    /// The audience tokens must name, when it is not the resource's URL.
    audience: Option<String>,
    keys: Keys,
    verified: VerifiedTokens,
}

/// The claims read beyond those `jsonwebtoken` validates.
#[derive(Deserialize)]
struct Claims {
    /// RFC 7519 §4.1.1: one string. jsonwebtoken's own check also accepts an array that holds
    /// the issuer among others, so the type here refuses anything but a string.
    iss: String,
    /// Seconds since the epoch; jsonwebtoken has checked it is there, a whole number, and not
    /// past.
    exp: u64,
    sub: Option<String>,
    /// RFC 9068 §2.2: the client the token was issued to; some providers say `azp` instead.
    client_id: Option<String>,
    azp: Option<String>,
    /// RFC 8693/9068: space-separated scopes.
    scope: Option<String>,
    /// The array (or, from some providers, space-separated string) others use.
    scp: Option<Scp>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scp {
    List(Vec<String>),
    Text(String),
}

impl JwtVerifier {
    /// A verifier of tokens from `issuer` (their `iss`), with the keys in the JWKS document
    /// `jwks` (read from a file, say).
    pub fn with_keys(issuer: impl Into<String>, jwks: &str) -> Result<Self, JwksError> {
        Ok(JwtVerifier {
            issuer: issuer.into(),
            audience: None,
            keys: Keys::fixed(jwks)?,
            verified: VerifiedTokens::default(),
        })
    }

    /// A verifier whose keys are fetched from `url` (which [`check_key_url`] must accept). The
    /// first fetch happens now; if it fails, the server starts anyway (with a warning) and
    /// tries again when a token arrives.
    pub async fn with_key_url(issuer: impl Into<String>, url: Url) -> Result<Self, JwksError> {
        Self::with_key_url_timing(issuer.into(), url, TIMING).await
    }

    async fn with_key_url_timing(
        issuer: String,
        url: Url,
        timing: Timing,
    ) -> Result<Self, JwksError> {
        Ok(JwtVerifier {
            issuer,
            audience: None,
            keys: Keys::remote(url, timing).await?,
            verified: VerifiedTokens::default(),
        })
    }

    /// Tokens must name `audience` instead of the server's public URL: for an authorization
    /// server that names resources its own way.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The caller a valid token stands for, or `None` for any token that is not: malformed,
    /// signed by an unknown key or with another algorithm, expired, not yet valid, or for
    /// another issuer or audience (by default, `resource`: the server's public URL). Why is
    /// logged at debug level, without the token.
    pub async fn check(&self, token: &str, resource: &Url) -> Option<Caller> {
        // A JWS in compact form has three parts; anything else is not a JWT at all (a static
        // token, say, tried here after the other ways refused it).
        if token.split('.').count() != 3 {
            return None;
        }
        let audience = self.audience.as_deref().unwrap_or(resource.as_str());
        let digest = digest(token, audience);
        if let Some((caller, key_id, key)) = self.verified.get(&digest) {
            // The token stands only while the key that verified it is still the issuer's.
            match self.keys.key(key_id.as_deref()).await {
                Some(current) if Arc::ptr_eq(&current, &key) => return Some(caller),
                _ => self.verified.remove(&digest),
            }
        }
        let header = match jsonwebtoken::decode_header(token) {
            Ok(header) => header,
            Err(error) => {
                tracing::debug!(%error, "refused a JWT: unreadable header");
                return None;
            }
        };
        let Some(key) = self.keys.key(header.kid.as_deref()).await else {
            let kid = header.kid.as_deref().map(shown);
            tracing::debug!(kid, "refused a JWT: no usable key with its id");
            return None;
        };
        let mut validation = Validation::new(key.algorithm);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        let claims = match jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation) {
            Ok(data) if data.claims.iss == self.issuer => data.claims,
            Ok(_) => {
                tracing::debug!("refused a JWT: another issuer");
                return None;
            }
            Err(error) => {
                tracing::debug!(%error, "refused a JWT");
                return None;
            }
        };
        let expires = expiry(claims.exp);
        let caller = caller(claims);
        if let Some(expires) = expires {
            let verified = Verified {
                caller: caller.clone(),
                key_id: header.kid,
                key,
                expires,
            };
            self.verified.insert(digest, verified);
        }
        Some(caller)
    }
}

impl Authenticate for JwtVerifier {
    async fn authenticate(&self, token: &str, resource: &Url) -> Option<Caller> {
        self.check(token, resource).await
    }
}

/// When a token whose `exp` is `exp` stops being accepted, as an instant on this machine's
/// monotonic clock; `None` if that is too far off to tell (the token is then not remembered).
fn expiry(exp: u64) -> Option<Instant> {
    let until = UNIX_EPOCH.checked_add(Duration::from_secs(exp.checked_add(LEEWAY_SECONDS)?))?;
    let left = until.duration_since(SystemTime::now()).ok()?;
    Instant::now().checked_add(left)
}

fn caller(claims: Claims) -> Caller {
    let mut scopes: Vec<String> = claims
        .scope
        .iter()
        .flat_map(|scope| scope.split_whitespace())
        .map(str::to_owned)
        .collect();
    match claims.scp {
        Some(Scp::List(list)) => scopes.extend(list),
        Some(Scp::Text(text)) => scopes.extend(text.split_whitespace().map(str::to_owned)),
        None => {}
    }
    let client_id = claims.client_id.or(claims.azp);
    // RFC 9068 requires `sub`; a token without one is named by its client, if it has one.
    let subject = match (claims.sub, &client_id) {
        (Some(subject), _) => subject,
        (None, Some(client)) => format!("client:{client}"),
        (None, None) => "unknown".to_owned(),
    };
    let caller = Caller::new(subject, scopes);
    match client_id {
        Some(client_id) => caller.with_client_id(client_id),
        None => caller,
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    // The signing keys and the JWKS provider the HTTP tests use too, so that both sign and
    // serve keys one way.
    use test_support::jwt::{JwksServer, Mode, TestKey, jwks_document, now};

    use super::*;

    const ISSUER: &str = "https://login.example.com/";
    const AUDIENCE: &str = "https://reviews.example.com/mcp";

    /// Keys that a known kid finds are refreshed in the background (a slow provider delays no
    /// request), an unknown kid waits for a fetch, and keys the provider has not confirmed for
    /// the maximum age stop being used until a fetch succeeds again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stale_keys_are_refreshed_in_the_background_and_too_old_ones_dropped() {
        let (first, second) = (TestKey::ed25519("first"), TestKey::ed25519("second"));
        let provider = JwksServer::start(jwks_document(&[&first])).await;
        let timing = Timing {
            min_refetch_interval: Duration::ZERO,
            refresh_after: Duration::from_millis(300),
            max_keys_age: Duration::from_millis(1500),
        };
        let verifier = verifier(&provider, "/jwks.json", timing).await;
        assert_eq!(provider.fetches(), 1, "fetched at start-up");
        assert!(verifier.check(&token(&first), &resource()).await.is_some());
        assert_eq!(provider.fetches(), 1, "fresh keys need no fetch");

        tokio::time::sleep(Duration::from_millis(350)).await;
        provider.set(Mode::Slow(Duration::from_millis(800)));
        let started = Instant::now();
        for _ in 0..3 {
            assert!(verifier.check(&token(&first), &resource()).await.is_some());
        }
        assert!(
            started.elapsed() < Duration::from_millis(400),
            "a known kid waited for the provider: {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(provider.fetches(), 2, "one fetch in the background");

        provider.set(Mode::Slow(Duration::from_millis(200)));
        provider.publish(jwks_document(&[&first, &second]));
        assert!(
            verifier.check(&token(&second), &resource()).await.is_some(),
            "an unknown kid waits for the fetch"
        );
        assert_eq!(provider.fetches(), 3);

        provider.set(Mode::Fail);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(
            verifier.check(&token(&first), &resource()).await.is_some(),
            "keys younger than the maximum age are used while fetching fails"
        );
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert!(
            verifier.check(&token(&first), &resource()).await.is_none(),
            "keys older than the maximum age are not used"
        );
        provider.set(Mode::Serve);
        assert!(verifier.check(&token(&first), &resource()).await.is_some());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_redirect_is_not_followed() {
        let key = TestKey::ed25519("first");
        let provider = JwksServer::start(jwks_document(&[&key])).await;
        let verifier = verifier(&provider, "/moved", TIMING).await;
        assert!(verifier.check(&token(&key), &resource()).await.is_none());
        assert_eq!(provider.fetches(), 0, "the redirect's target was fetched");
    }

    #[tokio::test]
    async fn an_issuer_that_is_not_exactly_the_one_string_is_refused() {
        let key = TestKey::ed25519("first");
        let jwks = jwks_document(&[&key]).to_string();
        let verifier = JwtVerifier::with_keys(ISSUER, &jwks).unwrap();
        assert!(verifier.check(&token(&key), &resource()).await.is_some());
        for issuer in [
            json!([ISSUER]),
            json!(["https://evil.test/", ISSUER]),
            json!(format!("{ISSUER}/")),
            json!({"iss": ISSUER}),
        ] {
            assert!(
                verifier
                    .check(&token_from(&key, issuer.clone()), &resource())
                    .await
                    .is_none(),
                "iss {issuer}"
            );
        }
    }

    /// A token verified once is answered from memory: a made-up token placed there stands for
    /// its caller without any signature. (The check below shows that is safe.)
    #[tokio::test]
    async fn a_remembered_token_is_answered_without_checking_its_signature_again() {
        let key = TestKey::ed25519("first");
        let jwks = jwks_document(&[&key]).to_string();
        let verifier = JwtVerifier::with_keys(ISSUER, &jwks).unwrap();
        let signed = token(&key);
        let ada = verifier.check(&signed, &resource()).await.unwrap();
        assert_eq!(ada.subject, "ada");
        assert_eq!(verifier.verified.len(), 1);
        assert_eq!(verifier.check(&signed, &resource()).await, Some(ada));

        let made_up = "made.up.token";
        let verified = Verified {
            caller: Caller::new("grace", vec![]),
            key_id: Some("first".to_owned()),
            key: verifier.keys.key(Some("first")).await.unwrap(),
            expires: Instant::now() + Duration::from_secs(60),
        };
        verifier
            .verified
            .insert(digest(made_up, AUDIENCE), verified);
        let grace = verifier.check(made_up, &resource()).await;
        assert_eq!(grace.map(|caller| caller.subject), Some("grace".to_owned()));
        assert!(
            verifier
                .check(
                    made_up,
                    &Url::parse("https://other.example.com/mcp").unwrap()
                )
                .await
                .is_none(),
            "remembered for one audience, taken for another"
        );
    }

    /// A remembered token counts only while the key that verified it is the issuer's: once the
    /// provider withdraws the key, the token is refused and forgotten.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_remembered_token_is_refused_once_its_key_is_withdrawn() {
        let (first, second) = (TestKey::ed25519("first"), TestKey::ed25519("second"));
        let provider = JwksServer::start(jwks_document(&[&first, &second])).await;
        let timing = Timing {
            min_refetch_interval: Duration::ZERO,
            refresh_after: Duration::from_millis(200),
            max_keys_age: Duration::from_secs(60),
        };
        let verifier = verifier(&provider, "/jwks.json", timing).await;
        let (by_first, by_second) = (token(&first), token(&second));
        assert!(verifier.check(&by_first, &resource()).await.is_some());
        assert!(verifier.check(&by_second, &resource()).await.is_some());
        assert_eq!(verifier.verified.len(), 2);

        provider.publish(jwks_document(&[&second]));
        tokio::time::sleep(Duration::from_millis(250)).await;
        // This call finds the keys due for a refresh and starts one in the background.
        assert!(verifier.check(&by_second, &resource()).await.is_some());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            verifier.check(&by_first, &resource()).await.is_none(),
            "a token whose key was withdrawn was still taken"
        );
        assert_eq!(
            verifier.verified.len(),
            1,
            "the refused token was remembered"
        );
        assert!(verifier.check(&by_second, &resource()).await.is_some());
    }

    /// A token is remembered until its `exp` plus the leeway the check allows, and one past
    /// that is not remembered at all.
    #[test]
    fn a_token_is_remembered_until_its_exp_and_the_leeway() {
        let at = |exp: u64| expiry(exp).map(|expires| expires.duration_since(Instant::now()));
        let now = now() as u64;
        let left = at(now + 600).unwrap();
        let expected = Duration::from_secs(600 + LEEWAY_SECONDS);
        assert!(
            left <= expected && left > expected - Duration::from_secs(2),
            "{left:?}"
        );
        assert!(at(now - LEEWAY_SECONDS - 1).is_none());
        assert!(at(u64::MAX).is_none(), "an exp past any clock");
    }

    /// The server's public URL, which tokens name as their audience.
    fn resource() -> Url {
        Url::parse(AUDIENCE).unwrap()
    }

    fn token(key: &TestKey) -> String {
        token_from(key, json!(ISSUER))
    }

    /// A token whose `iss` claim is `issuer`.
    fn token_from(key: &TestKey, issuer: Value) -> String {
        key.sign(&json!({"iss": issuer, "aud": AUDIENCE, "exp": now() + 600, "sub": "ada"}))
    }

    /// A verifier that fetches its keys from `path` on `provider`.
    async fn verifier(provider: &JwksServer, path: &str, timing: Timing) -> JwtVerifier {
        let url = Url::parse(&provider.url_of(path)).unwrap();
        JwtVerifier::with_key_url_timing(ISSUER.to_owned(), url, timing)
            .await
            .unwrap()
    }
}
