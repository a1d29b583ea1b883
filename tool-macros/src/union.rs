//! `#[derive(Args)]` on an enum: a union, an argument that fits one of several shapes, one per
//! variant.
//!
//! - `#[args(tag = "type")]`: each variant is an object carrying `"type": "<variant>"`: a
//!   struct variant (its fields declared as an object's are), a newtype over a
//!   `#[derive(Args)]` struct, or a unit variant (the tag alone). Variant names are snake_case,
//!   or in the convention `rename_all` names, or `#[args(rename = "…")]`.
//! - `#[args(untagged)]`: each variant holds one value of any argument type (a newtype, which
//!   may carry rules: `Name(#[arg(max_chars = 40)] String)`) or is a struct variant; a value
//!   is read by the first variant it fits.
//!
//! Fields of struct variants are camelCase on the wire, or in `rename_all_fields`'s
//! convention. The runtime half is `toolkit::arg::Union`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::{DataEnum, DeriveInput, Fields, Ident, Type, Variant};

use crate::args::{check_no_exists, mentions};
use crate::ast::{self, Field, doc_text};
use crate::attr::{ArgsAttrs, parse_arg_attrs, parse_args_attrs};
use crate::case::{self, Case};
use crate::check::args::{check_args, check_wire_name};
use crate::check::groups::check_groups;
use crate::check::rename_all;
use crate::ctxt::Ctxt;
use crate::expand::{
    arg_spec, assertions, group_spec, read_fields, rules_spec, stub_arg, stub_assertions,
};
use crate::model::{Arg, Group};
use crate::symbol::*;

pub fn derive(
    mut cx: Ctxt,
    input: &DeriveInput,
    data: &DataEnum,
    attrs: &ArgsAttrs,
) -> TokenStream {
    let Some(tag) = tag(&mut cx, input, data, attrs) else {
        // Every variant is read by the style of union it is in: unknown, they are not read,
        // rather than each reported for a style the user did not choose.
        let mut tokens = cx
            .check()
            .err()
            .map_or_else(TokenStream::new, |e| e.to_compile_error());
        tokens.extend(fallback(input));
        return tokens;
    };
    let variant_case = rename_all(&mut cx, attrs.rename_all.get());
    let field_case = rename_all(&mut cx, attrs.rename_all_fields.get());
    if let Some(setting) = attrs.rename_all.get().filter(|_| tag.is_none()) {
        cx.error_spanned_by(
            &setting.key,
            "an untagged union's variants have no names on the wire, so `rename_all` would \
             rename nothing: drop it (`rename_all_fields` names the fields of its struct variants)",
        );
    }
    if let Some(setting) = attrs.rename.get() {
        cx.error_spanned_by(
            &setting.key,
            "`rename` goes on the variant it renames, not on the enum; `rename_all = \"…\"` here \
             names every variant in one case convention",
        );
    }
    for setting in &attrs.groups {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "`{}` is said of one object's fields: write it on a struct variant's fields \
                 (`conflicts_with`, `requires`) or on the struct a variant holds",
                setting.key
            ),
        );
    }
    if data.variants.is_empty() {
        cx.error_spanned_by(
            &input.ident,
            "a union needs at least one variant: add one for each shape a client may send",
        );
    }
    let branches: Vec<Branch> = data
        .variants
        .iter()
        .filter_map(|variant| {
            let case = Cases {
                variant: variant_case,
                field: field_case,
            };
            branch(&mut cx, input, variant, tag.as_deref(), case)
        })
        .collect();
    check_names(&mut cx, &branches, tag.is_some());
    match cx.check() {
        Ok(()) => emit(input, tag.as_deref(), &branches),
        Err(errors) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(fallback(input));
            // The checks against the fields' types still run, as for an object.
            if input.generics.params.is_empty() {
                let args: Vec<&Arg> = branches.iter().flat_map(Branch::args).collect();
                tokens.extend(stub_assertions(args));
            }
            tokens
        }
    }
}

/// One variant, checked.
struct Branch<'a> {
    variant: &'a Variant,
    /// The tag's value for it, or for an untagged union its snake_case name.
    name: String,
    /// Where a duplicate name is reported: the `rename`, or the variant's name.
    name_span: proc_macro2::Span,
    description: Option<String>,
    shape: Shape<'a>,
}

