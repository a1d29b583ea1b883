//! A small filesystem served over MCP, with no database: `cargo run -p toolkit --example files
//! -- DIR` serves the directory DIR over stdio, to one client. Its tools are modelled on the
//! reference MCP filesystem server's, and every path they take stays inside DIR: `..` and
//! symbolic links that lead out are refused.
//!
//! It shows the framework on its own: each tool is one annotated struct (`tools/`), the paths
//! are checked in one place (`sandbox.rs`), and `server.rs` declares the server: its name and
//! what it tells a model, over the toolbox. Logs go to stderr; stdout carries only MCP messages.

mod sandbox;
mod server;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use rmcp::ServiceExt;

use crate::sandbox::Sandbox;

#[tokio::main]
async fn main() -> ExitCode {
    let Some(directory) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: files DIR\n\nServes the directory DIR over MCP on stdin and stdout.");
        return ExitCode::from(2);
    };
    let sandbox = match Sandbox::new(&directory) {
        Ok(sandbox) => sandbox,
        Err(error) => {
            eprintln!("files: cannot serve {}: {error}", directory.display());
            return ExitCode::FAILURE;
        }
    };
    let server = match server::serving(sandbox) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("files: {error}");
            return ExitCode::FAILURE;
        }
    };
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(error) => {
            eprintln!("files: the client did not initialize: {error}");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("files: {error}");
            ExitCode::FAILURE
        }
    }
}
