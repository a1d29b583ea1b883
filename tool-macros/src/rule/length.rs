//! `min_chars`, `max_chars`: a string's length, counted in Unicode scalar values.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Checked, Key, Rule, Subject, Written, counts, option_tokens, requirements, written_keys,
};
use crate::ctxt::Ctxt;
use crate::model::Value;

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
        let (min, max) = counts(cx, written, (&MIN_CHARS, &MAX_CHARS), "characters");
        let keys = written_keys(written, &[&MIN_CHARS, &MAX_CHARS]);
        (min.is_some() || max.is_some())
            .then(|| Box::new(Chars { min, max, keys }) as Box<dyn Checked>)
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
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String> {
        let Value::String(text) = value else {
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
                "{} {text:?} is {chars} characters long, where {takes} are allowed: choose \
                 {} that fits",
                subject.the, subject.instead
            )
        })
    }

    fn spec(&self) -> TokenStream {
        let (min, max) = (option_tokens(self.min), option_tokens(self.max));
        quote!(::toolkit::rule::Length { min: #min, max: #max })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        requirements(&self.keys, ty, "characters")
    }
}