/// What a variant holds.
enum Shape<'a> {
    /// A unit variant of a tagged union: an object with the tag alone.
    Unit,
    /// A struct variant: an object with these fields, and which are given together.
    Fields(Vec<Arg<'a>>, Vec<Group>),
    /// A newtype variant of a tagged union: the object a `#[derive(Args)]` struct is.
    Object(&'a Type),
    /// A newtype variant of an untagged union: one value of the argument's type and rules.
    Value(Box<Arg<'a>>),
}

impl<'a> Branch<'a> {
    /// The arguments declared in the variant: its fields, or its value.
    fn args(&self) -> Vec<&Arg<'a>> {
        match &self.shape {
            Shape::Fields(args, _) => args.iter().collect(),
            Shape::Value(arg) => vec![&**arg],
            Shape::Unit | Shape::Object(_) => Vec::new(),
        }
    }
}

/// The case conventions of variant names and of struct variants' fields.
#[derive(Clone, Copy)]
struct Cases {
    variant: Option<Case>,
    field: Option<Case>,
}

/// The tag of a tagged union (`Some(None)` for an untagged one), from exactly one of `tag` and
/// `untagged`; `None` when it is not known which (reported).
fn tag(
    cx: &mut Ctxt,
    input: &DeriveInput,
    data: &DataEnum,
    attrs: &ArgsAttrs,
) -> Option<Option<String>> {
    match (attrs.tag.get(), attrs.untagged.get()) {
        (Some(tag), Some(untagged)) => {
            cx.error_spanned_by(
                &untagged.key,
                format!(
                    "a union is tagged or untagged, not both: drop `untagged` to tell variants \
                     apart by their `{}` field, or drop `tag`",
                    tag.value.value()
                ),
            );
            None
        }
        (Some(tag), None) => Some(Some(check_wire_name(cx, tag))),
        (None, Some(_)) => Some(None),
        // A malformed `tag` was reported.
        (None, None) if !attrs.tag.missing() => None,
        (None, None) => {
            let choice = if data
                .variants
                .iter()
                .all(|v| matches!(v.fields, Fields::Unit))
            {
                "; a string with a fixed set of values is a #[derive(Choice)] enum"
            } else {
                ""
            };
            cx.error_spanned_by(
                &input.ident,
                format!(
                    "a union says how a value's variant is told: `#[args(tag = \"type\")]` for \
                     objects whose `type` field names their variant, or `#[args(untagged)]` for \
                     values read by the first variant they fit{choice}"
                ),
            );
            None
        }
    }
}

/// One variant, checked as a branch of a union with `tag` (untagged when `None`).
fn branch<'a>(
    cx: &mut Ctxt,
    input: &'a DeriveInput,
    variant: &'a Variant,
    tag: Option<&str>,
    case: Cases,
) -> Option<Branch<'a>> {
    let attrs = parse_args_attrs(cx, &variant.attrs);
    misplaced_on_variant(cx, variant, &attrs);
    let renamed = attrs.rename.get();
    if let Some(setting) = renamed.filter(|_| tag.is_none()) {
        cx.error_spanned_by(
            &setting.key,
            "an untagged union's variants have no names on the wire, so `rename` would rename \
             nothing: drop it",
        );
    }
    let rust_name = variant.ident.to_string();
    let name = match renamed {
        Some(setting) if tag.is_some() => check_wire_name(cx, setting),
        _ => case.variant.map_or_else(
            || case::snake_case(&rust_name),
            |case| case.variant(&rust_name),
        ),
    };
    let name_span = renamed.map_or(variant.ident.span(), |setting| setting.value.span());
    let shape = match &variant.fields {
        Fields::Named(named) => {
            let fields: Vec<Field> = named
                .named
                .iter()
                .filter_map(|field| ast::named_field(cx, field))
                .collect();
            check_recursion(cx, input, fields.iter().filter_map(|field| field.arg_type));
            check_no_exists(cx, &fields);
            let groups = check_groups(cx, &fields, &[]);
            let args = check_args(cx, &fields, case.field);
            if let Some(tag) = tag {
                check_not_tag(cx, &args, tag);
            }
            Shape::Fields(args, groups)
        }
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            let field = &unnamed.unnamed[0];
            check_recursion(cx, input, [ast::arg_type(&field.ty)]);
            match tag {
                Some(_) => {
                    if let Some(attr) = field.attrs.iter().find(|attr| attr.path().is_ident(ARG)) {
                        cx.error_spanned_by(
                            attr.path(),
                            "a tagged variant's value is an object, whose rules go on its own \
                             struct's fields: move them there, or write the fields in the \
                             variant (`Name { field: Type }`)",
                        );
                    }
                    Shape::Object(&field.ty)
                }
                None => Shape::Value(Box::new(value(cx, variant, field)?)),
            }
        }
        Fields::Unnamed(unnamed) => {
            cx.error_spanned_by(
                unnamed,
                "a union's variant holds one value, `Name(Type)`, or named fields, \
                 `Name { field: Type }`: a client sends an object or a value, not a list of \
                 them (a tuple argument is `Name((A, B))`)",
            );
            return None;
        }
        Fields::Unit if tag.is_some() => Shape::Unit,
        Fields::Unit => {
            cx.error_spanned_by(
                &variant.ident,
                format!(
                    "an untagged variant holds a value, which is how it is told from the \
                     others: write `{rust_name}(Type)` or `{rust_name} {{ field: Type }}`; a \
                     string with a fixed set of values is a #[derive(Choice)] enum"
                ),
            );
            return None;
        }
    };
    Some(Branch {
        variant,
        name,
        name_span,
        description: doc_text(&variant.attrs),
        shape,
    })
}

