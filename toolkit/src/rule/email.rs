//! `format = "email"` (the `email` feature): a string must be an email address as RFC 5321
//! has one (its `Mailbox`, which JSON Schema's `email` names), published as `format: email`.
//!
//! The `email_address` crate reads the local part and the address's shape (RFC 5322's
//! `addr-spec`, with no display name: `Ada <ada@example.com>` is not an address). RFC 5321 is
//! narrower about the rest, so on top of it: the address is ASCII (an international one is
//! `idn-email`), and the domain is a host name (letters, digits and inner hyphens, labels of
//! at most 63 characters, at most 253 in all) or an IPv4 or `IPv6:` address in brackets. An
//! empty quoted local part (`""@example.com`), which RFC 5321 allows, is let in too.

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

use email_address::{EmailAddress, Options};
use serde_json::{Map, Value, json};

use super::Rule;
use crate::arg::quoted;

/// The rule that a string argument is an email address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Email;

impl Rule for Email {
    fn name(&self) -> &'static str {
        "format"
    }

    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(text) = value.as_str() else {
            return Ok(());
        };
        if is_address(text) {
            Ok(())
        } else {
            Err(format!(
                "Must be an email address, like ada@example.com, not {}.",
                quoted(text)
            ))
        }
    }

    fn publish(&self, property: &mut Map<String, Value>) {
        property.insert("format".into(), json!("email"));
    }
}

/// Whether `text` is an RFC 5321 address (see the module's documentation).
fn is_address(text: &str) -> bool {
    if !text.is_ascii() {
        return false;
    }
    let options = Options {
        allow_display_text: false,
        ..Options::default()
    };
    // `email_address` refuses an empty quoted local part; any other is read alike.
    let address = match text.strip_prefix("\"\"@") {
        Some(domain) => Cow::Owned(format!("\"a\"@{domain}")),
        None => Cow::Borrowed(text),
    };
    // Even without display text allowed, it reads ` <ada@example.com>` as the address in the
    // brackets: an address is only what it reads as the whole text.
    EmailAddress::parse_with_options(&address, options)
        .is_ok_and(|parsed| parsed.email() == address.as_ref() && is_domain(parsed.domain()))
}

/// Whether `domain` is a host name, or an IPv4 or tagged IPv6 address in brackets.
fn is_domain(domain: &str) -> bool {
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        // The tag is case-insensitive, as RFC 5321's ABNF strings are.
        return match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                literal[5..].parse::<Ipv6Addr>().is_ok()
            }
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        };
    }
    (1..=253).contains(&domain.len()) && domain.split('.').all(is_label)
}

/// Whether `label` is one label of a host name: 1 to 63 letters, digits and hyphens, neither
/// first nor last a hyphen, and hyphens third and fourth only in an `xn--` label (RFC 5891
/// keeps that shape for encoded international names; the encoding itself is not checked).
fn is_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    (1..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
        && (bytes.get(2..4) != Some(b"--") || bytes[..2].eq_ignore_ascii_case(b"xn"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_5321_addresses_only() {
        for good in [
            "ada@example.com",
            "ada.lovelace+notes@mail.example.co.uk",
            "\"ada lovelace\"@example.com",
            "\"\"@example.com",
            "ada@localhost",
            "ada@[192.0.2.1]",
            "ada@[IPv6:2001:db8::1]",
            "ada@[ipv6:::1]",
            "ada@xn--bcher-kva.example",
            &format!("ada@{}.com", "a".repeat(63)),
            &format!("ada@{}.com", vec!["a".repeat(61); 4].join(".")),
        ] {
            assert_eq!(Email.check(&json!(good)), Ok(()), "{good}");
        }
        for bad in [
            "Ada <ada@example.com>",
            " <ada@example.com>",
            "<ada@example.com>",
            "ada.example.com",
            "adá@example.com",
            "ada@exämple.com",
            "ada@a_b.com",
            "ada@-a.com",
            "ada@a-.com",
            "ada@ab--c.com",
            "ada@example.com.",
            "ada@[example.com]",
            "ada@[2001:db8::1]",
            "ada@[IPv6:192.0.2.1]",
            &format!("ada@{}.com", "a".repeat(64)),
            &format!("ada@{}.com", vec!["a".repeat(62); 4].join(".")),
        ] {
            assert!(Email.check(&json!(bad)).is_err(), "{bad}");
        }
    }
}
