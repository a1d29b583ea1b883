//! Serving MCP on stdin and stdout ([`serve`], or [`Handler::serve_stdio`]): rmcp is served on
//! a transport of this module's own, which hands it each message read from stdin already parsed
//! and writes each message it sends to stdout, so a message is read into rmcp's types once and
//! each answer serialised once.
//!
//! - Each line is read as one JSON-RPC message by [`jsonrpc::read_message`]: what rmcp could
//!   not read is answered here, with the request's `id`, instead of rmcp's silence or an
//!   answer without one. A blank line is skipped.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is skipped as it arrives (see `lines.rs`), so
//!   memory stays bounded, and answered with Invalid Request (-32600).
//! - At most [`MAX_IN_FLIGHT`] requests are read ahead of their answers (see `in_flight.rs`):
//!   a client that does not read its answers stops being read, and the server's memory stays
//!   bounded whatever the client sends.
//! - The answers waiting when stdout is free are written together, with one flush.
//! - When stdin ends, every request already read is answered before the server exits.
//! - When `shutdown` completes (SIGTERM or SIGINT), requests already sent are still read, then
//!   reading stops as if stdin had ended; the server waits up to 10 seconds for their answers
//!   to reach stdout, then exits.

mod in_flight;
mod lines;
mod streams;

use std::future::Future;
use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, GetExtensions, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::service::ServerInitializeError;
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::{self, Read};
use crate::{Handler, ServeError};
use in_flight::{Answered, InFlight, NotStarted};
use lines::{Line, read_line};

pub use in_flight::MAX_IN_FLIGHT;
pub use streams::{Input, Output, standard_streams};

/// The largest JSON-RPC message the server reads: 16 MiB. A longer line is answered with
/// Invalid Request and never held in memory whole.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How long reading goes on after a signal while requests keep arriving.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(100);

/// How long after a signal the server waits for the answers to requests it has read.
const SHUTDOWN_DRAIN: Duration = Duration::from_secs(10);

/// Messages parsed and waiting for rmcp to take them: reading stops while they wait, so a line
/// of up to [`MAX_MESSAGE_BYTES`] is held once, not once per message queued.
const PARSED_AHEAD: usize = 1;

/// Answers waiting for their turn on stdout, rmcp's and this module's own.
const PENDING_ANSWERS: usize = 64;

/// Serves MCP with `handler` on `input` and `output` (stdin and stdout, from
/// [`standard_streams`]) until the client closes its input or `shutdown` completes (a signal):
/// calls already read are answered, and their answers written, before it returns. The state
/// is not closed here: whoever opened it closes it.
pub async fn serve<S, R, W>(
    handler: Handler<S>,
    input: R,
    output: W,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError>
where
    S: Send + Sync + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (transport, flushed) = connect(input, output, shutdown);
    serve_on(handler, transport, flushed).await
}

/// Serves `handler` on `transport` until rmcp stops, then waits until every answer is out.
async fn serve_on<S: Send + Sync + 'static>(
    handler: Handler<S>,
    transport: Messages,
    flushed: JoinHandle<()>,
) -> Result<(), ServeError> {
    let served = match handler.serve(transport).await {
        Ok(running) => running.waiting().await.map(|reason| {
            tracing::info!(?reason, "stopped serving");
        }),
        // A client that starts the server and closes stdin before initializing has simply gone
        // away; that is a clean end, not a failure.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("stdin closed before the client initialized");
            Ok(())
        }
        Err(error) => return Err(ServeError::Protocol(error.into())),
    };
    // rmcp has dropped its end; wait until every answer is on stdout.
    let flushed = flushed.await;
    served.map_err(|error| ServeError::Protocol(error.into()))?;
    flushed.map_err(|error| ServeError::Protocol(error.into()))
}

