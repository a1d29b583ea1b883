//! The keys JWTs are checked against: a JWKS read from a file, or fetched from a URL and cached.
//!
//! Fetched keys are refreshed in the background once they are [`REFRESH_AFTER`] old, so a
//! token with a known key never waits for the provider; a token naming a key not seen yet waits
//! for the one fetch in flight. Keys not refreshed within [`MAX_KEYS_AGE`] (the provider
//! unreachable all that time) are no longer used, and JWTs are refused until a fetch succeeds.
//! The JWKS URL must be https (plain http only on a loopback host), and redirects are not
//! followed: keys must come from the URL the operator named, over a channel no one can alter.
//!
//! Only RS256, ES256 and EdDSA keys are kept, each with the one algorithm its type allows.

use std::net::IpAddr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use tokio::sync::OwnedMutexGuard;
use tokio::task::JoinHandle;
use url::Url;

/// The least time between two fetches of the JWKS after the one at start-up, whatever
/// triggers them (a token's unknown `kid`, stale keys), so a stream of tokens with made-up key
/// ids cannot turn the server against the identity provider, nor can a provider that fails.
const MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

/// How old fetched keys may get before a request starts fetching them again in the background
/// (and goes on with the keys it has), so a key the provider rotates in or withdraws is seen
/// within about this long.
const REFRESH_AFTER: Duration = Duration::from_secs(60 * 60);

/// How long after the last successful fetch keys are still used, while fetching fails: past
/// it every JWT is refused until a fetch succeeds, so a key the provider withdrew while
/// unreachable is not accepted forever.
const MAX_KEYS_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest a fetch of the JWKS may take, and the largest document accepted.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_JWKS_BYTES: usize = 1 << 20;

/// How much of a token's `kid` a log line shows: the token's sender chose it.
const MAX_LOGGED_KID_CHARS: usize = 64;

/// When remote keys are fetched again; the constants above, shorter in tests.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    pub(super) min_refetch_interval: Duration,
    pub(super) refresh_after: Duration,
    pub(super) max_keys_age: Duration,
}

pub(super) const TIMING: Timing = Timing {
    min_refetch_interval: MIN_REFETCH_INTERVAL,
    refresh_after: REFRESH_AFTER,
    max_keys_age: MAX_KEYS_AGE,
};

/// The verification keys of one issuer.
pub(super) struct Keys(Source);

/// Where the verification keys come from.
enum Source {
    /// Read once from a file at start-up.
    Fixed(KeySet),
    /// Fetched from a URL, cached, fetched again when stale or when a token names a key the
    /// cache lacks (at most once per [`MIN_REFETCH_INTERVAL`]).
    Remote(Arc<RemoteKeys>),
}

impl Keys {
    /// The keys in the JWKS document `jwks` (read from a file); there must be one usable key.
    pub(super) fn fixed(jwks: &str) -> Result<Keys, JwksError> {
        let keys = KeySet::parse(jwks.as_bytes())?;
        if keys.keys.is_empty() {
            return Err(JwksError(
                "the JWKS holds no RS256, ES256 or EdDSA signing key".to_owned(),
            ));
        }
        Ok(Keys(Source::Fixed(keys)))
    }

    /// Keys fetched from `url` (which [`check_key_url`] must accept). The first fetch happens
    /// now; if it fails, the server starts anyway (with a warning) and tries again when a token
    /// arrives.
    pub(super) async fn remote(url: Url, timing: Timing) -> Result<Keys, JwksError> {
        check_key_url(&url)?;
        // reqwest is built without a TLS provider of its own; ring is the one compiled in.
        // Installing fails only when one is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| JwksError(format!("cannot set up the HTTP client: {error}")))?;
        let remote = RemoteKeys {
            url,
            client,
            timing,
            cache: RwLock::new(Arc::new(KeySet::default())),
            last_fetch: Arc::new(tokio::sync::Mutex::new(None)),
        };
        // This fetch does not count against the refetch interval: a key rotated in just after
        // start-up is still picked up by the first token that names it.
        remote.refresh().await;
        Ok(Keys(Source::Remote(Arc::new(remote))))
    }

