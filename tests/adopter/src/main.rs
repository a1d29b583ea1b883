//! The notebook, served over stdio to the client that starts it; or, with `--http ADDR`, over
//! Streamable HTTP at `http://ADDR/mcp` to callers with a token of `NOTEBOOK_TOKENS` (one
//! `sha256:<hex> scope,scope` entry per line, as `StaticTokens::mint` makes them).

use toolkit::auth::StaticTokens;
use toolkit::http::HttpSettings;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let notebook = adopter::Notebook::default();
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match arguments.as_slice() {
        [] => adopter::server().serve_stdio(notebook).await?,
        [flag, address] if flag == "--http" => {
            let entries = std::env::var("NOTEBOOK_TOKENS")
                .map_err(|_| "--http needs the tokens' entries in NOTEBOOK_TOKENS")?;
            let tokens = StaticTokens::parse(&entries, "NOTEBOOK_TOKENS")?;
            let settings = HttpSettings::default().authenticate(tokens);
            let address = address.parse()?;
            adopter::server()
                .serve_http(notebook, address, settings)
                .await?;
        }
        _ => return Err("usage: adopter [--http ADDR]".into()),
    }
    Ok(())
}
