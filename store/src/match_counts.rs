//! How many titles or names contain each term searched for lately. Counting a common term's
//! matches is the costly part of a search on a large catalogue (every backend must look at
//! each match), and the tools never change a title or a name, so each backend keeps the counts
//! for as long as the catalogue's version (`totals.catalogue`, which every change to a movie's
//! or an author's text moves on) stays the same.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use uuid::Uuid;

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

/// How many rows matched a term, out of how many, in which version of the catalogue.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeptCount {
    pub catalogue: i64,
    pub matches: u64,
    /// How many rows the table held.
    pub rows: u64,
    /// The first matching row in the table's order, once a search has seen it: no row before
    /// it matches, so a walk of the order for the term may start there. (SQLite's walks are
    /// bounded another way, and it keeps none.)
    pub first: Option<Uuid>,
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
    pub(super) fn kept(&self, table: &'static str, term: &str) -> Option<KeptCount> {
        let counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        counts.get(&(table, term.to_owned())).copied()
    }

    pub(super) fn keep(&self, table: &'static str, term: &str, kept: KeptCount) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if counts.len() >= KEPT_COUNTS {
            counts.clear();
        }
        counts.insert((table, term.to_owned()), kept);
    }
}

/// How many times the rows a walk is expected to need it may walk before giving up.
const WINDOW_OVER_ESTIMATE: f64 = 4.0;

/// The fewest rows a walk may walk.
const MIN_WINDOW: f64 = 64.0;

/// How a backend should find rows `offset..offset + limit` of the `matches` rows, out of
/// `rows`, that contain a term, when fetching and sorting one match costs it `sort_over_walk`
/// times as much as walking past one row: `None` to fetch every match and sort them (the cost grows with
/// the matches), or `Some(window)` to walk the order's index, keeping the rows that contain the
/// term, for at most the first `window` rows of the order (the cost grows with the rows
/// walked, about rows × (offset + limit) / matches when matches are spread evenly), and to
/// sort after all only when that first part of the order did not hold enough of them: a
/// common word that starts titles gathers its matches in one part of the order. A window of
/// `rows` or more walks every row.
pub(super) fn walk_window(
    rows: u64,
    matches: u64,
    offset: u32,
    limit: u32,
    sort_over_walk: f64,
) -> Option<u64> {
    if matches == 0 {
        return None;
    }
    let sorted_cost = matches as f64 * sort_over_walk;
    let walked_cost = (f64::from(offset) + f64::from(limit)) * rows as f64 / matches as f64;
    // A float to integer cast saturates, and the window is at least MIN_WINDOW.
    (walked_cost < sorted_cost).then(|| (walked_cost * WINDOW_OVER_ESTIMATE).max(MIN_WINDOW) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_terms_are_sorted_and_common_ones_walked_in_a_window() {
        // 100 matches in a million rows: a walk would pass 100,000 rows for a page of ten.
        assert_eq!(walk_window(1_000_000, 100, 0, 10, 5.0), None);
        // 200,000 matches: a page of ten is about 50 rows in; the window is four times that.
        assert_eq!(walk_window(1_000_000, 200_000, 0, 10, 5.0), Some(200));
        assert_eq!(walk_window(1_000_000, 1_000_000, 0, 1, 5.0), Some(64));
        assert_eq!(walk_window(1_000_000, 0, 0, 10, 5.0), None);
        // 2,000 matches: a walk would pass about 5,000 rows, worth it only where a sort is dear.
        assert_eq!(walk_window(1_000_000, 2_000, 0, 10, 5.0), Some(20_000));
        assert_eq!(walk_window(1_000_000, 2_000, 0, 10, 1.0), None);
    }
}
