//! `#[arg(...)]`: the keys of one field, parsed into [`ArgAttrs`], with the rule keys and
//! `each(...)` for a list's elements.

use proc_macro2::{TokenStream, TokenTree};
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Token};

use super::{arg_aliases, arg_keys, fill, flag, skip_group, skip_unknown, value, value_tokens};
use crate::ctxt::Ctxt;
use crate::rule;
use crate::setting::{FieldName, Literal, RuleSettings, Setting, Slot, report_duplicate};
use crate::symbol::*;

/// What `#[arg(...)]` said on one field.
#[derive(Default)]
pub struct ArgAttrs {
    /// The keys a rule reads (`min`, `max_chars`, and `each(...)`), each for its rule to check
    /// (see `rule`).
    pub rules: RuleSettings,
    pub default: Slot<Literal>,
    /// `examples = [...]`: values published as the argument's `examples`.
    pub examples: Slot<Literal>,
    pub message: Slot<LitStr>,
    pub exists: Slot<syn::Path>,
    pub required_unless: Slot<Ident>,
    pub ignored_with: Slot<Ident>,
    pub rename: Slot<LitStr>,
    /// `flatten`: the field takes every name the object does not declare.
    pub flatten: Slot<()>,
    /// `conflicts_with = other_field`: never given with it.
    pub conflicts_with: Slot<FieldName>,
    /// `requires = other_field`: given only with it.
    pub requires: Slot<FieldName>,
}

impl ArgAttrs {
    /// The keys written that say how a field is named, defaulted, messaged, checked for
    /// existence or conditioned on another: what a value with no name or presence of its own
    /// (a flattened map, a union variant's value) cannot take.
    pub fn presence_keys(&self) -> impl Iterator<Item = &Ident> {
        [
            self.default.get().map(|setting| &setting.key),
            self.examples.get().map(|setting| &setting.key),
            self.message.get().map(|setting| &setting.key),
            self.exists.get().map(|setting| &setting.key),
            self.required_unless.get().map(|setting| &setting.key),
            self.ignored_with.get().map(|setting| &setting.key),
            self.rename.get().map(|setting| &setting.key),
        ]
        .into_iter()
        .flatten()
    }
}

