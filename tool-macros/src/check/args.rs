//! The checks of each argument: its presence and default, its conditions on other arguments,
//! its wire name and its message; its rules are each checked by their own module
//! ([`crate::rule`]). What needs the field's type the generated code checks. Part of the
//! checking stage ([`super`]).

use super::MAX_NAME_CHARS;
use crate::ast::{ArgType, Field};
use crate::case::{self, Case};
use crate::ctxt::Ctxt;
use proc_macro2::{Span, TokenStream};

use crate::model::{Arg, Presence, Rules, Value};
use crate::rule::{self, RULES, Subject, Written, type_name};
use crate::setting::{Literal, RuleSettings, Setting, report_infinite, report_suffix};

/// A name a client sends an argument under: a letter, then letters, digits, `_` or `-`, so that it
/// reads the same in every client's code, in the schema and in a message that names it.
pub(crate) fn check_wire_name(cx: &mut Ctxt, setting: &Setting<syn::LitStr>) -> String {
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

/// Each field's argument, checked; `case` names them on the wire where no `rename` does
/// (camelCase when `None`).
pub fn check_args<'a>(cx: &mut Ctxt, fields: &[Field<'a>], case: Option<Case>) -> Vec<Arg<'a>> {
    let args: Vec<Arg<'a>> = fields
        .iter()
        .filter_map(|field| check_arg(cx, fields, field, case))
        .collect();
    check_flattened(cx, fields);
    for (index, arg) in args.iter().enumerate() {
        if !arg.flatten
            && args[..index]
                .iter()
                .any(|earlier| !earlier.flatten && earlier.wire_name == arg.wire_name)
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

fn check_arg<'a>(
    cx: &mut Ctxt,
    fields: &[Field<'a>],
    field: &Field<'a>,
    case: Option<Case>,
) -> Option<Arg<'a>> {
    let arg_type = field.arg_type?;
    let attrs = &field.attrs;
    let wire_name = match attrs.rename.get() {
        Some(setting) => check_wire_name(cx, setting),
        None => match case {
            Some(case) => case.field(&field.ident.to_string()),
            None => case::wire_name(&field.ident.to_string()),
        },
    };
    let rules = check_rules(cx, &attrs.rules);
    let required_unless = other_field(cx, fields, field, attrs.required_unless.get());
    let ignored_with = other_field(cx, fields, field, attrs.ignored_with.get());
    check_conditions(cx, fields, field, arg_type, required_unless, ignored_with);
    let flatten = attrs.flatten.get().is_some();
    let presence = if flatten {
        Presence::Optional
    } else {
        check_presence(cx, field, arg_type, &rules, required_unless)
    };
    let examples = if flatten {
        Vec::new()
    } else {
        check_examples(cx, field, &rules)
    };
    let message = check_message(cx, field);
    Some(Arg {
        ident: field.ident,
        ty: arg_type.ty,
        optional: arg_type.optional,
        nullable: arg_type.nullable,
        wire_name,
        description: field.doc.clone(),
        rules,
        presence,
        message,
        ignored_with,
        flatten,
        exists: attrs
            .exists
            .get()
            .map(|setting| (setting.value.clone(), setting.key.span())),
        examples,
    })
}

/// `#[arg(flatten)]` on one field at most, a map that is never left out, with no setting but
/// the rules of `each(...)`: the map has no name, no presence and no value of its own.
fn check_flattened(cx: &mut Ctxt, fields: &[Field]) {
    let mut flattened = fields
        .iter()
        .filter_map(|field| Some((field, field.attrs.flatten.get()?)));
    let Some((first, _)) = flattened.next() else {
        return;
    };
    for (_, setting) in flattened {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "`{}` already takes the names the object does not declare: one field at most is \
                 `flatten`",
                first.ident
            ),
        );
    }
    for field in fields
        .iter()
        .filter(|field| field.attrs.flatten.get().is_some())
    {
        let attrs = &field.attrs;
        if let Some(arg_type) = field.arg_type.filter(|arg_type| arg_type.optional) {
            cx.error_spanned_by(
                arg_type.ty,
                "a flattened map is empty when no other name is sent, never left out: declare \
                 it as the map itself, not an `Option`",
            );
        }
        for key in attrs.presence_keys() {
            cx.error_spanned_by(
                key,
                format!(
                    "a flattened map has no name or presence of its own, so `{key}` means \
                     nothing on it: its entries are the names the object does not declare"
                ),
            );
        }
        for setting in &attrs.rules.written {
            cx.error_spanned_by(
                &setting.key,
                format!(
                    "`{}` on a flattened map would count or bound the whole object, declared \
                     names too, which no schema keyword states: rules for each value go in \
                     `each(...)`",
                    setting.key
                ),
            );
        }
    }
}

/// Each rule's check of what it reads, for the value and, in `each(...)`, for its elements.
fn check_rules(cx: &mut Ctxt, settings: &RuleSettings) -> Rules {
    let written = Written::new(&settings.written);
    Rules {
        own: RULES
            .iter()
            .filter_map(|rule| rule.check(cx, &written))
            .collect(),
        each: settings
            .each
            .as_ref()
            .map(|(key, inner)| (key.span(), Box::new(check_rules(cx, inner)))),
    }
}

