//! Serving MCP on stdin and stdout ([`run`]): every line of stdin passes through here before
//! rmcp parses it, and every line rmcp writes passes through here to stdout.
//!
//! - Each line is read as one JSON-RPC message by [`jsonrpc::read`]: what rmcp could not read
//!   is answered here, with the request's `id`, instead of rmcp's silence or an answer without
//!   one. A blank line is skipped.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is skipped as it arrives, so memory stays bounded,
//!   and answered with Invalid Request (-32600).
//! - At most [`MAX_IN_FLIGHT`] requests are read ahead of their answers (see [`in_flight`]):
//!   a client that does not read its answers stops being read, and the server's memory stays
//!   bounded whatever the client sends.
//! - When stdin ends, every request already read is answered before the server exits.
//! - When `shutdown` completes (SIGTERM or SIGINT), requests already sent are still read, then
//!   reading stops as if stdin had ended; the server waits up to [`SHUTDOWN_DRAIN`] for their
//!   answers to reach stdout, then exits.

mod in_flight;

use std::future::Future;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::ServerInitializeError;
use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::jsonrpc::{self, Incoming, Read};
use crate::{Error, MovieReviews};
use in_flight::{Answered, InFlight, NotStarted};

pub use in_flight::MAX_IN_FLIGHT;

/// The largest JSON-RPC message the server reads: 16 MiB. A longer line is answered with
/// Invalid Request and never held in memory whole.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an oversized line is kept to find the request's `id` in.
const ID_SEARCH_BYTES: usize = 4096;

/// Bytes buffered between these tasks and rmcp.
const PIPE_BUFFER: usize = 64 * 1024;

/// How long reading goes on after a signal while requests keep arriving.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(100);

/// How long after a signal the server waits for the answers to requests it has read.
const SHUTDOWN_DRAIN: Duration = Duration::from_secs(10);

/// Answers this module writes itself, waiting for their turn on stdout.
const PENDING_ANSWERS: usize = 64;

/// What the server reads requests from.
pub type Input = Box<dyn AsyncRead + Send + Unpin>;

/// What the server writes answers to.
pub type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// This process's stdin and stdout, for serving.
///
/// When they are pipes or sockets, as when an MCP client starts the server, they are made
/// non-blocking and polled by the runtime like any socket. Tokio's own stdin and stdout hand
/// every read and every write to a thread of its blocking pool and wait for it; measured here,
/// those hand-offs were a large part of a call's round trip. A terminal or a file (which cannot
/// be polled, and a terminal's mode is shared with the shell) keeps tokio's.
///
/// Call it once, from within the runtime.
pub fn standard_streams() -> (Input, Output) {
    #[cfg(unix)]
    {
        (
            polled::stdin().unwrap_or_else(|| Box::new(tokio::io::stdin())),
            polled::stdout().unwrap_or_else(|| Box::new(tokio::io::stdout())),
        )
    }
    #[cfg(not(unix))]
    {
        (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
    }
}

#[cfg(unix)]
mod polled {
    //! stdin and stdout as non-blocking pipes or sockets, when they are one.

    use std::fs::File;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;

    use tokio::net::UnixStream;
    use tokio::net::unix::pipe;

    use super::{Input, Output};

    pub(super) fn stdin() -> Option<Input> {
        let (fd, is_pipe) = stream_fd(std::io::stdin().as_fd())?;
        Some(if is_pipe {
            Box::new(pipe::Receiver::from_owned_fd(fd).ok()?)
        } else {
            Box::new(socket(fd)?)
        })
    }

    pub(super) fn stdout() -> Option<Output> {
        let (fd, is_pipe) = stream_fd(std::io::stdout().as_fd())?;
        Some(if is_pipe {
            Box::new(pipe::Sender::from_owned_fd(fd).ok()?)
        } else {
            Box::new(socket(fd)?)
        })
    }

    /// A duplicate of `fd` when it is a pipe (true) or a socket (false); it shares the original's
    /// open file, so both become non-blocking together.
    fn stream_fd(fd: BorrowedFd<'_>) -> Option<(OwnedFd, bool)> {
        let file = File::from(fd.try_clone_to_owned().ok()?);
        let kind = file.metadata().ok()?.file_type();
        let owned = OwnedFd::from(file);
        if kind.is_fifo() {
            Some((owned, true))
        } else if kind.is_socket() {
            Some((owned, false))
        } else {
            None
        }
    }

    fn socket(fd: OwnedFd) -> Option<UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(fd);
        socket.set_nonblocking(true).ok()?;
        UnixStream::from_std(socket).ok()
    }
}