/// The keys of the enum's `#[args(...)]`, and `#[arg(...)]`, written on a variant.
fn misplaced_on_variant(cx: &mut Ctxt, variant: &Variant, attrs: &ArgsAttrs) {
    let keys = [
        attrs.tag.get().map(|setting| &setting.key),
        attrs.untagged.get().map(|setting| &setting.key),
        attrs.rename_all.get().map(|setting| &setting.key),
        attrs.rename_all_fields.get().map(|setting| &setting.key),
    ];
    for setting in &attrs.groups {
        cx.error_spanned_by(
            &setting.key,
            format!(
                "`{}` is said of a struct's fields: write it on the struct the variant holds, \
                 or `conflicts_with` and `requires` on a struct variant's fields",
                setting.key
            ),
        );
    }
    for key in keys.into_iter().flatten() {
        cx.error_spanned_by(
            key,
            format!(
                "`{key}` is said of the whole union: move it to the enum's `#[args(...)]`; a \
                 variant takes `rename = \"…\"`"
            ),
        );
    }
    for attr in variant
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident(ARG))
    {
        cx.error_spanned_by(
            attr.path(),
            "#[arg(...)] goes on a field: on a struct variant's field, or inside a newtype \
             variant, before its type (`Name(#[arg(max_chars = 40)] String)`)",
        );
    }
}

/// An untagged newtype variant's value: its type, with the rules written on it. It has no
/// name, presence or condition of its own, so the keys that set them are refused.
fn value<'a>(cx: &mut Ctxt, variant: &'a Variant, field: &'a syn::Field) -> Option<Arg<'a>> {
    let arg_type = ast::arg_type(&field.ty);
    if arg_type.optional {
        cx.error_spanned_by(
            &field.ty,
            "a union's variant holds a value, and `Option` would add `null` to it: declare the \
             argument that holds the union as an `Option` to let it be left out",
        );
        return None;
    }
    let attrs = parse_arg_attrs(cx, &field.attrs);
    // A flattened map or a group needs an object of fields around it, which a value is not.
    let others = [
        attrs.flatten.get().map(|setting| &setting.key),
        attrs.conflicts_with.get().map(|setting| &setting.key),
        attrs.requires.get().map(|setting| &setting.key),
    ];
    for key in attrs.presence_keys().chain(others.into_iter().flatten()) {
        cx.error_spanned_by(
            key,
            format!(
                "`{key}` is said of an argument or a field; a variant's value takes rules \
                 only: say it on the argument that holds the union"
            ),
        );
    }
    let field = Field {
        ident: &variant.ident,
        arg_type: Some(arg_type),
        doc: None,
        attrs,
    };
    check_args(cx, std::slice::from_ref(&field), None).pop()
}

/// A variant's type that names the enum itself: its schema would never end.
fn check_recursion<'a>(
    cx: &mut Ctxt,
    input: &DeriveInput,
    types: impl IntoIterator<Item = ast::ArgType<'a>>,
) {
    for arg_type in types {
        if mentions(arg_type.ty, &input.ident) {
            cx.error_spanned_by(
                arg_type.ty,
                format!(
                    "a `{}` cannot hold a `{}`: an argument's schema is written out in full \
                     (clients do not all follow `$ref`), so a type that contains itself would \
                     have no end; give the nesting a fixed depth with a second type",
                    input.ident, input.ident
                ),
            );
        }
    }
}

