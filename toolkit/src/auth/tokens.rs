//! Static bearer tokens: the list of SHA-256 hashes with their scopes that an operator keeps in
//! a file (or an environment variable), the check of a presented token against it, and minting a
//! new token with the line that lets it in.
//!
//! The list holds hashes, never tokens, so a leaked file lets no one in. A token is 256 random
//! bits from the operating system, so one unsalted SHA-256 is enough: there is nothing to guess.

use std::fmt;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use url::Url;

use super::Authenticate;
use crate::Caller;

/// How many random bytes a minted token carries (256 bits).
const TOKEN_BYTES: usize = 32;

/// How an entry names its hash algorithm.
const HASH_PREFIX: &str = "sha256:";

/// The accepted static tokens: one entry per line, `sha256:<hex of the token's SHA-256>
/// <scopes, comma-separated>`. Deliberately no `Debug` of the entries: they are only hashes,
/// but nothing about a credential needs to reach a log.
///
/// ```
/// use toolkit::auth::StaticTokens;
///
/// let minted = StaticTokens::mint("nb_", &["notes.read".to_owned()]).unwrap();
/// let tokens = StaticTokens::parse(&format!("# Ada's laptop\n{}", minted.entry), "tokens.txt")
///     .unwrap();
/// let caller = tokens.check(&minted.token).unwrap();
/// assert!(caller.has_scope("notes.read"));
/// assert!(tokens.check("nb_guess").is_none());
/// ```
pub struct StaticTokens {
    entries: Vec<Entry>,
}

struct Entry {
    hash: [u8; 32],
    scopes: Vec<String>,
    /// Where the entry is in its list, as [`TokensError::line`] counts.
    line: usize,
}

impl fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StaticTokens({} entries)", self.entries.len())
    }
}

/// A mistake in a list of tokens. It names the line, never its content: someone may have
/// pasted a token where its hash belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokensError {
    /// Where the list came from (a file's path, or the environment variable's name).
    pub source: String,
    /// The entry's line (1-based; entries separated by `;` count as lines of their own).
    pub line: usize,
    /// What is wrong with it.
    pub problem: &'static str,
}

impl fmt::Display for TokensError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, entry {}: {}; each entry is `sha256:<64 hex digits> scope[,scope…]`",
            self.source, self.line, self.problem
        )
    }
}

impl std::error::Error for TokensError {}

impl StaticTokens {
    /// Reads a list of entries, one per line (or separated by `;`, for an environment
    /// variable): `sha256:<hex of the token's SHA-256> <scopes, comma-separated>`. Blank lines
    /// and lines starting with `#` are skipped. `source` names where the list came from in an
    /// error (a file's path, or an environment variable's name).
    pub fn parse(text: &str, source: &str) -> Result<StaticTokens, TokensError> {
        let mut entries = Vec::new();
        for (index, line) in text.split(['\n', ';']).enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let error = |problem| TokensError {
                source: source.to_owned(),
                line: index + 1,
                problem,
            };
            entries.push(parse_entry(line, index + 1).map_err(error)?);
        }
        Ok(StaticTokens { entries })
    }

    /// How many tokens the list accepts.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the list accepts no token at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Each scope an entry grants that is not in `known`, with the entry's line. The `token`
    /// command refuses such a scope, but a list may be written by hand.
    pub fn unknown_scopes<'a>(&'a self, known: &[&str]) -> Vec<(usize, &'a str)> {
        self.entries
            .iter()
            .flat_map(|entry| entry.scopes.iter().map(move |scope| (entry.line, scope)))
            .filter(|(_, scope)| !known.contains(&scope.as_str()))
            .map(|(line, scope)| (line, scope.as_str()))
            .collect()
    }

    /// The caller `token` stands for, if it is one of the list's. The token's hash is compared
    /// with every entry, each comparison in constant time, so the time taken says nothing about
    /// how close a guess came.
    pub fn check(&self, token: &str) -> Option<Caller> {
        let hash: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let mut found = None;
        for entry in &self.entries {
            let equal = bool::from(entry.hash.ct_eq(&hash));
            if equal && found.is_none() {
                found = Some(entry);
            }
        }
        found.map(|entry| {
            Caller::new(
                format!("token:{}", hex(&entry.hash[..4])),
                entry.scopes.clone(),
            )
        })
    }

    /// Mints a token of 256 bits from the operating system's random number generator, starting
    /// with `prefix` (so that secret scanners, and people, can tell it apart: `nb_`, say), and
    /// the entry that lets it in with `scopes`.
    pub fn mint(prefix: &str, scopes: &[String]) -> Result<Minted, getrandom::Error> {
        let mut bytes = [0u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes)?;
        let token = format!("{prefix}{}", hex(&bytes));
        let entry = format!(
            "{HASH_PREFIX}{} {}",
            hex(&Sha256::digest(token.as_bytes())),
            scopes.join(",")
        );
        Ok(Minted { token, entry })
    }
}

