//! The checking stage: the raw [`Input`] becomes a [`Model`] only if the settings make sense
//! together. Each check reports its mistake on the offending token and carries on, so every
//! problem in a declaration is reported at once.

pub mod args;
pub mod groups;

use quote::ToTokens;

use crate::ast::{Input, has_unreadable_doc};
use crate::attr::error_type;
use crate::case::Case;
use crate::ctxt::Ctxt;
use crate::model::{Arg, Hints, Model};
use crate::setting::{Setting, Slot};
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
    let missing = Missing::new(input);
    let attrs = &input.attrs;
    let case = rename_all(cx, attrs.rename_all.get());
    let mut model = Model {
        ident: &original.ident,
        name: name(cx, input, &missing),
        title: title(cx, input, &missing),
        description: description(cx, input),
        hints: hints(cx, input, &missing),
        scope: attrs.scope.get().map(|setting| check_scope(cx, setting)),
        ability: attrs
            .ability
            .get()
            .map(|setting| check_ability(cx, setting)),
        caution: attrs
            .caution
            .get()
            .map(|setting| check_caution(cx, setting)),
        confirm: confirm(cx, input),
        timeout: (attrs.timeout.get())
            .and_then(|setting| policy(cx, setting, policy_syntax::duration)),
        rate_limit: (attrs.rate_limit.get())
            .and_then(|setting| policy(cx, setting, policy_syntax::rate)),
        idempotency_key: false,
        output: output(input, &missing),
        args: check_args(cx, &input.fields, case),
        groups: groups::check_groups(cx, &input.fields, &attrs.groups),
    };
    model.idempotency_key = idempotency_key(cx, input, &model.args);
    model
}

/// `idempotency_key`: a retry of a tool that changes nothing is safe already, and the argument
/// it adds must not be one the tool declares.
fn idempotency_key(cx: &mut Ctxt, input: &Input, args: &[Arg]) -> bool {
    let attrs = &input.attrs;
    let Some(setting) = attrs.idempotency_key.get().filter(|setting| setting.value) else {
        return false;
    };
    if attrs.read_only.value() == Some(&true) {
        cx.error_spanned_by(
            &setting.key,
            "a read-only tool changes nothing, so calling it again is safe without a key: drop \
             `idempotency_key`, or `read_only` if the tool does change something",
        );
    }
    if let Some(arg) = args.iter().find(|arg| arg.wire_name == "idempotencyKey") {
        cx.error_spanned_by(
            arg.ident,
            "`idempotency_key` gives the tool an argument named `idempotencyKey`, and this field \
             has that name already: rename the field, or drop `idempotency_key` and read the \
             key yourself",
        );
    }
    true
}

/// Where a missing `#[tool(...)]` key is reported: on the attribute, or, without one, on the
/// struct's name, where the missing output type says what the whole attribute needs (and the
/// other keys are not reported one by one).
struct Missing {
    blame: proc_macro2::TokenStream,
    report: bool,
}

impl Missing {
    fn new(input: &Input) -> Missing {
        match &input.attrs.attribute {
            Some(attribute) => Missing {
                blame: attribute.to_token_stream(),
                report: true,
            },
            None => Missing {
                blame: input.original.ident.to_token_stream(),
                report: false,
            },
        }
    }

    /// Reports `what` unless the key of `slot` was written (perhaps malformed, and reported).
    fn report<T>(&self, cx: &mut Ctxt, slot: &Slot<T>, what: &str) {
        if self.report && slot.missing() {
            cx.error_spanned_by(&self.blame, what);
        }
    }
}

fn name(cx: &mut Ctxt, input: &Input, missing: &Missing) -> String {
    let slot = &input.attrs.name;
    match slot.get() {
        Some(setting) => check_tool_name(cx, setting),
        None => {
            missing.report(
                cx,
                slot,
                "missing `name = \"…\"` in #[tool(...)]: the tool's MCP name, like `name = \"movies_search\"`",
            );
            String::new()
        }
    }
}

