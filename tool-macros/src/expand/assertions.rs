//! The compile-time checks of an argument's settings against its type, which the macro does
//! not see: each a constant, spanned on the setting it checks, that fails to compile (a missing
//! trait) or to evaluate (a literal the type cannot hold) when the setting does not fit. Part
//! of the expansion stage ([`super`]).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::model::{Arg, Presence, Rules, Value};
use crate::rule::{located, whole_refusal};

/// The compile-time checks of rules against the type `ty` of the value they apply to, which
/// `what` names; the rules of `each(...)` against the element type.
fn rule_assertions(rules: &Rules, ty: &syn::Type, what: &str) -> TokenStream {
    let mut checks: TokenStream = rules
        .own
        .iter()
        .map(|rule| rule.assertions(ty, what))
        .collect();
    if let Some((key, each)) = &rules.each {
        // Spanned on the user's `each` (not the macro's call site), so that a compile error
        // about the element is shown where the rule was written.
        let element: syn::Type =
            syn::parse_quote_spanned!(*key=> ::toolkit::__private::Element<#ty>);
        let what = format!("each element of `{}`", crate::rule::type_name(ty));
        checks.extend(rule_assertions(each, &element, &what));
    }
    checks
}

/// The checks against the fields' types, for the stubs of a declaration with mistakes: each
/// setting's, and that each type is an argument type at all (which the real code's reading of
/// the field requires, and the stubs do not read).
pub fn stub_assertions<'a: 'b, 'b>(args: impl IntoIterator<Item = &'b Arg<'a>>) -> TokenStream {
    let assertions = args.into_iter().map(|arg| {
        let ty = arg.ty;
        let settings = assertions(arg);
        quote_spanned! {ty.span()=>
            const _: () = ::toolkit::__private::argument::<#ty>();
            #settings
        }
    });
    quote!(const _: () = { #(#assertions)* };)
}

/// The compile-time checks of one argument's settings against its type: each rule's, the
/// default's, and `exists`'s. Each is a constant spanned on the setting it checks.
pub fn assertions(arg: &Arg) -> TokenStream {
    let ty = arg.ty;
    let what = format!("the type `{}`", crate::rule::type_name(ty));
    let mut checks = rule_assertions(&arg.rules, ty, &what);
    if let Presence::Default(default, span) = &arg.presence {
        let ty = located(ty, *span);
        checks.extend(literal_assertions(
            default,
            *span,
            &ty,
            &what,
            "the default",
        ));
    }
    for (example, span) in &arg.examples {
        let ty = located(ty, *span);
        checks.extend(literal_assertions(
            example,
            *span,
            &ty,
            &what,
            "the example",
        ));
    }
    checks
}

/// The compile-time checks that `value`, written at `span`, is a value of the type `ty` (which
/// `what` names, and which is `located` where an error about it should point): a constant each,
/// spanned on the literal; a list's elements each against the element type. `the` names the
/// literal: `the default`, `the example`.
fn literal_assertions(
    value: &Value,
    span: proc_macro2::Span,
    ty: &TokenStream,
    what: &str,
    the: &str,
) -> TokenStream {
    let check = match value {
        Value::Integer(value) => {
            let refusal = whole_refusal(
                &format!("{the} {value}"),
                *value,
                what,
                "choose one the field's type can hold",
            );
            let not_one = format!(
                "{the} {value} is none of the values of {what}: write one of its variants' numbers"
            );
            quote_spanned!(span=>
                ::toolkit::__private::whole_default::<#ty>(#value, #refusal, #not_one)
            )
        }
        Value::Float(value) => {
            let refusal = format!(
                "{the} {value:?} is not a value {what} can hold: choose one the field's type can \
                 hold, or a wider type"
            );
            quote_spanned!(span=> ::toolkit::__private::float::<#ty>(#value, #refusal))
        }
        Value::String(text) => {
            let not_one = format!(
                "{the} {text:?} is not a value {what} holds: write one of its values' wire names"
            );
            let malformed = format!(
                "{the} {text:?} is not in the form {what} reads: a UUID is written \
                 3f2504e0-4f89-11d3-9a0c-0305e82c3301, a date 2024-05-31, a date and time \
                 2024-05-31T14:30:00Z"
            );
            quote_spanned!(span=>
                ::toolkit::__private::string_default::<#ty>(#text, #not_one, #malformed)
            )
        }
        Value::Boolean(_) => {
            quote_spanned!(span=> ::toolkit::__private::boolean_default::<#ty>())
        }
        Value::List(items) => {
            let what = format!("each element of {}", what.trim_start_matches("the type "));
            let the = format!("{the}'s element");
            let elements: TokenStream = items
                .iter()
                .map(|(item, item_span)| {
                    // The list type stays where the list is, so that a type that is no list is
                    // one error there, not one more for each element.
                    let element = quote_spanned!(*item_span=>
                        <#ty as ::toolkit::__private::ListDefault>::Item
                    );
                    literal_assertions(item, *item_span, &element, &what, &the)
                })
                .collect();
            return quote_spanned! {span=>
                const _: () = ::toolkit::__private::list_default::<
                    <#ty as ::toolkit::__private::ListDefault>::Item
                >();
                #elements
            };
        }
    };
    quote_spanned!(span=> const _: () = #check;)
}
