//! The syntax stage: the derive input read into a raw [`Input`] — the struct's fields with their
//! argument types, doc comments and parsed attributes — before any rule is checked.

use syn::{Attribute, Data, DeriveInput, Fields, GenericArgument, Ident, PathArguments, Type};

use crate::attr::{ArgAttrs, ToolAttrs, parse_arg_attrs, parse_tool_attrs};
use crate::ctxt::Ctxt;

/// A tool declaration as written.
pub struct Input<'a> {
    pub original: &'a DeriveInput,
    pub doc: Option<String>,
    pub attrs: ToolAttrs,
    pub fields: Vec<Field<'a>>,
}

/// One argument field as written.
pub struct Field<'a> {
    pub ident: &'a Ident,
    /// `None` when the type is one of the struct's own type parameters (the generic struct is
    /// reported).
    pub arg_type: Option<ArgType<'a>>,
    pub doc: Option<String>,
    pub attrs: ArgAttrs,
}

/// The Rust type of an argument, as written: the macro does not judge it (the generated code
/// requires `toolkit::Arg` of it), it only sees whether the field is an `Option`, or an
/// `Option<Option<T>>`.
#[derive(Clone, Copy)]
pub struct ArgType<'a> {
    /// The field's type, or the `T` of an `Option<T>` or `Option<Option<T>>` field.
    pub ty: &'a Type,
    pub optional: bool,
    /// An `Option<Option<T>>` field: `null` is a value of its own (`Some(None)`), not the
    /// argument left out (`None`).
    pub nullable: bool,
}

impl<'a> Input<'a> {
    /// Reads the declaration; `None` when it is not a struct with named fields (reported).
    pub fn from_syn(cx: &mut Ctxt, original: &'a DeriveInput) -> Option<Input<'a>> {
        let attrs = parse_tool_attrs(cx, &original.attrs);
        let doc = doc_text(&original.attrs);
        let fields = fields(cx, original, Derive::Tool)?;
        Some(Input {
            original,
            doc,
            attrs,
            fields,
        })
    }
}

/// Which derive reads a struct's fields, for its messages.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Derive {
    Tool,
    Args,
}

/// The struct's named fields with their attributes; `None` when it is not a struct with named
/// fields (reported).
pub fn fields<'a>(
    cx: &mut Ctxt,
    original: &'a DeriveInput,
    derive: Derive,
) -> Option<Vec<Field<'a>>> {
    let (name, what, each) = match derive {
        Derive::Tool => ("Tool", "the tool", "argument"),
        Derive::Args => ("Args", "the object", "field"),
    };
    let fields: Vec<&syn::Field> = match &original.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named.named.iter().collect(),
            Fields::Unit => Vec::new(),
            Fields::Unnamed(unnamed) => {
                cx.error_spanned_by(
                    unnamed,
                    format!(
                        "#[derive({name})] needs named fields, one per {each}: write `struct Name \
                         {{ field: Type }}`"
                    ),
                );
                return None;
            }
        },
        // `#[derive(Args)]` reads an enum as a union (`crate::union`), and never asks.
        Data::Enum(data) => {
            cx.error_spanned_by(
                data.enum_token,
                format!(
                    "#[derive({name})] works on a struct, not an enum: declare {what} as a struct \
                     with one named field per {each}"
                ),
            );
            return None;
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                format!(
                    "#[derive({name})] works on a struct, not a union: declare {what} as a struct \
                     with one named field per {each}"
                ),
            );
            return None;
        }
    };
    // A field typed with one of the struct's own type parameters is part of one mistake, the
    // generic struct, reported once (by `check`).
    let type_params: Vec<&syn::Ident> = original
        .generics
        .type_params()
        .map(|param| &param.ident)
        .collect();
    let is_type_param = |ty: &Type| {
        matches!(ty, Type::Path(path) if path.qself.is_none()
            && path.path.get_ident().is_some_and(|ident| type_params.contains(&ident)))
    };
    let fields = fields
        .into_iter()
        .filter_map(|field| {
            let mut field = named_field(cx, field)?;
            if field
                .arg_type
                .is_some_and(|arg_type| is_type_param(arg_type.ty))
            {
                field.arg_type = None;
            }
            Some(field)
        })
        .collect();
    Some(fields)
}

/// A named field with its attributes (a field of a struct, or of an enum's struct variant);
/// `None` for a tuple field.
pub fn named_field<'a>(cx: &mut Ctxt, field: &'a syn::Field) -> Option<Field<'a>> {
    Some(Field {
        ident: field.ident.as_ref()?,
        arg_type: Some(arg_type(&field.ty)),
        doc: doc_text(&field.attrs),
        attrs: parse_arg_attrs(cx, &field.attrs),
    })
}

/// An `Option<T>` field is an optional argument of type `T`, as serde reads one: by the name
/// `Option` (`std::option::Option` too); an `Option<Option<T>>` field a nullable one.
pub fn arg_type(ty: &Type) -> ArgType<'_> {
    let Some(inner) = option_of(ty) else {
        return ArgType {
            ty,
            optional: false,
            nullable: false,
        };
    };
    match option_of(inner) {
        Some(innermost) => ArgType {
            ty: innermost,
            optional: true,
            nullable: true,
        },
        None => ArgType {
            ty: inner,
            optional: true,
            nullable: false,
        },
    }
}

/// The `T` of an `Option<T>`.
fn option_of(ty: &Type) -> Option<&Type> {
    match last_segment(ty) {
        Some((ident, Some(inner))) if ident == "Option" => Some(inner),
        _ => None,
    }
}

/// The last segment of a type path and its one generic type argument, if any.
fn last_segment(ty: &Type) -> Option<(&Ident, Option<&Type>)> {
    let Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    match &segment.arguments {
        PathArguments::None => Some((&segment.ident, None)),
        PathArguments::AngleBracketed(generic) if generic.args.len() == 1 => {
            match generic.args.first()? {
                GenericArgument::Type(inner) => Some((&segment.ident, Some(inner))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The doc comment as prose: lines of a paragraph joined by spaces, paragraphs by a blank line,
/// list items kept on lines of their own.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in attrs.iter().filter_map(doc_line) {
        let line = line.trim();
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() {
            current.push(if starts_list_item(line) { '\n' } else { ' ' });
        }
        current.push_str(line);
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    (!paragraphs.is_empty()).then(|| paragraphs.join("\n\n"))
}

/// Whether some `#[doc = …]` holds something other than a string literal (`concat!(…)`), which a
/// derive sees unexpanded and cannot read.
pub fn has_unreadable_doc(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .any(|attr| doc_line(attr).is_none())
}

fn doc_line(attr: &Attribute) -> Option<String> {
    if !attr.path().is_ident("doc") {
        return None;
    }
    let syn::Meta::NameValue(meta) = &attr.meta else {
        return None;
    };
    match &meta.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(text.value()),
        _ => None,
    }
}

fn starts_list_item(line: &str) -> bool {
    line.starts_with("- ")
        || line.starts_with("* ")
        || line.split_once(". ").is_some_and(|(number, _)| {
            !number.is_empty() && number.chars().all(|c| c.is_ascii_digit())
        })
}
