//! What the store takes and gives: plain rows, the same whichever backend holds them.

use uuid::Uuid;

/// A movie with its review aggregates.
#[derive(Debug, Clone, PartialEq)]
pub struct MovieRow {
    pub id: Uuid,
    pub title: String,
    /// How many reviews the movie has (invariant 1 on [`Store`](super::Store)).
    pub review_count: u64,
    /// The sum of its reviews' stars (invariant 1).
    pub star_total: u64,
}

/// A movie to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMovie {
    pub id: Uuid,
    pub title: String,
}

/// An author with their review aggregates.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthorRow {
    pub id: Uuid,
    pub first_name: String,
    pub last_name: String,
    /// How many reviews the author has written (invariant 1 on [`Store`](super::Store)).
    pub review_count: u64,
    /// The sum of their reviews' stars (invariant 1).
    pub star_total: u64,
}

/// An author to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAuthor {
    pub id: Uuid,
    pub first_name: String,
    pub last_name: String,
}

/// A review with its movie's title and its author's names, as they are now (invariant 3 on
/// [`Store`](super::Store)).
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewRow {
    pub id: Uuid,
    /// From 1 to 5.
    pub stars: u8,
    pub movie_id: Uuid,
    pub movie_title: String,
    pub author_id: Uuid,
    pub author_first_name: String,
    pub author_last_name: String,
}

/// A review to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReview {
    pub id: Uuid,
    pub movie_id: Uuid,
    pub author_id: Uuid,
    /// From 1 to 5.
    pub stars: u8,
}

/// Which reviews a page lists: every review, or those of one movie, of one author, or of both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReviewFilter {
    pub movie_id: Option<Uuid>,
    pub author_id: Option<Uuid>,
}

/// One page of rows and the number of rows across every page.
#[derive(Debug, Clone, PartialEq)]
pub struct Rows<T> {
    pub items: Vec<T>,
    pub total: u64,
}

impl<T> Rows<T> {
    /// The number of rows across every page, when a page of `shown` rows read from `offset` with
    /// room for `limit` tells it: a page neither full nor past the end is the last one. `None`
    /// when the rows must be counted.
    pub(super) fn total_from_page(offset: u32, limit: u32, shown: usize) -> Option<u64> {
        let shown = shown as u64;
        (shown < u64::from(limit) && (shown > 0 || offset == 0)).then(|| u64::from(offset) + shown)
    }
}
