//! Reading stdin a line at a time, never holding more than [`MAX_MESSAGE_BYTES`] of one line.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use super::MAX_MESSAGE_BYTES;

/// How much of an oversized line is kept to find the request's `id` in.
const ID_SEARCH_BYTES: usize = 4096;

/// The capacity the line buffer keeps after an oversized line.
const KEPT_CAPACITY: usize = 64 * 1024;

/// What [`read_line`] found.
pub(super) enum Line {
    /// `line` holds the next line, with its newline if it had one.
    Complete,
    /// The next line was longer than the limit and has been skipped; `line` holds its start.
    Oversized,
    /// The input has ended.
    End,
}

/// Reads the next line into `line`, never holding more than [`MAX_MESSAGE_BYTES`] of it.
pub(super) async fn read_line<R: AsyncBufRead + Unpin>(
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
            line.shrink_to(KEPT_CAPACITY);
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
    use tokio::io::BufReader;

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
        assert!(line.capacity() <= MAX_MESSAGE_BYTES + KEPT_CAPACITY);
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
