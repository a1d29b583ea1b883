//! A search over a large tree reports its progress to a client that asks for it, and stops
//! when the client cancels it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::testing::Progress;

use crate::Served;

/// Directories in the tree searched: enough for a search to take a few progress intervals.
const DIRECTORIES: usize = 1500;

/// A served tree of [`DIRECTORIES`] nested ten deep, with a file in each.
async fn large_tree() -> Served {
    let served = Served::with(&[]).await;
    for index in 0..DIRECTORIES {
        let mut path = served.path(&format!("top{}", index % 10));
        for depth in 0..(index % 10) {
            path.push(format!("level{depth}"));
        }
        path.push(format!("leaf{index}"));
        std::fs::create_dir_all(&path).expect("a directory");
        std::fs::write(path.join("notes.txt"), "x").expect("a file");
    }
    served
}

fn search() -> Value {
    json!({ "query": "notes", "maxResults": 1000 })
}

/// Whether `report` is the one a search sends when it has searched everything.
fn is_final(report: &Progress) -> bool {
    report.total.is_some_and(|total| total == report.progress)
}

#[tokio::test]
async fn a_search_reports_the_directories_it_has_searched() {
    let served = large_tree().await;
    let result = served.call("search_files", search()).await;
    assert!(!result.is_error(), "{}", result.text());
    let reports = result.progress();
    let last = reports.last().expect("the search reports progress");
    assert!(
        is_final(last),
        "the last report says the search is done: {last:?}"
    );
    let everything = directories_under(served.root()) as f64;
    assert_eq!(last.progress, everything, "every directory was searched");
    assert!(
        reports
            .windows(2)
            .all(|pair| pair[0].progress < pair[1].progress),
        "progress only grows"
    );
    let message = format!("Searched {everything} directories, found {DIRECTORIES}.");
    assert_eq!(last.message.as_deref(), Some(message.as_str()));
}

/// The directories in the tree at `path`, itself included.
fn directories_under(path: &std::path::Path) -> usize {
    let under: usize = std::fs::read_dir(path)
        .expect("a directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.is_dir())
        .map(|path| directories_under(&path))
        .sum();
    under + 1
}

#[tokio::test]
async fn a_cancelled_search_stops() {
    // How long a whole search takes here, to know how long a cancelled one would have run.
    let served = large_tree().await;
    let started = Instant::now();
    served.call("search_files", search()).await;
    let whole = started.elapsed();

    let mut searching = served.client.start("search_files", search());
    let first = searching.next_progress().await;
    assert!(
        first.as_ref().is_some_and(|first| !is_final(first)),
        "the search reports progress before its end: {first:?}"
    );
    searching.cancel().await;

    // Twice as long as a whole search took, and then some: a search that went on would have
    // reported its end by now.
    tokio::time::sleep(whole * 2 + Duration::from_millis(200)).await;
    let reports = searching.progress();
    assert!(
        !reports.iter().any(is_final),
        "the search stopped: {reports:?}"
    );
}
