//! `#[derive(Args)]`: a struct whose fields are declared as a tool's arguments are (the same
//! `#[arg(...)]` rules, defaults, wire names and doc comments) becomes an object argument, which
//! a tool takes as a field `T`, `Option<T>` or `Vec<T>`, nested to any depth. Its fields are
//! checked by the tool derive's own argument checks, and expanded by its own code. On an enum,
//! the derive declares a union ([`crate::union`]).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Data, DeriveInput};

use crate::ast::{Derive, Field, fields};
use crate::attr::{ArgsAttrs, parse_args_attrs};
use crate::check::args::check_args;
use crate::check::groups::check_groups;
use crate::check::rename_all;
use crate::ctxt::Ctxt;
use crate::expand::{arg_spec, assertions, group_spec, read_fields, stub_arg, stub_assertions};
use crate::model::Group;
use crate::symbol::TOOL;
use crate::union;

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    for misplaced in input.attrs.iter().filter(|attr| attr.path().is_ident(TOOL)) {
        cx.error_spanned_by(
            misplaced.path(),
            "#[tool(...)] declares a tool, and an object argument is not one: drop it, or \
             derive `Tool` instead",
        );
    }
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "an object argument cannot be generic: declare one concrete struct per object",
        );
    }
    let attrs = parse_args_attrs(&mut cx, &input.attrs);
    if let Data::Enum(data) = &input.data {
        return union::derive(cx, input, data, &attrs);
    }
    misplaced(&mut cx, &attrs);
    let case = rename_all(&mut cx, attrs.rename_all.get());
    let args = fields(&mut cx, input, Derive::Args).map(|fields| {
        check_recursion(&mut cx, input, &fields);
        check_no_exists(&mut cx, &fields);
        let groups = check_groups(&mut cx, &fields, &attrs.groups);
        (check_args(&mut cx, &fields, case), groups)
    });
    match (cx.check(), args) {
        (Ok(()), Some((args, groups))) => emit(input, &args, &groups),
        (Err(errors), args) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(fallback(input));
            // The checks against the fields' types still run, as for a tool.
            // A generic struct is the one mistake: its fields name its parameters.
            if let Some((args, _)) = args.as_ref().filter(|_| input.generics.params.is_empty()) {
                tokens.extend(stub_assertions(args));
            }
            tokens
        }
        // `fields` returns `None` only after reporting an error.
        (Ok(()), None) => TokenStream::new(),
    }
}

/// The keys of an enum's `#[args(...)]` (a union's), on a struct.
fn misplaced(cx: &mut Ctxt, attrs: &ArgsAttrs) {
    let union_key = |key: &syn::Ident| {
        format!(
            "`{key}` declares a union, which is an enum with one variant per shape: \
             `#[derive(Args)] #[args({key} …)] enum Name {{ … }}`; a struct's fields are all \
             given at once"
        )
    };
    if let Some(setting) = attrs.tag.get() {
        cx.error_spanned_by(&setting.key, union_key(&setting.key));
    }
    if let Some(setting) = attrs.untagged.get() {
        cx.error_spanned_by(&setting.key, union_key(&setting.key));
    }
    if let Some(setting) = attrs.rename_all_fields.get() {
        cx.error_spanned_by(
            &setting.key,
            "`rename_all_fields` names the fields of an enum's variants; a struct's fields take \
             `rename_all = \"…\"`",
        );
    }
    if let Some(setting) = attrs.rename.get() {
        cx.error_spanned_by(
            &setting.key,
            "`rename` on an object renames nothing: a field is renamed with \
             `#[arg(rename = \"…\")]` on it, and an object has no name of its own on the wire",
        );
    }
}

/// A field whose type names the struct itself: its schema would never end. (A cycle through
/// other types is refused by the compiler, which evaluates `Arg::NESTING`.)
pub(crate) fn check_recursion(cx: &mut Ctxt, input: &DeriveInput, fields: &[Field]) {
    for field in fields {
        let Some(arg_type) = field.arg_type else {
            continue;
        };
        if mentions(arg_type.ty, &input.ident) {
            cx.error_spanned_by(
                arg_type.ty,
                format!(
                    "a `{}` cannot hold a `{}`: an argument's schema is written out in full \
                     (clients do not all follow `$ref`), so a type that contains itself would \
                     have no end; give the nesting a fixed depth with a second struct",
                    input.ident, input.ident
                ),
            );
        }
    }
}

