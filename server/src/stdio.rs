//! The stdio transport as the server runs it: every line of stdin passes through here before
//! rmcp parses it, and every line rmcp writes passes through here to stdout.
//!
//! - JSON allows any `\uXXXX` escape in a string, including a lone UTF-16 surrogate
//!   (`"\ud800"`), and any number, including `1e400`; serde_json refuses both, and rmcp would
//!   then drop the request without an answer. A lone surrogate escape becomes `\ufffd` (U+FFFD)
//!   and a number beyond `f64` becomes `±1e308`, which a tool reports as a broken rule.
//! - A line that still is not JSON (a syntax error, invalid UTF-8, nesting past serde_json's
//!   limit) is answered with JSON-RPC's Parse error (-32700), with the request's `id` when one
//!   can be read from it, instead of rmcp's silence.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is skipped as it arrives, so memory stays bounded,
//!   and answered with Invalid Request (-32600).
//! - When `shutdown` completes (SIGTERM or SIGINT), requests already sent are still read, then
//!   reading stops as if stdin had ended: rmcp answers what it has read, the output is flushed,
//!   and the server exits.

use std::borrow::Cow;
use std::future::Future;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

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
            Ok(Line::Complete) => {
                let readable = make_readable(&line);
                match check_json(&readable) {
                    None => to_rmcp.write_all(&readable).await.is_ok(),
                    Some(problem) => {
                        let answer = error_answer(top_level_id(&line), -32700, &problem);
                        answers.send(answer).await.is_ok()
                    }
                }
            }
            Ok(Line::Oversized) => {
                tracing::warn!(
                    limit = MAX_MESSAGE_BYTES,
                    "skipped a message over the size limit"
                );
                let message = format!(
                    "Invalid Request: the message is larger than the limit of {MAX_MESSAGE_BYTES} bytes."
                );
                let answer = error_answer(top_level_id(&line), -32600, &message);
                answers.send(answer).await.is_ok()
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

/// A JSON-RPC error response line.
fn error_answer(id: Option<Value>, code: i64, message: &str) -> Vec<u8> {
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": { "code": code, "message": message },
    });
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Why `line` is not one JSON value, or `None` when it is (a blank line counts as fine: rmcp
/// skips it).
fn check_json(line: &[u8]) -> Option<String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(_) => None,
        Err(error) => Some(format!("Parse error: {error}.")),
    }
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

