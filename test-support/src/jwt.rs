//! Signing keys, JWTs and a JWKS provider for the tests of JWT access tokens: the HTTP tests of
//! the built binary and the verifier's unit tests (`server/src/auth/jwt.rs`) both use them, so
//! that both sign and serve keys the same way.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// A signing key with its kid, and its public half as a JWK.
pub struct TestKey {
    pub kid: String,
    signer: Signer,
}

enum Signer {
    Rsa(Box<rsa::PrivateKey>),
    Ec(p256::ecdsa::SigningKey),
    Ed(ed25519_dalek::SigningKey),
}

/// One key of each algorithm the server accepts.
pub struct Keys {
    pub rsa: TestKey,
    pub ec: TestKey,
    pub ed: TestKey,
}

/// The keys every test of a binary shares, made once: RSA key generation is the slow part.
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys {
        rsa: TestKey::rs256("rsa-1"),
        ec: TestKey::es256("ec-1"),
        ed: TestKey::ed25519("ed-1"),
    })
}

fn random_32() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS RNG");
    bytes
}

impl TestKey {
    pub fn rs256(kid: &str) -> TestKey {
        let key = rsa::PrivateKey::new(&mut getrandom::SysRng, 2048).expect("an RSA key");
        TestKey {
            kid: kid.to_owned(),
            signer: Signer::Rsa(Box::new(key)),
        }
    }

    pub fn es256(kid: &str) -> TestKey {
        let key = loop {
            // Almost every 32 random bytes are a valid P-256 scalar.
            if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&random_32()) {
                break key;
            }
        };
        TestKey {
            kid: kid.to_owned(),
            signer: Signer::Ec(key),
        }
    }

    pub fn ed25519(kid: &str) -> TestKey {
        TestKey {
            kid: kid.to_owned(),
            signer: Signer::Ed(ed25519_dalek::SigningKey::from_bytes(&random_32())),
        }
    }

    fn alg(&self) -> &'static str {
        match self.signer {
            Signer::Rsa(_) => "RS256",
            Signer::Ec(_) => "ES256",
            Signer::Ed(_) => "EdDSA",
        }
    }

    pub fn jwk(&self) -> Value {
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        match &self.signer {
            Signer::Rsa(key) => {
                use rsa::traits::PublicKeyParts;
                json!({"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                       "n": b64(&key.n_bytes()), "e": b64(&key.e_bytes())})
            }
            Signer::Ec(key) => {
                let point = key.verifying_key().to_sec1_point(false);
                json!({"kty": "EC", "kid": self.kid, "crv": "P-256",
                       "x": b64(point.x().unwrap()), "y": b64(point.y().unwrap())})
            }
            Signer::Ed(key) => json!({"kty": "OKP", "kid": self.kid, "crv": "Ed25519",
                                      "x": b64(key.verifying_key().as_bytes())}),
        }
    }

    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(&self.kid, claims)
    }

    /// A JWT signed with this key but naming `kid` in its header.
    pub fn sign_as(&self, kid: &str, claims: &Value) -> String {
        let header = json!({"alg": self.alg(), "typ": "JWT", "kid": kid});
        let input = signing_input(&header, claims);
        let signature = match &self.signer {
            Signer::Rsa(key) => key
                .pkcs1v15_sign::<rsa::sha2::Sha256>(input.as_bytes())
                .expect("an RSA signature"),
            Signer::Ec(key) => {
                use p256::ecdsa::signature::Signer as _;
                let signature: p256::ecdsa::Signature = key.sign(input.as_bytes());
                signature.to_bytes().to_vec()
            }
            Signer::Ed(key) => {
                use ed25519_dalek::Signer as _;
                key.sign(input.as_bytes()).to_bytes().to_vec()
            }
        };
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature))
    }
}

/// Seconds since the Unix epoch: what a JWT's times count.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| since.as_secs() as i64)
        .unwrap_or(0)
}

fn signing_input(header: &Value, claims: &Value) -> String {
    let part = |value: &Value| URL_SAFE_NO_PAD.encode(value.to_string());
    format!("{}.{}", part(header), part(claims))
}

