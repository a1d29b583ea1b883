//! `#[tool(...)]`: the keys of a tool's own attribute, parsed into [`ToolAttrs`].

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitBool, LitStr, Token};

use super::{GroupSetting, fill, group, skip_unknown, value};
use crate::ctxt::Ctxt;
use crate::setting::{Setting, Slot};
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
    pub confirm: Slot<bool>,
    pub timeout: Slot<LitStr>,
    pub rate_limit: Slot<LitStr>,
    pub idempotency_key: Slot<bool>,
    pub rename_all: Slot<LitStr>,
    /// `one_of(...)` and `any_of(...)`, in the order written.
    pub groups: Vec<GroupSetting>,
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
            CONFIRM => self.confirm.mark_written(),
            TIMEOUT => self.timeout.mark_written(),
            RATE_LIMIT => self.rate_limit.mark_written(),
            IDEMPOTENCY_KEY => self.idempotency_key.mark_written(),
            RENAME_ALL => self.rename_all.mark_written(),
            _ => {}
        }
    }
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
                // #[tool(confirm)]: the user confirms each call
                CONFIRM => hint(cx, &meta, key, &mut out.confirm)?,
                // #[tool(timeout = "30s")]
                TIMEOUT => fill(cx, &meta, key, "timeout = \"30s\"", TOOL, &mut out.timeout)?,
                // #[tool(rate_limit = "60/min")]
                RATE_LIMIT => fill(
                    cx,
                    &meta,
                    key,
                    "rate_limit = \"60/min\"",
                    TOOL,
                    &mut out.rate_limit,
                )?,
                // #[tool(idempotency_key)]: the tool takes an `idempotencyKey`
                IDEMPOTENCY_KEY => hint(cx, &meta, key, &mut out.idempotency_key)?,
                // #[tool(one_of(dashboard, uid))], #[tool(any_of(names, ids))]
                ONE_OF | ANY_OF => group(cx, &meta, key, TOOL, &mut out.groups)?,
                // #[tool(rename_all = "snake_case")]
                RENAME_ALL => fill(
                    cx,
                    &meta,
                    key,
                    "rename_all = \"snake_case\"",
                    TOOL,
                    &mut out.rename_all,
                )?,
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
