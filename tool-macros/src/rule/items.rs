//! `min_items`, `max_items`, `unique`: a list's length and whether its elements differ. The
//! field's type must be a list (`toolkit::rule::Items`), which the generated code checks.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Checked, Key, Rule, Written, located};
use crate::ctxt::Ctxt;
use crate::model::DefaultValue;
use crate::setting::Setting;

pub struct Items;

const MIN_ITEMS: Key = Key {
    name: "min_items",
    example: "min_items = 1",
    aliases: &["min_len", "min_size", "nonempty"],
    flag: false,
};
const MAX_ITEMS: Key = Key {
    name: "max_items",
    example: "max_items = 20",
    aliases: &["max_size"],
    flag: false,
};
const UNIQUE: Key = Key {
    name: "unique",
    example: "unique",
    aliases: &["unique_items", "distinct"],
    flag: true,
};

impl Rule for Items {
    fn keys(&self) -> &'static [Key] {
        &[MIN_ITEMS, MAX_ITEMS, UNIQUE]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let min = written
            .integer(cx, &MIN_ITEMS)
            .and_then(|setting| count(cx, &setting));
        let max = written
            .integer(cx, &MAX_ITEMS)
            .and_then(|setting| count(cx, &setting));
        if let (Some(min), Some(max), Some(setting)) = (min, max, written.get(&MAX_ITEMS))
            && min > max
        {
            cx.error_spanned_by(
                setting.value_span(),
                format!(
                    "`max_items = {max}` is below `min_items = {min}`: make `min_items` no \
                     larger than `max_items`"
                ),
            );
        }
        let unique = written
            .flag(cx, &UNIQUE)
            .is_some_and(|setting| setting.value);
        let keys = [
            written.get(&MIN_ITEMS),
            written.get(&MAX_ITEMS),
            written.get(&UNIQUE),
        ]
        .into_iter()
        .flatten()
        .map(|setting| setting.key.clone())
        .collect();
        (min.is_some() || max.is_some() || unique).then(|| {
            Box::new(ItemCount {
                min,
                max,
                unique,
                keys,
            }) as Box<dyn Checked>
        })
    }
}

/// A declared number of elements, if it is one (reported if not).
fn count(cx: &mut Ctxt, setting: &Setting<i128>) -> Option<u64> {
    let count = u64::try_from(setting.value).ok();
    if count.is_none() {
        cx.error_spanned_by(
            setting.value_span(),
            format!(
                "`{}` is a number of elements, from 0 to {}",
                setting.key,
                u64::MAX
            ),
        );
    }
    count
}

/// The counts a call checks.
struct ItemCount {
    min: Option<u64>,
    max: Option<u64>,
    unique: bool,
    /// The keys written, where a field type that is not a list is reported.
    keys: Vec<syn::Ident>,
}

impl Checked for ItemCount {
    fn refuse_default(&self, _default: &DefaultValue) -> Option<String> {
        // No literal is a list, so a list never has a default; the type check refuses one.
        None
    }

    fn spec(&self) -> TokenStream {
        let option = |value: Option<u64>| match value {
            Some(value) => quote!(::core::option::Option::Some(#value)),
            None => quote!(::core::option::Option::None),
        };
        let (min, max, unique) = (option(self.min), option(self.max), self.unique);
        quote!(::toolkit::rule::ItemCount { min: #min, max: #max, unique: #unique })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        self.keys
            .iter()
            .map(|key| {
                let ty = located(ty, key.span());
                quote_spanned! {key.span()=>
                    const _: () = ::toolkit::__private::items::<#ty>();
                }
            })
            .collect()
    }
}
