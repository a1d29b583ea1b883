//! `format = "email"` (the `email` feature): a string must be an email address, as the
//! `email_address` crate reads RFC 5322's `addr-spec`, published as `format: email`. A display
//! name (`Ada <ada@example.com>`) is not an address.

use email_address::{EmailAddress, Options};
use serde_json::{Map, Value, json};

use super::Rule;
use crate::arg::quoted;

/// The rule that a string argument is an email address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Email;

impl Rule for Email {
    fn check(&self, value: &Value) -> Result<(), String> {
        let Some(text) = value.as_str() else {
            return Ok(());
        };
        let options = Options {
            allow_display_text: false,
            ..Options::default()
        };
        if EmailAddress::parse_with_options(text, options).is_ok() {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_without_a_display_name() {
        assert_eq!(Email.check(&json!("ada@example.com")), Ok(()));
        assert!(Email.check(&json!("Ada <ada@example.com>")).is_err());
        assert!(Email.check(&json!("ada.example.com")).is_err());
    }
}
