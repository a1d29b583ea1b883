//! The HTTP loader: `C` keep-alive HTTP/1.1 connections, each a closed loop that takes the next
//! call of the run, posts it and waits for the whole answer before it takes another, so that
//! `C` calls are in flight at every moment. Connections are spread over the replicas in turn.
//! A connection refused with 503 and `Retry-After` waits as long before its next call, as a
//! real client does.
//!
//! It is lean on purpose, since it shares the machine with the server: one thread (a
//! current-thread runtime), request bodies built before the clock starts, and answers kept
//! as bytes and read only once the run is over (except in a soak, which reads each as it
//! arrives, so that the bodies of a long run need not be kept). [`canned`](super::canned)
//! measures what it costs per call.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue, RETRY_AFTER};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use crate::Error;
use crate::workload::{Call, TOOLS};

/// The revision of MCP the requests speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Protocol {
    /// Each request names the revision, its method and tool in headers and carries the client's
    /// capabilities in its `_meta`; no `initialize`.
    #[value(name = "2026-07-28")]
    Stateless,
    /// The revision before: the `MCP-Protocol-Version` header alone.
    #[value(name = "2025-11-25")]
    Previous,
}

impl Protocol {
    pub(crate) fn version(self) -> &'static str {
        match self {
            Protocol::Stateless => "2026-07-28",
            Protocol::Previous => "2025-11-25",
        }
    }
}

/// Where requests go: one replica's address, its path and the token to present.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    pub(crate) address: SocketAddr,
    /// The `Host` header: `host:port`, as the URL names it.
    pub(crate) authority: String,
    pub(crate) path: String,
    pub(crate) token: Option<String>,
}

/// One JSON-RPC request, ready to post: its body and the headers that name it.
#[derive(Clone)]
pub(crate) struct Prepared {
    body: Bytes,
    method: &'static str,
    tool: Option<&'static str>,
}

/// The `tools/call` request for `call`, with JSON-RPC id `id`.
pub(crate) fn prepare_call(call: &Call, id: u64, protocol: Protocol) -> Prepared {
    let tool = TOOLS[call.tool()];
    prepare(
        id,
        "tools/call",
        Some(tool),
        json!({ "name": tool, "arguments": call.arguments() }),
        protocol,
    )
}

/// A request of `method` with `params`, and, for `tools/call`, the `tool` it calls.
pub(crate) fn prepare(
    id: u64,
    method: &'static str,
    tool: Option<&'static str>,
    mut params: Value,
    protocol: Protocol,
) -> Prepared {
    if protocol == Protocol::Stateless {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": protocol.version(),
            "io.modelcontextprotocol/clientCapabilities": {},
        });
    }
    let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    Prepared {
        body: Bytes::from(request.to_string()),
        method,
        tool,
    }
}

/// One keep-alive connection to an endpoint, reopened when the server closes it.
pub(crate) struct Connection {
    endpoint: Endpoint,
    protocol: Protocol,
    sender: Option<SendRequest<Full<Bytes>>>,
    /// Headers every request carries, built once.
    authorization: Option<HeaderValue>,
    host: HeaderValue,
}

/// What came back for one request.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    /// When a 503 said to retry.
    pub(crate) retry_after: Option<Duration>,
    pub(crate) body: Bytes,
}

impl Connection {
    pub(crate) fn new(endpoint: Endpoint, protocol: Protocol) -> Result<Connection, Error> {
        let authorization = endpoint
            .token
            .as_ref()
            .map(|token| HeaderValue::from_str(&format!("Bearer {token}")))
            .transpose()?;
        let host = HeaderValue::from_str(&endpoint.authority)?;
        Ok(Connection {
            endpoint,
            protocol,
            sender: None,
            authorization,
            host,
        })
    }

    async fn open(&self) -> Result<SendRequest<Full<Bytes>>, Error> {
        let stream = TcpStream::connect(self.endpoint.address).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            // The connection ends when the server closes it or the sender is dropped; either
            // way the next request reopens it.
            let _ = connection.await;
        });
        Ok(sender)
    }

    /// Posts `request` and reads its whole answer.
    pub(crate) async fn post(&mut self, request: &Prepared) -> Result<Answer, Error> {
        let mut sender = match self.sender.take() {
            Some(mut sender) => match sender.ready().await {
                Ok(()) => sender,
                Err(_) => self.open().await?,
            },
            None => self.open().await?,
        };
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(self.endpoint.path.as_str())
            .header(HOST, self.host.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", self.protocol.version());
        if self.protocol == Protocol::Stateless {
            builder = builder.header("mcp-method", request.method);
            if let Some(tool) = request.tool {
                builder = builder.header("mcp-name", tool);
            }
        }
        if let Some(authorization) = &self.authorization {
            builder = builder.header(AUTHORIZATION, authorization.clone());
        }
        let response = match sender
            .try_send_request(builder.body(Full::new(request.body.clone()))?)
            .await
        {
            Ok(response) => response,
            // The server closed the connection before the request went out (an idle connection
            // giving way to a newer one): sent again on a new connection, as clients do.
            Err(mut error) => match error.take_message() {
                Some(unsent) => {
                    sender = self.open().await?;
                    sender.send_request(unsent).await?
                }
                None => return Err(error.into_error().into()),
            },
        };
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok()?.trim().parse().ok())
            .map(Duration::from_secs);
        let body = response.into_body().collect().await?.to_bytes();
        // Kept for the next request unless the server said it closes the connection.
        if !sender.is_closed() {
            self.sender = Some(sender);
        }
        Ok(Answer {
            status,
            retry_after,
            body,
        })
    }

    /// Posts `request` and returns the JSON answer, for the few requests made before a run.
    pub(crate) async fn request(&mut self, request: &Prepared) -> Result<Value, Error> {
        let answer = self.post(request).await?;
        if answer.status != StatusCode::OK {
            return Err(format!(
                "HTTP {} to {}: {}",
                answer.status,
                request.method,
                String::from_utf8_lossy(&answer.body)
            )
            .into());
        }
        Ok(serde_json::from_slice(&answer.body)?)
    }
}

