//! Strings of the typed formats: URIs, dates, date-times and email addresses, valid ones built
//! from random parts of each grammar (RFC 3986's `URI`, RFC 3339's `full-date` and
//! `date-time`, RFC 5321's `Mailbox`), and near misses of them.
//!
//! A near miss is a valid string with one troublesome piece put in, put in place of a
//! character or a character taken out (many still valid: a `#` may start a fragment, a `%` may
//! meet two hex digits), or a mistake of the format's own: a missing or digit-first scheme and
//! broken address literals; days past a month's end (February 29th of 1900 and 2100 among
//! them), months and hours past their last, a leap second anywhere but at the last second of a
//! UTC day, offsets of 24 hours, one-digit and five-digit fields, no offset; display names,
//! non-ASCII, a second `@`, misplaced dots, `_`, labels and domains one character too long, bad
//! address literals, hyphens third and fourth. Wrong JSON types come from
//! [`super::others::wrong_type`]. Whether a string is valid is the validator's verdict, and the
//! parser's; this grammar only steers the generators.
//!
//! No email domain has a label starting `xn--` in any case: the validator decodes such a label
//! as Punycode (refusing one that does not decode) and takes only a lower-case `xn` for the
//! prefix, where the server takes any `xn--` label as written, a documented difference (pinned
//! by `the_validator_decodes_a_labels`). Every generated email string goes through
//! [`no_a_labels`].

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};

use super::one_of;
use crate::schema::Format;

/// A string `format` allows.
pub fn format_valid(format: Format) -> BoxedStrategy<String> {
    match format {
        Format::Uri => uri_valid(),
        Format::Date => date_valid(),
        Format::DateTime => date_time_valid(),
        Format::Email => email_valid(),
    }
}

/// Near misses of `format`'s strings (see the module's documentation): most refused, some
/// still valid.
pub fn format_near(format: Format) -> BoxedStrategy<String> {
    match format {
        Format::Uri => uri_near(),
        Format::Date => date_near(),
        Format::DateTime => date_time_near(),
        Format::Email => email_near(),
    }
}

// Pieces of strings

/// What the near misses of every format put in: characters a URI, a date or an address cannot
/// hold as they are (or only in some places), a broken percent-encoding, non-ASCII letters of
/// two and four bytes, a line feed.
const TROUBLE: [&str; 13] = [
    " ", "^", "#", "%", "%2", "[", "]", "@", "\\", "{", "é", "😀", "\n",
];

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdefABCDEF";

/// The characters of `parts`, once each.
fn chars(parts: &[&str]) -> Vec<char> {
    let mut chars: Vec<char> = parts.iter().flat_map(|part| part.chars()).collect();
    chars.sort_unstable();
    chars.dedup();
    chars
}

/// A string of `lengths` characters, each drawn from `set`.
fn drawn(set: Vec<char>, lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    vec(select(set), lengths)
        .prop_map(|chars| chars.into_iter().collect())
        .boxed()
}

/// A string of `lengths` pieces, each a character drawn from `set` or, one time in six, a
/// percent-encoded byte (`%` and two hex digits in either case).
fn encoded(set: Vec<char>, lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    let hex = chars(&[HEX]);
    let piece = (0..6u8, select(set), select(hex.clone()), select(hex));
    vec(piece, lengths)
        .prop_map(|pieces| {
            (pieces.into_iter())
                .map(|(pick, c, high, low)| match pick {
                    0 => format!("%{high}{low}"),
                    _ => c.to_string(),
                })
                .collect()
        })
        .boxed()
}

/// `text` with `piece` put before its character at `at`.
fn inserted(text: &str, at: usize, piece: &str) -> String {
    let split = text.char_indices().nth(at).map_or(text.len(), |(at, _)| at);
    format!("{}{piece}{}", &text[..split], &text[split..])
}

/// `text` with its character at `at` replaced by `piece` (unchanged past its end).
fn replaced(text: &str, at: usize, piece: &str) -> String {
    match text.char_indices().nth(at) {
        Some((at, c)) => format!("{}{piece}{}", &text[..at], &text[at + c.len_utf8()..]),
        None => text.to_owned(),
    }
}

