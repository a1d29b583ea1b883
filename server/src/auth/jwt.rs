//! JWT access tokens from an OAuth authorization server: the signature checked against the
//! issuer's keys (a JWKS, from a file or fetched from a URL and cached), then the issuer, the
//! audience (this server's own resource URL, RFC 8707), `exp` and `nbf`, then the scopes.
//!
//! Only RS256, ES256 and EdDSA are accepted, and the algorithm comes from the key, never from
//! the token's header: a header that names another algorithm than its key's is refused, so
//! `none` and the HMAC family (which would turn a public key into a shared secret) never pass.
//!
//! Fetched keys are refreshed in the background once they are [`REFRESH_AFTER`] old, so a
//! token with a known key never waits for the provider; a token naming a key not seen yet waits
//! for the one fetch in flight. Keys not refreshed within [`MAX_KEYS_AGE`] (the provider
//! unreachable all that time) are no longer used, and JWTs are refused until a fetch succeeds.
//! The JWKS URL must be https (plain http only on a loopback host), and redirects are not
//! followed: keys must come from the URL the operator named, over a channel no one can alter.

use std::net::IpAddr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use tokio::sync::OwnedMutexGuard;
use tokio::task::JoinHandle;

use super::Caller;

/// How far `exp` and `nbf` may be off, for clocks that disagree a little.
const LEEWAY_SECONDS: u64 = 60;

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
struct Timing {
    min_refetch_interval: Duration,
    refresh_after: Duration,
    max_keys_age: Duration,
}

const TIMING: Timing = Timing {
    min_refetch_interval: MIN_REFETCH_INTERVAL,
    refresh_after: REFRESH_AFTER,
    max_keys_age: MAX_KEYS_AGE,
};

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
    Remote(Arc<RemoteKeys>),
}

struct RemoteKeys {
    url: reqwest::Url,
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
    /// RFC 7519 §4.1.1: one string. jsonwebtoken's own check also accepts an array that holds
    /// the issuer among others, so the type here refuses anything but a string.
    iss: String,
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

    /// A verifier whose keys are fetched from `url` (which [`check_key_url`] must accept). The
    /// first fetch happens now; if it fails, the server starts anyway (with a warning) and
    /// tries again when a token arrives.
    pub async fn with_key_url(
        issuer: String,
        audience: String,
        url: reqwest::Url,
    ) -> Result<Self, JwksError> {
        Self::with_key_url_timing(issuer, audience, url, TIMING).await
    }

