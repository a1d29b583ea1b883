//! Parsing `#[tool(...)]` and `#[arg(...)]` into raw settings (`setting`), each remembering
//! where it was written. This stage knows the grammar only: unknown keys, duplicated keys and malformed values
//! are reported here; whether the settings make sense together is `check`'s business.
//!
//! A bad key or value is reported and skipped, and parsing carries on with the next key, so one
//! build lists every mistake.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::parse::Parse;
use syn::{Attribute, Ident, LitBool, LitStr, Token};

use crate::ctxt::Ctxt;
use crate::rule;
use crate::setting::{Literal, RuleSettings, Setting, Slot, report_duplicate};
use crate::symbol::*;

/// What `#[tool(...)]` said.
#[derive(Default)]
pub struct ToolAttrs {
    /// The first `#[tool]` attribute, where errors about missing keys point.
    pub attribute: Option<Attribute>,
    pub name: Slot<LitStr>,
    pub title: Slot<LitStr>,
    pub description: Slot<LitStr>,
    pub output: Slot<syn::Type>,
    pub read_only: Slot<bool>,
    pub destructive: Slot<bool>,
    pub idempotent: Slot<bool>,
    pub open_world: Slot<bool>,
    pub scope: Slot<LitStr>,
    pub ability: Slot<LitStr>,
    pub caution: Slot<LitStr>,
}

impl ToolAttrs {
    /// Marks `key` as written: a misspelling of it was reported with it as the suggestion.
    fn meant(&mut self, key: &str) {
        match key {
            NAME => self.name.mark_written(),
            TITLE => self.title.mark_written(),
            DESCRIPTION => self.description.mark_written(),
            OUTPUT => self.output.mark_written(),
            READ_ONLY => self.read_only.mark_written(),
            DESTRUCTIVE => self.destructive.mark_written(),
            IDEMPOTENT => self.idempotent.mark_written(),
            OPEN_WORLD => self.open_world.mark_written(),
            SCOPE => self.scope.mark_written(),
            ABILITY => self.ability.mark_written(),
            CAUTION => self.caution.mark_written(),
            _ => {}
        }
    }
}

/// What `#[arg(...)]` said on one field.
#[derive(Default)]
pub struct ArgAttrs {
    /// The keys a rule reads (`min`, `max_chars`, and `each(...)`), each for its rule to check
    /// (see `rule`).
    pub rules: RuleSettings,
    pub default: Slot<Literal>,
    pub message: Slot<LitStr>,
    pub exists: Slot<syn::Path>,
    pub required_unless: Slot<Ident>,
    pub ignored_with: Slot<Ident>,
    pub rename: Slot<LitStr>,
}

