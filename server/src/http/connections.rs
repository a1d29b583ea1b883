//! Accepting and serving HTTP/1 connections, with the limits `axum::serve` cannot set: a
//! deadline for each request's head, a cap on open connections, and a shutdown that waits for
//! requests in flight only so long. Entry point: [`serve`].
//!
//! axum's own loop gives hyper no timer, so hyper cannot time out a head that never ends, and
//! its graceful shutdown waits for such a connection forever: one client that sends half a
//! request would keep the process alive after SIGTERM.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How long to wait before accepting again after an error that is not one connection's (out of
/// file descriptors, say), so the loop does not spin while it lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// The limits on connections; see the `--header-read-timeout`, `--shutdown-timeout` and
/// `--max-connections` flags.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub shutdown_timeout: Duration,
    pub max_connections: usize,
}

/// Serves `app` on the connections `listener` accepts until `shutdown` completes. Then it stops
/// accepting, lets each connection finish the request it is in (an idle one closes at once, one
/// still sending its head has until its header deadline), and after `limits.shutdown_timeout`
/// closes whatever is left.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut shutdown: impl Future<Output = ()> + Unpin,
) {
    let stop = CancellationToken::new();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections as they end, so the set holds only open ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = accept(&listener, &slots) => accepted,
        };
        if let Some((stream, slot)) = accepted {
            let connection = serve_connection(stream, app.clone(), limits, stop.clone());
            connections.spawn(async move {
                connection.await;
                drop(slot);
            });
        }
    }
    drop(listener);
    stop.cancel();
    let open = connections.len();
    if open > 0 {
        tracing::info!(
            open,
            "waiting for {open} open connection(s) to finish their requests"
        );
    }
    let drained = tokio::time::timeout(limits.shutdown_timeout, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        let cut = connections.len();
        connections.shutdown().await;
        tracing::warn!(
            cut,
            "closed {cut} connection(s) still open {} s after the signal",
            limits.shutdown_timeout.as_secs()
        );
    }
}

/// The next connection, once fewer than the maximum are open; `None` after an error, which is
/// logged.
async fn accept(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
) -> Option<(TcpStream, OwnedSemaphorePermit)> {
    // The semaphore is never closed, so acquiring fails never; `None` would only retry.
    let slot = Arc::clone(slots).acquire_owned().await.ok()?;
    match listener.accept().await {
        Ok((stream, _)) => Some((stream, slot)),
        Err(error) if is_connection_error(&error) => {
            tracing::debug!(%error, "a connection failed while being accepted");
            None
        }
        Err(error) => {
            tracing::warn!(%error, "cannot accept connections; trying again in a second");
            tokio::time::sleep(ACCEPT_BACKOFF).await;
            None
        }
    }
}

/// Errors that concern the one connection being accepted, not the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection until it closes. When `stop` is cancelled, hyper finishes the request
/// in progress, if any, and closes the connection instead of keeping it alive.
async fn serve_connection(stream: TcpStream, app: Router, limits: Limits, stop: CancellationToken) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let mut connection =
        pin!(builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app)));
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        // A client that goes away or is too slow is no news for the operator.
        tracing::debug!(%error, "a connection ended with an error");
    }
}
