//! The compile-time half of `toolkit`: `#[derive(Tool)]`, and `#[derive(Choice)]` for the
//! string arguments with a fixed set of values (the module [`choice`]).
//!
//! The derive runs in four stages, one module each, with a typed hand-off between them:
//! [`ast`] reads the struct and its attributes ([`attr`]) into a raw model, [`check`] turns that
//! into a checked [`model`] (reporting every mistake at once through [`ctxt`]), and [`expand`]
//! writes the code. Each rule on an argument's value is a module of [`rule`]. Users read the
//! vocabulary in the framework guide, `docs/framework.md`.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod case;
mod check;
mod choice;
mod ctxt;
mod expand;
mod model;
mod rule;
mod setting;
mod symbol;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Declares a string argument with a fixed set of values, one per unit variant; the guide is
/// `docs/framework.md`.
#[proc_macro_derive(Choice, attributes(choice))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    choice::derive(&input).into()
}

/// Declares an MCP tool; the attributes are in the framework guide, `docs/framework.md`.
#[proc_macro_derive(Tool, attributes(tool, arg))]
pub fn derive_tool(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}
