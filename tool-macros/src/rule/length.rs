//! `min_chars`, `max_chars`: a string's length, counted in Unicode scalar values.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Checked, Key, Rule, Written, located};
use crate::ctxt::Ctxt;
use crate::model::DefaultValue;
use crate::setting::Setting;

pub struct Length;

const MIN_CHARS: Key = Key {
    name: "min_chars",
    example: "min_chars = 1",
    aliases: &["min_length", "min_len"],
    flag: false,
};
const MAX_CHARS: Key = Key {
    name: "max_chars",
    example: "max_chars = 100",
    aliases: &["max_length", "max_len"],
    flag: false,
};

impl Rule for Length {
    fn keys(&self) -> &'static [Key] {
        &[MIN_CHARS, MAX_CHARS]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let min = written
            .integer(cx, &MIN_CHARS)
            .and_then(|setting| characters(cx, &setting));
        let max = written
            .integer(cx, &MAX_CHARS)
            .and_then(|setting| characters(cx, &setting));
        if let (Some(min), Some(max), Some(setting)) = (min, max, written.get(&MAX_CHARS))
            && min > max
        {
            cx.error_spanned_by(
                setting.value_span(),
                format!(
                    "`max_chars = {max}` is below `min_chars = {min}`: make `min_chars` no \
                     larger than `max_chars`"
                ),
            );
        }
        let keys = [written.get(&MIN_CHARS), written.get(&MAX_CHARS)]
            .into_iter()
            .flatten()
            .map(|setting| setting.key.clone())
            .collect();
        (min.is_some() || max.is_some())
            .then(|| Box::new(Chars { min, max, keys }) as Box<dyn Checked>)
    }
}

/// A declared number of characters, if it is one (reported if not).
fn characters(cx: &mut Ctxt, setting: &Setting<i128>) -> Option<u64> {
    match u64::try_from(setting.value) {
        Ok(chars) => Some(chars),
        Err(_) => {
            let key = &setting.key;
            let message = if setting.value < 0 {
                format!("`{key}` is a number of characters, so it cannot be negative")
            } else {
                format!(
                    "`{key}` is a number of characters, at most {}: no string is longer",
                    u64::MAX
                )
            };
            cx.error_spanned_by(setting.value_span(), message);
            None
        }
    }
}

/// The lengths a call checks.
struct Chars {
    min: Option<u64>,
    max: Option<u64>,
    /// The keys written, where a field type without a length is reported.
    keys: Vec<syn::Ident>,
}

impl Checked for Chars {
    fn refuse_default(&self, default: &DefaultValue) -> Option<String> {
        let DefaultValue::String(text) = default else {
            return None;
        };
        let chars = text.chars().count() as u64;
        let fits =
            self.min.is_none_or(|min| chars >= min) && self.max.is_none_or(|max| chars <= max);
        let takes = match (self.min, self.max) {
            (Some(min), Some(max)) => format!("{min} to {max} characters"),
            (Some(min), None) => format!("at least {min} characters"),
            (None, Some(max)) => format!("at most {max} characters"),
            (None, None) => return None,
        };
        (!fits).then(|| {
            format!(
                "the default is {chars} characters long, but this argument takes {takes}: \
                 choose a default that fits"
            )
        })
    }

    fn spec(&self) -> TokenStream {
        let option = |value: Option<u64>| match value {
            Some(value) => quote!(::core::option::Option::Some(#value)),
            None => quote!(::core::option::Option::None),
        };
        let (min, max) = (option(self.min), option(self.max));
        quote!(::toolkit::rule::Length { min: #min, max: #max })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        self.keys
            .iter()
            .map(|key| {
                let ty = located(ty, key.span());
                quote_spanned! {key.span()=>
                    const _: () = ::toolkit::__private::characters::<#ty>();
                }
            })
            .collect()
    }
}
