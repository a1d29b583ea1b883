//! The checks of each argument: its JSON type and rules, its presence and default, what it
//! refers to, its wire name and its message. Part of the checking stage ([`super`]).

use quote::ToTokens;

use super::MAX_NAME_CHARS;
use crate::ast::{ArgType, Base, Field};
use crate::attr::{DefaultLit, Setting};
use crate::case;
use crate::ctxt::Ctxt;
use crate::model::{Arg, DefaultValue, Kind, Presence};

/// A name a client sends an argument under: a letter, then letters, digits, `_` or `-`, so that it
/// reads the same in every client's code, in the schema and in a message that names it.
fn check_wire_name(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
    let name = setting.value.value();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-');
    let well_formed = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(allowed)
        && name.chars().count() <= MAX_NAME_CHARS;
    if !well_formed {
        cx.error_spanned_by(
            &setting.value,
            format!(
                "invalid wire name {name:?}: write a letter, then up to {} letters, digits, `_` \
                 or `-`, like `rename = \"movieId\"`",
                MAX_NAME_CHARS - 1
            ),
        );
    }
    name
}

pub(super) fn check_args<'a>(cx: &mut Ctxt, fields: &[Field<'a>]) -> Vec<Arg<'a>> {
    let args: Vec<Arg<'a>> = fields
        .iter()
        .filter_map(|field| check_arg(cx, fields, field))
        .collect();
    for (index, arg) in args.iter().enumerate() {
        if args[..index]
            .iter()
            .any(|earlier| earlier.wire_name == arg.wire_name)
        {
            cx.error_spanned_by(
                arg.ident,
                format!(
                    "two arguments are named `{}` on the wire: give one another name with `#[arg(rename = \"…\")]`",
                    arg.wire_name
                ),
            );
        }
    }
    args
}

fn check_arg<'a>(cx: &mut Ctxt, fields: &[Field<'a>], field: &Field<'a>) -> Option<Arg<'a>> {
    let arg_type = field.arg_type?;
    let attrs = &field.attrs;
    let wire_name = match attrs.rename.get() {
        Some(setting) => check_wire_name(cx, setting),
        None => case::wire_name(&field.ident.to_string()),
    };
    let kind = check_kind(cx, field, arg_type);
    let required_unless = other_field(cx, fields, field, attrs.required_unless.get());
    let ignored_with = other_field(cx, fields, field, attrs.ignored_with.get());
    for (setting, purpose) in [
        (attrs.required_unless.get(), "the argument may be left out"),
        (attrs.ignored_with.get(), "the tool sees `None`"),
    ] {
        if let Some(setting) = setting.filter(|_| !arg_type.optional) {
            cx.error_spanned_by(
                &setting.key,
                format!(
                    "`{}` needs an `Option<{}>` field: {purpose} when `{}` is given",
                    setting.key,
                    arg_type.base.name(),
                    setting.value
                ),
            );
        }
    }
    for (setting, other, consequence) in [
        (
            attrs.required_unless.get(),
            required_unless,
            "would never require this argument",
        ),
        (
            attrs.ignored_with.get(),
            ignored_with,
            "would drop this argument from every call",
        ),
    ] {
        let (Some(setting), Some(other)) = (setting, other) else {
            continue;
        };
        let other = &fields[other];
        let (why, then) = if other.attrs.default.get().is_some() {
            (
                "has a default, so the tool sees a value for it whether a client sends one or not",
                "would turn on what the client sent, not on what the tool sees",
            )
        } else if other.arg_type.is_some_and(|other| !other.optional) {
            ("is required, so every call that runs gives it", consequence)
        } else {
            continue;
        };
        let (key, target) = (&setting.key, &setting.value);
        cx.error_spanned_by(
            target,
            format!(
                "`{target}` {why}: `{key} = {target}` {then}; name an `Option` field without a \
                 default"
            ),
        );
    }
    let presence = check_presence(cx, field, arg_type, &kind, required_unless);
    check_exists(cx, field, arg_type);
    let message = check_message(cx, field);
    Some(Arg {
        ident: field.ident,
        ty: field.ty,
        label: case::label(&wire_name),
        wire_name,
        description: field.doc.clone(),
        kind,
        presence,
        message,
        ignored_with,
        exists: attrs.exists.value().cloned(),
    })
}