pub fn parse_arg_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> ArgAttrs {
    let mut out = ArgAttrs::default();
    for misplaced in attrs.iter().filter(|attr| attr.path().is_ident(TOOL)) {
        cx.error_spanned_by(
            misplaced.path(),
            "#[tool(...)] goes on the struct, not on a field, where it would mean nothing: move it \
             above `pub struct`; a field's rules go in #[arg(...)]",
        );
    }
    for attribute in attrs.iter().filter(|attr| attr.path().is_ident(ARG)) {
        let result = attribute.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().cloned() else {
                skip_unknown(cx, ARG, &arg_keys(), &arg_aliases(), &meta)?;
                return Ok(());
            };
            match key.to_string().as_str() {
                // #[arg(default = 10)], #[arg(default = false)], #[arg(default = "title")]
                DEFAULT => fill(cx, &meta, key, "default = 10", ARG, &mut out.default)?,
                // #[arg(examples = ["Dune", "Alien"])], #[arg(examples = [["a", "b"], []])]
                EXAMPLES => fill(
                    cx,
                    &meta,
                    key,
                    "examples = [\"first\", \"second\"]",
                    ARG,
                    &mut out.examples,
                )?,
                // #[arg(message = "A star rating must be between 1 and 5.")]
                MESSAGE => fill(cx, &meta, key, "message = \"…\"", ARG, &mut out.message)?,
                // #[arg(exists = Movie)]
                EXISTS => fill(cx, &meta, key, "exists = Movie", ARG, &mut out.exists)?,
                // #[arg(required_unless = review_id)]
                REQUIRED_UNLESS => fill(
                    cx,
                    &meta,
                    key,
                    "required_unless = other_field",
                    ARG,
                    &mut out.required_unless,
                )?,
                // #[arg(ignored_with = review_id)]
                IGNORED_WITH => fill(
                    cx,
                    &meta,
                    key,
                    "ignored_with = other_field",
                    ARG,
                    &mut out.ignored_with,
                )?,
                // #[arg(rename = "wireName")]
                RENAME => fill(
                    cx,
                    &meta,
                    key,
                    "rename = \"wireName\"",
                    ARG,
                    &mut out.rename,
                )?,
                // #[arg(conflicts_with = other_field)]
                CONFLICTS_WITH => fill(
                    cx,
                    &meta,
                    key,
                    "conflicts_with = other_field",
                    ARG,
                    &mut out.conflicts_with,
                )?,
                // #[arg(requires = other_field)]
                REQUIRES => fill(
                    cx,
                    &meta,
                    key,
                    "requires = other_field",
                    ARG,
                    &mut out.requires,
                )?,
                // #[arg(flatten)]
                FLATTEN => flag(cx, &meta, key, ARG, &mut out.flatten)?,
                // #[arg(min = 0)], #[arg(max_chars = 100)], #[arg(each(max_chars = 50))]
                _ => rule_setting(cx, &meta, key, &mut out.rules)?,
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
}

/// A key some rule reads (`min = 0`, `unique`), or `each(...)` with the rules of a list's
/// elements; anything else is an unknown key.
fn rule_setting(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    settings: &mut RuleSettings,
) -> syn::Result<()> {
    if key == EACH {
        return each(cx, meta, key, settings);
    }
    let Some(rule_key) = rule::key(&key.to_string()) else {
        skip_unknown(cx, ARG, &arg_keys(), &arg_aliases(), meta)?;
        return Ok(());
    };
    if rule_key.flag && !meta.input.peek(Token![=]) {
        settings.add(
            cx,
            Setting {
                key,
                tokens: TokenStream::new(),
                value: Literal::Boolean(true),
            },
        );
    } else if let Some(setting) = value(cx, meta, &key, rule_key.example)? {
        settings.add(cx, setting);
    }
    Ok(())
}

/// `each(max_chars = 50, …)`: rules only, which apply to each element of a list.
fn each(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    settings: &mut RuleSettings,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &key,
            "`each` holds the rules of a list's elements: write `each(max_chars = 50)`",
        );
        if meta.input.peek(Token![=]) {
            value_tokens(meta)?;
        }
        return Ok(());
    }
    let group: proc_macro2::Group = meta.input.fork().parse()?;
    if group.stream().is_empty() {
        meta.input.parse::<TokenTree>()?;
        cx.error_spanned_by(
            &key,
            "`each(...)` is empty: write the rules of each element inside, like `each(max_chars = 50)`",
        );
        return Ok(());
    }
    let mut inner = RuleSettings::default();
    let mut misplaced = false;
    meta.parse_nested_meta(|element| {
        let Some(element_key) = element.path.get_ident().cloned() else {
            skip_unknown(cx, ARG, &arg_keys(), &arg_aliases(), &element)?;
            return Ok(());
        };
        let name = element_key.to_string();
        if ARG_KEYS.contains(&name.as_str()) && name != EACH {
            cx.error_spanned_by(
                &element_key,
                format!(
                    "`{name}` is about the argument, not about each element: move it out of \
                     `each(...)`, which holds only rules such as `max_chars`"
                ),
            );
            misplaced = true;
            if element.input.peek(Token![=]) {
                value_tokens(&element)?;
            } else {
                skip_group(&element)?;
            }
            return Ok(());
        }
        rule_setting(cx, &element, element_key, &mut inner)
    })?;
    if inner.written.is_empty() && inner.each.is_none() {
        if !misplaced {
            cx.error_spanned_by(
                &key,
                "`each(...)` holds no rule: write the rules of each element inside, like \
                 `each(max_chars = 50)`",
            );
        }
    } else if settings.each.is_some() {
        report_duplicate(cx, ARG, &key);
    } else {
        settings.each = Some((key, Box::new(inner)));
    }
    Ok(())
}