/// `text` without its character at `at` (unchanged past its end).
fn removed(text: &str, at: usize) -> String {
    replaced(text, at, "")
}

/// Strings from `texts` with one piece of [`TROUBLE`] or of `own` put in, or put in place of a
/// character, or with a character taken out.
fn mutated(texts: BoxedStrategy<String>, own: &[&'static str]) -> BoxedStrategy<String> {
    let mut pieces: Vec<&'static str> = TROUBLE.to_vec();
    pieces.extend_from_slice(own);
    (texts, 0..3u8, any::<Index>(), select(pieces))
        .prop_map(|(text, how, index, piece)| {
            let at = index.index(text.chars().count() + 1);
            match how {
                0 => inserted(&text, at, piece),
                1 => replaced(&text, at, piece),
                _ => removed(&text, at),
            }
        })
        .boxed()
}

/// `strategy`'s string, or (one time in `1 + absent`) an empty one.
fn sometimes(strategy: BoxedStrategy<String>, absent: u32) -> BoxedStrategy<String> {
    prop_oneof![absent => Just(String::new()), 1 => strategy].boxed()
}

// URIs (RFC 3986)

/// `sub-delims`.
const SUB_DELIMS: &str = "!$&'()*+,;=";

/// `pchar`, but its percent-encodings: what a path segment holds.
fn pchar() -> Vec<char> {
    chars(&[LOWER, UPPER, DIGITS, "-._~", SUB_DELIMS, ":@"])
}

/// What a query or a fragment holds, but its percent-encodings: `pchar`, `/` and `?`.
fn query_chars() -> Vec<char> {
    chars(&[LOWER, UPPER, DIGITS, "-._~", SUB_DELIMS, ":@/?"])
}

/// A URI: a scheme and an authority with a path, or a scheme and a path alone (`mailto:`,
/// `urn:`), then perhaps a query and a fragment.
pub fn uri_valid() -> BoxedStrategy<String> {
    let with_authority = (scheme(), authority(), path_after_authority())
        .prop_map(|(scheme, authority, path)| format!("{scheme}://{authority}{path}"));
    let without =
        (scheme(), path_without_authority()).prop_map(|(scheme, path)| format!("{scheme}:{path}"));
    let hier = prop_oneof![3 => with_authority, 1 => without];
    (
        hier,
        encoded(query_chars(), 0..=8),
        any::<bool>(),
        encoded(query_chars(), 0..=8),
        any::<bool>(),
    )
        .prop_map(|(hier, query, has_query, fragment, has_fragment)| {
            let query = if has_query {
                format!("?{query}")
            } else {
                String::new()
            };
            let fragment = if has_fragment {
                format!("#{fragment}")
            } else {
                String::new()
            };
            format!("{hier}{query}{fragment}")
        })
        .boxed()
}

/// A scheme: a well-known one (those a browser treats specially among them), in any case, or
/// a letter and letters, digits, `+`, `-` and `.`.
fn scheme() -> BoxedStrategy<String> {
    let known = vec![
        "http", "https", "HTTP", "Https", "ftp", "ws", "wss", "file", "mailto", "urn", "tel",
        "data", "foo", "git+ssh", "a", "z9.-+",
    ];
    let made = (
        select(chars(&[LOWER, UPPER])),
        drawn(chars(&[LOWER, UPPER, DIGITS, "+-."]), 0..=5),
    )
        .prop_map(|(first, rest)| format!("{first}{rest}"));
    prop_oneof![
        4 => select(known).prop_map(str::to_owned),
        1 => made,
    ]
    .boxed()
}

/// `[ userinfo "@" ] host [ ":" port ]`, a port of any digits (none, or past 65535).
fn authority() -> BoxedStrategy<String> {
    let userinfo = encoded(chars(&[LOWER, DIGITS, "-._~", SUB_DELIMS, ":"]), 0..=6)
        .prop_map(|userinfo| format!("{userinfo}@"));
    let port = prop_oneof![
        2 => Just(String::new()),
        1 => select(vec![":", ":0", ":80", ":65535", ":65536", ":99999", ":00080"])
            .prop_map(str::to_owned),
        1 => drawn(chars(&[DIGITS]), 0..=6).prop_map(|digits| format!(":{digits}")),
    ];
    (sometimes(userinfo.boxed(), 3), host(), port)
        .prop_map(|(userinfo, host, port)| format!("{userinfo}{host}{port}"))
        .boxed()
}

/// A host: a name (a domain, one looking like an IPv4 address a browser refuses, or any
/// `reg-name`, empty too), an IPv4 address, an IPv6 address or an `IPvFuture` in brackets.
fn host() -> BoxedStrategy<String> {
    let names = vec![
        "example.com",
        "a",
        "localhost",
        "EXAMPLE.org",
        "xn--bcher-kva.example",
        "1.2.3.256",
        "999.0.0.1",
        "0x7f.1",
        "a-b.c",
        "",
    ];
    let reg_name = encoded(chars(&[LOWER, DIGITS, "-._~", SUB_DELIMS]), 0..=8);
    let future = (
        select(vec!['v', 'V']),
        drawn(chars(&[HEX]), 1..=3),
        drawn(chars(&[LOWER, DIGITS, "-._~", SUB_DELIMS, ":"]), 1..=5),
    )
        .prop_map(|(v, version, rest)| format!("[{v}{version}.{rest}]"));
    one_of(vec![
        (3, select(names).prop_map(str::to_owned).boxed()),
        (2, reg_name),
        (2, ipv4()),
        (2, ipv6().prop_map(|address| format!("[{address}]")).boxed()),
        (1, future.boxed()),
    ])
}

/// An IPv4 address in dotted decimal, its numbers often at the ends of a `dec-octet`'s forms.
fn ipv4() -> BoxedStrategy<String> {
    let octet = prop_oneof![
        1 => select(vec![0u8, 9, 10, 99, 100, 199, 200, 249, 250, 255]),
        2 => any::<u8>(),
    ];
    [octet.clone(), octet.clone(), octet.clone(), octet]
        .prop_map(|[a, b, c, d]| format!("{a}.{b}.{c}.{d}"))
        .boxed()
}

/// An IPv6 address as RFC 3986 writes one: eight groups of one to four hex digits (either
/// case), or `::` with at most seven around it, the last two groups perhaps an IPv4 address.
fn ipv6() -> BoxedStrategy<String> {
    let group = drawn(chars(&[HEX]), 1..=4);
    (
        any::<bool>(),
        0..=7usize,
        0..=7usize,
        vec(group, 8),
        any::<bool>(),
        ipv4(),
    )
        .prop_map(|(compressed, left, right, groups, v4_tail, v4)| {
            let written = |groups: &[String], tail: bool| {
                let mut parts: Vec<String> = groups.to_vec();
                if tail {
                    parts.truncate(parts.len().saturating_sub(2));
                    parts.push(v4.clone());
                }
                parts.join(":")
            };
            if !compressed {
                return written(&groups, v4_tail);
            }
            let right = right.min(7 - left);
            let before = written(&groups[..left], false);
            let after = written(&groups[left..left + right], v4_tail && right >= 2);
            format!("{before}::{after}")
        })
        .boxed()
}

/// A path after an authority: empty, or segments each after a `/` (`.` and `..` among them).
fn path_after_authority() -> BoxedStrategy<String> {
    vec(segment(), 0..=3)
        .prop_map(|segments| segments.iter().map(|s| format!("/{s}")).collect())
        .boxed()
}

/// A path with no authority before it: empty, rooted (`/` not followed by another `/`), or
/// starting with a segment (`ada@example.com`, `isbn:0451450523`).
fn path_without_authority() -> BoxedStrategy<String> {
    let first = encoded(pchar(), 1..=8);
    let rooted = (sometimes(first.clone(), 1), path_after_authority()).prop_map(|(first, rest)| {
        if first.is_empty() {
            "/".to_owned()
        } else {
            format!("/{first}{rest}")
        }
    });
    let rootless =
        (first, path_after_authority()).prop_map(|(first, rest)| format!("{first}{rest}"));
    prop_oneof![
        1 => Just(String::new()),
        1 => rooted,
        3 => rootless,
    ]
    .boxed()
}

/// A path segment: `pchar`s (percent-encodings among them), empty, or a dot segment.
fn segment() -> BoxedStrategy<String> {
    prop_oneof![
        4 => encoded(pchar(), 0..=6),
        1 => select(vec!["", ".", "..", "%2e", "%2E%2e"]).prop_map(str::to_owned),
    ]
    .boxed()
}

/// Near misses of URIs: a troublesome piece, no scheme, a digit first, broken address literals
/// and ports, relative references.
pub fn uri_near() -> BoxedStrategy<String> {
    let no_scheme = uri_valid().prop_map(|uri| {
        let rest = uri.split_once(':').map_or(uri.as_str(), |(_, rest)| rest);
        rest.trim_start_matches('/').to_owned()
    });
    let schemeless = uri_valid()
        .prop_map(|uri| (uri.split_once(':').map(|(_, rest)| rest.to_owned())).unwrap_or(uri));
    let digit_first = (
        uri_valid(),
        select(vec!["1", "9", "+", "-", "."]),
        any::<bool>(),
    )
        .prop_map(|(uri, first, instead)| {
            if instead {
                replaced(&uri, 0, first)
            } else {
                format!("{first}{uri}")
            }
        });
    let literals = vec![
        "1.2.3.4",
        "::1",
        "v1",
        "v1.",
        "vg.x",
        "::g",
        "1:2:3:4:5:6:7:8:9",
        "1::2::3",
        ":::",
        "::1%25eth0",
        "fe80::1%eth0",
        "",
        "::ffff:1.2.3.256",
        "1:2:3:4:5:6:7",
    ];
    let literal = (
        scheme(),
        select(literals),
        select(vec!["]", "", "]x", "]]", "]:80"]),
    )
        .prop_map(|(scheme, inside, end)| format!("{scheme}://[{inside}{end}/"));
    let ports = vec!["8o", "-1", " 80", "80 ", "0x50", "٣"];
    let port = (scheme(), select(ports)).prop_map(|(scheme, port)| format!("{scheme}://a:{port}/"));
    let relative = vec![
        "",
        "/a",
        "a",
        "//a",
        "?q",
        "#f",
        ":",
        "a:b c",
        "http://a/b#c#d",
    ];
    one_of(vec![
        (
            8,
            mutated(uri_valid(), &[":", "/", "?", "%41", "|", "\"", "<", "`"]),
        ),
        (1, no_scheme.boxed()),
        (1, schemeless.boxed()),
        (1, digit_first.boxed()),
        (1, literal.boxed()),
        (1, port.boxed()),
        (1, select(relative).prop_map(str::to_owned).boxed()),
    ])
}

// Dates (RFC 3339)

/// Whether `year` is a leap year in the Gregorian calendar.
fn leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// The days in `month` of `year`.
fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A year of four digits, often one where the leap years' rule turns (1900, 2000, 2100) or an
/// end of the range.
fn year() -> BoxedStrategy<u32> {
    let turning = vec![
        0, 1, 4, 1582, 1600, 1900, 1970, 2000, 2023, 2024, 2100, 2400, 9999,
    ];
    prop_oneof![2 => select(turning), 3 => 0..=9999u32].boxed()
}

/// A year, a month and a day of it, often one of its last days (28 to 31 by month and year).
fn date_parts() -> BoxedStrategy<(u32, u32, u32)> {
    (year(), 1..=12u32, any::<bool>(), 0..4u32, 1..=31u32)
        .prop_map(|(year, month, near_end, back, day)| {
            let last = days_in(year, month);
            let day = if near_end { last - back } else { day.min(last) };
            (year, month, day)
        })
        .boxed()
}

/// `YYYY-MM-DD`.
fn date_written((year, month, day): (u32, u32, u32)) -> String {
    format!("{year:04}-{month:02}-{day:02}")
}

/// A full date.
fn date_valid() -> BoxedStrategy<String> {
    date_parts().prop_map(date_written).boxed()
}

/// Near misses of dates: a day past its month's end (February 29th of a year that is no leap
/// year), month or day 0 or past the last, fields one digit short or long, other separators,
/// something around it, a troublesome piece.
fn date_near() -> BoxedStrategy<String> {
    let past_end = (year(), 1..=12u32)
        .prop_map(|(year, month)| date_written((year, month, days_in(year, month) + 1)));
    let february = select(vec![1900, 2100, 2023, 1, 2000, 2024, 0])
        .prop_map(|year| date_written((year, 2, 29)));
    let out_of_range = (
        year(),
        select(vec![0, 1, 12, 13, 99]),
        select(vec![0, 1, 31, 32, 99]),
    )
        .prop_map(|(year, month, day)| format!("{year:04}-{month:02}-{day:02}"));
    let widths = (date_parts(), 0..5u8).prop_map(|((year, month, day), how)| match how {
        0 => format!("{year:04}-{month}-{day:02}"),
        1 => format!("{year:04}-{month:02}-{day}"),
        2 => format!("{:02}-{month:02}-{day:02}", year % 100),
        3 => format!("{year:05}-{month:02}-{day:02}"),
        _ => format!("+{year:04}-{month:02}-{day:02}"),
    });
    let separators = (date_valid(), select(vec!["/", ".", "", " ", "_"]))
        .prop_map(|(date, separator)| date.replace('-', separator));
    let around = (
        date_valid(),
        select(vec![" ", "\n", "T00:00:00Z", "Z", "x"]),
        any::<bool>(),
    )
        .prop_map(|(date, extra, after)| {
            if after {
                format!("{date}{extra}")
            } else {
                format!("{extra}{date}")
            }
        });
    one_of(vec![
        (
            4,
            mutated(date_valid(), &["0", "9", "-", ":", "T", "٣", "+"]),
        ),
        (2, past_end.boxed()),
        (1, february.boxed()),
        (1, out_of_range.boxed()),
        (1, widths.boxed()),
        (1, separators.boxed()),
        (1, around.boxed()),
    ])
}

// Date-times (RFC 3339)

/// A fraction of a second: none, one to twelve digits (past chrono's nine), or one of those
/// that end in zeros or carry a digit past the nanoseconds.
fn fraction() -> BoxedStrategy<String> {
    let edges = vec![
        ".0",
        ".000",
        ".5",
        ".500",
        ".000000001",
        ".999999999",
        ".9999999999",
        ".123456789012",
        ".000100",
    ];
    prop_oneof![
        3 => Just(String::new()),
        3 => drawn(chars(&[DIGITS]), 1..=12).prop_map(|digits| format!(".{digits}")),
        1 => select(edges).prop_map(str::to_owned),
    ]
    .boxed()
}

/// An offset, as written and in minutes east of UTC: `Z` or `z`, or `+` or `-` with hours to
/// 23 and minutes to 59 (`-00:00` among them).
fn offset() -> BoxedStrategy<(String, i32)> {
    let zulu = select(vec!["Z", "z"]).prop_map(|z| (z.to_owned(), 0));
    let numeric = (
        any::<bool>(),
        0..=23i32,
        prop_oneof![0..=59i32, select(vec![0, 30, 59])],
    )
        .prop_map(|(east, hours, minutes)| {
            let sign = if east { '+' } else { '-' };
            let total = (hours * 60 + minutes) * if east { 1 } else { -1 };
            (format!("{sign}{hours:02}:{minutes:02}"), total)
        });
    prop_oneof![1 => zulu, 3 => numeric].boxed()
}

/// A date-time: a date, `T` or `t`, a time with seconds to 59 and perhaps a fraction, an
/// offset; or a leap second, `:60` at 23:59 UTC, whatever the offset (`00:59:60+01:00`).
fn date_time_valid() -> BoxedStrategy<String> {
    let seconds = prop_oneof![0..=59u32, select(vec![0, 59])];
    let ordinary = (
        date_valid(),
        select(vec!["T", "t"]),
        (0..=23u32, 0..=59u32, seconds),
        fraction(),
        offset(),
    )
        .prop_map(|(date, t, (hour, minute, second), fraction, (offset, _))| {
            format!("{date}{t}{hour:02}:{minute:02}:{second:02}{fraction}{offset}")
        });
    let leap_second = (date_valid(), fraction(), offset()).prop_map(|(date, fraction, offset)| {
        let (hour, minute) = local_of_last_utc_minute(offset.1);
        format!("{date}T{hour:02}:{minute:02}:60{fraction}{}", offset.0)
    });
    prop_oneof![5 => ordinary, 1 => leap_second].boxed()
}

/// The local hour and minute of 23:59 UTC at `offset` minutes east.
fn local_of_last_utc_minute(offset: i32) -> (i32, i32) {
    let minute_of_day = (23 * 60 + 59 + offset).rem_euclid(1440);
    (minute_of_day / 60, minute_of_day % 60)
}

/// Near misses of date-times: a date's near miss, an hour, minute or second past its last, a
/// leap second not at the last second of a UTC day, offsets past 23:59 or not in `±HH:MM`, no
/// offset, fields one digit short, another separator for the `T`, a broken fraction, a five-
/// digit year, a troublesome piece.
fn date_time_near() -> BoxedStrategy<String> {
    let time = "T14:30:00Z";
    let bad_date = date_near().prop_map(move |date| format!("{date}{time}"));
    let past_last = (
        date_valid(),
        select(vec!["24:00:00", "23:60:00", "23:59:61", "99:00:00"]),
    )
        .prop_map(|(date, time)| format!("{date}T{time}Z"));
    let leap_elsewhere = (date_valid(), 0..=23i32, 0..=59i32, offset(), -1..=1i32).prop_map(
        |(date, hour, minute, (offset, minutes), shift)| {
            // Either any minute, or a minute next to where a leap second would be.
            let (hour, minute) = if shift == 0 {
                (hour, minute)
            } else {
                local_of_last_utc_minute(minutes + shift)
            };
            format!("{date}T{hour:02}:{minute:02}:60{offset}")
        },
    );
    let offsets = vec![
        "+24:00", "-24:00", "+23:60", "+0200", "+02", "02:00", "UTC", "GMT", "Z+01:00", "",
        "+2:00", "+02:0", "z ", "ZZ", "+02:00Z",
    ];
    let bad_offset = (date_valid(), select(offsets))
        .prop_map(|(date, offset)| format!("{date}T14:30:00{offset}"));
    let shapes = vec![
        "T1:30:00Z",
        "T01:3:00Z",
        "T01:30:0Z",
        " 01:30:00Z",
        "_01:30:00Z",
        "01:30:00Z",
        "TT01:30:00Z",
        "T01:30Z",
        "T01:30:00.Z",
        "T01:30:00,5Z",
        "T01:30:00.5.5Z",
        "T013000Z",
    ];
    let bad_shape = (date_valid(), select(shapes)).prop_map(|(date, rest)| format!("{date}{rest}"));
    let five_digits = (10_000..=12_024u32, 1..=12u32)
        .prop_map(|(year, month)| format!("{year}-{month:02}-01T00:00:00Z"));
    one_of(vec![
        (
            5,
            mutated(
                date_time_valid(),
                &["0", "9", "-", ":", "T", "t", ".", "Z", "+", "٣"],
            ),
        ),
        (1, bad_date.boxed()),
        (1, past_last.boxed()),
        (2, leap_elsewhere.boxed()),
        (1, bad_offset.boxed()),
        (1, bad_shape.boxed()),
        (1, five_digits.boxed()),
    ])
}

// Email addresses (RFC 5321)

/// `atext`: letters, digits and the symbols a dot-atom may hold.
fn atext() -> Vec<char> {
    chars(&[LOWER, UPPER, DIGITS, "!#$%&'*+-/=?^_`{|}~"])
}

/// A local part: a dot-atom, a quoted string (spaces and quoted pairs in it, or empty), or a
/// dot-atom near the longest, 64 characters.
fn local_part() -> BoxedStrategy<String> {
    let dot_atom = vec(drawn(atext(), 1..=8), 1..=3).prop_map(|atoms| atoms.join("."));
    let printable: Vec<char> = ('!'..='~').collect();
    let qtext: Vec<char> = printable
        .iter()
        .copied()
        .filter(|c| !matches!(c, '"' | '\\'))
        .collect();
    let piece =
        (0..8u8, select(qtext), select(printable)).prop_map(|(pick, text, pair)| match pick {
            0 => " ".to_owned(),
            1 => format!("\\{pair}"),
            _ => text.to_string(),
        });
    let quoted = vec(piece, 1..=8).prop_map(|pieces| format!("\"{}\"", pieces.concat()));
    prop_oneof![
        5 => dot_atom,
        3 => quoted,
        1 => Just("\"\"".to_owned()),
        1 => drawn(atext(), 62..=64),
    ]
    .boxed()
}

/// A host name label of `lengths` letters, digits and hyphens, neither first nor last a
/// hyphen, and none third and fourth.
fn label(lengths: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    drawn(chars(&[LOWER, UPPER, DIGITS, "-"]), lengths)
        .prop_map(|label| {
            let mut bytes = label.into_bytes();
            let last = bytes.len() - 1;
            for at in [0, last] {
                if bytes[at] == b'-' {
                    bytes[at] = b'a';
                }
            }
            if bytes.get(2..4) == Some(b"--") {
                bytes[3] = b'a';
            }
            String::from_utf8(bytes).unwrap_or_default()
        })
        .boxed()
}

/// A host name of one to four labels (some near 63 characters), at most 253 characters.
fn host_name() -> BoxedStrategy<String> {
    let label = prop_oneof![4 => label(1..=10), 1 => label(61..=63)];
    vec(label, 1..=4)
        .prop_map(|labels| {
            let mut name = String::new();
            for label in labels {
                let dot = usize::from(!name.is_empty());
                if name.len() + dot + label.len() <= 253 {
                    if dot == 1 {
                        name.push('.');
                    }
                    name.push_str(&label);
                }
            }
            name
        })
        .boxed()
}

/// A host name exactly `length` characters long (250 to 255): three labels of 63 and one of
/// the rest.
fn host_name_of(length: std::ops::RangeInclusive<usize>) -> BoxedStrategy<String> {
    (
        length,
        label(63..=63),
        label(63..=63),
        label(63..=63),
        label(63..=63),
    )
        .prop_map(|(length, a, b, c, d)| format!("{a}.{b}.{c}.{}", &d[..length - 192]))
        .prop_map(|name| {
            // The last label cut short may end in a hyphen.
            let mut name = name.into_bytes();
            if let Some(last) = name.last_mut().filter(|last| **last == b'-') {
                *last = b'a';
            }
            String::from_utf8(name).unwrap_or_default()
        })
        .boxed()
}

/// A domain: a host name (some of the longest), or an IPv4 or tagged IPv6 address literal, the
/// tag in any case.
fn domain() -> BoxedStrategy<String> {
    let tag = select(vec!["IPv6:", "ipv6:", "IPV6:", "iPv6:"]);
    one_of(vec![
        (6, host_name()),
        (1, host_name_of(250..=253)),
        (1, ipv4().prop_map(|address| format!("[{address}]")).boxed()),
        (
            1,
            (tag, ipv6())
                .prop_map(|(tag, address)| format!("[{tag}{address}]"))
                .boxed(),
        ),
    ])
}

/// An email address.
fn email_valid() -> BoxedStrategy<String> {
    (local_part(), domain())
        .prop_map(|(local, domain)| no_a_labels(&format!("{local}@{domain}")))
        .boxed()
}

/// Near misses of addresses: display names (an empty one among them), non-ASCII, a second
/// `@`, misplaced dots, `_`, a label of 64 or a domain of 254 and 255 characters, bad literals,
/// hyphens first, last or third and fourth, a local part of 65 characters, a part missing, a
/// troublesome piece.
fn email_near() -> BoxedStrategy<String> {
    let names = vec!["Ada", "", "\"Ada L\"", "Adá", "a b", "<"];
    let display = (
        select(names),
        email_valid(),
        select(vec!["", " ", "\n", ">"]),
        any::<bool>(),
    )
        .prop_map(|(name, address, trail, spaced)| {
            let space = if spaced { " " } else { "" };
            format!("{name}{space}<{address}>{trail}")
        });
    // An empty display name, which `email_address` reads as no display name at all.
    let empty_display = email_valid().prop_map(|address| format!(" <{address}>"));
    let foreign = vec![
        "adá@example.com",
        "ada@exämple.com",
        "\"é\"@example.com",
        "ada@例え.jp",
    ];
    let second_at =
        (local_part(), email_valid()).prop_map(|(local, address)| format!("{local}@{address}"));
    let dots = (local_part(), host_name(), 0..6u8).prop_map(|(local, host, how)| match how {
        0 => format!(".{local}@{host}"),
        1 => format!("{local}.@{host}"),
        2 => format!("{local}..a@{host}"),
        3 => format!("{local}@.{host}"),
        4 => format!("{local}@{host}."),
        _ => format!("{local}@{host}..a"),
    });
    let labels =
        (local_part(), host_name(), label(64..=64), 0..5u8).prop_map(|(local, host, long, how)| {
            match how {
                0 => format!("{local}@{long}.{host}"),
                1 => format!("{local}@a_b.{host}"),
                2 => format!("{local}@-{host}"),
                3 => format!("{local}@{host}-"),
                _ => format!("{local}@ab--c.{host}"),
            }
        });
    let too_long =
        (local_part(), host_name_of(253..=255)).prop_map(|(local, host)| format!("{local}@{host}"));
    let literals = vec![
        "1.2.3.256",
        "1.2.3",
        "1.2.3.04",
        "IPv6:1.2.3.4",
        "2001:db8::1",
        "IPv6::::1",
        "IPv7:::1",
        "example.com",
        "",
        "IPv6:",
        "IPv6:1::2::3",
        " 1.2.3.4",
    ];
    let literal =
        (local_part(), select(literals)).prop_map(|(local, inside)| format!("{local}@[{inside}]"));
    let long_local =
        (drawn(atext(), 65..=66), host_name()).prop_map(|(local, host)| format!("{local}@{host}"));
    let parts = vec![
        "@example.com",
        "ada@",
        "ada",
        "ada.example.com",
        "@",
        "",
        "\"ada\"",
        "\"a\"b\"@c.d",
        "\"a\\\"@c.d",
    ];
    let pieces = &[
        ".", "-", "_", "\"", "<", ">", "(", ",", ";", ":", "a", "..", "@@",
    ];
    let near = one_of(vec![
        (6, mutated(email_valid(), pieces)),
        (2, display.boxed()),
        (1, empty_display.boxed()),
        (1, select(foreign).prop_map(str::to_owned).boxed()),
        (1, second_at.boxed()),
        (1, dots.boxed()),
        (2, labels.boxed()),
        (1, too_long.boxed()),
        (1, literal.boxed()),
        (1, long_local.boxed()),
        (1, select(parts).prop_map(str::to_owned).boxed()),
    ]);
    near.prop_map(|text| no_a_labels(&text)).boxed()
}

/// `text` with the `x` of every label starting `xn--` (in any case: at the start, or after an
/// `@` or a `.`) made an `a`: see the module's documentation.
pub fn no_a_labels(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for at in 0..bytes.len() {
        let starts_label = at == 0 || matches!(bytes[at - 1], b'@' | b'.');
        let prefix = bytes
            .get(at..at + 4)
            .is_some_and(|four| four.eq_ignore_ascii_case(b"xn--"));
        if starts_label && prefix {
            bytes[at] = b'a';
        }
    }
    // Only an ASCII `x` was replaced, so the bytes are still UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}
