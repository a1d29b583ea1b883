//! A store told to refuse writes (what `--read-only` does once the database is open) refuses
//! them in the database itself, on SQLite (`query_only`) and on PostgreSQL
//! (`default_transaction_read_only`): a create, a change of stars and a delete each fail, as
//! a bug that wrote would, and leave the data as it was, while reads go on. The PostgreSQL half
//! runs on the tests' throwaway server (`test_support::postgres_cluster`), and is marked
//! ignored where PostgreSQL is not installed (outside CI).

use std::path::PathBuf;

use store::{Database, NewReview, ReviewFilter, Store};
use uuid::Uuid;

use test_support::TempDir;
use test_support::postgres_cluster::cluster;

#[tokio::test]
async fn sqlite_refuses_writes_in_the_database() {
    let dir = TempDir::new("read-only-store");
    let database = Database::named(dir.path().join("reviews.db")).expect("a SQLite path");
    writes_are_refused_and_reads_go_on(&database).await;
}

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[tokio::test]
async fn postgres_refuses_writes_in_the_database() {
    let cluster = cluster();
    let database =
        Database::named(PathBuf::from(cluster.new_database())).expect("a PostgreSQL URL");
    writes_are_refused_and_reads_go_on(&database).await;
}

async fn writes_are_refused_and_reads_go_on(database: &Database) {
    let store: Store = movie_reviews_mcp::commands::open_or_create(database)
        .await
        .expect("the store opens and fills the demo data");
    let everything = ReviewFilter::default();
    let before = store.list_reviews(everything, 0, 1).await.unwrap().unwrap();
    let review = before.items[0].clone();
    let (movies, _) = store.search_movies(None, 0, 1, false).await.unwrap();
    let (authors, _) = store.search_authors(None, 0, 1, false).await.unwrap();

    store.refuse_writes().await.expect("writes are refused");

    let new = NewReview {
        id: Uuid::new_v4(),
        movie_id: movies.items[0].id,
        author_id: authors.items[0].id,
        stars: 5,
    };
    let created = store.create_review(&new, None).await;
    assert!(created.is_err(), "a create went through: {created:?}");
    let changed = store
        .set_review_stars(review.id, 6 - review.stars, None)
        .await;
    assert!(changed.is_err(), "a change went through: {changed:?}");
    let deleted = store.delete_review(review.id).await;
    assert!(deleted.is_err(), "a delete went through: {deleted:?}");

    let after = store.list_reviews(everything, 0, 1).await.unwrap().unwrap();
    assert_eq!(after.total, before.total, "the reviews changed");
    let unchanged = store.review(review.id).await.unwrap().expect("still there");
    assert_eq!(unchanged.stars, review.stars);
    assert!(store.review(new.id).await.unwrap().is_none());
    store.close().await;
}
