//! The movie-review MCP server, its tools declared with `toolkit`, served on stdio or over
//! Streamable HTTP, over SQLite or PostgreSQL.
//!
//! # Layout
//!
//! - [`commands`]: what each command does ([`commands::run`]), and opening the database.
//! - [`cli`]: the command line.
//! - [`stdio`] and [`http`]: the two transports; `http` checks tokens through [`auth`].
//! - [`serve`]: the server as a `toolkit::Server`, whose handler ([`serve::MovieReviews`]) the
//!   transports serve.
//! - [`tools`]: one module per tool, and the one list of them.
//! - [`model`]: what the tools return, as clients see it.
//! - the store is the crate `store`: the only code that knows SQL, and its backends.
//! - [`jsonrpc`]: one JSON-RPC message as either transport reads it, before rmcp does.
//! - [`demo`]: the deterministic demo data.

#![forbid(unsafe_code)]

pub mod auth;
pub mod bundle;
pub mod cli;
pub mod commands;
pub mod confirmations;
pub mod demo;
pub mod error;
pub mod http;
pub mod jsonrpc;
pub mod metrics;
pub mod model;
mod progress;
pub mod serve;
pub mod stdio;
pub mod tools;
