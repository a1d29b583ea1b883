//! `#[choice(...)]`: `rename_all` on a `#[derive(Choice)]` enum, `rename` on one of its
//! variants, each parsed into a [`Slot`]; either key in the other's place is reported with
//! where it goes.

use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr, Token};

use super::{fill, skip_group, skip_unknown, value_tokens};
use crate::ctxt::Ctxt;
use crate::setting::Slot;
use crate::symbol::*;

/// `#[choice(rename_all = "…")]` on the enum.
pub fn parse_enum_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> Slot<LitStr> {
    parse(
        cx,
        attrs,
        (RENAME_ALL, "rename_all = \"kebab-case\""),
        (
            RENAME,
            "`rename` goes on the variant it renames, not on the enum; `rename_all = \"…\"` \
             here names every value in one case convention",
        ),
    )
}

/// `#[choice(rename = "…")]` on a variant.
pub fn parse_variant_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> Slot<LitStr> {
    parse(
        cx,
        attrs,
        (RENAME, "rename = \"wire_name\""),
        (
            RENAME_ALL,
            "`rename_all` goes on the enum, where it names every value in one case convention; \
             a variant takes `rename = \"…\"`",
        ),
    )
}

/// The one key `(name, example)` that goes here; the other key, `misplaced`, is reported
/// with its message, and any other as unknown.
fn parse(
    cx: &mut Ctxt,
    attrs: &[Attribute],
    (name, example): (&'static str, &str),
    (misplaced, message): (&str, &str),
) -> Slot<LitStr> {
    let mut slot = Slot::default();
    for attribute in attrs.iter().filter(|attr| attr.path().is_ident(CHOICE)) {
        let result = attribute.parse_nested_meta(|meta| {
            match meta.path.get_ident().cloned() {
                Some(key) if key == name => fill(cx, &meta, key, example, CHOICE, &mut slot)?,
                Some(key) if key == misplaced => {
                    cx.error_spanned_by(&key, message);
                    skip_value(&meta)?;
                }
                _ => {
                    skip_unknown(cx, CHOICE, &[name], &[], &meta)?;
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    slot
}

/// Skips a misplaced key's `= value` or `(…)`.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        value_tokens(meta)?;
    } else {
        skip_group(meta)?;
    }
    Ok(())
}