/// An error and its causes, as one line.
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(": ");
        text.push_str(&error.to_string());
        cause = error.source();
    }
    text
}

/// The longest a connection waits when told to retry later.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);

/// One answer of a run, as `load`'s caller keeps it: which request it answers, on which
/// replica, how long it took.
pub(crate) struct Timed<T> {
    pub(crate) index: usize,
    pub(crate) replica: usize,
    pub(crate) latency: Duration,
    pub(crate) answer: T,
}

/// What a run sent and got back.
pub(crate) struct Loaded<T> {
    pub(crate) elapsed: Duration,
    pub(crate) answers: Vec<Timed<T>>,
}

/// How long a run lasts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Length {
    /// Each request once.
    Once,
    /// Round the requests again and again, until this long has passed.
    For(Duration),
}

/// Sends the requests in `requests` over `connections` connections spread over `endpoints`,
/// each connection a closed loop, for `length`. Each answer is handed to `keep` as it arrives
/// (with the index of its request), and what that returns is kept: the answer itself, to be
/// read once the run is over, or for a long run a short verdict, so that the loader's memory
/// does not grow with the answers' bodies. Run on a current-thread runtime, the connections'
/// tasks share one thread, and the loader's cost stays one thread's.
pub(crate) async fn load<T: Send + 'static>(
    endpoints: &[Endpoint],
    protocol: Protocol,
    requests: Arc<[Prepared]>,
    connections: usize,
    length: Length,
    keep: impl Fn(usize, Result<Answer, String>) -> T + Clone + Send + 'static,
) -> Result<Loaded<T>, Error> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::with_capacity(connections);
    for index in 0..connections {
        let replica = index % endpoints.len();
        clients.push((
            replica,
            Connection::new(endpoints[replica].clone(), protocol)?,
        ));
    }
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (replica, mut connection) in clients {
        let next = Arc::clone(&next);
        let requests = Arc::clone(&requests);
        let keep = keep.clone();
        tasks.spawn(async move {
            let mut answers = Vec::new();
            loop {
                let taken = next.fetch_add(1, Ordering::Relaxed);
                let index = match length {
                    Length::Once => taken,
                    Length::For(lasting) if started.elapsed() < lasting => {
                        taken % requests.len().max(1)
                    }
                    Length::For(_) => return answers,
                };
                // Past the last request of a single pass (or none to send at all).
                let Some(request) = requests.get(index) else {
                    return answers;
                };
                let sent = Instant::now();
                let answer = connection
                    .post(request)
                    .await
                    .map_err(|error| describe(&*error));
                let latency = sent.elapsed();
                // A client told when to retry waits that long (up to a few seconds), as a real
                // one does, instead of knocking again at once.
                if let Ok(Answer {
                    retry_after: Some(after),
                    ..
                }) = &answer
                {
                    tokio::time::sleep((*after).min(MAX_RETRY_AFTER)).await;
                }
                answers.push(Timed {
                    index,
                    replica,
                    latency,
                    answer: keep(index, answer),
                });
            }
        });
    }
    let mut answers = Vec::with_capacity(requests.len());
    while let Some(done) = tasks.join_next().await {
        answers.extend(done.map_err(|error| format!("a connection's task failed: {error}"))?);
    }
    Ok(Loaded {
        elapsed: started.elapsed(),
        answers,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stateless_request_carries_its_revision_in_meta() {
        let prepared = prepare(7, "tools/list", None, json!({}), Protocol::Stateless);
        let body: Value = serde_json::from_slice(&prepared.body).unwrap();
        assert_eq!(body["id"], 7);
        assert_eq!(
            body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        let previous = prepare(7, "tools/list", None, json!({}), Protocol::Previous);
        let body: Value = serde_json::from_slice(&previous.body).unwrap();
        assert!(body["params"].get("_meta").is_none(), "{body}");
    }
}
