//! A search over a large tree reports its progress to a client that asks for it, and stops
//! when the client cancels it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientRequest, ProgressNotificationParam, Request, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use tempfile::TempDir;

/// Directories in the tree searched: enough for a search to take a few progress intervals.
const DIRECTORIES: usize = 1500;

/// A client that keeps every progress notification it is sent.
#[derive(Clone, Default)]
struct ProgressLog(Arc<Mutex<Vec<ProgressNotificationParam>>>);

impl ProgressLog {
    fn reports(&self) -> Vec<ProgressNotificationParam> {
        self.0.lock().unwrap().clone()
    }

    /// The reports, once the one that says the search is done has arrived: the client hands
    /// each notification to a task of its own, which may run after the call's answer.
    async fn until_done(&self) -> Vec<ProgressNotificationParam> {
        let started = Instant::now();
        loop {
            let reports = self.reports();
            if reports.iter().any(is_final) {
                return reports;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the search reports its end"
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}

impl ClientHandler for ProgressLog {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params);
    }
}

/// A served tree of [`DIRECTORIES`] nested ten deep, with a file in each; and a client that
/// logs progress.
async fn large_tree() -> (
    TempDir,
    rmcp::service::RunningService<RoleClient, ProgressLog>,
    ProgressLog,
) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    for index in 0..DIRECTORIES {
        let mut path = directory.path().join(format!("top{}", index % 10));
        for depth in 0..(index % 10) {
            path.push(format!("level{depth}"));
        }
        path.push(format!("leaf{index}"));
        std::fs::create_dir_all(&path).expect("a directory");
        std::fs::write(path.join("notes.txt"), "x").expect("a file");
    }
    let log = ProgressLog::default();
    let client = log
        .clone()
        .serve(crate::serve(directory.path()))
        .await
        .expect("the client initializes");
    (directory, client, log)
}

fn search() -> ClientRequest {
    let arguments = json!({ "query": "notes", "maxResults": 1000 });
    let serde_json::Value::Object(arguments) = arguments else {
        unreachable!("the arguments are an object");
    };
    let params = CallToolRequestParams::new("search_files").with_arguments(arguments);
    ClientRequest::CallToolRequest(Request::new(params))
}

/// Whether `report` is the one a search sends when it has searched everything.
fn is_final(report: &ProgressNotificationParam) -> bool {
    report.total.is_some_and(|total| total == report.progress)
}

#[tokio::test]
async fn a_search_reports_the_directories_it_has_searched() {
    let (directory, client, log) = large_tree().await;
    let answer = client
        .send_request(search())
        .await
        .expect("the search answers");
    let ServerResult::CallToolResult(result) = answer else {
        panic!("a tool result: {answer:?}");
    };
    assert_ne!(result.is_error, Some(true));
    let reports = log.until_done().await;
    let last = reports.last().expect("the search reports progress");
    assert!(
        is_final(last),
        "the last report says the search is done: {last:?}"
    );
    let everything = directories_under(directory.path()) as f64;
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
    let (_directory, client, log) = large_tree().await;
    let started = Instant::now();
    client
        .send_request(search())
        .await
        .expect("the search answers");
    let whole = started.elapsed();
    log.until_done().await;
    log.0.lock().unwrap().clear();

    let call = client
        .peer()
        .send_cancellable_request(search(), PeerRequestOptions::no_options())
        .await
        .expect("the search is sent");
    let waited = Instant::now();
    while log.reports().is_empty() {
        assert!(
            waited.elapsed() < Duration::from_secs(20),
            "the search reports progress"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    call.cancel(Some("the user gave up".to_owned()))
        .await
        .expect("the cancellation is sent");

    // Twice as long as a whole search took, and then some: a search that went on would have
    // reported its end by now.
    tokio::time::sleep(whole * 2 + Duration::from_millis(200)).await;
    let reports = log.reports();
    assert!(
        !reports.iter().any(is_final),
        "the search stopped: {reports:?}"
    );
}
