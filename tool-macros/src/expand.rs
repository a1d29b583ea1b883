//! The expansion stage: `derive` runs parse → check → emit, and on any error emits the errors
//! plus stub impls, so a user sees their mistakes and not a cascade of "trait not implemented".
//!
//! Generated code names the runtime by absolute paths: the public traits and types a user also
//! names (`::toolkit::Tool`, `ToolError`, `Exists`, `Uuid`, the rules in `::toolkit::rule`), and,
//! for what only generated code uses, `::toolkit::__private`. Its items stay inside
//! `const _: () = { … };`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::DeriveInput;
use syn::spanned::Spanned as _;

use crate::ast::Input;
use crate::check::check;
use crate::ctxt::Ctxt;
use crate::model::{Arg, Group, Model, Presence, Rules, Value};
use crate::rule::located;

mod assertions;

pub use assertions::{assertions, stub_assertions};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut cx = Ctxt::default();
    let model = Input::from_syn(&mut cx, input).map(|raw| check(&mut cx, &raw));
    match (cx.check(), model) {
        (Ok(()), Some(model)) => emit(&model),
        (Err(errors), model) => {
            let mut tokens = errors.to_compile_error();
            tokens.extend(fallback(input, model.as_ref()));
            // The checks against the fields' types still run, so that their mistakes are
            // reported along with the macro's own.
            // A generic struct is the one mistake: its fields name its parameters.
            if let Some(model) = model.as_ref().filter(|_| input.generics.params.is_empty()) {
                tokens.extend(stub_assertions(&model.args));
            }
            tokens
        }
        // `from_syn` returns `None` only after reporting an error, so this arm is unreachable;
        // it still yields valid (empty) output rather than a panic.
        (Ok(()), None) => TokenStream::new(),
    }
}

fn emit(model: &Model) -> TokenStream {
    let ident = model.ident;
    let output = &model.output;
    let spec = spec(model);
    let mut read_fields = read_fields(&model.args);
    if model.idempotency_key {
        // Read as any argument is, so that a key breaking its rules is refused; the layer
        // takes it from the arguments.
        let index = model.args.len();
        read_fields.push(quote! {
            let _ = __toolkit_fields.optional(
                #index,
                <::std::string::String as ::toolkit::Arg>::read,
            );
        });
    }
    let fields = model.args.iter().map(|arg| arg.ident);
    let assertions = model.args.iter().map(assertions);
    let references = references(model);
    let confirms = confirms(model);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl ::toolkit::Tool for #ident {
                type Output = #output;
                const SPEC: &'static ::toolkit::__private::ToolSpec = &#spec;

                #[allow(unused_variables)]
                fn read(
                    __toolkit_fields: &mut ::toolkit::__private::Fields<'_>,
                ) -> ::core::option::Option<Self> {
                    #(#read_fields)*
                    ::core::option::Option::Some(Self { #(#fields: #fields?,)* })
                }
            }
            #(#assertions)*
            #references
            #confirms
        };
    }
}

