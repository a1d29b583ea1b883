//! `#[derive(Choice)]`: an enum of unit variants becomes a string argument with a fixed set of
//! values. Each variant's wire name is its snake_case name, as serde's
//! `rename_all = "snake_case"` writes it, or in the convention `#[choice(rename_all = "…")]`
//! on the enum names, or `#[choice(rename = "…")]`; its doc comment describes the value. Every mistake is reported at once, on its token.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Data, DeriveInput, Fields, LitStr, Variant};

mod numbers;

use crate::ast::doc_text;
use crate::attr::{parse_enum_attrs, parse_variant_attrs};
use crate::case::{self, Case};
use crate::ctxt::Ctxt;

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    let values = values(&mut cx, input);
    match (cx.check(), values) {
        (Ok(()), Some(values)) => emit(input, &values),
        (Err(errors), _) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(fallback(input));
            tokens
        }
        // `values` is `None` only after reporting an error.
        (Ok(()), None) => TokenStream::new(),
    }
}

/// One value of the choice.
struct Value<'a> {
    variant: &'a Variant,
    /// Its name on the wire, or for an integer choice its number as written.
    wire_name: String,
    /// An integer choice's number for it.
    number: Option<i64>,
    description: Option<String>,
}

fn values<'a>(cx: &mut Ctxt, input: &'a DeriveInput) -> Option<Vec<Value<'a>>> {
    let case = case_of_values(cx, input);
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "a choice cannot be generic: its values are the variants' names",
        );
    }
    let variants = match &input.data {
        Data::Enum(data) => &data.variants,
        Data::Struct(data) => {
            cx.error_spanned_by(
                data.struct_token,
                "#[derive(Choice)] works on an enum of unit variants, one per value: write \
                 `enum Name { First, Second }`",
            );
            return None;
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "#[derive(Choice)] works on an enum of unit variants, one per value",
            );
            return None;
        }
    };
    if variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "a choice needs at least one value: add a variant for each value a client may send",
        );
        return None;
    }
    let numbers = numbers::numbers(cx, variants.iter());
    let integer = variants
        .iter()
        .any(|variant| variant.discriminant.is_some());
    let case = match case {
        Some((_, written)) if integer => {
            cx.error_spanned_by(
                &written,
                "an integer choice's values are its variants' numbers, which no case convention \
                 changes: drop `rename_all`",
            );
            None
        }
        case => case.map(|(case, _)| case),
    };
    let mut values: Vec<Value> = Vec::with_capacity(variants.len());
    for (index, variant) in variants.iter().enumerate() {
        if !matches!(variant.fields, Fields::Unit) {
            cx.error_spanned_by(
                &variant.fields,
                format!(
                    "a choice's values carry no data: write `{}` without fields; an argument \
                     with fields of its own is a struct",
                    variant.ident
                ),
            );
        }
        let renamed = rename(cx, variant);
        if let Some(renamed) = renamed.as_ref().filter(|_| integer) {
            cx.error_spanned_by(
                renamed,
                "an integer choice's values are its variants' numbers, which `rename` cannot \
                 change: drop it",
            );
        }
        let number = numbers
            .as_ref()
            .and_then(|numbers| numbers.get(index).copied());
        let wire_name = match (number, renamed) {
            (Some(number), _) => number.to_string(),
            (None, Some(renamed)) => renamed.value(),
            (None, None) => {
                let name = variant.ident.to_string();
                case.map_or_else(|| case::snake_case(&name), |case| case.variant(&name))
            }
        };
        if let Some(earlier) = values.iter().find(|value| value.wire_name == wire_name) {
            cx.error_spanned_by(
                &variant.ident,
                format!(
                    "`{}` and `{}` are both `{wire_name}` on the wire: give one another name with \
                     `#[choice(rename = \"…\")]`",
                    earlier.variant.ident, variant.ident
                ),
            );
        }
        values.push(Value {
            variant,
            wire_name,
            number,
            description: doc_text(&variant.attrs),
        });
    }
    Some(values)
}

/// `#[choice(rename_all = "…")]` on the enum: the case convention of its values, and where it
/// was written, if it was.
fn case_of_values(cx: &mut Ctxt, input: &DeriveInput) -> Option<(Case, LitStr)> {
    let slot = parse_enum_attrs(cx, &input.attrs);
    let written = slot.value()?;
    Some((Case::named(cx, written)?, written.clone()))
}

