//! JWTs already verified, so that a client sending the same token with every request has its
//! signature checked once instead of on each: an Ed25519 or RSA verification costs tens of
//! microseconds, a lookup by the token's SHA-256 a few hundred nanoseconds.
//!
//! An entry lasts until its token expires, and holds the key that verified it: a hit counts
//! only while the issuer's current keys still hold that very key, so a key withdrawn (or keys
//! too old to use) ends the entries it verified. At most [`MAX_VERIFIED_TOKENS`] are kept; past
//! that, expired entries go first, then the one that would expire soonest.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::super::jwks::Key;
use crate::Caller;

/// How many verified tokens are remembered at most: one per client is enough, and a server
/// rarely has more than a few thousand at once.
pub(super) const MAX_VERIFIED_TOKENS: usize = 10_000;

/// Tokens verified for one audience, by the SHA-256 of the token: the map never holds a token
/// itself.
#[derive(Default)]
pub(super) struct VerifiedTokens {
    entries: Mutex<HashMap<[u8; 32], Verified>>,
}

/// What a verified token stands for, and for how long.
pub(super) struct Verified {
    pub(super) caller: Caller,
    /// The `kid` of the key that verified the token, to look that key up again on a hit.
    pub(super) key_id: Option<String>,
    pub(super) key: Arc<Key>,
    /// When the token stops being accepted: its `exp`, plus the leeway the check allows.
    pub(super) expires: Instant,
}

/// A token's place in the cache: the hash of the token and the audience it was checked for.
pub(super) fn digest(token: &str, audience: &str) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(audience.as_bytes());
    // No audience holds a NUL, so the pair reads one way only.
    hash.update([0]);
    hash.update(token.as_bytes());
    hash.finalize().into()
}

impl VerifiedTokens {
    /// The caller, key id and key of the token hashed to `digest`, if it is remembered and has
    /// not expired.
    pub(super) fn get(&self, digest: &[u8; 32]) -> Option<(Caller, Option<String>, Arc<Key>)> {
        let mut entries = self.lock();
        let entry = entries.get(digest)?;
        if entry.expires <= Instant::now() {
            entries.remove(digest);
            return None;
        }
        Some((
            entry.caller.clone(),
            entry.key_id.clone(),
            Arc::clone(&entry.key),
        ))
    }

    /// Remembers a token verified just now.
    pub(super) fn insert(&self, digest: [u8; 32], verified: Verified) {
        let mut entries = self.lock();
        if entries.len() >= MAX_VERIFIED_TOKENS && !entries.contains_key(&digest) {
            let now = Instant::now();
            entries.retain(|_, entry| entry.expires > now);
            if entries.len() >= MAX_VERIFIED_TOKENS {
                let soonest = entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.expires)
                    .map(|(digest, _)| *digest);
                if let Some(soonest) = soonest {
                    entries.remove(&soonest);
                }
            }
        }
        entries.insert(digest, verified);
    }

    /// Forgets the token hashed to `digest`: its key is no longer the issuer's.
    pub(super) fn remove(&self, digest: &[u8; 32]) {
        self.lock().remove(digest);
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<[u8; 32], Verified>> {
        // A poisoned lock means a panic while the map was changed by one insert or removal,
        // each of which leaves whole entries: the map is still sound.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use jsonwebtoken::{Algorithm, DecodingKey};

    use super::*;

    #[test]
    fn an_expired_token_is_not_found_and_is_forgotten() {
        let tokens = VerifiedTokens::default();
        let key = key();
        tokens.insert(
            digest("live", "aud"),
            verified(&key, Duration::from_secs(60)),
        );
        tokens.insert(digest("dead", "aud"), verified(&key, Duration::ZERO));
        assert_eq!(
            tokens
                .get(&digest("live", "aud"))
                .map(|(caller, ..)| caller.subject),
            Some("ada".to_owned())
        );
        assert!(tokens.get(&digest("dead", "aud")).is_none());
        assert_eq!(tokens.len(), 1, "the expired entry stayed");
        assert!(
            tokens.get(&digest("live", "other")).is_none(),
            "a token verified for one audience was found for another"
        );
    }

    #[test]
    fn past_the_bound_expired_entries_go_first_then_the_soonest_to_expire() {
        let tokens = VerifiedTokens::default();
        let key = key();
        tokens.insert(digest("expired", "aud"), verified(&key, Duration::ZERO));
        tokens.insert(
            digest("soonest", "aud"),
            verified(&key, Duration::from_secs(5)),
        );
        for n in 2..MAX_VERIFIED_TOKENS {
            tokens.insert(
                digest(&n.to_string(), "aud"),
                verified(&key, Duration::from_secs(600)),
            );
        }
        assert_eq!(tokens.len(), MAX_VERIFIED_TOKENS);

        tokens.insert(
            digest("new", "aud"),
            verified(&key, Duration::from_secs(600)),
        );
        assert_eq!(
            tokens.len(),
            MAX_VERIFIED_TOKENS,
            "the expired entry stayed"
        );
        assert!(tokens.get(&digest("soonest", "aud")).is_some());

        tokens.insert(
            digest("newer", "aud"),
            verified(&key, Duration::from_secs(600)),
        );
        assert_eq!(tokens.len(), MAX_VERIFIED_TOKENS);
        assert!(tokens.get(&digest("soonest", "aud")).is_none());
        assert!(tokens.get(&digest("new", "aud")).is_some());
        assert!(tokens.get(&digest("newer", "aud")).is_some());
    }

    fn key() -> Arc<Key> {
        Arc::new(Key {
            id: None,
            algorithm: Algorithm::EdDSA,
            decoding: DecodingKey::from_ed_der(&[0; 32]),
        })
    }

    fn verified(key: &Arc<Key>, lasting: Duration) -> Verified {
        Verified {
            caller: Caller::new("ada", vec![]),
            key_id: None,
            key: Arc::clone(key),
            expires: Instant::now() + lasting,
        }
    }
}