/// A JWT with no signature at all.
pub fn unsigned(header: &Value, claims: &Value) -> String {
    format!("{}.", signing_input(header, claims))
}

/// The old confusion attack: HS256 with the RSA public key as the shared secret.
pub fn hs256(key: &TestKey, claims: &Value) -> String {
    use sha2::{Digest, Sha256};
    let secret = match &key.signer {
        Signer::Rsa(key) => {
            use rsa::traits::PublicKeyParts;
            key.n_bytes().to_vec()
        }
        _ => unreachable!("only the RSA key is used"),
    };
    let input = signing_input(
        &json!({"alg": "HS256", "typ": "JWT", "kid": key.kid}),
        claims,
    );
    // HMAC-SHA256 by its definition (RFC 2104), to need no HMAC crate.
    let mut block = [0u8; 64];
    if secret.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(&secret));
    } else {
        block[..secret.len()].copy_from_slice(&secret);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(input.as_bytes())
        .finalize();
    let mac = Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize();
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(mac))
}

/// The JWT with its claims replaced by others that grant more, its signature kept.
pub fn tamper(jwt: &str) -> String {
    let parts: Vec<&str> = jwt.split('.').collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    claims["scope"] = json!("reviews.read reviews.write");
    format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        parts[2]
    )
}

/// A JWK set of the public halves of `keys`.
pub fn jwks_document(keys: &[&TestKey]) -> Value {
    json!({"keys": keys.iter().map(|key| key.jwk()).collect::<Vec<_>>()})
}

/// Writes a JWK set of `keys` to a new file in `dir`, with an HMAC key among them that the
/// server must ignore, never use.
pub fn write_jwks(dir: &Path, keys: &[&TestKey]) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let file = dir.join(format!(
        "jwks-{}.json",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut document = jwks_document(keys);
    document["keys"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kty": "oct", "kid": "hmac", "k": URL_SAFE_NO_PAD.encode(b"secret")}));
    std::fs::write(&file, document.to_string()).unwrap();
    file
}

/// How a [`JwksServer`] answers.
#[derive(Clone, Copy)]
pub enum Mode {
    Serve,
    /// Serves after this long.
    Slow(Duration),
    /// Answers 503.
    Fail,
}

/// A JWK set served on loopback, counting its fetches: `/jwks.json`, and `/moved`, which
/// redirects to it. `publish` rotates the keys; `set` makes it slow or failing.
pub struct JwksServer {
    /// The address of `/jwks.json`.
    pub url: String,
    address: std::net::SocketAddr,
    state: Arc<State>,
}

struct State {
    document: Mutex<Value>,
    mode: Mutex<Mode>,
    fetches: AtomicUsize,
}

impl JwksServer {
    pub async fn start(document: Value) -> JwksServer {
        let state = Arc::new(State {
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
        JwksServer {
            url: format!("http://{address}/jwks.json"),
            address,
            state,
        }
    }

    /// The address of `path` on this server.
    pub fn url_of(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    pub fn set(&self, mode: Mode) {
        *self.state.mode.lock().unwrap() = mode;
    }

    pub fn publish(&self, document: Value) {
        *self.state.document.lock().unwrap() = document;
    }

    pub fn fetches(&self) -> usize {
        self.state.fetches.load(Ordering::SeqCst)
    }
}

impl State {
    async fn answer(
        &self,
    ) -> (
        axum::http::StatusCode,
        [(&'static str, &'static str); 1],
        String,
    ) {
        self.fetches.fetch_add(1, Ordering::SeqCst);
        let json = [("content-type", "application/json")];
        let mode = *self.mode.lock().unwrap();
        match mode {
            Mode::Fail => {
                return (
                    axum::http::StatusCode::SERVICE_UNAVAILABLE,
                    json,
                    String::new(),
                );
            }
            Mode::Slow(delay) => tokio::time::sleep(delay).await,
            Mode::Serve => {}
        }
        let document = self.document.lock().unwrap().to_string();
        (axum::http::StatusCode::OK, json, document)
    }
}
