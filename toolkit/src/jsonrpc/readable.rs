//! Making a line that is valid JSON readable by serde_json, which refuses three things JSON
//! allows: a lone UTF-16 surrogate escape, a number beyond `f64`, and nesting past 128 levels
//! (see the parent module's documentation for what each becomes).

use std::borrow::Cow;

use super::MAX_DEPTH;

/// `line` made readable: each lone surrogate escape (`\uD800`–`\uDFFF` not part of a high-low
/// pair) replaced by `\ufffd`, each number too large for `f64` by `±1e308`, and each container
/// nested [`MAX_DEPTH`] levels deep emptied. Borrowed when there is nothing to replace.
pub fn make_readable(line: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Vec<u8> = Vec::new();
    let mut copied = 0;
    let mut replace = |out: &mut Vec<u8>, start: usize, end: usize, with: &[u8]| {
        out.extend_from_slice(&line[copied..start]);
        out.extend_from_slice(with);
        copied = end;
    };
    let mut in_string = false;
    let mut depth = 0usize;
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
        } else if matches!(byte, b'[' | b'{') {
            depth += 1;
            index += 1;
            if depth == MAX_DEPTH
                && let Some(close) = container_end(line, index - 1)
            {
                // Keep the brackets, drop what they hold; the scan goes on at the closing one.
                replace(&mut out, index, close, b"");
                index = close;
            }
        } else if matches!(byte, b']' | b'}') {
            depth = depth.saturating_sub(1);
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

/// The index of the bracket that closes the container opening at `start`, if the line holds
/// it.
fn container_end(line: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut index = start;
    while index < line.len() {
        match line[index] {
            b'"' => index = string_end(line, index)?,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
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

/// The index of the quote that closes the string opening at `start`.
pub(super) fn string_end(line: &[u8], start: usize) -> Option<usize> {
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
    use serde_json::Value;

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
        let parsed: Value = serde_json::from_str(&fixed(r#"{"q":"x\ud83dy"}"#)).unwrap();
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
    fn containers_at_the_depth_limit_are_emptied_and_the_rest_kept() {
        let nested = |depth: usize, inner: &str| {
            format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
        };
        let shallow = nested(MAX_DEPTH - 1, r#"{"a":"]"}"#);
        assert_eq!(fixed(&shallow), nested(MAX_DEPTH - 1, "{}"));
        let within = nested(MAX_DEPTH - 1, "1");
        assert_eq!(fixed(&within), within);
        let deep = format!(r#"{{"x":{},"y":2}}"#, nested(100_000, r#""[""#));
        let fixed_deep = fixed(&deep);
        assert_eq!(
            fixed_deep,
            format!(r#"{{"x":{},"y":2}}"#, nested(MAX_DEPTH - 1, ""))
        );
        let parsed: Value = serde_json::from_str(&fixed_deep).unwrap();
        assert_eq!(parsed["y"], 2);
        // Unterminated: left as it is, for the parser to refuse.
        let open = "[".repeat(MAX_DEPTH + 5);
        assert_eq!(fixed(&open), open);
    }
}