/// `line` with each lone surrogate escape (`\uD800`–`\uDFFF` not part of a high-low pair)
/// replaced by `\ufffd`, and each number too large for `f64` replaced by `±1e308`. Borrowed
/// when there is nothing to replace.
pub fn make_readable(line: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    let mut replace = |out: &mut Vec<u8>, start: usize, end: usize, with: &[u8]| {
        out.extend_from_slice(&line[copied..start]);
        out.extend_from_slice(with);
        copied = end;
    };
    let mut in_string = false;
    let mut index = 0;
    while index < line.len() {
        let byte = line[index];
        if in_string {
            match byte {
                b'"' => {
                    in_string = false;
                    index += 1;
                }
                b'\\' if line.get(index + 1) == Some(&b'u') => {
                    let unit = escape_at(line, index);
                    match unit {
                        Some(0xD800..=0xDBFF)
                            if matches!(escape_at(line, index + 6), Some(0xDC00..=0xDFFF)) =>
                        {
                            index += 12;
                        }
                        Some(0xD800..=0xDFFF) => {
                            replace(&mut out, index, index + 6, b"\\ufffd");
                            index += 6;
                        }
                        _ => index += 6,
                    }
                }
                // Any other escape is two bytes (`\"`, `\\`, …): skip both, so an escaped quote
                // does not end the string.
                b'\\' => index += 2,
                _ => index += 1,
            }
        } else if byte == b'"' {
            in_string = true;
            index += 1;
        } else if byte == b'-' || byte.is_ascii_digit() {
            let end = index
                + line[index..]
                    .iter()
                    .take_while(|&&b| {
                        b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                    })
                    .count();
            let number = std::str::from_utf8(&line[index..end]).ok();
            if let Some(value) = number.and_then(|text| text.parse::<f64>().ok())
                && value.is_infinite()
            {
                let saturated: &[u8] = if value < 0.0 { b"-1e308" } else { b"1e308" };
                replace(&mut out, index, end, saturated);
            }
            index = end;
        } else {
            index += 1;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(line);
    }
    out.extend_from_slice(&line[copied.min(line.len())..]);
    Cow::Owned(out)
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one is there.
fn escape_at(line: &[u8], at: usize) -> Option<u16> {
    let escape = line.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

/// The `id` of a JSON-RPC request that could not be parsed whole (or only its start is at
/// hand): the value of the key `"id"` of the outermost object, if it is a string, a number or
/// null and can be read.
fn top_level_id(line: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut last_string_is_id = false;
    let mut index = 0;
    while index < line.len() {
        match line[index] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(line, index)?;
                // Keys come just before their colon, so at the colon this tells whether the
                // key was "id".
                last_string_is_id = depth == 1 && &line[index..=end] == b"\"id\"";
                index = end;
            }
            b':' if depth == 1 && last_string_is_id => {
                let start = index
                    + 1
                    + line[index + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                let end = match line.get(start) {
                    Some(b'"') => string_end(line, start)? + 1,
                    _ => {
                        start
                            + line[start..]
                                .iter()
                                .take_while(|b| {
                                    !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace()
                                })
                                .count()
                    }
                };
                let id: Value = serde_json::from_slice(&line[start..end]).ok()?;
                return (id.is_string() || id.is_number() || id.is_null()).then_some(id);
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// The index of the quote that closes the string opening at `start`.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut index = start + 1;
    while index < line.len() {
        match line[index] {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(line: &str) -> String {
        String::from_utf8(make_readable(line.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(fixed(r#"{"q":"\ud800"}"#), r#"{"q":"\ufffd"}"#);
        assert_eq!(fixed(r#"{"q":"a\uDFFFb"}"#), r#"{"q":"a\ufffdb"}"#);
        assert_eq!(fixed(r#"{"q":"\udc00\ud800"}"#), r#"{"q":"\ufffd\ufffd"}"#);
        assert_eq!(fixed(r#"{"q":"\ud800\u0041"}"#), r#"{"q":"\ufffd\u0041"}"#);
        let parsed: serde_json::Value =
            serde_json::from_str(&fixed(r#"{"q":"x\ud83dy"}"#)).unwrap();
        assert_eq!(parsed["q"], "x\u{fffd}y");
    }

    #[test]
    fn pairs_other_escapes_and_plain_text_are_left_alone() {
        for line in [
            r#"{"q":"\ud83d\ude00"}"#,
            r#"{"q":"\\ud800"}"#,
            r#"{"q":"\"\ud83d\ude00\""}"#,
            r#"{"q":"é\n\u00e9"}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1}\n",
        ] {
            assert_eq!(fixed(line), line);
        }
    }

    #[test]
    fn numbers_beyond_f64_are_saturated_outside_strings_only() {
        assert_eq!(fixed(r#"{"offset":1e400}"#), r#"{"offset":1e308}"#);
        assert_eq!(fixed(r#"{"a":[-2E999, 1e5]}"#), r#"{"a":[-1e308, 1e5]}"#);
        let digits = "9".repeat(400);
        assert_eq!(fixed(&format!(r#"{{"a":{digits}}}"#)), r#"{"a":1e308}"#);
        for line in [r#"{"q":"1e400"}"#, r#"{"a":1.5e10,"b":-0}"#, r#"{"k-1":2}"#] {
            assert_eq!(fixed(line), line);
        }
    }

    #[test]
    fn the_id_is_read_from_a_line_that_does_not_parse() {
        let id = |line: &str| top_level_id(line.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"#),
            Some(json!(7))
        );
        assert_eq!(
            id(r#"{"params":{"id":1},"id":"a\"b"} trailing"#),
            Some(json!("a\"b"))
        );
        assert_eq!(id(r#"{"method":"id","params":[1,2,"#), None);
        assert_eq!(id(r#"{"id":{"x":1}}"#), None);
        assert_eq!(id("not json at all"), None);
    }

    #[test]
    fn answers_are_json_rpc_errors() {
        let line = error_answer(Some(json!(3)), -32700, "Parse error: x.");
        let answer: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32700, "message": "Parse error: x."}})
        );
        assert!(check_json(b"{\"a\":1}\n").is_none());
        assert!(check_json(b"  \n").is_none());
        assert!(check_json(b"{\"a\":\n").is_some());
        assert!(check_json(&[b'"', 0xff, b'"']).is_some());
    }

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

    #[test]
    fn a_line_cut_short_inside_an_escape_does_not_panic() {
        for line in [
            r#"{"q":"\ud8"#,
            r#"{"q":"\ud800\"#,
            r#"{"q":"\"#,
            r#""\ud800\udc"#,
        ] {
            let _ = make_readable(line.as_bytes());
            let _ = top_level_id(line.as_bytes());
        }
    }
}