/// Serves MCP with `server` on `input` and `output` (stdin and stdout, from
/// [`standard_streams`]) until the client closes its input or `shutdown` completes (a signal):
/// calls already read are answered, then the database is closed, which checkpoints its
/// write-ahead log.
pub async fn run<R, W>(
    server: MovieReviews,
    input: R,
    output: W,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let store = server.store.clone();
    let served = serve(server, pipes(input, output, shutdown)).await;
    store.close().await;
    served
}

/// Serves `server` on `pipes` until rmcp stops, then waits until every answer is out.
async fn serve(server: MovieReviews, pipes: Pipes) -> Result<(), Error> {
    let served = match server.serve((pipes.input, pipes.output)).await {
        Ok(running) => running.waiting().await.map(|reason| {
            tracing::info!(?reason, "stopped serving");
        }),
        // A client that starts the server and closes stdin before initializing has simply gone
        // away; that is a clean end, not a failure.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("stdin closed before the client initialized");
            Ok(())
        }
        Err(error) => return Err(error.into()),
    };
    // rmcp has closed its end; wait until every answer is on stdout.
    let flushed = pipes.flushed.await;
    served?;
    Ok(flushed?)
}

/// The two ends rmcp serves on, and the task that owns stdout.
pub struct Pipes {
    /// What rmcp reads: stdin's lines, made readable.
    pub input: DuplexStream,
    /// What rmcp writes, copied to stdout line by line.
    pub output: DuplexStream,
    /// Ends once rmcp's output and this module's answers are all on stdout.
    pub flushed: JoinHandle<()>,
}

/// Connects rmcp to `input` and `output` through the filters the module describes.
pub fn pipes<R, W, F>(input: R, output: W, shutdown: F) -> Pipes
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let (rmcp_input, to_rmcp) = tokio::io::duplex(PIPE_BUFFER);
    let (rmcp_output, from_rmcp) = tokio::io::duplex(PIPE_BUFFER);
    let (answers, pending) = mpsc::channel(PENDING_ANSWERS);
    let in_flight = InFlight::new();
    let signalled = CancellationToken::new();
    let signal = signalled.clone();
    tokio::spawn(async move {
        shutdown.await;
        signal.cancel();
    });
    let reader = Reader {
        to_rmcp,
        answers,
        in_flight: in_flight.clone(),
        signalled: signalled.clone(),
    };
    tokio::spawn(reader.run(input));
    let flushed = tokio::spawn(write_responses(
        from_rmcp, pending, output, in_flight, signalled,
    ));
    Pipes {
        input: rmcp_input,
        output: rmcp_output,
        flushed,
    }
}

/// Completes [`SHUTDOWN_DRAIN`] after a signal: when the server stops waiting for answers.
async fn drain_deadline(signalled: &CancellationToken) {
    signalled.cancelled().await;
    tokio::time::sleep(SHUTDOWN_DRAIN).await;
}

/// Reads stdin and hands rmcp what it can read.
struct Reader {
    to_rmcp: DuplexStream,
    /// Answers this module writes itself.
    answers: mpsc::Sender<Vec<u8>>,
    in_flight: InFlight,
    signalled: CancellationToken,
}

