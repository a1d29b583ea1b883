//! The MCP server: the file tools served as a `toolkit::Server`, against the served directory.

use toolkit::Server;

use crate::sandbox::Sandbox;
use crate::tools;

/// What the server tells a client it is for.
const INSTRUCTIONS: &str = "Files in one directory: read, write, edit, list, search, move and \
    inspect them. Every path is relative to the served directory (list_allowed_directories \
    names it) and must stay inside it.";

/// The server of the file tools, not yet given its directory.
pub fn files() -> Server<Sandbox> {
    Server::new("files", env!("CARGO_PKG_VERSION"))
        .title("Files")
        .instructions(INSTRUCTIONS)
        .toolbox(tools::toolbox())
}
