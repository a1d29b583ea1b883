//! The rules an argument's value must keep, one module each. A rule's module holds all of its
//! compile-time half: the `#[arg(...)]` keys it reads, every mistake in them the macro refuses
//! (each said on the key or value written), whether a `default` keeps it, the spec entry it
//! generates, and the generated checks against the field's type (the macro sees no types: the
//! type must implement the rule's trait, and a literal must be one the type holds). Its runtime
//! half (the check on each call, its schema keywords, its trait) is the module of the same name
//! in `toolkit::rule`.
//!
//! A new rule is a module here, listed in [`RULES`], and its runtime type in `toolkit::rule`;
//! the guide's "How it works" (`docs/framework.md`) lists the tests and docs that change with it.

mod entries;
mod format;
mod items;
mod length;
mod pattern;
mod range;

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::ctxt::Ctxt;
use crate::model::Value;
use crate::setting::{Literal, Setting, report_infinite, report_suffix};

/// Every rule, in the order a call checks them.
pub const RULES: &[&dyn Rule] = &[
    &range::Range,
    &length::Length,
    &pattern::Pattern,
    &format::Format,
    &items::Items,
    &entries::Entries,
];

/// The compile-time half of a rule.
pub trait Rule: Sync {
    /// The `#[arg(...)]` keys it reads.
    fn keys(&self) -> &'static [Key];

    /// Checks what a field wrote under this rule's keys, reporting each mistake. Returns the
    /// rule the field then has, if any.
    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>>;
}

/// A rule a field has, its settings checked.
pub trait Checked {
    /// Why `value` (a default, an example or an element of one, as `subject` names it) breaks
    /// this rule, as the whole compile error, if it does.
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String>;

    /// The spec entry: an expression of the rule's type in `toolkit::rule`.
    fn spec(&self) -> TokenStream;

    /// The generated checks of the rule against the type `ty` of the value it applies to:
    /// items (constants) that fail to compile, on the setting, when the type cannot take the
    /// rule. `what` names that value for a message: "the type `u8`", "each element of
    /// `Vec<u8>`".
    fn assertions(&self, ty: &syn::Type, what: &str) -> TokenStream;
}

/// A literal a rule is checked against, as a compile error names it.
pub struct Subject {
    /// `the default`, `the example`, `an element of the default`.
    pub the: String,
    /// What to choose in its place: `a default`, `an example`.
    pub instead: &'static str,
}

/// A number as written in `#[arg(...)]`.
#[derive(Clone, Copy, PartialEq)]
pub enum Number {
    Whole(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Whole(whole) => whole as f64,
            Number::Float(float) => float,
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Whole(whole) => whole.fmt(f),
            Number::Float(float) => write!(f, "{float:?}"),
        }
    }
}

/// `tokens` (a field's type) as if written at `span` (a setting): a compile error about the type
/// in generated code then points at the setting, which is where the mistake is. Names still
/// resolve where they were written.
pub fn located(tokens: &impl ToTokens, span: proc_macro2::Span) -> TokenStream {
    tokens
        .to_token_stream()
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), located(&group.stream(), span));
                inner.set_span(group.span().located_at(span));
                return proc_macro2::TokenTree::Group(inner);
            }
            token.set_span(token.span().located_at(span));
            token
        })
        .collect()
}

/// A pair of count keys (`min_items`, `max_items`) as written: each a number of `things` from 0,
/// the first no larger than the second; each mistake is reported.
pub fn counts(
    cx: &mut Ctxt,
    written: &Written,
    (min_key, max_key): (&Key, &Key),
    things: &str,
) -> (Option<u64>, Option<u64>) {
    let mut count = |key: &Key| {
        let setting = written.integer(cx, key)?;
        let count = u64::try_from(setting.value).ok();
        if count.is_none() {
            let message = if setting.value < 0 {
                format!(
                    "`{}` is a number of {things}, so it cannot be negative",
                    key.name
                )
            } else {
                format!(
                    "`{}` is a number of {things}, at most {}",
                    key.name,
                    u64::MAX
                )
            };
            cx.error_spanned_by(setting.value_span(), message);
        }
        count
    };
    let (min, max) = (count(min_key), count(max_key));
    if let (Some(min), Some(max), Some(setting)) = (min, max, written.get(max_key))
        && min > max
    {
        let (low, high) = (min_key.name, max_key.name);
        cx.error_spanned_by(
            setting.value_span(),
            format!(
                "`{high} = {max}` is below `{low} = {min}`: make `{low}` no larger than `{high}`"
            ),
        );
    }
    (min, max)
}

