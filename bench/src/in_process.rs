//! The store called in-process, as the server's tools call it: whether a database holds a
//! size, the same calls as a run's, one at a time, and deleting the reviews a run wrote.

use std::time::Instant;

use store::{self, Database, NewReview, ReviewFilter, Store};
use uuid::Uuid;

use crate::Error;
use crate::client::RunResult;
use crate::workload::{Call, TOOLS};

/// Whether the database exists and holds exactly these counts.
pub(crate) async fn has_counts(
    database: &Database,
    (movies, authors, reviews): (u64, u64, u64),
) -> bool {
    if let Database::Sqlite(path) = database
        && !path.is_file()
    {
        return false;
    }
    let Ok(store) = Store::open(database).await else {
        return false;
    };
    let found = async {
        Ok::<_, store::StoreError>((
            store.search_movies(None, 0, 1, false).await?.0.total,
            store.search_authors(None, 0, 1, false).await?.0.total,
            store
                .list_reviews(ReviewFilter::default(), 0, 1)
                .await?
                .map_or(0, |rows| rows.total),
        ))
    }
    .await;
    store.close().await;
    matches!(found, Ok(found) if found == (movies, authors, reviews))
}

/// Runs on the store the same store functions each call's tool runs, one call at a time.
pub(crate) async fn store_calls(
    database: &Database,
    calls: &[Call],
) -> Result<(RunResult, Vec<Uuid>), Error> {
    let store = Store::open(database).await?;
    let mut latencies = vec![Vec::new(); TOOLS.len()];
    let mut written = Vec::new();
    let started = Instant::now();
    for call in calls {
        let start = Instant::now();
        let ok = match call {
            Call::Get(id) => store.movie_with_reviews(*id).await?.is_some(),
            Call::SearchMovies(query) => {
                store.search_movies(Some(query), 0, 10, false).await?;
                true
            }
            Call::SearchAuthors(query) => {
                store.search_authors(Some(query), 0, 10, false).await?;
                true
            }
            Call::ListByMovie(id) => {
                let filter = ReviewFilter {
                    movie_id: Some(*id),
                    author_id: None,
                };
                store.list_reviews(filter, 0, 10).await?.is_some()
            }
            Call::ListByAuthor(id) => {
                let filter = ReviewFilter {
                    movie_id: None,
                    author_id: Some(*id),
                };
                store.list_reviews(filter, 0, 10).await?.is_some()
            }
            Call::Write {
                movie,
                author,
                stars,
            } => {
                let review = NewReview {
                    id: Uuid::new_v4(),
                    movie_id: *movie,
                    author_id: *author,
                    stars: *stars,
                };
                let ok = store.create_review(&review, None).await?.is_some();
                written.push(review.id);
                ok
            }
        };
        latencies[call.tool()].push(start.elapsed());
        if !ok {
            store.close().await;
            return Err(format!("store call {call:?} found nothing").into());
        }
    }
    let elapsed = started.elapsed();
    store.close().await;
    Ok((
        RunResult {
            elapsed,
            latencies,
            written: Vec::new(),
        },
        written,
    ))
}

/// Deletes the reviews the benchmark wrote, so the database keeps its seeded counts.
pub(crate) async fn delete_reviews(database: &Database, ids: &[Uuid]) -> Result<(), Error> {
    let store = Store::open(database).await?;
    for id in ids {
        store.delete_review(*id).await?;
    }
    store.close().await;
    Ok(())
}
