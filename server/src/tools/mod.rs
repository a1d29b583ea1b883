//! The six tools, one module each, and what they share: the entities their ids name (declared
//! once, with the tools that list valid ids) and the one call that assembles them.

mod authors_search;
mod movies_get;
mod movies_search;
mod reviews_delete;
mod reviews_list;
mod reviews_write;

use std::collections::HashMap;

use rmcp::handler::server::router::tool::ToolRouter;
use toolkit::{Entity, Exists, Selection, ToolError, ToolSpecs, Toolbox, ToolboxError};
use uuid::Uuid;

pub use authors_search::AuthorsSearch;
pub use movies_get::MoviesGet;
pub use movies_search::MoviesSearch;
pub use reviews_delete::ReviewsDelete;
pub use reviews_list::ReviewsList;
pub use reviews_write::ReviewsWrite;

use crate::model::{Author, Movie, Review};
use crate::store::{ReviewRow, Store};

impl Entity for Movie {
    const NAME: &'static str = "movie";
    const LISTED_BY: &'static [&'static str] = &["movies_search", "reviews_list"];
}

impl Entity for Author {
    const NAME: &'static str = "author";
    const LISTED_BY: &'static [&'static str] = &["authors_search", "reviews_list"];
}

impl Entity for Review {
    const NAME: &'static str = "review";
    const LISTED_BY: &'static [&'static str] = &["reviews_list"];
}

impl Exists<Movie> for Store {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(self.movie_exists(id).await?)
    }
}

impl Exists<Author> for Store {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(self.author_exists(id).await?)
    }
}

impl Exists<Review> for Store {
    async fn exists(&self, id: Uuid) -> Result<bool, ToolError> {
        Ok(self.review_exists(id).await?)
    }
}

/// The tools `selection` chooses, assembled once at start-up; every problem with the selection
/// (a name no tool has, say) is in the error.
pub fn router(selection: &Selection) -> Result<ToolRouter<Store>, ToolboxError> {
    toolbox().select(selection).build()
}

/// What each tool `selection` chooses declares, by name: the HTTP layer reads a tool's scope
/// here.
pub fn specs(selection: &Selection) -> ToolSpecs {
    toolbox().select(selection).specs()
}

/// The router and the specs of the tools `selection` chooses, from one assembly of them.
pub fn served(selection: &Selection) -> Result<(ToolRouter<Store>, ToolSpecs), ToolboxError> {
    let toolbox = toolbox().select(selection);
    let specs = toolbox.specs();
    Ok((toolbox.build()?, specs))
}

/// Each tool's name with the scope it declares (`None`: it declares none), in the toolbox's
/// order. Over HTTP with authentication on, the server refuses to start while one has none.
pub fn declared_scopes() -> Result<Vec<(String, Option<&'static str>)>, ToolboxError> {
    let every = Selection::default();
    let specs = specs(&every);
    Ok(router(&every)?
        .list_all()
        .into_iter()
        .map(|tool| {
            let scope = specs.get(&tool.name).and_then(|spec| spec.scope);
            (tool.name.into_owned(), scope)
        })
        .collect())
}

/// The one list of the server's tools.
fn toolbox() -> Toolbox<Store> {
    Toolbox::new()
        .tool::<MoviesSearch>()
        .tool::<MoviesGet>()
        .tool::<AuthorsSearch>()
        .tool::<ReviewsList>()
        .tool::<ReviewsWrite>()
        .tool::<ReviewsDelete>()
}

/// Sorts reviews (already in review order) under the id each belongs to, keeping their order.
fn group_reviews(
    reviews: Vec<ReviewRow>,
    key: impl Fn(&ReviewRow) -> Uuid,
) -> HashMap<Uuid, Vec<Review>> {
    let mut groups: HashMap<Uuid, Vec<Review>> = HashMap::new();
    for review in reviews {
        groups.entry(key(&review)).or_default().push(review.into());
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_needs_reviews_read_and_changing_needs_reviews_write() {
        let specs = specs(&Selection::default());
        let scope = |tool: &str| specs.get(tool).and_then(|spec| spec.scope);
        for tool in [
            "movies_search",
            "movies_get",
            "authors_search",
            "reviews_list",
        ] {
            assert_eq!(scope(tool), Some("reviews.read"), "{tool}");
        }
        for tool in ["reviews_write", "reviews_delete"] {
            assert_eq!(scope(tool), Some("reviews.write"), "{tool}");
        }
        assert_eq!(specs.scopes(), ["reviews.read", "reviews.write"]);
    }

    #[test]
    fn every_tool_declares_a_scope() {
        let declared = declared_scopes().unwrap();
        assert_eq!(declared.len(), 6);
        for (tool, scope) in declared {
            assert!(
                scope.is_some(),
                "{tool} declares no scope: any valid token could call it over HTTP"
            );
        }
    }
}