    async fn with_key_url_timing(
        issuer: String,
        audience: String,
        url: reqwest::Url,
        timing: Timing,
    ) -> Result<Self, JwksError> {
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
        Ok(JwtVerifier {
            issuer,
            audience,
            keys: Keys::Remote(Arc::new(remote)),
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
            let kid = header.kid.as_deref().map(shown);
            tracing::debug!(kid, "refused a JWT: no usable key with its id");
            return None;
        };
        let mut validation = Validation::new(key.algorithm);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        match jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation) {
            Ok(data) if data.claims.iss == self.issuer => Some(caller(data.claims)),
            Ok(_) => {
                tracing::debug!("refused a JWT: another issuer");
                None
            }
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

/// Whether the JWKS may be fetched from `url`: over https, or over plain http from this machine
/// (a test, a provider's sidecar), where no one on the way could swap the keys.
pub fn check_key_url(url: &reqwest::Url) -> Result<(), JwksError> {
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

fn is_loopback(url: &reqwest::Url) -> bool {
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
fn shown(text: &str) -> String {
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
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use ed25519_dalek::Signer;
    use serde_json::{Value, json};

    use super::*;

    const ISSUER: &str = "https://login.example.com/";
    const AUDIENCE: &str = "https://reviews.example.com/mcp";

    #[test]
    fn keys_come_over_https_or_from_this_machine() {
        let check = |url: &str| check_key_url(&reqwest::Url::parse(url).unwrap()).is_ok();
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

    /// Keys that a known kid finds are refreshed in the background (a slow provider delays no
    /// request), an unknown kid waits for a fetch, and keys the provider has not confirmed for
    /// the maximum age stop being used until a fetch succeeds again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stale_keys_are_refreshed_in_the_background_and_too_old_ones_dropped() {
        let (first, second) = (TestKey::new("first", 1), TestKey::new("second", 2));
        let provider = Provider::start(json!({"keys": [first.jwk()]})).await;
        let timing = Timing {
            min_refetch_interval: Duration::ZERO,
            refresh_after: Duration::from_millis(300),
            max_keys_age: Duration::from_millis(1500),
        };
        let verifier = provider.verifier("/jwks.json", timing).await;
        assert_eq!(provider.fetches(), 1, "fetched at start-up");
        assert!(verifier.check(&first.token()).await.is_some());
        assert_eq!(provider.fetches(), 1, "fresh keys need no fetch");

        tokio::time::sleep(Duration::from_millis(350)).await;
        provider.set(Mode::Slow(Duration::from_millis(800)));
        let started = Instant::now();
        for _ in 0..3 {
            assert!(verifier.check(&first.token()).await.is_some());
        }
        assert!(
            started.elapsed() < Duration::from_millis(400),
            "a known kid waited for the provider: {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(provider.fetches(), 2, "one fetch in the background");

        provider.set(Mode::Slow(Duration::from_millis(200)));
        provider.publish(json!({"keys": [first.jwk(), second.jwk()]}));
        assert!(
            verifier.check(&second.token()).await.is_some(),
            "an unknown kid waits for the fetch"
        );
        assert_eq!(provider.fetches(), 3);

        provider.set(Mode::Fail);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(
            verifier.check(&first.token()).await.is_some(),
            "keys younger than the maximum age are used while fetching fails"
        );
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert!(
            verifier.check(&first.token()).await.is_none(),
            "keys older than the maximum age are not used"
        );
        provider.set(Mode::Serve);
        assert!(verifier.check(&first.token()).await.is_some());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_redirect_is_not_followed() {
        let key = TestKey::new("first", 1);
        let provider = Provider::start(json!({"keys": [key.jwk()]})).await;
        let verifier = provider.verifier("/moved", TIMING).await;
        assert!(verifier.check(&key.token()).await.is_none());
        assert_eq!(provider.fetches(), 0, "the redirect's target was fetched");
    }

    #[tokio::test]
    async fn an_issuer_that_is_not_exactly_the_one_string_is_refused() {
        let key = TestKey::new("first", 1);
        let jwks = json!({"keys": [key.jwk()]}).to_string();
        let verifier =
            JwtVerifier::with_keys(ISSUER.to_owned(), AUDIENCE.to_owned(), &jwks).unwrap();
        assert!(verifier.check(&key.token()).await.is_some());
        for issuer in [
            json!([ISSUER]),
            json!(["https://evil.test/", ISSUER]),
            json!(format!("{ISSUER}/")),
            json!({"iss": ISSUER}),
        ] {
            assert!(
                verifier
                    .check(&key.token_from(issuer.clone()))
                    .await
                    .is_none(),
                "iss {issuer}"
            );
        }
    }

    struct TestKey {
        kid: &'static str,
        signing: ed25519_dalek::SigningKey,
    }

    impl TestKey {
        fn new(kid: &'static str, seed: u8) -> TestKey {
            TestKey {
                kid,
                signing: ed25519_dalek::SigningKey::from_bytes(&[seed; 32]),
            }
        }

        fn jwk(&self) -> Value {
            let x = URL_SAFE_NO_PAD.encode(self.signing.verifying_key().as_bytes());
            json!({"kty": "OKP", "crv": "Ed25519", "kid": self.kid, "x": x})
        }

        fn token(&self) -> String {
            self.token_from(json!(ISSUER))
        }

        /// A token whose `iss` claim is `issuer`.
        fn token_from(&self, issuer: Value) -> String {
            let exp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                + 600;
            let header = json!({"alg": "EdDSA", "typ": "JWT", "kid": self.kid});
            let claims = json!({"iss": issuer, "aud": AUDIENCE, "exp": exp, "sub": "ada"});
            let part = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
            let input = format!("{}.{}", part(&header), part(&claims));
            let signature = self.signing.sign(input.as_bytes());
            format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
        }
    }

    #[derive(Clone, Copy)]
    enum Mode {
        Serve,
        Slow(Duration),
        Fail,
    }

    /// A JWKS on loopback: `/jwks.json` (counted), and `/moved`, which redirects to it.
    struct Provider {
        address: std::net::SocketAddr,
        state: Arc<ProviderState>,
    }

    struct ProviderState {
        document: Mutex<Value>,
        mode: Mutex<Mode>,
        fetches: AtomicUsize,
    }

    impl Provider {
        async fn start(document: Value) -> Provider {
            let state = Arc::new(ProviderState {
                document: Mutex::new(document),
                mode: Mutex::new(Mode::Serve),
                fetches: AtomicUsize::new(0),
            });
            let served = Arc::clone(&state);
            let app = axum::Router::new()
                .route(
                    "/jwks.json",
                    axum::routing::get(move || {
                        let state = Arc::clone(&served);
                        async move { state.answer().await }
                    }),
                )
                .route(
                    "/moved",
                    axum::routing::get(|| async {
                        (
                            axum::http::StatusCode::FOUND,
                            [("location", "/jwks.json")],
                            "",
                        )
                    }),
                );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let address = listener.local_addr().unwrap();
            tokio::spawn(async move { axum::serve(listener, app).await });
            Provider { address, state }
        }

        async fn verifier(&self, path: &str, timing: Timing) -> JwtVerifier {
            let url = reqwest::Url::parse(&format!("http://{}{path}", self.address)).unwrap();
            JwtVerifier::with_key_url_timing(ISSUER.to_owned(), AUDIENCE.to_owned(), url, timing)
                .await
                .unwrap()
        }

        fn set(&self, mode: Mode) {
            *self.state.mode.lock().unwrap() = mode;
        }

        fn publish(&self, document: Value) {
            *self.state.document.lock().unwrap() = document;
        }

        fn fetches(&self) -> usize {
            self.state.fetches.load(Ordering::SeqCst)
        }
    }

    impl ProviderState {
        async fn answer(&self) -> (axum::http::StatusCode, String) {
            self.fetches.fetch_add(1, Ordering::SeqCst);
            let mode = *self.mode.lock().unwrap();
            match mode {
                Mode::Fail => return (axum::http::StatusCode::SERVICE_UNAVAILABLE, String::new()),
                Mode::Slow(delay) => tokio::time::sleep(delay).await,
                Mode::Serve => {}
            }
            let document = self.document.lock().unwrap().to_string();
            (axum::http::StatusCode::OK, document)
        }
    }
}
