//! Accepting and serving HTTP/1 connections, with the limits `axum::serve` cannot set: a
//! deadline for each request's head, caps on open connections (in all, and from one address),
//! and a shutdown that waits for requests in flight only so long. Entry point: [`serve`].
//!
//! axum's own loop gives hyper no timer, so hyper cannot time out a head that never ends, and
//! its graceful shutdown waits for such a connection forever: one client that sends half a
//! request would keep the process alive after SIGTERM.
//!
//! A connection is always accepted. When it would pass a cap, an idle connection gives way (see
//! [`registry`] for which): holding a connection open without a request in flight costs a
//! client nothing, so it must not keep anyone else out, and a probe of `/healthz` never waits
//! behind idle sockets. Only when every candidate has a request in flight is the newcomer
//! turned away, with 503 and `Retry-After`; a probe of `/healthz` is still answered 200 then,
//! since a server too busy for another connection is alive, and restarting it would only make
//! matters worse.

mod registry;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::observer::HttpObserver;
use registry::{Activity, Admitted, Caps, Registry};

/// How long to wait before accepting again after an error that is not one connection's (out of
/// file descriptors, say), so the loop does not spin while it lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Connections being turned away at once, at most; past it, a connection turned away is closed
/// without a word. Each holds a socket and a small task for [`TURN_AWAY_WITHIN`] at most, and
/// most are done within a round trip: enough for a burst of a thousand clients to each read
/// their 503.
const MAX_TURNING_AWAY: usize = 1024;

/// How long a connection turned away has to send its request and take the answer.
const TURN_AWAY_WITHIN: Duration = Duration::from_secs(1);

/// How long the answer to a connection turned away waits for the request to arrive: a client
/// reads an answer that comes before its request as an error, not as the 503.
const REQUEST_WAIT: Duration = Duration::from_millis(100);

/// What a connection turned away is told before it is closed: to come back in a second.
const TURNED_AWAY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n\
retry-after: 1\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 57\r\n\r\n\
Service Unavailable: every connection has a request open\n";

/// What a probe of `/healthz` turned away is told: the process answers, as `/healthz` says (a
/// `HEAD` gets the head alone).
const ALIVE: &[u8] = b"HTTP/1.1 200 OK\r\nconnection: close\r\n\
content-type: text/plain; charset=utf-8\r\ncontent-length: 3\r\n\r\nok\n";
const ALIVE_HEAD_LENGTH: usize = ALIVE.len() - 3;

/// The answer a request turned away gets, by how it begins.
fn turned_away_answer(request: &[u8]) -> &'static [u8] {
    if request.starts_with(b"GET /healthz ") {
        ALIVE
    } else if request.starts_with(b"HEAD /healthz ") {
        &ALIVE[..ALIVE_HEAD_LENGTH]
    } else {
        TURNED_AWAY
    }
}

/// The limits on connections; see [`HttpSettings`](super::HttpSettings)' setters of the same
/// names.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) header_read_timeout: Duration,
    pub(super) shutdown_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_connections_per_address: usize,
}

/// Serves `app` on the connections `listener` accepts, telling `observer` of each, until
/// `shutdown` completes. Then it stops
/// accepting, lets each connection finish the request it is in (an idle one closes at once, one
/// still sending its head has until its header deadline), and after `limits.shutdown_timeout`
/// closes whatever is left.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    observer: Arc<dyn HttpObserver>,
    mut shutdown: impl Future<Output = ()> + Unpin,
) {
    let stop = CancellationToken::new();
    let registry = Arc::new(Registry::new(observer));
    let turning_away = Arc::new(Semaphore::new(MAX_TURNING_AWAY));
    let caps = Caps {
        total: limits.max_connections,
        per_address: limits.max_connections_per_address,
    };
    let mut connections = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections as they end, so the set holds only open ones.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = accept(&listener) => accepted,
        };
        let Some((stream, peer)) = accepted else {
            continue;
        };
        let Some(admitted) = registry.admit(peer.ip(), caps) else {
            tracing::debug!(
                open = registry.len(),
                "turned a connection away: every one it competes with is busy"
            );
            turn_away(stream, &turning_away);
            continue;
        };
        connections.spawn(serve_connection(
            stream,
            app.clone(),
            limits,
            stop.clone(),
            admitted,
        ));
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