pub fn parse_tool_attrs(cx: &mut Ctxt, attrs: &[Attribute]) -> ToolAttrs {
    let mut out = ToolAttrs::default();
    for misplaced in attrs.iter().filter(|attr| attr.path().is_ident(ARG)) {
        cx.error_spanned_by(
            misplaced.path(),
            "#[arg(...)] goes on the field of the argument it is about, not on the struct, where \
             it would mean nothing: move it above that field",
        );
    }
    for attribute in attrs.iter().filter(|attr| attr.path().is_ident(TOOL)) {
        out.attribute.get_or_insert_with(|| attribute.clone());
        let result = attribute.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().cloned() else {
                skip_unknown(cx, TOOL, TOOL_KEYS, TOOL_ALIASES, &meta)?;
                return Ok(());
            };
            match key.to_string().as_str() {
                // #[tool(name = "movies_search")]
                NAME => fill(
                    cx,
                    &meta,
                    key,
                    "name = \"movies_search\"",
                    TOOL,
                    &mut out.name,
                )?,
                // #[tool(title = "Search movies")]
                TITLE => fill(
                    cx,
                    &meta,
                    key,
                    "title = \"Search movies\"",
                    TOOL,
                    &mut out.title,
                )?,
                // #[tool(description = "Finds movies…")]
                DESCRIPTION => fill(
                    cx,
                    &meta,
                    key,
                    "description = \"…\"",
                    TOOL,
                    &mut out.description,
                )?,
                // #[tool(output = Page<Movie>)]
                OUTPUT => output(cx, &meta, key, &mut out.output)?,
                // #[tool(read_only)] or #[tool(read_only = false)], and the other three hints
                READ_ONLY => hint(cx, &meta, key, &mut out.read_only)?,
                DESTRUCTIVE => hint(cx, &meta, key, &mut out.destructive)?,
                IDEMPOTENT => hint(cx, &meta, key, &mut out.idempotent)?,
                OPEN_WORLD => hint(cx, &meta, key, &mut out.open_world)?,
                // #[tool(scope = "reviews.read")]
                SCOPE => fill(
                    cx,
                    &meta,
                    key,
                    "scope = \"reviews.read\"",
                    TOOL,
                    &mut out.scope,
                )?,
                // #[tool(ability = "search movies")]
                ABILITY => fill(
                    cx,
                    &meta,
                    key,
                    "ability = \"search movies\"",
                    TOOL,
                    &mut out.ability,
                )?,
                // #[tool(caution = "Deleting is permanent: confirm with the user first.")]
                CAUTION => fill(cx, &meta, key, "caution = \"…\"", TOOL, &mut out.caution)?,
                _ => {
                    let mut unknown = Ctxt::default();
                    let meant = skip_unknown(&mut unknown, TOOL, TOOL_KEYS, TOOL_ALIASES, &meta)?;
                    match (meant, unknown.check()) {
                        // `outptu = Found`: the error stands in for the output type, as in
                        // `output` below.
                        (Some(OUTPUT), Err(error)) => {
                            out.output.set(cx, TOOL, error_setting(key, error));
                        }
                        (meant, result) => {
                            if let Err(error) = result {
                                cx.syn_error(error);
                            }
                            if let Some(meant) = meant {
                                out.meant(meant);
                            }
                        }
                    }
                }
            }
            Ok(())
        });
        if let Err(error) = result {
            cx.syn_error(error);
        }
    }
    out
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

fn hint(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    slot: &mut Slot<bool>,
) -> syn::Result<()> {
    slot.mark_written();
    let setting = if meta.input.peek(Token![=]) {
        let example = format!("{key} = true` or `{key} = false");
        match value::<LitBool>(cx, meta, &key, &example)? {
            Some(setting) => Setting {
                key: setting.key,
                tokens: setting.tokens,
                value: setting.value.value,
            },
            None => return Ok(()),
        }
    } else {
        Setting {
            key,
            tokens: TokenStream::new(),
            value: true,
        }
    };
    slot.set(cx, TOOL, setting);
    Ok(())
}

/// Parses `output = Type`. A missing or malformed type is not reported on its own: the error
/// becomes the output type (see [`error_setting`]).
fn output(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    slot: &mut Slot<syn::Type>,
) -> syn::Result<()> {
    slot.mark_written();
    let mut malformed = Ctxt::default();
    let setting = value(&mut malformed, meta, &key, "output = MyOutputType")?;
    let setting = match (setting, malformed.check()) {
        (Some(setting), _) => setting,
        (None, Err(error)) => error_setting(key, error),
        (None, Ok(())) => return Ok(()),
    };
    slot.set(cx, TOOL, setting);
    Ok(())
}

/// An output type that is the compile error about it (see [`error_type`]).
fn error_setting(key: Ident, error: syn::Error) -> Setting<syn::Type> {
    Setting {
        key,
        tokens: TokenStream::new(),
        value: error_type(error),
    }
}

