//! The movie-review MCP server, its tools declared with `toolkit`, served on stdio or over
//! Streamable HTTP, over SQLite or PostgreSQL.
//!
//! # Layout
//!
//! - [`commands`]: what each command does ([`commands::run`]), and opening the database.
//! - [`cli`]: the command line.
//! - [`http`]: serving over HTTP as the command line says: its options as the toolkit's
//!   settings, tokens and JWTs, readiness and metrics. Both transports are the toolkit's
//!   (`toolkit::http`, `toolkit::stdio`).
//! - [`serve`]: the server as a `toolkit::Server`, whose handler ([`serve::MovieReviews`]) the
//!   transports serve.
//! - [`tools`]: one module per tool, and the one list of them.
//! - [`logs`]: how a text log line shows a call's span.
//! - [`model`]: what the tools return, as clients see it.
//! - the store is the crate `store`: the only code that knows SQL, and its backends.
//! - [`demo`]: the deterministic demo data.

#![forbid(unsafe_code)]

pub mod bundle;
pub mod cli;
pub mod commands;
pub mod confirmations;
pub mod demo;
pub mod error;
pub mod http;
pub mod kept_results;
pub mod logs;
pub mod metrics;
pub mod model;
mod progress;
pub mod serve;
pub mod tools;
