//! Parsing `#[tool(...)]` and `#[arg(...)]` into raw settings (`setting`), each remembering
//! where it was written: the grammar shared by both ([`tool`] and [`arg`] hold each
//! attribute's keys). This stage knows the grammar only: unknown keys, duplicated keys and
//! malformed values are reported here; whether the settings make sense together is `check`'s
//! business.
//!
//! A bad key or value is reported and skipped, and parsing carries on with the next key, so one
//! build lists every mistake.

mod arg;
mod args;
mod choice;
mod tool;

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::{Ident, Token};

use crate::ctxt::Ctxt;
use crate::rule;
use crate::setting::{Setting, Slot};
use crate::symbol::*;

pub use arg::{ArgAttrs, parse_arg_attrs};
pub use args::{ArgsAttrs, parse_args_attrs};
pub use choice::{parse_enum_attrs, parse_variant_attrs};
pub use tool::{ToolAttrs, error_type, parse_tool_attrs};

/// Parses `= value` into `slot`; a malformed value is reported and leaves the key written.
fn fill<T: Parse>(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    example: &str,
    attr: &str,
    slot: &mut Slot<T>,
) -> syn::Result<()> {
    slot.mark_written();
    if let Some(setting) = value(cx, meta, &key, example)? {
        slot.set(cx, attr, setting);
    }
    Ok(())
}

/// A key that takes no value (`untagged`, `flatten`) in `#[attr(...)]`; one written with a
/// value is reported.
fn flag(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    attr: &str,
    slot: &mut Slot<()>,
) -> syn::Result<()> {
    slot.mark_written();
    if meta.input.peek(Token![=]) {
        let tokens = value_tokens(meta)?;
        cx.error_spanned_by(
            &tokens,
            format!("`{key}` takes no value: write `#[{attr}({key})]`"),
        );
    }
    slot.set(
        cx,
        attr,
        Setting {
            key,
            tokens: TokenStream::new(),
            value: (),
        },
    );
    Ok(())
}

/// `one_of(a, b)` or `any_of(a, b)`: a group of fields, by their Rust names, as written.
pub struct GroupSetting {
    pub key: Ident,
    pub names: Vec<Ident>,
}

/// Parses `(a, b, …)` after a group's key into `out`; anything but field names is reported.
fn group(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    attr: &str,
    out: &mut Vec<GroupSetting>,
) -> syn::Result<()> {
    let example = format!("{key}(first_field, second_field)");
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &key,
            format!("`{key}` lists fields: write `#[{attr}({example})]`"),
        );
        if meta.input.peek(Token![=]) {
            value_tokens(meta)?;
        }
        return Ok(());
    }
    let mut names = Vec::new();
    let mut malformed = false;
    meta.parse_nested_meta(|inner| {
        let written = inner.input.peek(Token![=]) || inner.input.peek(syn::token::Paren);
        match inner.path.get_ident() {
            Some(name) if !written => names.push(name.clone()),
            _ => {
                malformed = true;
                cx.error_spanned_by(
                    &inner.path,
                    format!(
                        "`{key}(...)` lists the fields of the group by name: write `{example}`"
                    ),
                );
                if inner.input.peek(Token![=]) {
                    value_tokens(&inner)?;
                } else {
                    skip_group(&inner)?;
                }
            }
        }
        Ok(())
    })?;
    // A malformed group is reported once, not again for what it lacks.
    if !malformed {
        out.push(GroupSetting { key, names });
    }
    Ok(())
}

/// Parses `= value` as a `T`. A missing or malformed value is reported (with `example` as the
/// fix) and skipped, so parsing goes on with the next key.
fn value<T: Parse>(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: &Ident,
    example: &str,
) -> syn::Result<Option<Setting<T>>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(key, format!("`{key}` needs a value: write `{example}`"));
        skip_group(meta)?;
        return Ok(None);
    }
    let tokens = value_tokens(meta)?;
    if tokens.is_empty() {
        cx.error_spanned_by(key, format!("`{key}` needs a value: write `{example}`"));
        return Ok(None);
    }
    match syn::parse2::<T>(tokens.clone()) {
        Ok(value) => Ok(Some(Setting {
            key: key.clone(),
            tokens,
            value,
        })),
        Err(_) => {
            cx.error_spanned_by(
                &tokens,
                format!("unexpected value for `{key}`: write `{example}`"),
            );
            Ok(None)
        }
    }
}

/// The tokens after `=` up to the next comma outside angle brackets (`Page<A, B>` is one value).
fn value_tokens(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let input = meta.value()?;
    let mut tokens = TokenStream::new();
    let mut depth = 0usize;
    while !(input.is_empty() || depth == 0 && input.peek(Token![,])) {
        let token: TokenTree = input.parse()?;
        if let TokenTree::Punct(punct) = &token {
            match punct.as_char() {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        tokens.extend([token]);
    }
    Ok(tokens)
}

/// Consumes `(…)` after a key that takes none.
fn skip_group(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// Every `#[arg(...)]` key: the rules' keys, then the others.
fn arg_keys() -> Vec<&'static str> {
    rule::all_keys()
        .map(|key| key.name)
        .chain(ARG_KEYS.iter().copied())
        .collect()
}

/// The rules' keys under the names other libraries give them.
fn arg_aliases() -> Vec<(&'static str, &'static str)> {
    rule::all_keys()
        .flat_map(|key| key.aliases.iter().map(|alias| (*alias, key.name)))
        .collect()
}

/// Reports an unknown key, suggesting the known one it most resembles, and skips its value.
/// Returns the key suggested, if any.
fn skip_unknown(
    cx: &mut Ctxt,
    attr: &str,
    known: &[&'static str],
    aliases: &[(&str, &'static str)],
    meta: &ParseNestedMeta,
) -> syn::Result<Option<&'static str>> {
    let written = meta.path.to_token_stream().to_string().replace(' ', "");
    let suggested = suggest(&written, known, aliases);
    let message = match suggested {
        Some(key) => format!("unknown #[{attr}] key `{written}`; did you mean `{key}`?"),
        None => format!(
            "unknown #[{attr}] key `{written}`; the keys are {}",
            known.join(", ")
        ),
    };
    cx.error_spanned_by(&meta.path, message);
    if meta.input.peek(Token![=]) {
        value_tokens(meta)?;
    } else {
        skip_group(meta)?;
    }
    Ok(suggested)
}

/// The known key a misspelt one stands for: a name other libraries give it (`max_length`,
/// `read_only_hint`), in any case or spelling of separators, or the key `did_you_mean` finds
/// (`readOnly`, `titel`, `requird_unless`), by the rule the toolkit also uses for arguments.
fn suggest(
    written: &str,
    known: &[&'static str],
    aliases: &[(&str, &'static str)],
) -> Option<&'static str> {
    let alias = aliases
        .iter()
        .find(|(alias, _)| did_you_mean::same_name(alias, written))
        .map(|&(_, key)| key);
    alias
        .filter(|key| known.contains(key))
        .or_else(|| did_you_mean::closest(written, known.iter().copied()))
}
