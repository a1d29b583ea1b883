//! The checking stage: the raw [`Input`] becomes a [`Model`] only if the settings make sense
//! together. Each check reports its mistake on the offending token and carries on, so every
//! problem in a declaration is reported at once.

mod args;

use quote::ToTokens;

use crate::ast::{Input, has_unreadable_doc};
use crate::attr::error_type;
use crate::ctxt::Ctxt;
use crate::model::{Hints, Model};
use crate::setting::Setting;
use args::check_args;

/// MCP tool names: 1 to 128 of `A-Z a-z 0-9 _ - .`.
pub(crate) const MAX_NAME_CHARS: usize = 128;

pub fn check<'a>(cx: &mut Ctxt, input: &Input<'a>) -> Model<'a> {
    let original = input.original;
    if !original.generics.params.is_empty() {
        cx.error_spanned_by(
            &original.generics,
            "a tool struct cannot be generic: declare one concrete struct per tool",
        );
    }
    let blame = match &input.attrs.attribute {
        Some(attribute) => attribute.to_token_stream(),
        None => original.ident.to_token_stream(),
    };
    let report_missing = input.attrs.attribute.is_some();
    let missing = |cx: &mut Ctxt, written: bool, what: &str| {
        if report_missing && !written {
            cx.error_spanned_by(&blame, what);
        }
    };

    let attrs = &input.attrs;
    let name = match attrs.name.get() {
        Some(setting) => check_tool_name(cx, setting),
        None => {
            missing(
                cx,
                !attrs.name.missing(),
                "missing `name = \"…\"` in #[tool(...)]: the tool's MCP name, like `name = \"movies_search\"`",
            );
            String::new()
        }
    };
    let title = match attrs.title.get() {
        Some(setting) => non_empty(
            cx,
            setting,
            "a title cannot be empty: write what a person sees, like `title = \"Search movies\"`",
        ),
        None => {
            missing(
                cx,
                !attrs.title.missing(),
                "missing `title = \"…\"` in #[tool(...)]: the name a person sees, like `title = \"Search movies\"`",
            );
            String::new()
        }
    };
    let description = match (attrs.description.get(), &input.doc) {
        (Some(setting), _) => non_empty(
            cx,
            setting,
            "a description cannot be empty: say what the tool does and how to use it",
        ),
        (None, Some(doc)) => doc.clone(),
        (None, None) if attrs.description.missing() && has_unreadable_doc(&original.attrs) => {
            cx.error_spanned_by(
                &original.ident,
                "the macro cannot read a doc comment that another macro writes (`#[doc = concat!(…)]`, \
                 `#[doc = include_str!(…)]`): write the description as `///` lines, or as \
                 `description = \"…\"` in #[tool(...)]",
            );
            String::new()
        }
        (None, None) if attrs.description.missing() => {
            cx.error_spanned_by(
                &original.ident,
                "a tool needs a description: add a `///` doc comment to the struct, or write `description = \"…\"` in #[tool(...)]",
            );
            String::new()
        }
        (None, None) => String::new(),
    };
    // Without an output type, the error is the type (as for a malformed one: see
    // `attr::error_setting`), so that the user's `Run` impl adds no error of its own.
    let output = match attrs.output.value() {
        Some(output) => output.clone(),
        None if input.attrs.attribute.is_none() => error_type(syn::Error::new_spanned(
            &blame,
            "a tool needs #[tool(name = \"…\", title = \"…\", output = Type, read_only = …, \
             destructive = …, idempotent = …, open_world = …)]",
        )),
        None => error_type(syn::Error::new_spanned(
            &blame,
            "missing `output = Type` in #[tool(...)]: the type a successful call returns",
        )),
    };

    let hint = |cx: &mut Ctxt, slot: &crate::setting::Slot<bool>, key: &str| match slot.value() {
        Some(value) => *value,
        None => {
            missing(
                cx,
                !slot.missing(),
                &format!(
                    "missing hint `{key}` in #[tool(...)]: every tool states it; write `{key} = true` or `{key} = false`"
                ),
            );
            false
        }
    };
    let hints = Hints {
        read_only: hint(cx, &attrs.read_only, "read_only"),
        destructive: hint(cx, &attrs.destructive, "destructive"),
        idempotent: hint(cx, &attrs.idempotent, "idempotent"),
        open_world: hint(cx, &attrs.open_world, "open_world"),
    };
    if hints.read_only
        && hints.destructive
        && let Some(destructive) = attrs.destructive.get()
    {
        cx.error_spanned_by(
            &destructive.key,
            "a read-only tool cannot be destructive: write `destructive = false`, or drop `read_only`",
        );
    }

    let scope = attrs.scope.get().map(|setting| check_scope(cx, setting));
    let ability = attrs
        .ability
        .get()
        .map(|setting| check_ability(cx, setting));
    let caution = attrs
        .caution
        .get()
        .map(|setting| check_caution(cx, setting));
    let args = check_args(cx, &input.fields);
    Model {
        ident: &original.ident,
        name,
        title,
        description,
        hints,
        scope,
        ability,
        caution,
        output,
        args,
    }
}

