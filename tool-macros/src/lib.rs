//! The compile-time half of `toolkit`: `#[derive(Tool)]`; `#[derive(Args)]` for object
//! arguments (the module [`args`]), which shares the tool's argument checks and code, and for
//! unions on an enum ([`union`]); and
//! `#[derive(Choice)]` for string arguments with a fixed set of values ([`choice`]).
//!
//! The derive runs in four stages, one module each, with a typed hand-off between them:
//! [`ast`] reads the struct and its attributes ([`attr`]) into a raw model, [`check`] turns that
//! into a checked [`model`] (reporting every mistake at once through [`ctxt`]), and [`expand`]
//! writes the code. Each rule on an argument's value is a module of [`rule`]. Users read the
//! vocabulary in the framework guide, `docs/framework.md`.

#![forbid(unsafe_code)]

mod args;
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
mod union;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Declares an object argument: a struct whose fields take `#[arg(...)]` as a tool's do, or
/// on an enum a union of several shapes; the guide is `docs/framework.md`.
#[proc_macro_derive(Args, attributes(arg, args, tool))]
pub fn derive_args(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    args::derive(&input).into()
}

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