/// The JSON type and its rules; bounds on the wrong type are reported with what to write.
fn check_kind(cx: &mut Ctxt, field: &Field, arg_type: ArgType) -> Kind {
    let attrs = &field.attrs;
    let base = arg_type.base;
    if let Some((type_min, type_max)) = base.integer_range() {
        for setting in [attrs.min_chars.get(), attrs.max_chars.get()]
            .into_iter()
            .flatten()
        {
            let integer_key = if setting.key == "min_chars" {
                "min"
            } else {
                "max"
            };
            cx.error_spanned_by(
                &setting.key,
                format!(
                    "`{}` limits the length of a String; to bound a {} write `{integer_key}`",
                    setting.key,
                    base.name()
                ),
            );
        }
        let min = bound(cx, attrs.min.get(), base, type_min, type_max).unwrap_or(type_min);
        let max = bound(cx, attrs.max.get(), base, type_min, type_max).unwrap_or(type_max);
        if min > max
            && let Some(setting) = attrs.max.get()
        {
            cx.error_spanned_by(
                setting.value_span(),
                format!("`max = {max}` is below `min = {min}`: make `min` no larger than `max`"),
            );
        }
        return Kind::Integer { min, max };
    }

    for setting in [attrs.min.get(), attrs.max.get()].into_iter().flatten() {
        let message = if base == Base::String {
            let length_key = if setting.key == "min" {
                "min_chars"
            } else {
                "max_chars"
            };
            format!(
                "`{}` bounds an integer; to limit the length of a String write `{length_key}`",
                setting.key
            )
        } else {
            format!(
                "`{}` bounds an integer, and this argument is a {}",
                setting.key,
                base.name()
            )
        };
        cx.error_spanned_by(&setting.key, message);
    }
    if base != Base::String {
        for setting in [attrs.min_chars.get(), attrs.max_chars.get()]
            .into_iter()
            .flatten()
        {
            cx.error_spanned_by(
                &setting.key,
                format!(
                    "`{}` limits the length of a String, and this argument is a {}",
                    setting.key,
                    base.name()
                ),
            );
        }
    }
    match base {
        Base::String => {
            let min_chars = length(cx, attrs.min_chars.get());
            let max_chars = length(cx, attrs.max_chars.get());
            if let (Some(min), Some(max), Some(setting)) =
                (min_chars, max_chars, attrs.max_chars.get())
                && min > max
            {
                cx.error_spanned_by(
                    setting.value_span(),
                    format!(
                        "`max_chars = {max}` is below `min_chars = {min}`: \
                         make `min_chars` no larger than `max_chars`"
                    ),
                );
            }
            Kind::String {
                min_chars,
                max_chars,
            }
        }
        Base::Bool => Kind::Boolean,
        _ => Kind::Uuid,
    }
}

/// A declared integer bound, if it lies within the field type's own range.
fn bound(
    cx: &mut Ctxt,
    setting: Option<&Setting<i128>>,
    base: Base,
    type_min: i128,
    type_max: i128,
) -> Option<i128> {
    let setting = setting?;
    let value = setting.value;
    let problem = if value < type_min {
        Some(format!(
            "is below the smallest {} ({type_min})",
            base.name()
        ))
    } else if value > type_max {
        Some(format!("is above the largest {} ({type_max})", base.name()))
    } else {
        None
    };
    match problem {
        Some(problem) => {
            cx.error_spanned_by(
                setting.value_span(),
                format!("`{} = {value}` {problem}: choose a bound the field's type can hold, or a wider type", setting.key),
            );
            None
        }
        None => Some(value),
    }
}

/// An argument's length rules as prose: `at most 100 characters`, `1 to 100 characters`.
fn length_bounds(min: Option<u64>, max: Option<u64>) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("{min} to {max} characters"),
        (Some(min), None) => format!("at least {min} characters"),
        (None, Some(max)) => format!("at most {max} characters"),
        (None, None) => "any length".to_owned(),
    }
}

fn length(cx: &mut Ctxt, setting: Option<&Setting<i128>>) -> Option<u64> {
    let setting = setting?;
    match u64::try_from(setting.value) {
        Ok(chars) => Some(chars),
        Err(_) => {
            let key = &setting.key;
            let message = if setting.value < 0 {
                format!("`{key}` is a number of characters, so it cannot be negative")
            } else {
                format!(
                    "`{key}` is a number of characters, at most {}: no string is longer",
                    u64::MAX
                )
            };
            cx.error_spanned_by(setting.value_span(), message);
            None
        }
    }
}

/// The index of the field another setting names (`required_unless = review_id`).
fn other_field(
    cx: &mut Ctxt,
    fields: &[Field],
    field: &Field,
    setting: Option<&Setting<syn::Ident>>,
) -> Option<usize> {
    let setting = setting?;
    let target = &setting.value;
    if target == field.ident {
        cx.error_spanned_by(
            target,
            format!("`{}` must name another field, not this one", setting.key),
        );
        return None;
    }
    let index = fields.iter().position(|other| other.ident == target);
    if index.is_none() {
        cx.error_spanned_by(
            target,
            format!(
                "no field named `{target}`: `{}` names another field of this struct",
                setting.key
            ),
        );
    }
    index
}

