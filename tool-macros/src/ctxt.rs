//! The error accumulator: every stage pushes its errors here and carries on, so one build shows
//! every mistake in a declaration, each at its own token.

use std::fmt::Display;

use quote::ToTokens;

/// The errors found so far.
#[derive(Default)]
pub struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// An error spanned on `tokens` (a key, a literal, a type).
    pub fn error_spanned_by<T: ToTokens>(&mut self, tokens: T, message: impl Display) {
        self.errors.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error syn already built (a parse error).
    pub fn syn_error(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// All the errors as one, or `Ok` when there were none.
    pub fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
