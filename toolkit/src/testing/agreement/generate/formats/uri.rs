//! URIs as RFC 3986's `URI` has them, and near misses of them.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use super::*;

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
pub(super) fn ipv4() -> BoxedStrategy<String> {
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
pub(super) fn ipv6() -> BoxedStrategy<String> {
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
