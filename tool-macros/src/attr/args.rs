//! `#[args(...)]`: the keys of an object argument's own attribute (on a `#[derive(Args)]`
//! struct), parsed into [`ArgsAttrs`].

use syn::{Attribute, LitStr};

use super::{fill, skip_unknown};
use crate::ctxt::Ctxt;
use crate::setting::Slot;
use crate::symbol::*;

/// What `#[args(...)]` said.
#[derive(Default)]
pub struct ArgsAttrs {
    pub rename_all: Slot<LitStr>,
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
