//! The notebook, served over stdio to the client that starts it.

#[tokio::main]
async fn main() -> Result<(), toolkit::ServeError> {
    adopter::server()
        .serve_stdio(adopter::Notebook::default())
        .await
}
