//! The tests' throwaway PostgreSQL server itself (`test_support::postgres_cluster`): each
//! database it makes is separate, and data survives a stop and a start. A test binary of its
//! own, since stopping the server would break any other test running beside it.

use test_support::postgres_cluster::cluster;

#[cfg_attr(postgres_missing, ignore = "PostgreSQL is not installed")]
#[test]
fn databases_are_separate_and_survive_a_restart() {
    let cluster = cluster();
    let urls: Vec<String> = std::thread::scope(|scope| {
        let creating: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| cluster.new_database()))
            .collect();
        creating
            .into_iter()
            .map(|thread| thread.join().unwrap())
            .collect()
    });
    let mut unique = urls.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), urls.len(), "database names repeat: {urls:?}");
    let prefix = format!("postgres://postgres@127.0.0.1:{}/", cluster.port());
    assert!(urls.iter().all(|url| url.starts_with(&prefix)), "{urls:?}");

    let (first, second) = (&urls[0], &urls[1]);
    for url in [first, second] {
        let name = url.rsplit('/').next().unwrap();
        assert_eq!(
            cluster.query(url, "SELECT current_database()").unwrap(),
            name
        );
    }
    cluster
        .query(
            first,
            "CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)",
        )
        .unwrap();
    assert!(cluster.query(second, "SELECT n FROM kept").is_err());

    cluster.stop();
    assert!(cluster.query(first, "SELECT 1").is_err());
    cluster.start();
    assert_eq!(cluster.query(first, "SELECT n FROM kept").unwrap(), "7");
}