/// `#[choice(rename = "…")]` on a variant, if written.
fn rename(cx: &mut Ctxt, variant: &Variant) -> Option<LitStr> {
    let renamed = parse_variant_attrs(cx, &variant.attrs).value()?.clone();
    if renamed.value().is_empty() {
        cx.error_spanned_by(&renamed, "a value's wire name cannot be empty");
    }
    Some(renamed)
}

fn emit(input: &DeriveInput, values: &[Value]) -> TokenStream {
    let ident = &input.ident;
    let numbers: Option<Vec<i64>> = values.iter().map(|value| value.number).collect();
    let (arg_impl, numbers) = match numbers {
        Some(numbers) => (
            integer_arg_impl(ident, &numbers),
            quote!(::core::option::Option::Some(&[#(#numbers),*])),
        ),
        None => (arg_impl(ident), quote!(::core::option::Option::None)),
    };
    let names = values.iter().map(|value| &value.wire_name);
    let descriptions = values.iter().map(|value| match &value.description {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    });
    let from_index = values.iter().enumerate().map(|(index, value)| {
        let variant = &value.variant.ident;
        quote!(#index => ::core::option::Option::Some(Self::#variant))
    });
    let to_index = values.iter().enumerate().map(|(index, value)| {
        let variant = &value.variant.ident;
        quote_spanned!(variant.span()=> Self::#variant => #index)
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl ::toolkit::Choice for #ident {
                const NAMES: &'static [&'static str] = &[#(#names),*];
                const NUMBERS: ::core::option::Option<&'static [i64]> = #numbers;
                const DESCRIPTIONS: &'static [::core::option::Option<&'static str>] =
                    &[#(#descriptions),*];

                fn from_index(index: usize) -> ::core::option::Option<Self> {
                    match index {
                        #(#from_index,)*
                        _ => ::core::option::Option::None,
                    }
                }

                fn index(&self) -> usize {
                    match self {
                        #(#to_index,)*
                    }
                }
            }

            #arg_impl
        };
    }
}

/// The `Arg` impl and the string default of a string choice, in its own and in stub output.
fn arg_impl(ident: &syn::Ident) -> TokenStream {
    let read_and_schema = read_and_schema(ident);
    quote! {
        #read_and_schema

        #[automatically_derived]
        impl ::toolkit::__private::StringDefault for #ident {
            const FORM: ::toolkit::__private::StringForm =
                ::toolkit::__private::StringForm::Names(<Self as ::toolkit::Choice>::NAMES);
        }
    }
}

/// The `Arg` impl and the whole-number default of an integer choice of `numbers`.
fn integer_arg_impl(ident: &syn::Ident, numbers: &[i64]) -> TokenStream {
    let read_and_schema = read_and_schema(ident);
    quote! {
        #read_and_schema

        #[automatically_derived]
        impl ::toolkit::__private::WholeDefault for #ident {
            const MIN: i128 = i128::MIN;
            const MAX: i128 = i128::MAX;
            const NUMBERS: ::core::option::Option<&'static [i64]> =
                ::core::option::Option::Some(&[#(#numbers),*]);
        }
    }
}

/// The `Arg` impl every choice has: the toolkit's reading and schema of choices.
fn read_and_schema(ident: &syn::Ident) -> TokenStream {
    quote! {
        #[automatically_derived]
        impl ::toolkit::Arg for #ident {
            fn schema(
                schema: &mut ::toolkit::__private::JsonMap<
                    ::std::string::String,
                    ::toolkit::__private::JsonValue,
                >,
                rules: &::toolkit::arg::Rules,
            ) {
                ::toolkit::__private::choice_schema::<Self>(schema, rules)
            }

            fn read(
                value: &::toolkit::__private::JsonValue,
                rules: &::toolkit::arg::Rules,
                at: &mut ::toolkit::arg::Reading<'_>,
            ) -> ::core::option::Option<Self> {
                ::toolkit::__private::choice_read::<Self>(value, rules, at)
            }
        }
    }
}

/// Stub impls for a choice with mistakes, so that the tools using it report only their own.
fn fallback(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let arg_impl = arg_impl(ident);
    quote! {
        const _: () = {
            impl ::toolkit::Choice for #ident {
                const NAMES: &'static [&'static str] = &[];
                const DESCRIPTIONS: &'static [::core::option::Option<&'static str>] = &[];

                fn from_index(_: usize) -> ::core::option::Option<Self> {
                    ::core::option::Option::None
                }

                fn index(&self) -> usize {
                    0
                }
            }

            #arg_impl
        };
    }
}