/// The next connection and where it comes from; `None` after an error, which is logged.
async fn accept(listener: &TcpListener) -> Option<(TcpStream, SocketAddr)> {
    match listener.accept().await {
        Ok(accepted) => Some(accepted),
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

/// Tells a connection turned away why, and closes it, on a task of its own; a probe of
/// `/healthz` is told the process is alive. The answer follows the request (what arrives within
/// [`REQUEST_WAIT`]), and the connection is closed only once the client has closed its side or
/// [`TURN_AWAY_WITHIN`] is up: closing a socket with unread bytes resets the connection, and the
/// client may then never read the 503.
fn turn_away(mut stream: TcpStream, turning_away: &Arc<Semaphore>) {
    let Ok(permit) = Arc::clone(turning_away).try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let _permit = permit;
        let mut unread = [0u8; 4096];
        let _ = tokio::time::timeout(TURN_AWAY_WITHIN, async {
            let read = tokio::time::timeout(REQUEST_WAIT, stream.read(&mut unread)).await;
            let request = match read {
                Ok(Ok(length)) => &unread[..length],
                _ => &[],
            };
            stream.write_all(turned_away_answer(request)).await?;
            stream.shutdown().await?;
            while stream.read(&mut unread).await? > 0 {}
            io::Result::Ok(())
        })
        .await;
    });
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
/// in progress, if any, and closes the connection instead of keeping it alive. When the
/// connection must give way to a newer one, it is closed at once, or, if a request began
/// meanwhile, after that request.
async fn serve_connection(
    stream: TcpStream,
    app: Router,
    limits: Limits,
    stop: CancellationToken,
    admitted: Admitted,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let service = Tracked {
        inner: TowerToHyperService::new(app),
        activity: Arc::clone(&admitted.activity),
    };
    let mut connection = pin!(builder.serve_connection(TokioIo::new(stream), service));
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
        () = admitted.evict.cancelled() => {
            if !admitted.activity.is_busy() {
                tracing::debug!("closed an idle connection to make room for a new one");
                return;
            }
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        // A client that goes away or is too slow is no news for the operator.
        tracing::debug!(%error, "a connection ended with an error");
    }
}

/// A connection's service that marks each request in flight until its answer is ready, so the
/// connection counts as busy meanwhile (see [`registry`]).
struct Tracked<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S, R> hyper::service::Service<R> for Tracked<S>
where
    S: hyper::service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn call(&self, request: R) -> Self::Future {
        let in_flight = self.activity.start();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let answer = answer.await;
            drop(in_flight);
            answer
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_liveness_probe_turned_away_is_answered_alive_and_anything_else_told_when_to_retry() {
        let alive = turned_away_answer(b"GET /healthz HTTP/1.1\r\nhost: a\r\n\r\n");
        assert!(alive.starts_with(b"HTTP/1.1 200 OK\r\n") && alive.ends_with(b"\r\n\r\nok\n"));
        let head = turned_away_answer(b"HEAD /healthz HTTP/1.1\r\n");
        assert!(head.starts_with(b"HTTP/1.1 200 OK\r\n") && head.ends_with(b"\r\n\r\n"));
        for request in [
            &b"POST /mcp HTTP/1.1\r\n"[..],
            b"GET /readyz HTTP/1.1\r\n",
            b"GET /healthzz HTTP/1.1\r\n",
            b"",
        ] {
            let answer = std::str::from_utf8(turned_away_answer(request)).unwrap();
            assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
            assert!(answer.contains("\r\nretry-after: 1\r\n"), "{answer}");
            let (_, body) = answer.split_once("\r\n\r\n").unwrap();
            assert!(answer.contains(&format!("content-length: {}\r\n", body.len())));
        }
    }
}