fn check_presence(
    cx: &mut Ctxt,
    field: &Field,
    arg_type: ArgType,
    kind: &Kind,
    required_unless: Option<usize>,
) -> Presence {
    let Some(setting) = field.attrs.default.get() else {
        return match (required_unless, arg_type.optional) {
            (Some(other), _) => Presence::RequiredUnless(other),
            (None, true) => Presence::Optional,
            (None, false) => Presence::Required,
        };
    };
    if arg_type.optional {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "an `Option` argument has no default: make the field `{}` to use `default`, or drop the default",
                arg_type.base.name()
            ),
        );
    }
    if let Some(required_unless) = field.attrs.required_unless.get() {
        cx.error_spanned_by(
            &required_unless.key,
            "an argument with a default is never missing: drop `required_unless` or the default",
        );
    }
    match check_default(cx, setting, arg_type.base, kind) {
        Some(default) => Presence::Default(default),
        None => Presence::Required,
    }
}

/// The default, if it has the field's type and keeps the field's own rules.
fn check_default(
    cx: &mut Ctxt,
    setting: &Setting<DefaultLit>,
    base: Base,
    kind: &Kind,
) -> Option<DefaultValue> {
    let span = setting.value_span();
    let example = match base {
        Base::String => "a string literal, like `default = \"text\"`",
        Base::Bool => "`default = true` or `default = false`",
        Base::Uuid => {
            cx.error_spanned_by(
                &setting.key,
                "a Uuid argument cannot have a default: make the field `Option<Uuid>` instead",
            );
            return None;
        }
        _ => "an integer literal, like `default = 10`",
    };
    let default = match (&setting.value, kind) {
        (DefaultLit::Suffixed(int), _) => {
            crate::attr::report_suffix(cx, int);
            return None;
        }
        (DefaultLit::Integer(value), Kind::Integer { min, max }) => {
            if value < min || value > max {
                cx.error_spanned_by(
                    &span,
                    format!("the default {value} breaks this argument's own bounds ({min} to {max}): choose a default between them"),
                );
                return None;
            }
            DefaultValue::Integer(*value)
        }
        (DefaultLit::Boolean(value), Kind::Boolean) => DefaultValue::Boolean(*value),
        (
            DefaultLit::String(value),
            Kind::String {
                min_chars,
                max_chars,
            },
        ) => {
            let chars = value.chars().count() as u64;
            if min_chars.is_some_and(|min| chars < min) || max_chars.is_some_and(|max| chars > max)
            {
                cx.error_spanned_by(
                    &span,
                    format!(
                        "the default is {chars} characters long, but this argument takes {}: \
                         choose a default that fits",
                        length_bounds(*min_chars, *max_chars)
                    ),
                );
                return None;
            }
            DefaultValue::String(value.clone())
        }
        _ => {
            cx.error_spanned_by(
                &span,
                format!("the default of a {} argument is {example}", base.name()),
            );
            return None;
        }
    };
    Some(default)
}

fn check_exists(cx: &mut Ctxt, field: &Field, arg_type: ArgType) {
    if let Some(setting) = field.attrs.exists.get()
        && arg_type.base != Base::Uuid
    {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "`exists` checks an id, so the field must be a `Uuid` or `Option<Uuid>`, not `{}`",
                field.ty.to_token_stream().to_string().replace(' ', "")
            ),
        );
    }
}

/// A custom message must replace a declared rule and read as a sentence.
fn check_message(cx: &mut Ctxt, field: &Field) -> Option<String> {
    let attrs = &field.attrs;
    let setting = attrs.message.get()?;
    let text = setting.value.value();
    let has_rule = attrs.min.get().is_some()
        || attrs.max.get().is_some()
        || attrs.min_chars.get().is_some()
        || attrs.max_chars.get().is_some()
        || attrs.required_unless.get().is_some();
    if !has_rule {
        cx.error_spanned_by(
            &setting.key,
            "`message` replaces the sentence of a broken rule, and this argument declares none: \
             add `min`, `max`, `min_chars`, `max_chars` or `required_unless`, or drop the message",
        );
    }
    if !text.trim_end().ends_with(['.', '!', '?']) {
        cx.error_spanned_by(
            &setting.value,
            "a message is a sentence the model reads after the argument's name: end it with a full stop",
        );
    }
    Some(text)
}
