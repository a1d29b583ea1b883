//! A small filesystem served over MCP, with no database. `cargo run -p toolkit --example files
//! -- DIR` serves the directory DIR over stdio, to the one client that starts it; with
//! `--http 127.0.0.1:8080` after DIR, it serves it over Streamable HTTP at
//! `http://127.0.0.1:8080/mcp` instead, to clients on this machine. Its tools are modelled on the
//! reference MCP filesystem server's, and every path they take stays inside DIR: `..` and
//! symbolic links that lead out are refused.
//!
//! It shows the framework on its own: each tool is one annotated struct (`tools/`), the paths
//! are checked in one place (`sandbox.rs`), and `server.rs` declares the server: its name and
//! what it tells a model, over the toolbox. Logs go to stderr; stdout carries only MCP messages.

mod sandbox;
mod server;
mod tools;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use toolkit::http::HttpSettings;

use crate::sandbox::Sandbox;

const USAGE: &str = "usage: files DIR [--http ADDR]\n\nServes the directory DIR over MCP on \
                     stdin and stdout, or over HTTP at http://ADDR/mcp.";

#[tokio::main]
async fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let (directory, http) = match arguments.as_slice() {
        [directory] => (PathBuf::from(directory), None),
        [directory, flag, address] if flag == "--http" => match address.parse::<SocketAddr>() {
            Ok(address) => (PathBuf::from(directory), Some(address)),
            Err(error) => {
                eprintln!("files: --http {address}: {error}\n\n{USAGE}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let sandbox = match Sandbox::new(&directory) {
        Ok(sandbox) => sandbox,
        Err(error) => {
            eprintln!("files: cannot serve {}: {error}", directory.display());
            return ExitCode::FAILURE;
        }
    };
    let served = match http {
        None => server::files().serve_stdio(sandbox).await,
        // On a loopback address no token is needed: only this machine's clients can reach it.
        Some(address) => {
            let settings = HttpSettings::default();
            server::files().serve_http(sandbox, address, settings).await
        }
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("files: {error}");
            ExitCode::FAILURE
        }
    }
}
