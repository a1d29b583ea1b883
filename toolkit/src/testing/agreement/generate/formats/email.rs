//! Email addresses as RFC 5321's `Mailbox` has them, and near misses of them.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use super::uri::{ipv4, ipv6};
use super::*;

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
pub(super) fn email_valid() -> BoxedStrategy<String> {
    (local_part(), domain())
        .prop_map(|(local, domain)| no_a_labels(&format!("{local}@{domain}")))
        .boxed()
}

/// Near misses of addresses: display names (an empty one among them), non-ASCII, a second
/// `@`, misplaced dots, `_`, a label of 64 or a domain of 254 and 255 characters, bad literals,
/// hyphens first, last or third and fourth, a local part of 65 characters, a part missing, a
/// troublesome piece.
pub(super) fn email_near() -> BoxedStrategy<String> {
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