fn title(cx: &mut Ctxt, input: &Input, missing: &Missing) -> String {
    let slot = &input.attrs.title;
    match slot.get() {
        Some(setting) => non_empty(
            cx,
            setting,
            "a title cannot be empty: write what a person sees, like `title = \"Search movies\"`",
        ),
        None => {
            missing.report(
                cx,
                slot,
                "missing `title = \"…\"` in #[tool(...)]: the name a person sees, like `title = \"Search movies\"`",
            );
            String::new()
        }
    }
}

/// `description = "…"`, else the doc comment; one of them is required.
fn description(cx: &mut Ctxt, input: &Input) -> String {
    let original = input.original;
    let slot = &input.attrs.description;
    match (slot.get(), &input.doc) {
        (Some(setting), _) => non_empty(
            cx,
            setting,
            "a description cannot be empty: say what the tool does and how to use it",
        ),
        (None, Some(doc)) => doc.clone(),
        (None, None) if slot.missing() && has_unreadable_doc(&original.attrs) => {
            cx.error_spanned_by(
                &original.ident,
                "the macro cannot read a doc comment that another macro writes (`#[doc = concat!(…)]`, \
                 `#[doc = include_str!(…)]`): write the description as `///` lines, or as \
                 `description = \"…\"` in #[tool(...)]",
            );
            String::new()
        }
        (None, None) if slot.missing() => {
            cx.error_spanned_by(
                &original.ident,
                "a tool needs a description: add a `///` doc comment to the struct, or write `description = \"…\"` in #[tool(...)]",
            );
            String::new()
        }
        (None, None) => String::new(),
    }
}

/// The output type. Without one, the error is the type (as for a malformed one: see
/// `attr::error_setting`), so that the user's `Run` impl adds no error of its own.
fn output(input: &Input, missing: &Missing) -> syn::Type {
    match input.attrs.output.value() {
        Some(output) => output.clone(),
        None if !missing.report => error_type(syn::Error::new_spanned(
            &missing.blame,
            "a tool needs #[tool(name = \"…\", title = \"…\", output = Type, read_only = …, \
             destructive = …, idempotent = …, open_world = …)]",
        )),
        None => error_type(syn::Error::new_spanned(
            &missing.blame,
            "missing `output = Type` in #[tool(...)]: the type a successful call returns",
        )),
    }
}

/// The four hints, each stated, and a read-only tool not destructive.
fn hints(cx: &mut Ctxt, input: &Input, missing: &Missing) -> Hints {
    let attrs = &input.attrs;
    let hint = |cx: &mut Ctxt, slot: &Slot<bool>, key: &str| match slot.value() {
        Some(value) => *value,
        None => {
            missing.report(
                cx,
                slot,
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
    hints
}

/// A call policy's value (`timeout = "30s"`, `rate_limit = "60/min"`), read as a server reads
/// it from an operator, or the mistake in it reported on the string.
fn policy<T>(
    cx: &mut Ctxt,
    setting: &Setting<syn::LitStr>,
    read: fn(&str) -> Result<T, String>,
) -> Option<T> {
    let key = &setting.key;
    read(&setting.value.value())
        .map_err(|problem| cx.error_spanned_by(&setting.value, format!("{key}: {problem}")))
        .ok()
}

/// `confirm`: only a tool that changes something has anything for the user to confirm.
fn confirm(cx: &mut Ctxt, input: &Input) -> bool {
    let attrs = &input.attrs;
    let Some(confirm) = attrs.confirm.get().filter(|setting| setting.value) else {
        return false;
    };
    if attrs.read_only.value() == Some(&true) {
        cx.error_spanned_by(
            &confirm.key,
            "a read-only tool changes nothing, so there is nothing for the user to confirm: \
             drop `confirm`, or `read_only` if the tool does change something",
        );
    }
    true
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

/// The case convention `rename_all = "…"` names, if written and known (else reported).
pub fn rename_all(cx: &mut Ctxt, setting: Option<&Setting<syn::LitStr>>) -> Option<Case> {
    Case::named(cx, &setting?.value)
}

fn non_empty(cx: &mut Ctxt, setting: &Setting<syn::LitStr>, message: &str) -> String {
    let text = setting.value.value();
    if text.trim().is_empty() {
        cx.error_spanned_by(&setting.value, message);
    }
    text
}
