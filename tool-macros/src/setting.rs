//! What a key of `#[tool(...)]` or `#[arg(...)]` was set to, as every stage sees it: a
//! [`Setting`] remembers where it was written, a [`Slot`] holds a key that may be set once, and a
//! [`Literal`] is a value before its key and its field's type say what it must be. A leaf: the
//! parser (`attr`) fills these, and the checks and the rules read them.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::Parse;
use syn::{Ident, Lit, Token};

use crate::ctxt::Ctxt;

/// A setting as written: the key (for errors about the key) and the value's tokens (for errors
/// about the value).
pub struct Setting<T> {
    pub key: Ident,
    pub tokens: TokenStream,
    pub value: T,
}

impl<T> Setting<T> {
    /// Where the value was written, for errors about it.
    pub fn value_span(&self) -> TokenStream {
        if self.tokens.is_empty() {
            self.key.to_token_stream()
        } else {
            self.tokens.clone()
        }
    }

    /// Where the value begins (the `-` of `-1`), for generated code that a compile error about
    /// the value should point at.
    pub fn value_start(&self) -> proc_macro2::Span {
        match self.tokens.clone().into_iter().next() {
            Some(token) => token.span(),
            None => self.key.span(),
        }
    }
}

/// A field named in a setting: `other_field`, or `"other_field"` as clap and serde write it.
pub struct FieldName(pub Ident);

impl syn::parse::Parse for FieldName {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        if input.peek(syn::LitStr) {
            let text: syn::LitStr = input.parse()?;
            let ident: Ident = text.parse()?;
            return Ok(FieldName(Ident::new(&ident.to_string(), text.span())));
        }
        input.parse().map(FieldName)
    }
}

/// A key that may be set at most once.
pub struct Slot<T> {
    setting: Option<Setting<T>>,
    /// The key was written, even if its value was malformed (and reported): it is not missing.
    written: bool,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            setting: None,
            written: false,
        }
    }
}

impl<T> Slot<T> {
    pub fn set(&mut self, cx: &mut Ctxt, attr: &str, setting: Setting<T>) {
        if self.setting.is_some() {
            report_duplicate(cx, attr, &setting.key);
        } else {
            self.setting = Some(setting);
        }
    }

    pub fn get(&self) -> Option<&Setting<T>> {
        self.setting.as_ref()
    }

    pub fn value(&self) -> Option<&T> {
        self.setting.as_ref().map(|setting| &setting.value)
    }

    /// The key was never written (a malformed value was written, and already reported).
    pub fn missing(&self) -> bool {
        !self.written
    }

    /// Marks the key as written, even when its value is malformed, or when a misspelling of it
    /// was written and reported with it as the suggestion: reporting the key as missing too
    /// would be a second error for one mistake.
    pub fn mark_written(&mut self) {
        self.written = true;
    }
}

/// What a field wrote under the rule keys: its value's rules, and `each(...)`'s for a list's
/// elements.
#[derive(Default)]
pub struct RuleSettings {
    pub written: Vec<Setting<Literal>>,
    /// `each(...)`: the key, and the rules inside it.
    pub each: Option<(Ident, Box<RuleSettings>)>,
}

impl RuleSettings {
    /// Adds a rule setting; a key written twice is reported.
    pub fn add(&mut self, cx: &mut Ctxt, setting: Setting<Literal>) {
        if self
            .written
            .iter()
            .any(|written| written.key == setting.key)
        {
            report_duplicate(cx, "arg", &setting.key);
        } else {
            self.written.push(setting);
        }
    }
}

/// Reports a key set twice, on its second occurrence.
pub fn report_duplicate(cx: &mut Ctxt, attr: &str, key: &Ident) {
    cx.error_spanned_by(
        key,
        format!("duplicate #[{attr}] key `{key}`; state it once"),
    );
}

