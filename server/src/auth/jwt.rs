//! JWT access tokens from an OAuth authorization server: the signature checked against the
//! issuer's keys (a JWKS, from a file or fetched from a URL and cached), then the issuer, the
//! audience (this server's own resource URL, RFC 8707), `exp` and `nbf`, then the scopes.
//!
//! Only RS256, ES256 and EdDSA are accepted, and the algorithm comes from the key, never from
//! the token's header: a header that names another algorithm than its key's is refused, so
//! `none` and the HMAC family (which would turn a public key into a shared secret) never pass.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::Caller;

/// How far `exp` and `nbf` may be off, for clocks that disagree a little.
const LEEWAY_SECONDS: u64 = 60;

/// The least time between two fetches of the JWKS that a token's unknown `kid` triggers, so a
/// stream of tokens with made-up key ids cannot turn the server against the identity provider.
const MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

/// How long fetched keys are used before they are fetched again, so a key the provider has
/// withdrawn stops being accepted.
const MAX_KEYS_AGE: Duration = Duration::from_secs(60 * 60);

/// The longest a fetch of the JWKS may take, and the largest document accepted.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_JWKS_BYTES: usize = 1 << 20;

/// Checks JWT access tokens.
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    keys: Keys,
}

/// Where the verification keys come from.
enum Keys {
    /// Read once from a file at start-up.
    Fixed(KeySet),
    /// Fetched from a URL, cached, fetched again when stale or when a token names a key the
    /// cache lacks (at most once per [`MIN_REFETCH_INTERVAL`]).
    Remote(RemoteKeys),
}

struct RemoteKeys {
    url: reqwest::Url,
    client: reqwest::Client,
    cache: RwLock<Arc<KeySet>>,
    /// When the last fetch that a token triggered started; the lock is held during a fetch, so requests that miss
    /// together wait for one fetch instead of each starting their own.
    last_fetch: tokio::sync::Mutex<Option<Instant>>,
}

/// The usable keys of a JWKS, each with the one algorithm it verifies.
#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    fetched: Option<Instant>,
}

struct Key {
    id: Option<String>,
    algorithm: Algorithm,
    decoding: DecodingKey,
}

/// Why keys could not be had.
#[derive(Debug)]
pub struct JwksError(String);

impl std::fmt::Display for JwksError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JwksError {}

/// The claims read beyond those `jsonwebtoken` validates.
#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
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
    /// A verifier of tokens from `issuer` for `audience`, with the keys in the JWKS document
    /// `jwks` (read from a file).
    pub fn with_keys(issuer: String, audience: String, jwks: &str) -> Result<Self, JwksError> {
        let keys = KeySet::parse(jwks.as_bytes())?;
        if keys.keys.is_empty() {
            return Err(JwksError(
                "the JWKS holds no RS256, ES256 or EdDSA signing key".to_owned(),
            ));
        }
        Ok(JwtVerifier {
            issuer,
            audience,
            keys: Keys::Fixed(keys),
        })
    }

    /// A verifier whose keys are fetched from `url`. The first fetch happens now; if it fails,
    /// the server starts anyway (with a warning) and tries again when a token arrives.
    pub async fn with_key_url(
        issuer: String,
        audience: String,
        url: reqwest::Url,
    ) -> Result<Self, JwksError> {
        // reqwest is built without a TLS provider of its own; ring is the one compiled in.
        // Installing fails only when one is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .build()
            .map_err(|error| JwksError(format!("cannot set up the HTTP client: {error}")))?;
        let remote = RemoteKeys {
            url,
            client,
            cache: RwLock::new(Arc::new(KeySet::default())),
            last_fetch: tokio::sync::Mutex::new(None),
        };
        // This fetch does not count against the refetch interval: a key rotated in just after
        // start-up is still picked up by the first token that names it.
        remote.refresh().await;
        Ok(JwtVerifier {
            issuer,
            audience,
            keys: Keys::Remote(remote),
        })
    }

    /// The caller a valid token stands for, or `None` for any token that is not: malformed,
    /// signed by an unknown key or with another algorithm, expired, not yet valid, or for
    /// another issuer or audience. Why is logged at debug level, without the token.
    pub async fn check(&self, token: &str) -> Option<Caller> {
        let header = match jsonwebtoken::decode_header(token) {
            Ok(header) => header,
            Err(error) => {
                tracing::debug!(%error, "refused a JWT: unreadable header");
                return None;
            }
        };
        let Some(key) = self.key(header.kid.as_deref()).await else {
            tracing::debug!(kid = ?header.kid, "refused a JWT: no key with its id");
            return None;
        };
        let mut validation = Validation::new(key.algorithm);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        match jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation) {
            Ok(data) => Some(caller(data.claims)),
            Err(error) => {
                tracing::debug!(%error, "refused a JWT");
                None
            }
        }
    }

    async fn key(&self, id: Option<&str>) -> Option<Arc<Key>> {
        match &self.keys {
            Keys::Fixed(keys) => keys.find(id),
            Keys::Remote(remote) => remote.key(id).await,
        }
    }
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
    Caller {
        id: format!("jwt:{}", claims.sub.as_deref().unwrap_or("?")),
        scopes,
    }
}

