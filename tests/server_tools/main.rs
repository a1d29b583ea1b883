//! The tools end to end, as their contract states them, on every store backend: a real
//! rmcp client talks to the server in-process over a pipe, and the server runs on a real, new
//! database of the backend under test.
//!
//! Most tests use a small hand-made catalogue (`fixture`) whose every order, tie and average is
//! known; the paging tests use the generated demo set, which spans many pages. Every successful
//! answer is checked the same way (`Client::call`): its text block is compact JSON equal to
//! `structuredContent`, which validates against the tool's published `outputSchema`.
//!
//! # A conformance suite
//!
//! Every backend keeps the invariants written on `Store` (store/src/lib.rs), so the
//! tests are written once, against the tools: each is an `async fn(Backend)` that asks its
//! `Backend` for a new database (`Backend::new_database`, or `Client::with`, `Client::demo`
//! and `fixture::client`, which do). The `on_every_backend!` list at the bottom of each module
//! runs each test once per backend, as `module::backend::test`, e.g.
//! `movies_search::sqlite::the_query_is_trimmed_and_an_empty_one_browses`. A test left off its
//! module's list is never called, and clippy refuses the dead code.
//!
//! The backends are SQLite (a file in a temporary folder) and PostgreSQL (a database of its own
//! on a throwaway server the tests start, see `test_support::postgres_cluster`; where
//! PostgreSQL is not installed, its tests are marked ignored, except under CI). Adding a backend is
//! one more variant of `Backend` (client.rs), with the way to make a new database of it, and one
//! more module in `on_every_backend!` below.
//!
//! The tests in `sqlite` are not part of the suite: they check the SQLite backend's own
//! mechanics with SQL of their own, and run on SQLite only.

/// Runs each test named, an `async fn(Backend)` of the module this is called at the bottom of,
/// once on every backend: a module per backend, and in it a `#[tokio::test]` per test, named
/// as the test, that calls it with that backend.
macro_rules! on_every_backend {
    ($($test:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $test() {
                    super::$test(crate::client::Backend::Sqlite).await
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test]
                #[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
                async fn $test() {
                    super::$test(crate::client::Backend::Postgres).await
                }
            )+
        }
    };
}

mod client;
mod fixture;

mod authors_search;
mod cancellation;
mod movies_get;
mod movies_search;
mod paging;
mod reviews_delete;
mod reviews_list;
mod reviews_write;
mod seeding;
mod tools_list;
mod validation;

mod agreement;
mod sqlite;