/// The keys of `keys` that were written, where a type without the rule's trait is reported.
pub fn written_keys(written: &Written, keys: &[&Key]) -> Vec<syn::Ident> {
    keys.iter()
        .filter_map(|key| written.get(key))
        .map(|setting| setting.key.clone())
        .collect()
}

/// A constant on each of `keys` requiring `ty` to take the rule: a call of
/// `::toolkit::__private::{check}::<ty>()`, whose bound is the rule's trait.
pub fn requirements(keys: &[syn::Ident], ty: &syn::Type, check: &str) -> TokenStream {
    keys.iter()
        .map(|key| {
            let ty = located(ty, key.span());
            let check = syn::Ident::new(check, key.span());
            quote::quote_spanned! {key.span()=>
                const _: () = ::toolkit::__private::#check::<#ty>();
            }
        })
        .collect()
}

/// `Some(value)` or `None` as an expression.
pub fn option_tokens(value: Option<u64>) -> TokenStream {
    match value {
        Some(value) => quote::quote!(::core::option::Option::Some(#value)),
        None => quote::quote!(::core::option::Option::None),
    }
}

/// The widest integer a tool argument holds, 2^53 − 1: what a JSON client sends exactly (the
/// toolkit's `MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

/// Why a whole number (`subject`, as a message names it) that `what` cannot hold is refused:
/// `choose` says what to write instead, unless it lies past ±(2^53 − 1), which no integer
/// argument holds, so that a wider type would not help.
pub fn whole_refusal(subject: &str, value: i128, what: &str, choose: &str) -> String {
    if value.abs() > MAX_SAFE_INTEGER {
        format!(
            "{subject} is not a value {what} can hold: an integer argument holds at most \
             ±{MAX_SAFE_INTEGER} (2^53 − 1), the integers a JSON client sends exactly"
        )
    } else {
        format!("{subject} is not a value {what} can hold: {choose}, or a wider type")
    }
}

/// A type as written, for messages: `Option<u32>`, `u8`.
pub fn type_name(ty: &syn::Type) -> String {
    ty.to_token_stream().to_string().replace(' ', "")
}

/// A key of `#[arg(...)]` that a rule reads.
pub struct Key {
    pub name: &'static str,
    /// How to write it, for messages about a malformed value: `min = 0`.
    pub example: &'static str,
    /// Names other libraries give it (`max_length`): when written, this key is suggested.
    pub aliases: &'static [&'static str],
    /// Whether the key may be written alone, meaning `= true` (`unique`).
    pub flag: bool,
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

    /// Whether the flag `key` was set (`unique`, `unique = true`); any other value is reported.
    pub fn flag(&self, cx: &mut Ctxt, key: &Key) -> Option<Setting<bool>> {
        let setting = self.get(key)?;
        match setting.value {
            Literal::Boolean(value) => Some(Setting {
                key: setting.key.clone(),
                tokens: setting.tokens.clone(),
                value,
            }),
            _ => {
                cx.error_spanned_by(
                    setting.value_span(),
                    format!(
                        "unexpected value for `{}`: write `{}`",
                        key.name, key.example
                    ),
                );
                None
            }
        }
    }

    /// The setting of `key`, if it was written.
    pub fn get(&self, key: &Key) -> Option<&'a Setting<Literal>> {
        self.settings.iter().find(|setting| setting.key == key.name)
    }

    /// The integer written under `key`; any other literal is reported, with what to write.
    pub fn integer(&self, cx: &mut Ctxt, key: &Key) -> Option<Setting<i128>> {
        let setting = self.number(cx, key)?;
        match setting.value {
            Number::Whole(value) => Some(Setting {
                key: setting.key,
                tokens: setting.tokens,
                value,
            }),
            Number::Float(_) => {
                cx.error_spanned_by(
                    &setting.tokens,
                    format!("`{}` is a whole number: write `{}`", key.name, key.example),
                );
                None
            }
        }
    }

    /// The number written under `key`; any other literal is reported, with what to write.
    pub fn number(&self, cx: &mut Ctxt, key: &Key) -> Option<Setting<Number>> {
        let setting = self.get(key)?;
        let value = match &setting.value {
            Literal::Integer(value) => Number::Whole(*value),
            Literal::Float(value) => Number::Float(*value),
            Literal::Suffixed(literal) => {
                report_suffix(cx, literal);
                return None;
            }
            Literal::Infinite(literal) => {
                report_infinite(cx, literal);
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