impl Reader {
    /// Reads until stdin ends (or, after a signal, until nothing more arrives), waits until
    /// every request read has its answer on stdout, then closes rmcp's input. rmcp gives the
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
                    "stopped waiting for answers {} s after the signal; stdout is not being read",
                    SHUTDOWN_DRAIN.as_secs()
                );
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
                Ok(Line::Complete) => match jsonrpc::read(&line) {
                    Read::Forward(incoming) => self.forward(&incoming).await,
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

    /// Hands one message to rmcp: a request once it has a slot (see [`in_flight`]); a
    /// cancellation is kept here instead. False once nothing more can be delivered.
    async fn forward(&mut self, incoming: &Incoming<'_>) -> bool {
        match &incoming.message {
            JsonRpcMessage::Request(request) => {
                match self.in_flight.start(request.id.clone()).await {
                    Ok(()) => {}
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
        self.to_rmcp.write_all(&incoming.text).await.is_ok()
    }

    /// Queues an answer of this module's own for stdout.
    async fn answer(&self, answer: &Value) -> bool {
        self.answers.send(encode(answer)).await.is_ok()
    }
}

/// Copies rmcp's output to `output` a whole line at a time, with this module's own answers
/// between lines, flushing each; an answer to a cancelled request is left out. Once this ends,
/// no more answers can be written: [`InFlight::close`].
async fn write_responses<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    answers: mpsc::Receiver<Vec<u8>>,
    mut output: W,
    in_flight: InFlight,
    signalled: CancellationToken,
) {
    tokio::select! {
        () = copy_responses(from_rmcp, answers, &mut output, &in_flight) => {}
        // A client that stopped reading must not keep the server from exiting.
        () = drain_deadline(&signalled) => {}
    }
    in_flight.close();
}

async fn copy_responses<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut answers: mpsc::Receiver<Vec<u8>>,
    output: &mut W,
    in_flight: &InFlight,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let (mut rmcp_open, mut answers_open) = (true, true);
    while rmcp_open || answers_open {
        // `read_until` keeps what it read if the other branch wins, so no output is lost.
        let (bytes, answered) = tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => match read {
                Ok(0) | Err(_) => {
                    rmcp_open = false;
                    continue;
                }
                Ok(_) => {
                    let bytes = std::mem::take(&mut line);
                    let answered = answered_id(&bytes).and_then(|id| in_flight.answer(&id));
                    (bytes, answered)
                }
            },
            answer = answers.recv(), if answers_open => match answer {
                Some(bytes) => (bytes, None),
                None => {
                    answers_open = false;
                    continue;
                }
            }
        };
        if answered.as_ref().is_some_and(Answered::was_cancelled) {
            continue;
        }
        let written = output.write_all(&bytes).await;
        if written.and(output.flush().await).is_err() {
            return;
        }
        // Only now, with the answer on stdout, is its request's slot free.
        drop(answered);
    }
}

/// The id of the request a line of rmcp's output answers. The server sends no requests of its
/// own, so every id rmcp writes is that of a response.
fn answered_id(line: &[u8]) -> Option<RequestId> {
    serde_json::from_value(jsonrpc::top_level_id(line)?).ok()
}

/// A message as one line of output.
fn encode(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

enum Line {
    /// `line` holds the next line, with its newline if it had one.
    Complete,
    /// The next line was longer than the limit and has been skipped; `line` holds its start.
    Oversized,
    /// The input has ended.
    End,
}

/// Reads the next line into `line`, never holding more than [`MAX_MESSAGE_BYTES`] of it.
async fn read_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<Line> {
    let mut oversized = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (oversized, line.is_empty()) {
                (true, _) => Line::Oversized,
                (false, true) => Line::End,
                (false, false) => Line::Complete,
            });
        }
        let (chunk, ends_line) = match available.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (&available[..=newline], true),
            None => (available, false),
        };
        let taken = chunk.len();
        if !oversized && line.len() + taken > MAX_MESSAGE_BYTES + 1 {
            oversized = true;
            line.truncate(ID_SEARCH_BYTES);
            line.shrink_to(PIPE_BUFFER);
        }
        if !oversized {
            line.extend_from_slice(chunk);
        }
        input.consume(taken);
        if ends_line {
            return Ok(if oversized {
                Line::Oversized
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_over_the_limit_are_skipped_and_the_next_line_still_read() {
        let mut input = Vec::new();
        input.extend_from_slice(b"{\"a\":1}\n");
        input.extend(std::iter::repeat_n(b'x', MAX_MESSAGE_BYTES + 10));
        input.extend_from_slice(b"\n{\"b\":2}");
        let mut input = BufReader::new(input.as_slice());
        let mut line = Vec::new();
        assert!(matches!(
            read_line(&mut input, &mut line).await,
            Ok(Line::Complete)
        ));
        assert_eq!(line, b"{\"a\":1}\n");
        line.clear();
        assert!(matches!(
            read_line(&mut input, &mut line).await,
            Ok(Line::Oversized)
        ));
        assert!(line.capacity() <= MAX_MESSAGE_BYTES + PIPE_BUFFER);
        line.clear();
        assert!(matches!(
            read_line(&mut input, &mut line).await,
            Ok(Line::Complete)
        ));
        assert_eq!(line, b"{\"b\":2}");
        line.clear();
        assert!(matches!(
            read_line(&mut input, &mut line).await,
            Ok(Line::End)
        ));
    }

    #[tokio::test]
    async fn a_line_exactly_at_the_limit_is_read() {
        let mut input = vec![b'y'; MAX_MESSAGE_BYTES];
        input.push(b'\n');
        let mut input = BufReader::new(input.as_slice());
        let mut line = Vec::new();
        assert!(matches!(
            read_line(&mut input, &mut line).await,
            Ok(Line::Complete)
        ));
        assert_eq!(line.len(), MAX_MESSAGE_BYTES + 1);
    }
}