/// A literal value (`10`, `-1`, `0.5`, `false`, `"title"`, `["a", "b"]`), before it is checked
/// against what its key and the field's type need.
pub enum Literal {
    Integer(i128),
    /// A number with a fraction or an exponent (`0.5`, `1e3`), finite.
    Float(f64),
    Boolean(bool),
    String(String),
    /// A number with a type suffix (`10usize`, `0.5f32`), refused.
    Suffixed(Lit),
    /// A float too large for an `f64` (`1e400`), refused.
    Infinite(Lit),
    /// Literals in brackets (`["a", "b"]`), each with where it was written.
    List(Vec<(Literal, TokenStream)>),
    Other,
}

impl Parse for Literal {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        if input.peek(syn::token::Bracket) {
            let inside;
            syn::bracketed!(inside in input);
            let mut items = Vec::new();
            while !inside.is_empty() {
                // Each element's tokens are kept, for errors about it; one that is no literal
                // at all (`[limit]`) is `Other`, for the check to say what to write.
                let fork = inside.fork();
                let item = fork.parse::<Literal>().unwrap_or(Literal::Other);
                let tokens = match item {
                    Literal::Other => element_tokens(&inside)?,
                    _ => take_tokens(&inside, &fork)?,
                };
                items.push((item, tokens));
                if inside.is_empty() {
                    break;
                }
                inside.parse::<Token![,]>()?;
            }
            return Ok(Literal::List(items));
        }
        let negative = input.parse::<Option<Token![-]>>()?.is_some();
        Ok(match input.parse::<syn::Lit>()? {
            syn::Lit::Int(int) if !int.suffix().is_empty() => Literal::Suffixed(Lit::Int(int)),
            syn::Lit::Int(int) => {
                let value = int.base10_parse::<i128>()?;
                Literal::Integer(if negative { -value } else { value })
            }
            syn::Lit::Float(float) if !float.suffix().is_empty() => {
                Literal::Suffixed(Lit::Float(float))
            }
            syn::Lit::Float(float) => {
                let value = float.base10_parse::<f64>()?;
                if value.is_finite() {
                    Literal::Float(if negative { -value } else { value })
                } else {
                    Literal::Infinite(Lit::Float(float))
                }
            }
            syn::Lit::Bool(flag) if !negative => Literal::Boolean(flag.value),
            syn::Lit::Str(text) if !negative => Literal::String(text.value()),
            _ => Literal::Other,
        })
    }
}

/// The tokens of `input` up to where `parsed` (a fork of it) has got to, consumed from `input`.
fn take_tokens(
    input: syn::parse::ParseStream,
    parsed: syn::parse::ParseStream,
) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    while !input.is_empty() && input.cursor() != parsed.cursor() {
        tokens.extend([input.parse::<proc_macro2::TokenTree>()?]);
    }
    Ok(tokens)
}

/// The tokens of `input` up to the next comma outside groups, consumed.
fn element_tokens(input: syn::parse::ParseStream) -> syn::Result<TokenStream> {
    let mut tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![,]) {
        tokens.extend([input.parse::<proc_macro2::TokenTree>()?]);
    }
    Ok(tokens)
}

/// Reports a number written with a type suffix (`10usize`, `0.5f32`): the field's type is the
/// number's type, and a suffix that says otherwise would be ignored.
pub fn report_suffix(cx: &mut Ctxt, literal: &Lit) {
    let (digits, written) = match literal {
        Lit::Int(int) => (int.base10_digits(), int.to_string()),
        Lit::Float(float) => (float.base10_digits(), float.to_string()),
        _ => return,
    };
    cx.error_spanned_by(
        literal,
        format!(
            "write the number without a type suffix, `{digits}` rather than `{written}`: the \
             field's type is the number's type"
        ),
    );
}

/// Reports a float literal beyond what an `f64` holds (`1e400`).
pub fn report_infinite(cx: &mut Ctxt, literal: &Lit) {
    cx.error_spanned_by(
        literal,
        "this number is too large for any float: write a bound a field's type can hold",
    );
}
