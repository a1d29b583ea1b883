//! `min_entries`, `max_entries`: how many entries a map has. The field's type must be a map
//! (`toolkit::rule::Entries`), which the generated code checks.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Checked, Key, Rule, Written, located};
use crate::ctxt::Ctxt;
use crate::model::DefaultValue;
use crate::setting::Setting;

pub struct Entries;

const MIN_ENTRIES: Key = Key {
    name: "min_entries",
    example: "min_entries = 1",
    aliases: &["min_properties", "min_keys"],
    flag: false,
};
const MAX_ENTRIES: Key = Key {
    name: "max_entries",
    example: "max_entries = 50",
    aliases: &["max_properties", "max_keys"],
    flag: false,
};

impl Rule for Entries {
    fn keys(&self) -> &'static [Key] {
        &[MIN_ENTRIES, MAX_ENTRIES]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let min = written
            .integer(cx, &MIN_ENTRIES)
            .and_then(|setting| count(cx, &setting));
        let max = written
            .integer(cx, &MAX_ENTRIES)
            .and_then(|setting| count(cx, &setting));
        if let (Some(min), Some(max), Some(setting)) = (min, max, written.get(&MAX_ENTRIES))
            && min > max
        {
            cx.error_spanned_by(
                setting.value_span(),
                format!(
                    "`max_entries = {max}` is below `min_entries = {min}`: make `min_entries` \
                     no larger than `max_entries`"
                ),
            );
        }
        let keys = [written.get(&MIN_ENTRIES), written.get(&MAX_ENTRIES)]
            .into_iter()
            .flatten()
            .map(|setting| setting.key.clone())
            .collect();
        (min.is_some() || max.is_some())
            .then(|| Box::new(EntryCount { min, max, keys }) as Box<dyn Checked>)
    }
}

/// A declared number of entries, if it is one (reported if not).
fn count(cx: &mut Ctxt, setting: &Setting<i128>) -> Option<u64> {
    let count = u64::try_from(setting.value).ok();
    if count.is_none() {
        cx.error_spanned_by(
            setting.value_span(),
            format!(
                "`{}` is a number of entries, from 0 to {}",
                setting.key,
                u64::MAX
            ),
        );
    }
    count
}

/// The counts a call checks.
struct EntryCount {
    min: Option<u64>,
    max: Option<u64>,
    /// The keys written, where a field type that is not a map is reported.
    keys: Vec<syn::Ident>,
}

impl Checked for EntryCount {
    fn refuse_default(&self, _default: &DefaultValue) -> Option<String> {
        // No literal is a map, so a map never has a default; the type check refuses one.
        None
    }

    fn spec(&self) -> TokenStream {
        let option = |value: Option<u64>| match value {
            Some(value) => quote!(::core::option::Option::Some(#value)),
            None => quote!(::core::option::Option::None),
        };
        let (min, max) = (option(self.min), option(self.max));
        quote!(::toolkit::rule::EntryCount { min: #min, max: #max })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        self.keys
            .iter()
            .map(|key| {
                let ty = located(ty, key.span());
                quote_spanned! {key.span()=>
                    const _: () = ::toolkit::__private::entries::<#ty>();
                }
            })
            .collect()
    }
}
