//! The stdio transport as the server runs it: every line of stdin passes through here before
//! rmcp parses it, and every line rmcp writes passes through here to stdout.
//!
//! - Each line is read as one JSON-RPC message by [`jsonrpc::read`]: what rmcp could not read
//!   is answered here, with the request's `id`, instead of rmcp's silence or an answer without
//!   one. A blank line is skipped.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is skipped as it arrives, so memory stays bounded,
//!   and answered with Invalid Request (-32600).
//! - When `shutdown` completes (SIGTERM or SIGINT), requests already sent are still read, then
//!   reading stops as if stdin had ended: rmcp answers what it has read, the output is flushed,
//!   and the server exits.

use std::future::Future;

use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::jsonrpc::{self, Read};

/// The largest JSON-RPC message the server reads: 16 MiB. A longer line is answered with
/// Invalid Request and never held in memory whole.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How much of an oversized line is kept to find the request's `id` in.
const ID_SEARCH_BYTES: usize = 4096;

/// Bytes buffered between these tasks and rmcp.
const PIPE_BUFFER: usize = 64 * 1024;

/// How long reading goes on after a signal while requests keep arriving.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

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
    tokio::spawn(read_requests(input, to_rmcp, answers, shutdown));
    let flushed = tokio::spawn(write_responses(from_rmcp, pending, output));
    Pipes {
        input: rmcp_input,
        output: rmcp_output,
        flushed,
    }
}

async fn read_requests<R, F>(
    input: R,
    mut to_rmcp: DuplexStream,
    answers: mpsc::Sender<Vec<u8>>,
    shutdown: F,
) where
    R: AsyncRead + Unpin,
    F: Future<Output = ()>,
{
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let mut stopping = false;
    tokio::pin!(shutdown);
    loop {
        let read = if stopping {
            // After a signal, requests already on their way are still read and answered;
            // reading ends once none arrives for a moment.
            match tokio::time::timeout(SHUTDOWN_GRACE, read_line(&mut input, &mut line)).await {
                Ok(read) => read,
                Err(_) => break,
            }
        } else {
            tokio::select! {
                read = read_line(&mut input, &mut line) => read,
                () = &mut shutdown => {
                    tracing::info!("shutting down: answering what was already sent");
                    stopping = true;
                    continue;
                }
            }
        };
        let delivered = match read {
            Ok(Line::Complete) if line.iter().all(u8::is_ascii_whitespace) => true,
            Ok(Line::Complete) => match jsonrpc::read(&line) {
                Read::Forward(incoming) => to_rmcp.write_all(&incoming.text).await.is_ok(),
                Read::Refuse(answer) => answers.send(encode(&answer)).await.is_ok(),
                Read::Drop => true,
            },
            Ok(Line::Oversized) => {
                tracing::warn!(
                    limit = MAX_MESSAGE_BYTES,
                    "skipped a message over the size limit"
                );
                let message = format!(
                    "Invalid Request: the message is larger than the limit of {MAX_MESSAGE_BYTES} bytes."
                );
                let answer =
                    jsonrpc::error_response(jsonrpc::top_level_id(&line), -32600, &message);
                answers.send(encode(&answer)).await.is_ok()
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
            break;
        }
    }
}

/// Copies rmcp's output to `output` a whole line at a time, with this module's own answers
/// between lines, flushing each.
async fn write_responses<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut answers: mpsc::Receiver<Vec<u8>>,
    mut output: W,
) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    let (mut rmcp_open, mut answers_open) = (true, true);
    while rmcp_open || answers_open {
        // `read_until` keeps what it read if the other branch wins, so no output is lost.
        let next = tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line), if rmcp_open => match read {
                Ok(0) | Err(_) => {
                    rmcp_open = false;
                    None
                }
                Ok(_) => Some(std::mem::take(&mut line)),
            },
            answer = answers.recv(), if answers_open => {
                if answer.is_none() {
                    answers_open = false;
                }
                answer
            }
        };
        if let Some(bytes) = next {
            let written = output.write_all(&bytes).await;
            if written.and(output.flush().await).is_err() {
                return;
            }
        }
    }
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