/// Starts the task that reads `input` and the one that writes `output`, and returns the
/// transport rmcp serves on between them, and the writing task, which ends once every answer
/// is on `output`.
fn connect<R, W, F>(input: R, output: W, shutdown: F) -> (Messages, JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let (to_rmcp, from_reader) = mpsc::channel(PARSED_AHEAD);
    let (answers, to_write) = mpsc::channel(PENDING_ANSWERS);
    let in_flight = InFlight::new();
    let signalled = CancellationToken::new();
    let signal = signalled.clone();
    tokio::spawn(async move {
        shutdown.await;
        signal.cancel();
    });
    let reader = Reader {
        to_rmcp,
        answers: answers.clone(),
        in_flight: in_flight.clone(),
        signalled: signalled.clone(),
    };
    tokio::spawn(reader.run(input));
    let flushed = tokio::spawn(write_answers(to_write, output, in_flight, signalled));
    let transport = Messages {
        incoming: from_reader,
        answers,
    };
    (transport, flushed)
}

/// Completes [`SHUTDOWN_DRAIN`] after a signal: when the server stops waiting for answers.
async fn drain_deadline(signalled: &CancellationToken) {
    signalled.cancelled().await;
    tokio::time::sleep(SHUTDOWN_DRAIN).await;
}

/// Reads stdin and hands rmcp what it can read.
struct Reader {
    to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    /// Answers this module writes itself.
    answers: mpsc::Sender<Answer>,
    in_flight: InFlight,
    signalled: CancellationToken,
}

impl Reader {
    /// Reads until stdin ends (or, after a signal, until nothing more arrives), waits until
    /// every request read has its answer on stdout, then ends rmcp's input. rmcp gives the
    /// requests it holds when its input ends only a few seconds before dropping their answers,
    /// so it hears of the end only once there are none left. After a signal the wait is
    /// bounded by [`SHUTDOWN_DRAIN`].
    async fn run<R: AsyncRead + Unpin>(mut self, input: R) {
        let signalled = self.signalled.clone();
        tokio::select! {
            () = self.read_all(input) => {}
            () = drain_deadline(&signalled) => {
                tracing::warn!(
                    unanswered = self.in_flight.count(),
                    "stopped waiting for answers {} s after the signal; the calls still \
                     running are cancelled",
                    SHUTDOWN_DRAIN.as_secs()
                );
                self.in_flight.cancel_all();
            }
        }
    }

