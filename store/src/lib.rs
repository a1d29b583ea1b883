//! The store: the one place that knows SQL, behind one interface whatever database holds the
//! data. [`Store`] offers one method per question the tools ask, in plain row types
//! ([`rows`]), and keeps the invariants written on it; `admin` opens, loads and closes it. Each
//! backend lives in a module of its own and answers the same questions: `sqlite`, a database
//! file (the default), and `postgres`, a database server that many servers share.
//!
//! **Boundary.** This crate depends on no JSON, MCP or framework crate, so the compiler keeps SQL
//! and rows on this side and JSON and MCP on the server's. Its public API is [`Store`], the row
//! types, the results kept under idempotency keys ([`CallKey`], [`Keep`], [`KeptCall`]),
//! [`Database`] (with [`PostgresDatabase`]), [`Progress`], [`fold`] and [`StoreError`];
//! what a backend is made of is private to it.

mod admin;
mod columns;
mod error;
mod folding;
mod kept;
mod match_counts;
mod postgres;
mod rows;
mod sqlite;

use uuid::Uuid;

use postgres::PostgresStore;
use sqlite::SqliteStore;

pub use admin::{Database, Progress};
pub use error::StoreError;
pub use folding::fold;
pub use kept::{CallKey, Keep, KeptCall};
pub use postgres::PostgresDatabase;
pub use rows::{
    AuthorRow, MovieRow, NewAuthor, NewMovie, NewReview, ReviewFilter, ReviewRow, Rows,
};

use folding::search_term;

/// The movie-review database, on whichever backend [`Database`] named when it was opened.
///
/// # Invariants
///
/// Every backend keeps these, whoever writes the data (this server, another replica, or a
/// person with the database's own shell); the end-to-end tool tests check them through the
/// tools. "Folded" is [`fold`]: Unicode lowercase, letter by letter. "Exact" order is the order
/// of the texts' UTF-8 bytes, and ids are ordered as their 16 bytes.
///
/// 1. **Aggregates.** A movie's and an author's `review_count` and `star_total` are the number
///    and the sum of the stars of its reviews.
/// 2. **Totals.** A page's `total` is the number of rows, on every page, that answer the same
///    question.
/// 3. **Copies.** A review carries its movie's title and its author's names as they are now.
/// 4. **Orders.** Movies go by title (folded, then exact), then id. Authors go by last name,
///    then first name (each folded, then exact), then id. Reviews go by their movie's title,
///    then their author's last and first names (each as before), then the review's id.
/// 5. **Search.** A movie matches a query when its folded title contains the query trimmed and
///    folded; an author, when their folded first name, last name or "first last" does. The
///    query is literal text: no character has a special meaning. An absent or blank query
///    matches every row.
/// 6. **One snapshot per call.** Everything one call returns (a page, its total, the reviews of
///    its rows) was read at one moment: the reviews agree with the counts.
/// 7. **Acknowledged means durable.** A write returns success only once it is committed and
///    would survive a crash or a power cut; a write that fails changes nothing.
/// 8. **Nothing half-written.** A review is saved whole with its movie's and author's
///    aggregates, or not at all; a review of a missing movie or author is not saved.
/// 9. **Values in range, or an error.** A stored value a row type cannot hold (stars outside
///    1–5, a negative count) is reported as [`StoreError::Failed`], never read as another value.
/// 10. **Ids are unique** within movies, within authors and within reviews.
/// 11. **Loads are all or nothing.** [`Store::replace_all`] and [`Store::fill_if_empty`] are
///     one transaction: a reader sees the old data or the new. Of servers starting on one empty
///     database at once, one fills it.
/// 12. **A key is used once.** Under one caller, tool and key at most one result is kept until
///     it expires, and a write that keeps one keeps it in its own transaction: a write is
///     saved with its result, or neither is.
#[derive(Clone)]
pub struct Store(Backend);

/// The backends a store can be on.
#[derive(Clone)]
enum Backend {
    Sqlite(SqliteStore),
    Postgres(PostgresStore),
}

