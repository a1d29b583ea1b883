//! The rules an argument's value must keep, one module each. A rule's module holds all of its
//! compile-time half: the `#[arg(...)]` keys it reads, the field types it applies to, every
//! mistake in them the macro refuses (each said on the key or value written), whether a
//! `default` keeps it, and the spec entry it generates. Its runtime half (the check on each call
//! and its schema keywords) is the module of the same name in `toolkit::rule`.
//!
//! A new rule is a module here, listed in [`RULES`], and its runtime type in `toolkit::rule`;
//! the guide's "How it works" (`docs/framework.md`) lists the tests and docs that change with it.

mod length;
mod range;

use proc_macro2::TokenStream;

use crate::ast::Base;
use crate::ctxt::Ctxt;
use crate::model::DefaultValue;
use crate::setting::{Literal, Setting, report_suffix};

/// Every rule, in the order a call checks them.
pub const RULES: &[&dyn Rule] = &[&range::Range, &length::Length];

/// The compile-time half of a rule.
pub trait Rule: Sync {
    /// The `#[arg(...)]` keys it reads.
    fn keys(&self) -> &'static [Key];

    /// Checks what a field wrote under this rule's keys, for an argument of type `base`,
    /// reporting each mistake. Returns the rule the field then has, if any.
    fn check(&self, cx: &mut Ctxt, written: &Written, base: Base) -> Option<Box<dyn Checked>>;
}

/// A rule a field has, its settings checked.
pub trait Checked {
    /// Why `default` breaks this rule, as the whole compile error, if it does.
    fn refuse_default(&self, default: &DefaultValue) -> Option<String>;

    /// The spec entry: an expression of the rule's type in `toolkit::rule`.
    fn spec(&self) -> TokenStream;
}

/// A key of `#[arg(...)]` that a rule reads.
pub struct Key {
    pub name: &'static str,
    /// How to write it, for messages about a malformed value: `min = 0`.
    pub example: &'static str,
    /// Names other libraries give it (`max_length`): when written, this key is suggested.
    pub aliases: &'static [&'static str],
}

/// The rule key `name`, if a rule reads one of that name.
pub fn key(name: &str) -> Option<&'static Key> {
    all_keys().find(|key| key.name == name)
}

/// Every rule key, in the order of [`RULES`].
pub fn all_keys() -> impl Iterator<Item = &'static Key> {
    RULES.iter().flat_map(|rule| rule.keys())
}

/// What one field wrote under the rule keys.
pub struct Written<'a> {
    settings: &'a [Setting<Literal>],
}

impl<'a> Written<'a> {
    pub fn new(settings: &'a [Setting<Literal>]) -> Self {
        Written { settings }
    }

    /// The setting of `key`, if it was written.
    pub fn get(&self, key: &Key) -> Option<&'a Setting<Literal>> {
        self.settings.iter().find(|setting| setting.key == key.name)
    }

    /// The integer written under `key`; any other literal is reported, with what to write.
    pub fn integer(&self, cx: &mut Ctxt, key: &Key) -> Option<Setting<i128>> {
        let setting = self.get(key)?;
        let value = match &setting.value {
            Literal::Integer(value) => *value,
            Literal::Suffixed(int) => {
                report_suffix(cx, int);
                return None;
            }
            _ => {
                cx.error_spanned_by(
                    setting.value_span(),
                    format!(
                        "unexpected value for `{}`: write `{}`",
                        key.name, key.example
                    ),
                );
                return None;
            }
        };
        Some(Setting {
            key: setting.key.clone(),
            tokens: setting.tokens.clone(),
            value,
        })
    }
}
