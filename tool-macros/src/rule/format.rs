//! `format = "email"`: a string must be an email address (toolkit's `email` feature). The other
//! formats are chosen by the field's type, so `format` names them only to say which type to
//! declare.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Checked, Key, Rule, Subject, Written, requirements};
use crate::ctxt::Ctxt;
use crate::model::Value;
use crate::setting::Literal;

pub struct Format;

const FORMAT: Key = Key {
    name: "format",
    example: "format = \"email\"",
    aliases: &[],
    flag: false,
};

/// The formats a field's type gives, and the type to declare for each.
const TYPED: &[(&str, &str)] = &[
    (
        "uri",
        "a `fluent_uri::Uri<String>` (toolkit's `uri` feature), or a `url::Url` for a web \
         address (the `url` feature)",
    ),
    ("url", "a `url::Url` (toolkit's `url` feature)"),
    ("date", "a `chrono::NaiveDate` (toolkit's `chrono` feature)"),
    (
        "date-time",
        "a `chrono::DateTime<FixedOffset>` or `DateTime<Utc>` (toolkit's `chrono` feature)",
    ),
    ("uuid", "a `toolkit::Uuid`"),
];

impl Rule for Format {
    fn keys(&self) -> &'static [Key] {
        &[FORMAT]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let setting = written.get(&FORMAT)?;
        let Literal::String(format) = &setting.value else {
            cx.error_spanned_by(
                setting.value_span(),
                format!("unexpected value for `format`: write `{}`", FORMAT.example),
            );
            return None;
        };
        if format == "email" {
            return Some(Box::new(Email {
                key: setting.key.clone(),
            }));
        }
        let message = match TYPED.iter().find(|(name, _)| name == format) {
            Some((name, declare)) => format!(
                "the `{name}` format comes from the field's type: declare {declare}, and \
                 drop `format`"
            ),
            None => format!(
                "no format {format:?}: `format = \"email\"` is the one a string takes; a URI, \
                 a date and a date-time come from the field's type"
            ),
        };
        cx.error_spanned_by(setting.value_span(), message);
        None
    }
}

/// The email rule a call checks.
struct Email {
    /// The key written, where a field type that is not a string is reported.
    key: syn::Ident,
}

impl Checked for Email {
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String> {
        let Value::String(text) = value else {
            return None;
        };
        // The macro does not read addresses (`email_address` is the toolkit's, behind a
        // feature); a literal must at least have the one `@` every address has, and a toolbox
        // reads it as a call would.
        (text.matches('@').count() != 1).then(|| {
            format!(
                "{} {text:?} is not an email address: choose {} that is",
                subject.the, subject.instead
            )
        })
    }

    fn spec(&self) -> TokenStream {
        quote!(::toolkit::__private::EmailRule)
    }

    /// The field is text, and toolkit has its `email` feature: without it, the error is on the
    /// `format` key and names the feature.
    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        let feature = quote_spanned! {self.key.span()=>
            const _: () = ::toolkit::__private::email_format::<()>();
        };
        let mut checks = requirements(std::slice::from_ref(&self.key), ty, "text");
        checks.extend(feature);
        checks
    }
}