/// Runs `$call` with `$backend` bound to whichever backend `$store` is on: a new backend is
/// one more arm here, not one in every method.
macro_rules! on_backend {
    ($store:expr, $backend:ident => $call:expr) => {
        match &$store.0 {
            Backend::Sqlite($backend) => $call,
            Backend::Postgres($backend) => $call,
        }
    };
}
use on_backend;

/// The questions the tools ask.
impl Store {
    /// A page of the movies whose title contains `query` (invariant 5), in title order, and, if
    /// asked for, every review of those movies, each movie's in review order.
    pub async fn search_movies(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<MovieRow>, Option<Vec<ReviewRow>>), StoreError> {
        let term = search_term(query);
        on_backend!(self, backend => backend.search_movies(term, offset, limit, with_reviews).await)
    }

    /// The movie with this id and every review of it in review order, if there is one.
    pub async fn movie_with_reviews(
        &self,
        id: Uuid,
    ) -> Result<Option<(MovieRow, Vec<ReviewRow>)>, StoreError> {
        on_backend!(self, backend => backend.movie_with_reviews(id).await)
    }

    /// Whether a movie has this id.
    pub async fn movie_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.movie_exists(id).await)
    }

    /// A page of the authors whose first name, last name or "first last" contains `query`
    /// (invariant 5), in name order, and, if asked for, every review they wrote, each author's
    /// in review order.
    pub async fn search_authors(
        &self,
        query: Option<&str>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<AuthorRow>, Option<Vec<ReviewRow>>), StoreError> {
        let term = search_term(query);
        on_backend!(self, backend => backend.search_authors(term, offset, limit, with_reviews).await)
    }

    /// Whether an author has this id.
    pub async fn author_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.author_exists(id).await)
    }

    /// A page of reviews, filtered by movie and/or author, in review order; `None` when the
    /// movie or the author filtered by does not exist.
    pub async fn list_reviews(
        &self,
        filter: ReviewFilter,
        offset: u32,
        limit: u32,
    ) -> Result<Option<Rows<ReviewRow>>, StoreError> {
        on_backend!(self, backend => backend.list_reviews(filter, offset, limit).await)
    }

    /// The review with this id, if there is one.
    pub async fn review(&self, id: Uuid) -> Result<Option<ReviewRow>, StoreError> {
        on_backend!(self, backend => backend.review(id).await)
    }

    /// Whether a review has this id.
    pub async fn review_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.review_exists(id).await)
    }

    /// Saves a new review and returns it as saved; `None`, saving nothing, when its movie or
    /// author does not exist. With `keep`, its result is kept under its call key in the same
    /// transaction; [`StoreError::KeyTaken`], saving nothing, when a result that has not
    /// expired is kept under that key already.
    pub async fn create_review(
        &self,
        review: &NewReview,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        on_backend!(self, backend => backend.create_review(review, keep).await)
    }

    /// Changes a review's stars and returns it as saved; `None` when no review has this id.
    /// `keep` as for [`create_review`](Self::create_review).
    pub async fn set_review_stars(
        &self,
        id: Uuid,
        stars: u8,
        keep: Option<Keep>,
    ) -> Result<Option<ReviewRow>, StoreError> {
        on_backend!(self, backend => backend.set_review_stars(id, stars, keep).await)
    }

    /// What is kept under `key`, unless it has expired.
    pub async fn kept_call(&self, key: &CallKey) -> Result<Option<KeptCall>, StoreError> {
        on_backend!(self, backend => backend.kept_call(key).await)
    }

    /// Keeps `result` under `key`; false, keeping nothing, when a result that has not expired
    /// is kept under it already.
    pub async fn keep_call(&self, key: &CallKey, result: &str) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.keep_call(key, result).await)
    }

    /// Deletes a review; false when no review has this id.
    pub async fn delete_review(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self, backend => backend.delete_review(id).await)
    }
}
