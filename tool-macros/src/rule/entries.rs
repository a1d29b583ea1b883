//! `min_entries`, `max_entries`: how many entries a map has. The field's type must be a map
//! (`toolkit::rule::Entries`), which the generated code checks.

use proc_macro2::TokenStream;
use quote::quote;

use super::{
    Checked, Key, Rule, Subject, Written, counts, option_tokens, requirements, written_keys,
};
use crate::ctxt::Ctxt;
use crate::model::Value;

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
        let (min, max) = counts(cx, written, (&MIN_ENTRIES, &MAX_ENTRIES), "entries");
        let keys = written_keys(written, &[&MIN_ENTRIES, &MAX_ENTRIES]);
        (min.is_some() || max.is_some())
            .then(|| Box::new(EntryCount { min, max, keys }) as Box<dyn Checked>)
    }
}

/// The counts a call checks.
struct EntryCount {
    min: Option<u64>,
    max: Option<u64>,
    /// The keys written, where a field type that is not a map is reported.
    keys: Vec<syn::Ident>,
}

impl Checked for EntryCount {
    fn refuse(&self, _value: &Value, _subject: &Subject) -> Option<String> {
        // No literal is a map, so a map never has a default; the type check refuses one.
        None
    }

    fn spec(&self) -> TokenStream {
        let (min, max) = (option_tokens(self.min), option_tokens(self.max));
        quote!(::toolkit::rule::EntryCount { min: #min, max: #max })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        requirements(&self.keys, ty, "entries")
    }
}