/// A type that is a compile error: rustc reports `error` once and treats the type as unknown,
/// which agrees with any other type. The user's `Run` impl names the output type they meant,
/// which no stand-in such as `()` would match, so a missing output type stays one error.
///
/// The error sits in an array's length because `compile_error!` in a type's place leaves `()`
/// behind, while in an expression's place it leaves an error that rustc does not report again.
pub fn error_type(error: syn::Error) -> syn::Type {
    let error = error.to_compile_error();
    syn::Type::Verbatim(quote::quote!([(); #error]))
}

/// Parses `= value` into `slot`; a malformed value is reported and leaves the key written.
fn fill<T: Parse>(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: Ident,
    example: &str,
    attr: &str,
    slot: &mut Slot<T>,
) -> syn::Result<()> {
    slot.mark_written();
    if let Some(setting) = value(cx, meta, &key, example)? {
        slot.set(cx, attr, setting);
    }
    Ok(())
}

/// Parses `= value` as a `T`. A missing or malformed value is reported (with `example` as the
/// fix) and skipped, so parsing goes on with the next key.
fn value<T: Parse>(
    cx: &mut Ctxt,
    meta: &ParseNestedMeta,
    key: &Ident,
    example: &str,
) -> syn::Result<Option<Setting<T>>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(key, format!("`{key}` needs a value: write `{example}`"));
        skip_group(meta)?;
        return Ok(None);
    }
    let tokens = value_tokens(meta)?;
    if tokens.is_empty() {
        cx.error_spanned_by(key, format!("`{key}` needs a value: write `{example}`"));
        return Ok(None);
    }
    match syn::parse2::<T>(tokens.clone()) {
        Ok(value) => Ok(Some(Setting {
            key: key.clone(),
            tokens,
            value,
        })),
        Err(_) => {
            cx.error_spanned_by(
                &tokens,
                format!("unexpected value for `{key}`: write `{example}`"),
            );
            Ok(None)
        }
    }
}

/// The tokens after `=` up to the next comma outside angle brackets (`Page<A, B>` is one value).
fn value_tokens(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    let input = meta.value()?;
    let mut tokens = TokenStream::new();
    let mut depth = 0usize;
    while !(input.is_empty() || depth == 0 && input.peek(Token![,])) {
        let token: TokenTree = input.parse()?;
        if let TokenTree::Punct(punct) = &token {
            match punct.as_char() {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        tokens.extend([token]);
    }
    Ok(tokens)
}

/// Consumes `(…)` after a key that takes none.
fn skip_group(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// Every `#[arg(...)]` key: the rules' keys, then the others.
fn arg_keys() -> Vec<&'static str> {
    rule::all_keys()
        .map(|key| key.name)
        .chain(ARG_KEYS.iter().copied())
        .collect()
}

/// The rules' keys under the names other libraries give them.
fn arg_aliases() -> Vec<(&'static str, &'static str)> {
    rule::all_keys()
        .flat_map(|key| key.aliases.iter().map(|alias| (*alias, key.name)))
        .collect()
}

/// Reports an unknown key, suggesting the known one it most resembles, and skips its value.
/// Returns the key suggested, if any.
fn skip_unknown(
    cx: &mut Ctxt,
    attr: &str,
    known: &[&'static str],
    aliases: &[(&str, &'static str)],
    meta: &ParseNestedMeta,
) -> syn::Result<Option<&'static str>> {
    let written = meta.path.to_token_stream().to_string().replace(' ', "");
    let suggested = suggest(&written, known, aliases);
    let message = match suggested {
        Some(key) => format!("unknown #[{attr}] key `{written}`; did you mean `{key}`?"),
        None => format!(
            "unknown #[{attr}] key `{written}`; the keys are {}",
            known.join(", ")
        ),
    };
    cx.error_spanned_by(&meta.path, message);
    if meta.input.peek(Token![=]) {
        value_tokens(meta)?;
    } else {
        skip_group(meta)?;
    }
    Ok(suggested)
}

/// The known key a misspelt one stands for: a name other libraries give it (`max_length`,
/// `read_only_hint`), in any case or spelling of separators, or the key `did_you_mean` finds
/// (`readOnly`, `titel`, `requird_unless`), by the rule the toolkit also uses for arguments.
fn suggest(
    written: &str,
    known: &[&'static str],
    aliases: &[(&str, &'static str)],
) -> Option<&'static str> {
    let alias = aliases
        .iter()
        .find(|(alias, _)| did_you_mean::same_name(alias, written))
        .map(|&(_, key)| key);
    alias
        .filter(|key| known.contains(key))
        .or_else(|| did_you_mean::closest(written, known.iter().copied()))
}
