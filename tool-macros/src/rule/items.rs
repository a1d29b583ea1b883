//! `min_items`, `max_items`, `unique`: a list's length and whether its elements differ. The
//! field's type must be a list (`toolkit::rule::Items`), which the generated code checks.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Checked, Key, Rule, Subject, Written, counts, option_tokens, requirements, written_keys,
};
use crate::ctxt::Ctxt;
use crate::model::Value;

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
        let (min, max) = counts(cx, written, (&MIN_ITEMS, &MAX_ITEMS), "elements");
        let unique = written
            .flag(cx, &UNIQUE)
            .is_some_and(|setting| setting.value);
        let keys = written_keys(written, &[&MIN_ITEMS, &MAX_ITEMS, &UNIQUE]);
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

/// The counts a call checks.
struct ItemCount {
    min: Option<u64>,
    max: Option<u64>,
    unique: bool,
    /// The keys written, where a field type that is not a list is reported.
    keys: Vec<syn::Ident>,
}

impl Checked for ItemCount {
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String> {
        let Value::List(items) = value else {
            return None;
        };
        let count = items.len() as u64;
        let takes = match (self.min, self.max) {
            (Some(min), _) if count < min => Some(format!("at least {min}")),
            (_, Some(max)) if count > max => Some(format!("at most {max}")),
            _ => None,
        };
        if let Some(takes) = takes {
            return Some(format!(
                "{} has {count} elements, where {takes} are allowed: choose {} that fits",
                subject.the, subject.instead
            ));
        }
        let repeated = items.iter().enumerate().find_map(|(index, (item, _))| {
            items[..index]
                .iter()
                .any(|(earlier, _)| earlier.same(item))
                .then_some(item)
        });
        match repeated {
            Some(item) if self.unique => Some(format!(
                "{} holds {item} twice, where the elements are unique: choose {} without \
                 repeats",
                subject.the, subject.instead
            )),
            _ => None,
        }
    }

    fn spec(&self) -> TokenStream {
        let (min, max) = (option_tokens(self.min), option_tokens(self.max));
        let unique = self.unique;
        quote!(::toolkit::rule::ItemCount { min: #min, max: #max, unique: #unique })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        requirements(&self.keys, ty, "items")
    }
}