fn check_tool_name(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
    let name = setting.value.value();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    let length = name.chars().count();
    if length == 0 || length > MAX_NAME_CHARS || !name.chars().all(allowed) {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "invalid tool name {:?}: MCP allows 1 to {MAX_NAME_CHARS} of A-Z a-z 0-9 _ - . \
                 (like \"movies_search\")",
                name
            ),
        );
    }
    name
}

/// What the tool lets a model do, as a phrase a server's instructions list among others:
/// a few words without a full stop, like `search movies`.
fn check_ability(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
    let ability = setting.value.value();
    let trimmed = ability.trim().trim_end_matches('.').trim_end();
    if trimmed.is_empty() {
        cx.error_spanned_by(
            &setting.value,
            "an ability is what the tool lets a model do, in a few words, like \
             `ability = \"search movies\"`; leave the key out if there is nothing to say",
        );
    } else if trimmed != ability {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "an ability is a phrase that a server's instructions list among others: write \
                 `ability = \"{trimmed}\"` (not {ability:?}), without spaces around it or a \
                 full stop"
            ),
        );
    }
    ability
}

/// A warning for the model, as one or more full sentences: `Deleting is permanent.`
fn check_caution(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
    let caution = setting.value.value();
    let trimmed = caution.trim();
    if trimmed.is_empty() {
        cx.error_spanned_by(
            &setting.value,
            "a caution is a sentence a server's instructions add while the tool is served, like \
             `caution = \"Deleting is permanent: confirm with the user first.\"`; leave the \
             key out if there is nothing to say",
        );
    } else if trimmed != caution || !trimmed.ends_with(['.', '!', '?']) {
        let sentence = if trimmed.ends_with(['.', '!', '?']) {
            trimmed.to_owned()
        } else {
            format!("{trimmed}.")
        };
        cx.error_spanned_by(
            &setting.value,
            format!(
                "a caution is written as full sentences, which a server's instructions add to \
                 their own: write `caution = {sentence:?}` (not {caution:?})"
            ),
        );
    }
    caution
}

/// An OAuth scope token (RFC 6749 §3.3): one or more printable ASCII characters other than the
/// space, `"` and `\`. A tool needs one scope, so a list is refused too.
fn check_scope(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
    let scope = setting.value.value();
    let allowed = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\';
    let trimmed = scope.trim();
    if trimmed != scope && !trimmed.is_empty() && !trimmed.contains(' ') {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "a scope has no spaces around it: write `scope = \"{trimmed}\"` (not {scope:?})"
            ),
        );
    } else if scope.contains(' ') {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "a tool needs one scope, not a list: write the single scope a caller's token \
                 must carry, like `scope = \"reviews.read\"` (not {scope:?})"
            ),
        );
    } else if scope.is_empty() || !scope.chars().all(allowed) {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "invalid scope {scope:?}: an OAuth scope is one or more printable ASCII \
                 characters other than space, `\"` and `\\`, like `scope = \"reviews.read\"`"
            ),
        );
    }
    scope
}

fn non_empty(cx: &mut Ctxt, setting: &Setting<syn::LitStr>, message: &str) -> String {
    let text = setting.value.value();
    if text.trim().is_empty() {
        cx.error_spanned_by(&setting.value, message);
    }
    text
}
