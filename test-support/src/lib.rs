//! What the tests share, and only the tests (the packages with tests of the server take it as a
//! dev-dependency):
//!
//! - [`binary`]: the built server, found and run as a command to its end; with
//!   [`stdio_server`] (it serving MCP over stdio), [`session`] (an initialized stdio session)
//!   and [`http_server`] (it serving over HTTP, its clients and tokens);
//! - [`output_schemas`]: a validator for each tool's output schema, to check every answer;
//! - [`jwt`]: signing keys, JWTs and a JWKS provider;
//! - [`postgres_cluster`]: a throwaway PostgreSQL server, started once per test process.
//!
//! The items of `binary`, `stdio_server`, `session` and `http_server` are also at the crate's
//! root, as the tests of the binary name them.

#![forbid(unsafe_code)]

pub mod binary;
pub mod http_server;
pub mod jwt;
pub mod output_schemas;
pub mod postgres_cluster;
pub mod session;
pub mod stdio_server;

pub use binary::*;
pub use http_server::{
    HttpServer, bearer, http_client, http_command, mint, raw_connection, read_answer,
};
pub use session::{Session, structured, unexpected_reference};
pub use stdio_server::Server;
