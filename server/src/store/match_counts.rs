//! How many titles or names contain each term searched for lately. Counting a common term's
//! matches is the costly part of a search on a large catalogue (every backend must look at
//! each match), and the tools never change a title or a name, so each backend keeps the counts
//! for as long as the catalogue's version (`totals.catalogue`, which every change to a movie's
//! or an author's text moves on) stays the same.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// How many terms' counts are kept at most; past it they are all forgotten and counted anew.
/// A term is at most 100 characters (400 bytes), so this holds two megabytes at most.
const KEPT_COUNTS: usize = 4096;

/// How many titles or names contain each term searched for lately, as of a version of the
/// catalogue (`totals.catalogue`, which every change to a movie or an author moves on).
#[derive(Default)]
pub(super) struct MatchCounts {
    counts: Mutex<HashMap<SearchedTerm, KeptCount>>,
}

/// A table, and a term searched for in it.
type SearchedTerm = (&'static str, String);

/// How many rows matched a term, in which version of the catalogue.
struct KeptCount {
    catalogue: i64,
    matches: u64,
}

impl MatchCounts {
    // The lock is held only for a lookup or an insert, neither of which can panic; a poisoned
    // lock would still hold a consistent map.
    pub(super) fn get(&self, table: &'static str, term: &str, catalogue: i64) -> Option<u64> {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        match counts.get(&(table, term.to_owned())) {
            Some(kept) if kept.catalogue == catalogue => Some(kept.matches),
            _ => None,
        }
    }

    /// The count kept for a term, with the version of the catalogue it was counted in: for a
    /// backend that learns the current version only in the statement that needs the count.
    pub(super) fn kept(&self, table: &'static str, term: &str) -> Option<(i64, u64)> {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts
            .get(&(table, term.to_owned()))
            .map(|kept| (kept.catalogue, kept.matches))
    }

    pub(super) fn keep(&self, table: &'static str, term: &str, catalogue: i64, matches: u64) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if counts.len() >= KEPT_COUNTS {
            counts.clear();
        }
        counts.insert((table, term.to_owned()), KeptCount { catalogue, matches });
    }
}
