//! The validator's one leniency about `format: email` that the check corrects: display names.
//!
//! JSON Schema's `email` is RFC 5321's `Mailbox`, a local part, `@` and a domain, with no
//! display name. The `jsonschema` crate reads addresses with `email_address`'s default options,
//! which take `Ada <ada@example.com>` (and `Ada <ada@example.com> `, the space trimmed) for an
//! address. A `Mailbox` never ends with `>` (nor with white space): its domain ends with a
//! letter, a digit or the `]` of an address literal, and a quoted local part is followed by its
//! domain. So an email value that ends with `>`, white space aside, is no address whatever the
//! validator says; the validator is given it with its `@`s taken out, which it cannot read as
//! one either. The test `the_validator_takes_display_names_for_addresses` notices when the
//! crate no longer needs it.
//!
//! The validator's other departure, about `xn--` labels, is no correction here: values the
//! validator and the server read differently there are never generated (see
//! [`crate::testing::agreement::generate`]'s formats, and the test `the_validator_decodes_a_labels`).

use serde_json::Value;

use crate::testing::agreement::schema::{Format, Kind, Schema};

/// `instance` with each email value (an argument, a field, an element, a map's value) that is
/// a display name, by [`display_name`], given without its `@`s.
pub fn display_names_refused(root: &Schema, instance: &mut Value) {
    root.visit_mut(instance, &mut |schema, value| {
        if let (Kind::Format(Format::Email), Value::String(text)) = (&schema.kind, value)
            && display_name(text)
        {
            *text = text.replace('@', "");
        }
    });
}

/// Whether `text` ends with `>`, white space aside (as `email_address` trims it): the end of
/// a display name's bracketed address, never of a `Mailbox`.
pub fn display_name(text: &str) -> bool {
    text.trim_end().ends_with('>')
}
