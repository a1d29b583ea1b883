//! `#[args(...)]`: the keys of an object argument's own attribute, on a `#[derive(Args)]`
//! struct or enum, and on an enum's variants, parsed into [`ArgsAttrs`]. Which keys make
//! sense where is the derive's to say.

use syn::{Attribute, LitStr};

use super::{GroupSetting, fill, flag, group, skip_unknown};
use crate::ctxt::Ctxt;
use crate::setting::Slot;
use crate::symbol::*;

/// What `#[args(...)]` said.
#[derive(Default)]
pub struct ArgsAttrs {
    /// The case convention of a struct's fields, or of an enum's variant names.
    pub rename_all: Slot<LitStr>,
    /// The case convention of an enum's struct variants' fields.
    pub rename_all_fields: Slot<LitStr>,
    /// The field that names a tagged union's variant.
    pub tag: Slot<LitStr>,
    /// An untagged union.
    pub untagged: Slot<()>,
    /// One variant's wire name.
    pub rename: Slot<LitStr>,
    /// `one_of(...)` and `any_of(...)` on a struct, in the order written.
    pub groups: Vec<GroupSetting>,
}

pub fn parse_args_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> ArgsAttrs {
    let mut out = ArgsAttrs::default();
    for attribute in attrs.iter().filter(|attr| attr.path().is_ident(ARGS)) {
        let result = attribute.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().cloned() else {
                skip_unknown(cx, ARGS, ARGS_KEYS, &[], &meta)?;
                return Ok(());
            };
            match key.to_string().as_str() {
                // #[args(rename_all = "snake_case")]
                RENAME_ALL => fill(
                    cx,
                    &meta,
                    key,
                    "rename_all = \"snake_case\"",
                    ARGS,
                    &mut out.rename_all,
                )?,
                // #[args(rename_all_fields = "snake_case")]
                RENAME_ALL_FIELDS => fill(
                    cx,
                    &meta,
                    key,
                    "rename_all_fields = \"snake_case\"",
                    ARGS,
                    &mut out.rename_all_fields,
                )?,
                // #[args(tag = "type")]
                TAG => fill(cx, &meta, key, "tag = \"type\"", ARGS, &mut out.tag)?,
                // #[args(untagged)]
                UNTAGGED => flag(cx, &meta, key, ARGS, &mut out.untagged)?,
                // #[args(one_of(dashboard, uid))], #[args(any_of(names, ids))]
                ONE_OF | ANY_OF => group(cx, &meta, key, ARGS, &mut out.groups)?,
                // #[args(rename = "url")]
                RENAME => fill(cx, &meta, key, "rename = \"name\"", ARGS, &mut out.rename)?,
                _ => {
                    skip_unknown(cx, ARGS, ARGS_KEYS, &[], &meta)?;
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
}
