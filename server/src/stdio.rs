//! stdin as the server reads it. JSON allows any `\uXXXX` escape in a string, including a lone
//! UTF-16 surrogate (`"\ud800"`), but serde_json refuses one, and rmcp then drops the whole
//! request without an answer. Each line is passed on with every lone surrogate escape replaced
//! by `\ufffd` (U+FFFD, the replacement character), so such a request is answered by its id.

use std::borrow::Cow;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader, DuplexStream};

/// Bytes buffered between the line reader and rmcp.
const PIPE_BUFFER: usize = 64 * 1024;

/// A stream carrying `input`'s lines with lone surrogate escapes replaced. It ends when `input`
/// ends or fails.
pub fn sanitized<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (reader, mut writer) = tokio::io::duplex(PIPE_BUFFER);
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line).await {
                Ok(0) => break,
                Ok(_) => {
                    let fixed = replace_lone_surrogates(&line);
                    if writer.write_all(&fixed).await.is_err() {
                        break;
                    }
                }
                Err(error) => {
                    tracing::error!(%error, "reading stdin failed");
                    break;
                }
            }
        }
    });
    reader
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