impl RemoteKeys {
    async fn key(&self, id: Option<&str>) -> Option<Arc<Key>> {
        let before = self.cached();
        let fresh = before
            .fetched
            .is_some_and(|fetched| fetched.elapsed() < MAX_KEYS_AGE);
        if let Some(key) = before.find(id).filter(|_| fresh) {
            return Some(key);
        }
        let mut last_fetch = self.last_fetch.lock().await;
        // Another request may have fetched the keys while this one waited for the lock.
        let now = self.cached();
        if !Arc::ptr_eq(&before, &now) {
            return now.find(id);
        }
        let recent = last_fetch.is_some_and(|started| started.elapsed() < MIN_REFETCH_INTERVAL);
        if !recent {
            *last_fetch = Some(Instant::now());
            self.refresh().await;
        }
        self.cached().find(id)
    }

    fn cached(&self) -> Arc<KeySet> {
        // A poisoned lock only means a panic elsewhere while swapping an `Arc`; the value is
        // still a whole key set.
        match self.cache.read() {
            Ok(cache) => Arc::clone(&cache),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Fetches the keys and replaces the cache; on failure keeps the keys it has.
    async fn refresh(&self) {
        match self.fetch().await {
            Ok(keys) => {
                tracing::info!(url = %self.url, keys = keys.keys.len(), "fetched the JWKS");
                let keys = Arc::new(keys);
                match self.cache.write() {
                    Ok(mut cache) => *cache = keys,
                    Err(poisoned) => *poisoned.into_inner() = keys,
                }
            }
            Err(error) => tracing::warn!(url = %self.url, %error, "cannot fetch the JWKS"),
        }
    }

    async fn fetch(&self) -> Result<KeySet, JwksError> {
        let failed = |error: reqwest::Error| JwksError(error.to_string());
        let response = self
            .client
            .get(self.url.clone())
            .send()
            .await
            .map_err(failed)?
            .error_for_status()
            .map_err(failed)?;
        if response
            .content_length()
            .is_some_and(|length| length > MAX_JWKS_BYTES as u64)
        {
            return Err(JwksError("the JWKS is larger than 1 MiB".to_owned()));
        }
        let body = response.bytes().await.map_err(failed)?;
        if body.len() > MAX_JWKS_BYTES {
            return Err(JwksError("the JWKS is larger than 1 MiB".to_owned()));
        }
        let mut keys = KeySet::parse(&body)?;
        keys.fetched = Some(Instant::now());
        Ok(keys)
    }
}

impl KeySet {
    /// The usable keys of a JWKS document. A key of another kind (encryption, HMAC, RSA for
    /// PS256, another curve) is skipped, so one odd key does not make the whole set unusable.
    fn parse(document: &[u8]) -> Result<KeySet, JwksError> {
        #[derive(Deserialize)]
        struct Document {
            keys: Vec<serde_json::Value>,
        }
        let document: Document = serde_json::from_slice(document)
            .map_err(|error| JwksError(format!("not a JWKS document: {error}")))?;
        let keys = document
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(|jwk| Key::from_jwk(&jwk))
            .map(Arc::new)
            .collect();
        Ok(KeySet {
            keys,
            fetched: None,
        })
    }

    /// The key a token names by `kid`; a token without one may use the only key of a set that
    /// has exactly one.
    fn find(&self, id: Option<&str>) -> Option<Arc<Key>> {
        match id {
            Some(id) => self.keys.iter().find(|key| key.id.as_deref() == Some(id)),
            None if self.keys.len() == 1 => self.keys.first(),
            None => None,
        }
        .cloned()
    }
}

impl Key {
    /// The key with the one algorithm its type allows, or `None` for a key this server does
    /// not accept tokens from.
    fn from_jwk(jwk: &Jwk) -> Option<Key> {
        if matches!(
            jwk.common.public_key_use,
            Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
        ) {
            return None;
        }
        let (algorithm, declared) = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => (Algorithm::RS256, KeyAlgorithm::RS256),
            AlgorithmParameters::EllipticCurve(params) if params.curve == EllipticCurve::P256 => {
                (Algorithm::ES256, KeyAlgorithm::ES256)
            }
            AlgorithmParameters::OctetKeyPair(params) if params.curve == EllipticCurve::Ed25519 => {
                (Algorithm::EdDSA, KeyAlgorithm::EdDSA)
            }
            _ => return None,
        };
        // A key that says it is for another algorithm (RS512, PS256) is not used for ours.
        if jwk
            .common
            .key_algorithm
            .as_ref()
            .is_some_and(|alg| *alg != declared)
        {
            return None;
        }
        let decoding = DecodingKey::from_jwk(jwk).ok()?;
        Some(Key {
            id: jwk.common.key_id.clone(),
            algorithm,
            decoding,
        })
    }
}
