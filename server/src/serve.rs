//! The movie-review MCP server as a `toolkit::Server`: its name, title and version, what it
//! tells a model beyond its tools' abilities and cautions, and its tools. The transports
//! (`stdio`, `http`) serve the [`MovieReviews`] handler it builds, with the rate limits the
//! command line chose.

use store::Store;
use toolkit::{Handler, Server, Toolbox, ToolboxError};

use crate::cli::RateLimitSetting;
use crate::kept_results::KeptResults;
use crate::tools;

/// The handler the transports serve: the server's tools on its store.
pub type MovieReviews = Handler<Store>;

/// What a model is told between what the tools let it do and their cautions.
const GUIDANCE: &str = "Ids come from the search and list tools. Lists come a page at a time: \
                        pass a page's nextOffset as offset to get the next.";

/// The movie-review server of the tools of `toolbox`.
pub fn server(toolbox: Toolbox<Store>) -> Server<Store> {
    Server::new("movie-reviews-mcp", env!("CARGO_PKG_VERSION"))
        .title("Movie reviews")
        .guidance(GUIDANCE)
        .toolbox(toolbox)
}

/// The server of every tool on `store`, with the toolkit's default settings and no rate
/// limit: what tests and in-process clients serve, calling as often as they like.
pub fn every_tool(store: Store) -> Result<MovieReviews, ToolboxError> {
    let unlimited = RateLimitSetting {
        tool: None,
        limit: None,
    };
    let server = server(rate_limited(tools::toolbox(), &[unlimited]));
    on_store(server, &store).build(store)
}

/// `server` keeping the results of calls made with an idempotency key in `store`'s database,
/// which every replica on it shares.
pub fn on_store(server: Server<Store>, store: &Store) -> Server<Store> {
    server.idempotency_store(KeptResults(store.clone()))
}

/// `toolbox` with the rate limits of the command line in place of its tools' own: first those
/// for every tool, then those for one.
pub fn rate_limited(toolbox: Toolbox<Store>, settings: &[RateLimitSetting]) -> Toolbox<Store> {
    let every = settings.iter().filter(|setting| setting.tool.is_none());
    let names: Vec<&'static str> = toolbox.specs().iter().map(|spec| spec.name).collect();
    let mut toolbox = toolbox;
    for setting in every {
        for name in &names {
            toolbox = toolbox.rate_limit_for(name, setting.limit);
        }
    }
    for setting in settings {
        if let Some(tool) = &setting.tool {
            toolbox = toolbox.rate_limit_for(tool, setting.limit);
        }
    }
    toolbox
}

#[cfg(test)]
mod tests {
    use toolkit::Selection;

    use super::*;

    /// The contract's six tools, by name, so that the text below holds whatever tools are
    /// added.
    fn the_six() -> Selection {
        let names = [
            "movies_search",
            "authors_search",
            "movies_get",
            "reviews_list",
            "reviews_write",
            "reviews_delete",
        ];
        Selection {
            read_only: false,
            names: Some(names.map(str::to_owned).to_vec()),
        }
    }

    #[test]
    fn the_instructions_name_only_the_tools_served() {
        let six = server(tools::toolbox()).select(&the_six());
        assert_eq!(
            six.describe(),
            "Movie reviews: search movies (movies_search), search authors (authors_search), \
             read a movie with all its reviews (movies_get), list reviews (reviews_list), write \
             a review or change its stars (reviews_write), and delete a review (reviews_delete). \
             Ids come from the search and list tools. Lists come a page at a time: pass a page's \
             nextOffset as offset to get the next. Deleting is permanent: confirm with the user \
             first."
        );
        let names = vec!["movies_search".to_owned(), "movies_get".to_owned()];
        let selection = Selection {
            read_only: false,
            names: Some(names),
        };
        let reading = server(tools::toolbox()).select(&selection).describe();
        assert!(reading.starts_with(
            "Movie reviews: search movies (movies_search) and read a movie with all its reviews \
             (movies_get). "
        ));
        assert!(!reading.contains("reviews_delete") && !reading.contains("Deleting"));
    }
}
