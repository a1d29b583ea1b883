//! stdin as the server reads it, one JSON-RPC line at a time, before rmcp parses it:
//!
//! - JSON allows any `\uXXXX` escape in a string, including a lone UTF-16 surrogate
//!   (`"\ud800"`), but serde_json refuses one and rmcp then drops the whole request without an
//!   answer. Every lone surrogate escape is replaced by `\ufffd` (U+FFFD), so such a request is
//!   answered by its id.
//! - A line longer than [`MAX_MESSAGE_BYTES`] is discarded as it arrives, so memory stays
//!   bounded; rmcp is handed `{}` in its place and answers with JSON-RPC's Invalid Request.
//! - When `shutdown` completes (SIGTERM or SIGINT), reading stops as if stdin had ended: rmcp
//!   finishes what it has and the server exits cleanly.

use std::borrow::Cow;
use std::future::Future;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

/// The largest JSON-RPC message the server reads: 16 MiB. A longer line is answered with
/// Invalid Request and never held in memory whole.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// Bytes buffered between the line reader and rmcp.
const PIPE_BUFFER: usize = 64 * 1024;

/// What rmcp receives in place of an oversized message: well-formed JSON that is not a
/// JSON-RPC message, which it answers with Invalid Request.
const OVERSIZED_STAND_IN: &[u8] = b"{}\n";

/// A stream carrying `input`'s lines, made readable as the module explains. It ends when
/// `input` ends or fails, or when `shutdown` completes.
pub fn sanitized<R, F>(input: R, shutdown: F) -> DuplexStream
where
    R: AsyncRead + Unpin + Send + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let (reader, mut writer) = tokio::io::duplex(PIPE_BUFFER);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        tokio::pin!(shutdown);
        loop {
            line.clear();
            let read = tokio::select! {
                read = read_line(&mut input, &mut line) => read,
                () = &mut shutdown => {
                    tracing::info!("shutting down: no more requests are read");
                    break;
                }
            };
            let forwarded = match read {
                Ok(Line::Complete) => writer.write_all(&replace_lone_surrogates(&line)).await,
                Ok(Line::Oversized) => {
                    tracing::warn!(
                        limit = MAX_MESSAGE_BYTES,
                        "discarded a message over the size limit"
                    );
                    writer.write_all(OVERSIZED_STAND_IN).await
                }
                Ok(Line::End) => break,
                Err(error) => {
                    tracing::error!(%error, "reading stdin failed");
                    break;
                }
            };
            if forwarded.is_err() {
                break;
            }
        }
    });
    reader
}

enum Line {
    /// `line` holds the next line, with its newline if it had one.
    Complete,
    /// The next line was longer than the limit and has been skipped.
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
            line.clear();
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

/// `line` with each `\uD800`–`\uDFFF` escape that is not half of a high-low pair replaced by
/// `\ufffd`. Only escapes inside JSON strings are looked at; a line without any is borrowed.
pub fn replace_lone_surrogates(line: &[u8]) -> Cow<'_, [u8]> {
    if !line
        .windows(3)
        .any(|w| w[0] == b'\\' && w[1] == b'u' && matches!(w[2], b'd' | b'D'))
    {
        return Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len());
    let mut in_string = false;
    let mut index = 0;
    while index < line.len() {
        let byte = line[index];
        if !in_string {
            in_string = byte == b'"';
            out.push(byte);
            index += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                out.push(byte);
                index += 1;
            }
            b'\\' if line.get(index + 1) == Some(&b'u') => {
                let unit = escape_at(line, index);
                let next = escape_at(line, index + 6);
                match unit {
                    Some(0xD800..=0xDBFF) if matches!(next, Some(0xDC00..=0xDFFF)) => {
                        out.extend_from_slice(&line[index..index + 12]);
                        index += 12;
                    }
                    Some(0xD800..=0xDFFF) => {
                        out.extend_from_slice(b"\\ufffd");
                        index += 6;
                    }
                    _ => {
                        out.extend_from_slice(&line[index..(index + 6).min(line.len())]);
                        index += 6;
                    }
                }
            }
            b'\\' => {
                // Any other escape is two bytes (`\"`, `\\`, `\n`, …): copy both, so an escaped
                // quote does not end the string.
                out.extend_from_slice(&line[index..(index + 2).min(line.len())]);
                index += 2;
            }
            _ => {
                out.push(byte);
                index += 1;
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(line: &str) -> String {
        String::from_utf8(replace_lone_surrogates(line.as_bytes()).into_owned()).unwrap()
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
            let _ = replace_lone_surrogates(line.as_bytes());
        }
    }
}