    /// The key a token names by `kid` (see [`RemoteKeys::key`] for when that waits for a
    /// fetch).
    pub(super) async fn key(&self, id: Option<&str>) -> Option<Arc<Key>> {
        match &self.0 {
            Source::Fixed(keys) => keys.find(id),
            Source::Remote(remote) => remote.key(id).await,
        }
    }
}

struct RemoteKeys {
    url: Url,
    client: reqwest::Client,
    timing: Timing,
    cache: RwLock<Arc<KeySet>>,
    /// When the last fetch after start-up started. The task doing a fetch holds the lock until
    /// it is done, so requests that need keys wait for that one fetch instead of each starting
    /// their own.
    last_fetch: Arc<tokio::sync::Mutex<Option<Instant>>>,
}

/// The usable keys of a JWKS, each with the one algorithm it verifies.
#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    /// When the keys were fetched; `None` for keys read from a file, or none fetched yet.
    fetched: Option<Instant>,
}

pub(super) struct Key {
    pub(super) id: Option<String>,
    pub(super) algorithm: Algorithm,
    pub(super) decoding: DecodingKey,
}

/// Why keys could not be had.
#[derive(Debug)]
pub struct JwksError(pub(super) String);

impl std::fmt::Display for JwksError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JwksError {}

/// Whether the JWKS may be fetched from `url`: over https, or over plain http from this machine
/// (a test, a provider's sidecar), where no one on the way could swap the keys.
pub fn check_key_url(url: &Url) -> Result<(), JwksError> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        _ => Err(JwksError(format!(
            "the JWKS URL must be https (plain http only on a loopback host: localhost, \
             127.0.0.0/8, ::1), since keys fetched in the clear could be replaced on the way; \
             not {url}"
        ))),
    }
}

fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `text` for a log line: at most [`MAX_LOGGED_KID_CHARS`] characters, control characters and
/// quotes escaped.
pub(super) fn shown(text: &str) -> String {
    let mut shown: String = text
        .chars()
        .take(MAX_LOGGED_KID_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().nth(MAX_LOGGED_KID_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

impl RemoteKeys {
    /// The key named `id` among keys younger than the maximum age. Keys due for a refresh are
    /// used while a fetch runs in the background; an unknown id (or no usable keys) waits for a
    /// fetch, unless one happened within the refetch interval.
    async fn key(self: &Arc<Self>, id: Option<&str>) -> Option<Arc<Key>> {
        let before = self.cached();
        if let Some(age) = before.age()
            && age < self.timing.max_keys_age
        {
            if age >= self.timing.refresh_after {
                self.refresh_in_background();
            }
            if let Some(key) = before.find(id) {
                return Some(key);
            }
        }
        let last_fetch = Arc::clone(&self.last_fetch).lock_owned().await;
        // While this request waited for the lock, another fetch may have brought new keys.
        if Arc::ptr_eq(&before, &self.cached()) {
            if let Some(fetch) = self.start_fetch(last_fetch) {
                // The fetch's task ends on its own (FETCH_TIMEOUT); a failed task has left the
                // keys as they were, which is what is looked at next.
                let _ = fetch.await;
            }
        } else {
            drop(last_fetch);
        }
        self.usable()?.find(id)
    }

    /// Starts a fetch in the background, unless one is running already.
    fn refresh_in_background(self: &Arc<Self>) {
        if let Ok(last_fetch) = Arc::clone(&self.last_fetch).try_lock_owned() {
            // Detached: the request goes on with the keys it has.
            drop(self.start_fetch(last_fetch));
        }
    }

    /// Starts a fetch in a task of its own that holds `last_fetch` until the fetch is done, so
    /// it completes even if the request that started it goes away; `None` if a fetch started
    /// within the refetch interval.
    fn start_fetch(
        self: &Arc<Self>,
        mut last_fetch: OwnedMutexGuard<Option<Instant>>,
    ) -> Option<JoinHandle<()>> {
        let interval = self.timing.min_refetch_interval;
        if last_fetch.is_some_and(|started| started.elapsed() < interval) {
            return None;
        }
        *last_fetch = Some(Instant::now());
        let remote = Arc::clone(self);
        Some(tokio::spawn(async move {
            remote.refresh().await;
            drop(last_fetch);
        }))
    }

    fn cached(&self) -> Arc<KeySet> {
        // A poisoned lock only means a panic elsewhere while swapping an `Arc`; the value is
        // still a whole key set.
        match self.cache.read() {
            Ok(cache) => Arc::clone(&cache),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// The cached keys, unless they are older than the maximum age (or none were fetched).
    fn usable(&self) -> Option<Arc<KeySet>> {
        let keys = self.cached();
        keys.age()
            .is_some_and(|age| age < self.timing.max_keys_age)
            .then_some(keys)
    }

    /// Fetches the keys and replaces the cache; on failure keeps the keys it has, which are used
    /// until they reach the maximum age.
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
            Err(error) => match self.cached().age() {
                Some(age) if age < self.timing.max_keys_age => tracing::warn!(
                    url = %self.url,
                    %error,
                    "cannot fetch the JWKS; the keys fetched {} s ago are used until they are \
                     {} s old",
                    age.as_secs(),
                    self.timing.max_keys_age.as_secs()
                ),
                _ => tracing::warn!(
                    url = %self.url,
                    %error,
                    "cannot fetch the JWKS; every JWT is refused until a fetch succeeds"
                ),
            },
        }
    }

    async fn fetch(&self) -> Result<KeySet, JwksError> {
        let failed = |error: reqwest::Error| JwksError(error.to_string());
        let mut response = self
            .client
            .get(self.url.clone())
            .send()
            .await
            .map_err(failed)?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|location| location.to_str().ok())
                .map_or_else(|| "?".to_owned(), shown);
            return Err(JwksError(format!(
                "the JWKS URL answered {status}, a redirect (to {location}), and redirects are \
                 not followed: give the final URL"
            )));
        }
        if !status.is_success() {
            return Err(JwksError(format!("the JWKS URL answered {status}")));
        }
        let too_large = || JwksError("the JWKS is larger than 1 MiB".to_owned());
        if response
            .content_length()
            .is_some_and(|length| length > MAX_JWKS_BYTES as u64)
        {
            return Err(too_large());
        }
        // Chunk by chunk, so a body without a Content-Length is refused as soon as it is too
        // large, not once it is all in memory.
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
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

    /// How long ago the keys were fetched; `None` for keys not fetched.
    fn age(&self) -> Option<Duration> {
        self.fetched.map(|fetched| fetched.elapsed())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_over_https_or_from_this_machine() {
        let check = |url: &str| check_key_url(&Url::parse(url).unwrap()).is_ok();
        for good in [
            "https://login.example.com/jwks.json",
            "http://127.0.0.1:8080/jwks.json",
            "http://127.9.9.9/jwks.json",
            "http://[::1]:8080/jwks.json",
            "http://localhost/jwks.json",
        ] {
            assert!(check(good), "{good}");
        }
        for bad in [
            "http://login.example.com/jwks.json",
            "http://10.0.0.1/jwks.json",
            "http://[::2]/jwks.json",
            "ftp://127.0.0.1/jwks.json",
        ] {
            assert!(!check(bad), "{bad}");
        }
    }

    #[test]
    fn a_logged_kid_is_short_and_escaped() {
        assert_eq!(shown("key-1"), "key-1");
        assert_eq!(shown("a\"b\nc"), "a\\\"b\\nc");
        let long = "k".repeat(200);
        assert_eq!(shown(&long), format!("{}…", "k".repeat(64)));
    }
}