/// A struct variant's field named as the tag would hide it.
fn check_not_tag(cx: &mut Ctxt, args: &[Arg], tag: &str) {
    for arg in args.iter().filter(|arg| arg.wire_name == tag) {
        cx.error_spanned_by(
            arg.ident,
            format!(
                "`{tag}` is this union's tag, which names the variant: give the field another \
                 name with `#[arg(rename = \"…\")]`, or the union another tag"
            ),
        );
    }
}

/// Two variants of a tagged union named alike could not be told apart.
fn check_names(cx: &mut Ctxt, branches: &[Branch], tagged: bool) {
    if !tagged {
        return;
    }
    for (index, branch) in branches.iter().enumerate() {
        if let Some(earlier) = branches[..index].iter().find(|b| b.name == branch.name) {
            cx.error_spanned_by(
                quote_spanned!(branch.name_span=> _),
                format!(
                    "`{}` and `{}` are both named `{}` on the wire: give one another name with \
                     `#[args(rename = \"…\")]`",
                    earlier.variant.ident, branch.variant.ident, branch.name
                ),
            );
        }
    }
}

fn emit(input: &DeriveInput, tag: Option<&str>, branches: &[Branch]) -> TokenStream {
    let ident = &input.ident;
    let tag_spec = match tag {
        Some(tag) => quote!(::core::option::Option::Some(#tag)),
        None => quote!(::core::option::Option::None),
    };
    let specs = branches.iter().map(branch_spec);
    let nesting = branches.iter().map(nesting);
    let values = branches.iter().filter_map(|branch| match &branch.shape {
        Shape::Value(arg) => Some(arg.ty),
        _ => None,
    });
    let read = match tag {
        Some(_) => read_tagged(branches),
        None => read_untagged(branches),
    };
    let assertions = branches
        .iter()
        .flat_map(Branch::args)
        .map(|arg| assertions(arg));
    quote! {
        const _: () = {
            #[automatically_derived]
            impl ::toolkit::Union for #ident {
                const TAG: ::core::option::Option<&'static str> = #tag_spec;
                const BRANCHES: &'static [::toolkit::__private::Branch] = &[#(#specs),*];
            }

            #[automatically_derived]
            impl ::toolkit::Arg for #ident {
                const NESTING: usize = ::toolkit::__private::deepest(&[#(#nesting),*]);

                fn nested_args(
                    found: &mut ::std::vec::Vec<&'static [::toolkit::__private::ArgSpec]>,
                ) {
                    for branch in <Self as ::toolkit::Union>::BRANCHES {
                        if let ::toolkit::__private::Shape::Object { fields, .. } = branch.shape {
                            found.push(fields);
                        }
                    }
                    #(<#values as ::toolkit::Arg>::nested_args(found);)*
                }

                fn schema(
                    schema: &mut ::toolkit::__private::JsonMap<
                        ::std::string::String,
                        ::toolkit::__private::JsonValue,
                    >,
                    rules: &::toolkit::arg::Rules,
                ) {
                    ::toolkit::__private::union_schema::<Self>(schema, rules);
                }

                #[allow(unused_variables, unused_mut)]
                fn read(
                    value: &::toolkit::__private::JsonValue,
                    rules: &::toolkit::arg::Rules,
                    at: &mut ::toolkit::arg::Reading<'_>,
                ) -> ::core::option::Option<Self> {
                    #read
                }
            }

            // Evaluated, so that a type that contains itself through others fails to compile.
            const _: usize = <#ident as ::toolkit::Arg>::NESTING;

            #(#assertions)*
        };
    }
}

/// A variant's `Branch`.
fn branch_spec(branch: &Branch) -> TokenStream {
    let name = &branch.name;
    let description = match &branch.description {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let shape = match &branch.shape {
        Shape::Unit => quote!(::toolkit::__private::Shape::Object {
            fields: &[],
            groups: &[]
        }),
        Shape::Fields(args, groups) => {
            let specs = args.iter().map(arg_spec);
            let groups = groups.iter().map(group_spec);
            quote!(::toolkit::__private::Shape::Object {
                fields: &[#(#specs),*],
                groups: &[#(#groups),*],
            })
        }
        // Spanned on the type, where one that is not a `#[derive(Args)]` struct is reported.
        Shape::Object(ty) => quote_spanned!(ty.span()=>
            ::toolkit::__private::Shape::Object {
                fields: <#ty as ::toolkit::Args>::ARGS,
                groups: <#ty as ::toolkit::Args>::GROUPS,
            }
        ),
        Shape::Value(arg) => {
            let ty = arg.ty;
            let schema = quote_spanned!(ty.span()=> <#ty as ::toolkit::Arg>::schema);
            let rules = rules_spec(&arg.rules);
            quote!(::toolkit::__private::Shape::Value { schema: #schema, rules: #rules })
        }
    };
    quote! {
        ::toolkit::__private::Branch {
            name: #name,
            description: #description,
            shape: #shape,
        }
    }
}

/// How many objects deep a variant's value nests.
fn nesting(branch: &Branch) -> TokenStream {
    match &branch.shape {
        Shape::Unit => quote!(1),
        Shape::Fields(args, _) => {
            let fields = args.iter().map(|arg| {
                let ty = arg.ty;
                quote!(<#ty as ::toolkit::Arg>::NESTING)
            });
            quote!(1 + ::toolkit::__private::deepest(&[#(#fields),*]))
        }
        Shape::Object(ty) => quote!(<#ty as ::toolkit::Arg>::NESTING),
        Shape::Value(arg) => {
            let ty = arg.ty;
            quote!(<#ty as ::toolkit::Arg>::NESTING)
        }
    }
}

/// A tagged union's `read`: the branch the tag names reads the object's fields.
fn read_tagged(branches: &[Branch]) -> TokenStream {
    let arms = branches.iter().enumerate().map(|(index, branch)| {
        let variant = &branch.variant.ident;
        let body = match &branch.shape {
            Shape::Unit => quote! {
                __toolkit_fields.finish()?;
                ::core::option::Option::Some(Self::#variant)
            },
            Shape::Fields(args, _) => struct_variant(variant, args),
            Shape::Object(ty) => quote_spanned! {ty.span()=>
                <#ty as ::toolkit::Args>::read_fields(__toolkit_fields).map(Self::#variant)
            },
            // A tagged union has no value variants.
            Shape::Value(_) => quote!(::core::option::Option::None),
        };
        quote!(#index => { #body })
    });
    quote! {
        let (__toolkit_branch, mut __toolkit_fields) =
            ::toolkit::__private::read_tagged::<Self>(value, at)?;
        match __toolkit_branch {
            #(#arms)*
            _ => ::core::option::Option::None,
        }
    }
}

/// An untagged union's `read`: each branch in turn, until one fits.
fn read_untagged(branches: &[Branch]) -> TokenStream {
    let arms = branches.iter().enumerate().map(|(index, branch)| {
        let variant = &branch.variant.ident;
        let body = match &branch.shape {
            Shape::Value(arg) => {
                let ty = arg.ty;
                quote_spanned! {ty.span()=>
                    <#ty as ::toolkit::Arg>::read(
                        __toolkit_value,
                        <Self as ::toolkit::Union>::BRANCHES[#index].rules(),
                        __toolkit_at,
                    )
                    .map(Self::#variant)
                }
            }
            Shape::Fields(args, _) => {
                let read = struct_variant(variant, args);
                quote! {
                    let __toolkit_branch = &<Self as ::toolkit::Union>::BRANCHES[#index];
                    let mut __toolkit_fields = ::toolkit::__private::Fields::nested(
                        __toolkit_branch.fields(),
                        __toolkit_value,
                        __toolkit_at,
                    )?
                    .with_groups(__toolkit_branch.groups());
                    #read
                }
            }
            // An untagged union has no unit or object-newtype variants.
            Shape::Unit | Shape::Object(_) => quote!(::core::option::Option::None),
        };
        quote!(#index => { #body })
    });
    quote! {
        ::toolkit::__private::read_untagged::<Self>(
            value,
            rules,
            at,
            |__toolkit_branch, __toolkit_value, __toolkit_at| match __toolkit_branch {
                #(#arms)*
                _ => ::core::option::Option::None,
            },
        )
    }
}

/// A struct variant's fields read from `__toolkit_fields`, and the variant built from them.
fn struct_variant(variant: &Ident, args: &[Arg]) -> TokenStream {
    let read_fields = read_fields(args);
    let fields = args.iter().map(|arg| arg.ident);
    quote! {
        #(#read_fields)*
        __toolkit_fields.finish()?;
        ::core::option::Option::Some(Self::#variant { #(#fields: #fields?,)* })
    }
}

/// Stub impls for a union with mistakes, so that the tools using it report only their own.
fn fallback(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let stub = stub_arg(ident);
    quote! {
        const _: () = {
            impl ::toolkit::Union for #ident {
                const TAG: ::core::option::Option<&'static str> = ::core::option::Option::None;
                const BRANCHES: &'static [::toolkit::__private::Branch] = &[];
            }

            #stub
        };
    }
}