fn parse_entry(line: &str, number: usize) -> Result<Entry, &'static str> {
    let mut fields = line.split_whitespace();
    let (Some(hash), Some(scopes), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err("expected two fields, the hash and the scopes");
    };
    let hash = hash.strip_prefix(HASH_PREFIX).and_then(parse_hash).ok_or(
        "the first field must be `sha256:` and 64 hex digits (the list holds hashes, not tokens)",
    )?;
    let scopes: Vec<String> = scopes
        .split(',')
        .filter(|scope| !scope.is_empty())
        .map(str::to_owned)
        .collect();
    if scopes.is_empty() {
        return Err("the second field must name at least one scope");
    }
    Ok(Entry {
        hash,
        scopes,
        line: number,
    })
}

fn parse_hash(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut hash = [0u8; 32];
    for (byte, pair) in hash.iter_mut().zip(text.as_bytes().chunks(2)) {
        // Both bytes are ASCII (checked above), so the pair is valid UTF-8.
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(hash)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A newly minted token and the entry that lets it in.
pub struct Minted {
    /// The token, for the client. It is shown once and kept nowhere.
    pub token: String,
    /// The entry to add to the list: the token's hash and its scopes.
    pub entry: String,
}

impl Authenticate for StaticTokens {
    async fn authenticate(&self, token: &str, _resource: &Url) -> Option<Caller> {
        self.check(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "mrm_";

    #[test]
    fn a_minted_token_is_let_in_by_its_entry_with_its_scopes() {
        let minted = StaticTokens::mint(
            PREFIX,
            &["reviews.read".to_owned(), "reviews.write".to_owned()],
        )
        .unwrap();
        assert!(minted.token.starts_with(PREFIX));
        assert_eq!(minted.token.len(), PREFIX.len() + 2 * TOKEN_BYTES);
        let tokens = StaticTokens::parse(&minted.entry, "test").unwrap();
        let caller = tokens.check(&minted.token).unwrap();
        assert_eq!(caller.scopes, ["reviews.read", "reviews.write"]);
        assert!(tokens.check("mrm_0000").is_none());
        assert_ne!(StaticTokens::mint(PREFIX, &[]).unwrap().token, minted.token);
    }

    #[test]
    fn comments_blank_lines_and_semicolons_separate_entries() {
        let (first, second) = (
            StaticTokens::mint(PREFIX, &[]).unwrap(),
            StaticTokens::mint(PREFIX, &[]).unwrap(),
        );
        let text = format!(
            "# the team\n\n{} reviews.read\n{} reviews.write ; {} reviews.read,reviews.write",
            first.entry, second.entry, first.entry
        );
        let tokens = StaticTokens::parse(&text, "test").unwrap();
        assert_eq!(tokens.len(), 3);
        assert_eq!(
            tokens.check(&second.token).unwrap().scopes,
            ["reviews.write"]
        );
        // The first entry that matches decides.
        assert_eq!(tokens.check(&first.token).unwrap().scopes, ["reviews.read"]);
    }

    #[test]
    fn a_mistake_names_the_entry_but_never_repeats_it() {
        let minted = StaticTokens::mint(PREFIX, &[]).unwrap();
        let text = format!("# ok\n{} reviews.read", minted.token);
        let error = StaticTokens::parse(&text, "tokens.txt").unwrap_err();
        assert_eq!(error.line, 2);
        assert!(!error.to_string().contains(&minted.token));
        assert!(
            error
                .to_string()
                .starts_with("tokens.txt, entry 2: the first field")
        );
        let tokens = StaticTokens::parse(
            &format!(
                "# team\n{} reviews.read,reviews.wrte\n{} reviews.write",
                minted.entry, minted.entry
            ),
            "t",
        )
        .unwrap();
        assert_eq!(
            tokens.unknown_scopes(&["reviews.read", "reviews.write"]),
            [(2, "reviews.wrte")]
        );
        for bad in [
            "sha256:00 reviews.read",
            "sha256:",
            &format!("sha256:{} ", "0".repeat(64)),
        ] {
            assert!(StaticTokens::parse(bad, "t").is_err(), "{bad}");
        }
    }
}
