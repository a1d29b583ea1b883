//! Marks tests ignored, with the reason, where what they need is missing: the PostgreSQL tests
//! where PostgreSQL is not installed and CI does not require it (see `find_postgres`), and the
//! cross-check with the MCP Python SDK where no Python has its 2.x installed (`python3`, or the
//! interpreter `MOVIE_REVIEWS_PYTHON` names). The run's summary then counts them as ignored
//! instead of passed.

use std::process::Command;

fn main() {
    find_postgres::configure_build();
    println!("cargo::rustc-check-cfg=cfg(python_mcp_missing)");
    println!("cargo::rerun-if-env-changed=MOVIE_REVIEWS_PYTHON");
    if !python_sdk_installed() {
        println!("cargo::rustc-cfg=python_mcp_missing");
    }
}

/// Whether the Python the tests would run imports the MCP SDK, version 2.
fn python_sdk_installed() -> bool {
    let python = std::env::var("MOVIE_REVIEWS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let check = "import importlib.metadata as m, mcp; assert m.version('mcp').startswith('2.')";
    Command::new(python)
        .args(["-c", check])
        .output()
        .is_ok_and(|output| output.status.success())
}