fn spec(model: &Model) -> TokenStream {
    let Model {
        name,
        title,
        description,
        hints,
        ..
    } = model;
    let (read_only, destructive, idempotent, open_world) = (
        hints.read_only,
        hints.destructive,
        hints.idempotent,
        hints.open_world,
    );
    let mut args: Vec<TokenStream> = model.args.iter().map(arg_spec).collect();
    let idempotency_key = model.idempotency_key;
    if idempotency_key {
        args.push(quote!(::toolkit::__private::IDEMPOTENCY_KEY_ARG));
    }
    let scope = option(model.scope.as_ref().map(|scope| quote!(#scope)));
    let ability = option(model.ability.as_ref().map(|text| quote!(#text)));
    let caution = option(model.caution.as_ref().map(|text| quote!(#text)));
    let confirm = model.confirm;
    let groups = model.groups.iter().map(group_spec);
    let timeout = option(model.timeout.map(|timeout| {
        let nanos = timeout.as_nanos() as u64;
        quote!(::core::time::Duration::from_nanos(#nanos))
    }));
    let rate_limit = option(model.rate_limit.map(|(calls, per)| {
        let nanos = per.as_nanos() as u64;
        quote!(::toolkit::RateLimit::new(#calls, ::core::time::Duration::from_nanos(#nanos)))
    }));
    quote! {
        ::toolkit::__private::ToolSpec {
            name: #name,
            title: #title,
            description: #description,
            hints: ::toolkit::__private::Hints {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            scope: #scope,
            ability: #ability,
            caution: #caution,
            confirm: #confirm,
            args: &[#(#args),*],
            groups: &[#(#groups),*],
            timeout: #timeout,
            rate_limit: #rate_limit,
            idempotency_key: #idempotency_key,
        }
    }
}

/// The `toolkit::group::Group` of a checked group.
pub fn group_spec(group: &Group) -> TokenStream {
    match group {
        Group::OneOf(indexes) => quote!(::toolkit::__private::Group::OneOf(&[#(#indexes),*])),
        Group::AnyOf(indexes) => quote!(::toolkit::__private::Group::AnyOf(&[#(#indexes),*])),
        Group::Conflicts(first, second) => {
            quote!(::toolkit::__private::Group::Conflicts(#first, #second))
        }
        Group::Requires(first, second) => {
            quote!(::toolkit::__private::Group::Requires(#first, #second))
        }
    }
}

/// Each field read from `__toolkit_fields` into a variable of its name, in declaration order.
pub fn read_fields(args: &[Arg]) -> Vec<TokenStream> {
    // Spanned on the field's type, so that a type that is not an argument type (a `Uuid` of
    // another crate) is reported there.
    args.iter()
        .enumerate()
        .map(|(index, arg)| {
            let (field, ty) = (arg.ident, arg.ty);
            let read = quote_spanned!(ty.span()=> <#ty as ::toolkit::Arg>::read);
            if arg.flatten {
                quote_spanned!(ty.span()=> let #field = __toolkit_fields.flattened(
                    #index,
                    <#ty as ::toolkit::__private::Flatten>::from_entries,
                );)
            } else if arg.nullable {
                quote_spanned!(ty.span()=> let #field = __toolkit_fields.nullable(#index, #read);)
            } else if arg.optional {
                quote_spanned!(ty.span()=> let #field = __toolkit_fields.optional(#index, #read);)
            } else {
                quote_spanned!(ty.span()=> let #field = __toolkit_fields.required(#index, #read);)
            }
        })
        .collect()
}

/// The `ArgSpec` of one argument (or field of an object).
pub fn arg_spec(arg: &Arg) -> TokenStream {
    let field = arg.ident.to_string();
    let field = field.strip_prefix("r#").unwrap_or(&field);
    let name = &arg.wire_name;
    let description = option(arg.description.as_ref().map(|text| quote!(#text)));
    let message = option(arg.message.as_ref().map(|text| quote!(#text)));
    let ignored_with = option(arg.ignored_with.map(|index| quote!(#index)));
    let nullable = arg.nullable;
    let ty = arg.ty;
    let flatten = option(
        arg.flatten
            .then(|| quote_spanned!(ty.span()=> <#ty as ::toolkit::__private::Flatten>::others)),
    );
    let schema = quote_spanned!(ty.span()=> <#ty as ::toolkit::Arg>::schema);
    let refusals = quote_spanned!(ty.span()=> ::toolkit::__private::refusals::<#ty>);
    let nested = quote_spanned!(ty.span()=> <#ty as ::toolkit::Arg>::nested_args);
    let examples = arg.examples.iter().map(|(example, _)| literal(example));
    let rules = rules_spec(&arg.rules);
    let presence = match &arg.presence {
        Presence::Required => quote!(::toolkit::__private::Presence::Required),
        Presence::Optional => quote!(::toolkit::__private::Presence::Optional),
        Presence::RequiredUnless(index) => {
            quote!(::toolkit::__private::Presence::RequiredUnless(#index))
        }
        Presence::Default(default, _) => {
            let value = literal(default);
            quote!(::toolkit::__private::Presence::Default(#value))
        }
    };
    quote! {
        ::toolkit::__private::ArgSpec {
            field: #field,
            name: #name,
            description: #description,
            schema: #schema,
            rules: #rules,
            presence: #presence,
            message: #message,
            ignored_with: #ignored_with,
            nullable: #nullable,
            flatten: #flatten,
            examples: &[#(#examples),*],
            refusals: #refusals,
            nested: #nested,
        }
    }
}

/// A default or an example as a `toolkit::Literal` expression.
fn literal(value: &Value) -> TokenStream {
    match value {
        Value::String(text) => quote!(::toolkit::__private::Literal::String(#text)),
        Value::Boolean(flag) => quote!(::toolkit::__private::Literal::Boolean(#flag)),
        Value::Integer(number) => quote!(::toolkit::__private::Literal::Integer(#number)),
        Value::Float(number) => quote!(::toolkit::__private::Literal::Float(#number)),
        Value::List(items) => {
            let items = items.iter().map(|(item, _)| literal(item));
            quote!(::toolkit::__private::Literal::List(&[#(#items),*]))
        }
    }
}

/// The rules of one value as a `toolkit::arg::Rules` expression, its elements' nested.
pub fn rules_spec(rules: &Rules) -> TokenStream {
    let own = rules.own.iter().map(|rule| rule.spec());
    let each = option(rules.each.as_ref().map(|(_, each)| {
        let each = rules_spec(each);
        quote!(&#each)
    }));
    quote!(::toolkit::__private::Rules { own: &[#(&#own),*], each: #each })
}

/// An `Arg` impl that publishes nothing and reads nothing, for the stubs of an object or a
/// union with mistakes, so that the tools using it report only their own.
pub fn stub_arg(ident: &syn::Ident) -> TokenStream {
    quote! {
        impl ::toolkit::Arg for #ident {
            fn schema(
                _: &mut ::toolkit::__private::JsonMap<
                    ::std::string::String,
                    ::toolkit::__private::JsonValue,
                >,
                _: &::toolkit::arg::Rules,
            ) {
            }

            fn read(
                _: &::toolkit::__private::JsonValue,
                _: &::toolkit::arg::Rules,
                _: &mut ::toolkit::arg::Reading<'_>,
            ) -> ::core::option::Option<Self> {
                ::core::option::Option::None
            }
        }
    }
}

fn option(value: Option<TokenStream>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// What asks the user to confirm a call: the tool's own `Confirm` impl, required by the bound,
/// when it declares `confirm`; nothing otherwise.
fn confirms(model: &Model) -> TokenStream {
    let ident = model.ident;
    let state = format_ident!("__ToolkitState");
    if !model.confirm {
        return quote! {
            #[automatically_derived]
            impl<#state> ::toolkit::__private::Confirms<#state> for #ident {}
        };
    }
    quote! {
        #[automatically_derived]
        impl<#state> ::toolkit::__private::Confirms<#state> for #ident
        where
            #state: ::core::marker::Sync,
            #ident: ::toolkit::Confirm<#state>,
        {
            const DECLINED: &'static str = <#ident as ::toolkit::Confirm<#state>>::DECLINED;

            fn confirmation(
                &self,
                __toolkit_state: &#state,
                __toolkit_context: &::toolkit::Context,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<::std::string::String, ::toolkit::ToolError>,
            > + ::core::marker::Send {
                <#ident as ::toolkit::Confirm<#state>>::confirmation(
                    self,
                    __toolkit_state,
                    __toolkit_context,
                )
            }
        }
    }
}

/// The existence checks, in argument order, with one `Exists` bound per entity referred to.
fn references(model: &Model) -> TokenStream {
    let ident = model.ident;
    let state = format_ident!("__ToolkitState");
    let checked: Vec<_> = model
        .args
        .iter()
        .filter_map(|arg| arg.exists.as_ref().map(|exists| (arg, exists)))
        .collect();
    let count = checked.len();
    let bounds = checked
        .iter()
        .map(|(_, (entity, _))| quote!(#state: ::toolkit::Exists<#entity>));
    // Spanned on the `exists` key, where a field that does not hold an id is reported.
    let ids = checked.iter().map(|(arg, (_, key))| {
        let field = arg.ident;
        let ty = located(arg.ty, *key);
        let field_ty = if arg.nullable {
            quote_spanned!(*key=> ::core::option::Option<::core::option::Option<#ty>>)
        } else if arg.optional {
            quote_spanned!(*key=> ::core::option::Option<#ty>)
        } else {
            ty
        };
        quote_spanned!(*key=> <#field_ty as ::toolkit::__private::ReferenceId>::reference_id(&self.#field))
    });
    // Spanned on the entity the user wrote, so that one which is not an `Entity` is reported
    // there, once.
    let checks = checked.iter().enumerate().map(|(index, (_, (entity, _)))| {
        quote_spanned! {entity.span()=>
            ::toolkit::__private::check_exists::<#entity, #state>(__toolkit_state, __toolkit_ids[#index])
                .await?;
        }
    });
    quote! {
        #[automatically_derived]
        impl<#state> ::toolkit::__private::References<#state> for #ident
        where
            #state: ::core::marker::Sync,
            #(#bounds,)*
        {
            type Ids = [::core::option::Option<::toolkit::Uuid>; #count];

            fn reference_ids(&self) -> Self::Ids {
                [#(#ids),*]
            }

            fn check_references(
                __toolkit_ids: Self::Ids,
                __toolkit_state: &#state,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<(), ::toolkit::ToolError>,
            > + ::core::marker::Send {
                async move {
                    #(#checks)*
                    let _ = __toolkit_ids;
                    ::core::result::Result::Ok(())
                }
            }
        }
    }
}

/// Stub impls for a declaration with errors, so code that uses the tool still type-checks and
/// the user sees only the real mistakes.
fn fallback(input: &DeriveInput, model: Option<&Model>) -> TokenStream {
    let ident = &input.ident;
    let output = match model {
        Some(model) => {
            let output = &model.output;
            quote!(#output)
        }
        None => quote!(()),
    };
    let state = format_ident!("__ToolkitState");
    // A generic struct is refused, but still gets the stubs, so that its uses type-check: each
    // parameter bounded as `Tool` needs (`Send + 'static`).
    let mut generics = input.generics.clone();
    for param in &mut generics.params {
        match param {
            syn::GenericParam::Type(param) => {
                param.bounds.push(syn::parse_quote!(::core::marker::Send));
                param.bounds.push(syn::parse_quote!('static));
            }
            syn::GenericParam::Lifetime(param) => param.bounds.push(syn::parse_quote!('static)),
            syn::GenericParam::Const(_) => {}
        }
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let mut with_state = generics.clone();
    with_state
        .params
        .push(syn::parse_quote!(#state: ::core::marker::Sync));
    let (state_impl_generics, _, _) = with_state.split_for_impl();
    quote! {
        const _: () = {
            impl #impl_generics ::toolkit::Tool for #ident #type_generics #where_clause {
                type Output = #output;
                const SPEC: &'static ::toolkit::__private::ToolSpec = &::toolkit::__private::ToolSpec {
                    name: "",
                    title: "",
                    description: "",
                    hints: ::toolkit::__private::Hints {
                        read_only: false,
                        destructive: false,
                        idempotent: false,
                        open_world: false,
                    },
                    scope: ::core::option::Option::None,
                    ability: ::core::option::Option::None,
                    caution: ::core::option::Option::None,
                    confirm: false,
                    args: &[],
                    groups: &[],
                    timeout: ::core::option::Option::None,
                    rate_limit: ::core::option::Option::None,
                    idempotency_key: false,
                };

                fn read(
                    _: &mut ::toolkit::__private::Fields<'_>,
                ) -> ::core::option::Option<Self> {
                    ::core::option::Option::None
                }
            }

            impl #state_impl_generics ::toolkit::__private::References<#state>
                for #ident #type_generics #where_clause
            {
                type Ids = [::core::option::Option<::toolkit::Uuid>; 0];

                fn reference_ids(&self) -> Self::Ids {
                    []
                }

                fn check_references(
                    _: Self::Ids,
                    _: &#state,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<(), ::toolkit::ToolError>,
                > + ::core::marker::Send {
                    async { ::core::result::Result::Ok(()) }
                }
            }

            impl #state_impl_generics ::toolkit::__private::Confirms<#state>
                for #ident #type_generics #where_clause
            {
            }
        };
    }
}
