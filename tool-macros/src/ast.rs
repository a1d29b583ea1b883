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
    pub ty: &'a Type,
    /// `None` when the type is not one an argument can have (already reported).
    pub arg_type: Option<ArgType>,
    pub doc: Option<String>,
    pub attrs: ArgAttrs,
}

/// The Rust type of an argument.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ArgType {
    pub base: Base,
    pub optional: bool,
}

/// The types an argument can have, inside an optional `Option`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Base {
    String,
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Uuid,
}

impl Base {
    fn from_ident(ident: &Ident) -> Option<Base> {
        Some(match ident.to_string().as_str() {
            "String" => Base::String,
            "bool" => Base::Bool,
            "i8" => Base::I8,
            "i16" => Base::I16,
            "i32" => Base::I32,
            "i64" => Base::I64,
            "u8" => Base::U8,
            "u16" => Base::U16,
            "u32" => Base::U32,
            "u64" => Base::U64,
            "Uuid" => Base::Uuid,
            _ => return None,
        })
    }

    /// The type's name as a user writes it.
    pub fn name(self) -> &'static str {
        match self {
            Base::String => "String",
            Base::Bool => "bool",
            Base::I8 => "i8",
            Base::I16 => "i16",
            Base::I32 => "i32",
            Base::I64 => "i64",
            Base::U8 => "u8",
            Base::U16 => "u16",
            Base::U32 => "u32",
            Base::U64 => "u64",
            Base::Uuid => "Uuid",
        }
    }

    /// The smallest and largest value of an integer type.
    pub fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Base::I8 => (i8::MIN.into(), i8::MAX.into()),
            Base::I16 => (i16::MIN.into(), i16::MAX.into()),
            Base::I32 => (i32::MIN.into(), i32::MAX.into()),
            Base::I64 => (i64::MIN.into(), i64::MAX.into()),
            Base::U8 => (0, u8::MAX.into()),
            Base::U16 => (0, u16::MAX.into()),
            Base::U32 => (0, u32::MAX.into()),
            Base::U64 => (0, u64::MAX.into()),
            Base::String | Base::Bool | Base::Uuid => return None,
        })
    }
}

const SUPPORTED_TYPES: &str =
    "String, bool, i8, i16, i32, i64, u8, u16, u32, u64, Uuid, or Option of one of them";

impl<'a> Input<'a> {
    /// Reads the declaration; `None` when it is not a struct with named fields (reported).
    pub fn from_syn(cx: &mut Ctxt, original: &'a DeriveInput) -> Option<Input<'a>> {
        let attrs = parse_tool_attrs(cx, &original.attrs);
        let doc = doc_text(&original.attrs);
        let fields = match &original.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => named.named.iter().collect(),
                Fields::Unit => Vec::new(),
                Fields::Unnamed(unnamed) => {
                    cx.error_spanned_by(
                        unnamed,
                        "#[derive(Tool)] needs named fields, one per argument: write `struct Name { field: Type }`",
                    );
                    return None;
                }
            },
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "#[derive(Tool)] works on a struct, not an enum: declare the tool as a struct with one named field per argument",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "#[derive(Tool)] works on a struct, not a union: declare the tool as a struct with one named field per argument",
                );
                return None;
            }
        };
        // A field typed with one of the struct's own type parameters is part of one mistake,
        // the generic struct, reported once (by `check`).
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
                let ident = field.ident.as_ref()?;
                Some(Field {
                    ident,
                    ty: &field.ty,
                    arg_type: if is_type_param(&field.ty) {
                        None
                    } else {
                        arg_type(cx, &field.ty)
                    },
                    doc: doc_text(&field.attrs),
                    attrs: parse_arg_attrs(cx, &field.attrs),
                })
            })
            .collect();
        Some(Input {
            original,
            doc,
            attrs,
            fields,
        })
    }
}

fn arg_type(cx: &mut Ctxt, ty: &Type) -> Option<ArgType> {
    let found = match last_segment(ty) {
        Some((ident, None)) => Base::from_ident(ident).map(|base| ArgType {
            base,
            optional: false,
        }),
        Some((ident, Some(inner))) if ident == "Option" => match last_segment(inner) {
            Some((inner, None)) => Base::from_ident(inner).map(|base| ArgType {
                base,
                optional: true,
            }),
            _ => None,
        },
        _ => None,
    };
    if found.is_none() {
        cx.error_spanned_by(
            ty,
            format!("unsupported argument type; an argument is a {SUPPORTED_TYPES}"),
        );
    }
    found
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