    async fn read_all<R: AsyncRead + Unpin>(&mut self, input: R) {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            let read = if self.signalled.is_cancelled() {
                // After a signal, requests already on their way are still read and answered;
                // reading ends once none arrives for a moment.
                match tokio::time::timeout(SHUTDOWN_GRACE, read_line(&mut input, &mut line)).await {
                    Ok(read) => read,
                    Err(_) => break,
                }
            } else {
                tokio::select! {
                    read = read_line(&mut input, &mut line) => read,
                    () = self.signalled.cancelled() => {
                        tracing::info!("shutting down: answering what was already sent");
                        continue;
                    }
                }
            };
            let delivered = match read {
                Ok(Line::Complete) if line.iter().all(u8::is_ascii_whitespace) => true,
                Ok(Line::Complete) => match jsonrpc::read_message(&line) {
                    Read::Forward(message) => self.forward(message).await,
                    Read::Refuse(answer) => self.answer(&answer).await,
                    Read::Drop => true,
                },
                Ok(Line::Oversized) => {
                    tracing::warn!(
                        limit = MAX_MESSAGE_BYTES,
                        "skipped a message over the size limit"
                    );
                    let message = format!(
                        "Invalid Request: the message is larger than the limit of \
                         {MAX_MESSAGE_BYTES} bytes."
                    );
                    let id = jsonrpc::top_level_id(&line);
                    self.answer(&jsonrpc::error_response(id, -32600, &message))
                        .await
                }
                Ok(Line::End) => break,
                Err(error) => {
                    tracing::error!(%error, "reading stdin failed");
                    break;
                }
            };
            // Cleared only once handled: a read cut short by the signal keeps what it had read.
            line.clear();
            if !delivered {
                return;
            }
        }
        self.in_flight.all_answered().await;
    }

    /// Hands one message to rmcp: a request once it has a slot (see [`in_flight`]), with the
    /// token that cancels its call; a cancellation is kept here instead, and cancels that
    /// token. False once nothing more can be delivered.
    async fn forward(&mut self, mut message: ClientJsonRpcMessage) -> bool {
        match &mut message {
            JsonRpcMessage::Request(request) => {
                match self.in_flight.start(request.id.clone()).await {
                    Ok(token) => {
                        let cancellation = crate::Cancellation(token);
                        request.request.extensions_mut().insert(cancellation);
                    }
                    Err(NotStarted::Closed) => return false,
                    Err(NotStarted::DuplicateId) => {
                        let id = Some(request.id.clone().into_json_value());
                        let message = "Invalid Request: a request with this id is still in \
                                       progress; give each request an id of its own.";
                        return self
                            .answer(&jsonrpc::error_response(id, -32600, message))
                            .await;
                    }
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                {
                    if let Some(id) = &cancelled.params.request_id {
                        self.in_flight.cancel(id);
                    }
                    return true;
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
        }
        self.to_rmcp.send(message).await.is_ok()
    }

    /// Queues an answer of this module's own for stdout.
    async fn answer(&self, answer: &Value) -> bool {
        let mut line = answer.to_string().into_bytes();
        line.push(b'\n');
        let answer = Answer {
            line,
            answers: None,
        };
        self.answers.send(answer).await.is_ok()
    }
}

/// One line for stdout.
struct Answer {
    /// The message, with its newline.
    line: Vec<u8>,
    /// The request it answers, when it is rmcp's answer to one (this module's own answers are
    /// to requests that never started).
    answers: Option<RequestId>,
}

/// The transport rmcp serves on: the messages [`Reader`] read, already parsed, and a queue to
/// the task that writes stdout. rmcp neither parses a line again nor goes through a pipe.
struct Messages {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    answers: mpsc::Sender<Answer>,
}

impl Transport<RoleServer> for Messages {
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let answers = match &message {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            JsonRpcMessage::Request(_) | JsonRpcMessage::Notification(_) => None,
        };
        let mut line = serde_json::to_vec(&message).unwrap_or_else(|error| {
            // The request is still answered, so that its slot is freed.
            tracing::error!(%error, "an answer could not be serialised");
            let id = answers.clone().map(RequestId::into_json_value);
            let answer = jsonrpc::error_response(
                id,
                -32603,
                "Internal error: the answer could not be written.",
            );
            answer.to_string().into_bytes()
        });
        line.push(b'\n');
        let answer = Answer { line, answers };
        let queue = self.answers.clone();
        async move {
            queue
                .send(answer)
                .await
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// Writes the answers queued, rmcp's and this module's, to `output`: all those waiting at once,
/// then a flush; an answer to a cancelled request is left out. Once this ends, no more answers
/// can be written: [`InFlight::close`].
async fn write_answers<W: AsyncWrite + Unpin>(
    queue: mpsc::Receiver<Answer>,
    mut output: W,
    in_flight: InFlight,
    signalled: CancellationToken,
) {
    tokio::select! {
        () = copy_answers(queue, &mut output, &in_flight) => {}
        // A client that stopped reading must not keep the server from exiting.
        () = drain_deadline(&signalled) => {}
    }
    in_flight.close();
}

async fn copy_answers<W: AsyncWrite + Unpin>(
    mut queue: mpsc::Receiver<Answer>,
    output: &mut W,
    in_flight: &InFlight,
) {
    let mut waiting = Vec::with_capacity(MAX_IN_FLIGHT);
    let mut bytes = Vec::new();
    let mut written = Vec::with_capacity(MAX_IN_FLIGHT);
    while queue.recv_many(&mut waiting, MAX_IN_FLIGHT).await > 0 {
        for answer in waiting.drain(..) {
            let answered = answer.answers.and_then(|id| in_flight.answer(&id));
            if answered.as_ref().is_some_and(Answered::was_cancelled) {
                continue;
            }
            bytes.extend_from_slice(&answer.line);
            written.push(answered);
        }
        let done = output.write_all(&bytes).await;
        if done.and(output.flush().await).is_err() {
            return;
        }
        bytes.clear();
        // Only now, with the answers on stdout, are their requests' slots free.
        written.clear();
    }
}