/// `required_unless` and `ignored_with` make sense: on an `Option` field, naming a field that a
/// call may leave out (an `Option` without a default), found at the indexes given.
fn check_conditions(
    cx: &mut Ctxt,
    fields: &[Field],
    field: &Field,
    arg_type: ArgType,
    required_unless: Option<usize>,
    ignored_with: Option<usize>,
) {
    let attrs = &field.attrs;
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
                    type_name(arg_type.ty),
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
    rules: &Rules,
    required_unless: Option<usize>,
) -> Presence {
    let Some(setting) = field.attrs.default.get() else {
        return match (required_unless, arg_type.optional) {
            (Some(other), _) => Presence::RequiredUnless(other),
            (None, true) => Presence::Optional,
            (None, false) => Presence::Required,
        };
    };
    if arg_type.nullable {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "an `Option<Option<{}>>` argument has no default: left out, the tool sees `None`, \
                 and `null` is `Some(None)`; make the field `{}` to use `default`, or drop the \
                 default",
                type_name(arg_type.ty),
                type_name(arg_type.ty)
            ),
        );
    } else if arg_type.optional {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "an `Option` argument has no default: make the field `{}` to use `default`, or drop the default",
                type_name(arg_type.ty)
            ),
        );
    }
    if let Some(required_unless) = field.attrs.required_unless.get() {
        cx.error_spanned_by(
            &required_unless.key,
            "an argument with a default is never missing: drop `required_unless` or the default",
        );
    }
    match check_default(cx, setting, rules) {
        Some(default) => Presence::Default(default, setting.value_start()),
        None => Presence::Required,
    }
}

/// The default, if it is a literal that keeps the field's rules. Whether it fits the field's
/// type the generated code checks.
fn check_default(cx: &mut Ctxt, setting: &Setting<Literal>, rules: &Rules) -> Option<Value> {
    let subject = Subject {
        the: "the default".into(),
        instead: "a default",
    };
    let Literal::Other = setting.value else {
        return check_literal(cx, &setting.value, &setting.value_span(), rules, &subject);
    };
    cx.error_spanned_by(
        setting.value_span(),
        "a default is a literal of the field's type: `default = 10`, `default = 0.5`, `default = \
         true` or `default = \"text\"`, and a list's is in brackets: `default = [\"a\", \"b\"]`",
    );
    None
}

/// `examples = [...]`: each example, if it is a literal that keeps the field's rules, with
/// where it was written. Whether each fits the field's type the generated code checks.
fn check_examples(cx: &mut Ctxt, field: &Field, rules: &Rules) -> Vec<(Value, Span)> {
    let Some(setting) = field.attrs.examples.get() else {
        return Vec::new();
    };
    let Literal::List(examples) = &setting.value else {
        cx.error_spanned_by(
            setting.value_span(),
            "`examples` lists values in brackets, each a literal of the field's type: \
             `examples = [\"first\", \"second\"]`, or for a list `examples = [[\"a\", \"b\"]]`",
        );
        return Vec::new();
    };
    if examples.is_empty() {
        cx.error_spanned_by(
            setting.value_span(),
            "`examples = []` publishes nothing: list at least one value, or drop the key",
        );
    }
    let subject = Subject {
        the: "the example".into(),
        instead: "an example",
    };
    examples
        .iter()
        .filter_map(|(example, tokens)| {
            let value = check_literal(cx, example, tokens, rules, &subject)?;
            Some((value, start(tokens)))
        })
        .collect()
}

/// A literal as a value, if it is one that keeps `rules`; each element of a list keeps the
/// rules of `each(...)`. Every mistake is reported, on the literal (`tokens`) at fault.
fn check_literal(
    cx: &mut Ctxt,
    literal: &Literal,
    tokens: &TokenStream,
    rules: &Rules,
    subject: &Subject,
) -> Option<Value> {
    let value = match literal {
        Literal::Suffixed(literal) => {
            report_suffix(cx, literal);
            return None;
        }
        Literal::Infinite(literal) => {
            report_infinite(cx, literal);
            return None;
        }
        Literal::Integer(value) => Value::Integer(*value),
        Literal::Float(value) => Value::Float(*value),
        Literal::Boolean(value) => Value::Boolean(*value),
        Literal::String(value) => Value::String(value.clone()),
        Literal::List(items) => {
            let none = Rules {
                own: Vec::new(),
                each: None,
            };
            let each = rules.each.as_ref().map_or(&none, |(_, each)| &**each);
            let element = Subject {
                the: format!("{}'s element", subject.the),
                instead: subject.instead,
            };
            let items: Vec<Option<(Value, Span)>> = items
                .iter()
                .map(|(item, tokens)| {
                    let value = check_literal(cx, item, tokens, each, &element)?;
                    Some((value, start(tokens)))
                })
                .collect();
            Value::List(items.into_iter().collect::<Option<_>>()?)
        }
        Literal::Other => {
            cx.error_spanned_by(
                tokens,
                format!(
                    "{} is a literal of the field's type: `10`, `0.5`, `true`, `\"text\"`, or a \
                     list's in brackets, `[\"a\", \"b\"]`",
                    subject.the
                ),
            );
            return None;
        }
    };
    if let Some(refusal) = rules
        .own
        .iter()
        .find_map(|rule| rule.refuse(&value, subject))
    {
        cx.error_spanned_by(tokens, refusal);
        return None;
    }
    Some(value)
}

/// Where `tokens` begin, for generated code that a compile error about them should point at.
fn start(tokens: &TokenStream) -> Span {
    tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}

/// A custom message must replace a declared rule and read as a sentence.
fn check_message(cx: &mut Ctxt, field: &Field) -> Option<String> {
    let attrs = &field.attrs;
    let setting = attrs.message.get()?;
    let text = setting.value.value();
    if attrs.rules.written.is_empty() && attrs.required_unless.get().is_none() {
        let keys: Vec<String> = rule::all_keys()
            .map(|key| format!("`{}`", key.name))
            .collect();
        cx.error_spanned_by(
            &setting.key,
            format!(
                "`message` replaces the sentence of a broken rule, and this argument declares \
                 none: add {} or `required_unless`, or drop the message",
                keys.join(", ")
            ),
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