/// Whether `ty` names `ident` anywhere, inside generic arguments too (`Vec<Node>`).
pub(crate) fn mentions(ty: &syn::Type, ident: &syn::Ident) -> bool {
    fn walk(tokens: TokenStream, ident: &syn::Ident) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(found) => found == *ident,
            proc_macro2::TokenTree::Group(group) => walk(group.stream(), ident),
            _ => false,
        })
    }
    walk(ty.to_token_stream(), ident)
}

/// `exists` is checked for a tool's own arguments only.
pub(crate) fn check_no_exists(cx: &mut Ctxt, fields: &[Field]) {
    for field in fields {
        if let Some(setting) = field.attrs.exists.get() {
            cx.error_spanned_by(
                &setting.key,
                "`exists` is checked on a tool's own arguments, not inside an object: make the \
                 id an argument of the tool, or look it up in the tool's `Run::check`",
            );
        }
    }
}

fn emit(input: &DeriveInput, args: &[crate::model::Arg], groups: &[Group]) -> TokenStream {
    let ident = &input.ident;
    let specs = args.iter().map(arg_spec);
    let groups = groups.iter().map(group_spec);
    let read_fields = read_fields(args);
    let fields = args.iter().map(|arg| arg.ident);
    let nesting = args.iter().map(|arg| {
        let ty = arg.ty;
        quote!(<#ty as ::toolkit::Arg>::NESTING)
    });
    let assertions = args.iter().map(assertions);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl ::toolkit::Args for #ident {
                const ARGS: &'static [::toolkit::__private::ArgSpec] = &[#(#specs),*];
                const GROUPS: &'static [::toolkit::__private::Group] = &[#(#groups),*];

                #[allow(unused_mut)]
                fn read_fields(
                    mut __toolkit_fields: ::toolkit::__private::Fields<'_>,
                ) -> ::core::option::Option<Self> {
                    let mut __toolkit_fields =
                        __toolkit_fields.with_groups(<Self as ::toolkit::Args>::GROUPS);
                    #(#read_fields)*
                    __toolkit_fields.finish()?;
                    ::core::option::Option::Some(Self { #(#fields: #fields?,)* })
                }
            }

            #[automatically_derived]
            impl ::toolkit::Arg for #ident {
                const NESTING: usize = 1 + ::toolkit::__private::deepest(&[#(#nesting),*]);

                fn nested_args(
                    found: &mut ::std::vec::Vec<&'static [::toolkit::__private::ArgSpec]>,
                ) {
                    found.push(<Self as ::toolkit::Args>::ARGS);
                }

                fn schema(
                    schema: &mut ::toolkit::__private::JsonMap<
                        ::std::string::String,
                        ::toolkit::__private::JsonValue,
                    >,
                    rules: &::toolkit::arg::Rules,
                ) {
                    ::toolkit::__private::object_schema(
                        <Self as ::toolkit::Args>::ARGS,
                        <Self as ::toolkit::Args>::GROUPS,
                        schema,
                    );
                    rules.publish(schema);
                }

                fn read(
                    value: &::toolkit::__private::JsonValue,
                    _: &::toolkit::arg::Rules,
                    at: &mut ::toolkit::arg::Reading<'_>,
                ) -> ::core::option::Option<Self> {
                    <Self as ::toolkit::Args>::read_fields(::toolkit::__private::Fields::nested(
                        <Self as ::toolkit::Args>::ARGS,
                        value,
                        at,
                    )?)
                }
            }

            // Evaluated, so that a type that contains itself through others fails to compile.
            const _: usize = <#ident as ::toolkit::Arg>::NESTING;

            #(#assertions)*
        };
    }
}

/// Stub impls for an object with mistakes, so that the tools using it report only their own.
fn fallback(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let stub = stub_arg(ident);
    quote! {
        const _: () = {
            impl ::toolkit::Args for #ident {
                const ARGS: &'static [::toolkit::__private::ArgSpec] = &[];

                fn read_fields(
                    _: ::toolkit::__private::Fields<'_>,
                ) -> ::core::option::Option<Self> {
                    ::core::option::Option::None
                }
            }

            #stub
        };
    }
}
