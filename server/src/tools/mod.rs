//! The server's tools, one module each, and what they share: the one list of them
//! ([`toolbox`]), and the entities their ids name
//! (declared once, with the tools that list valid ids).

mod authors_search;
mod movies_get;
mod movies_search;
mod reviews_delete;
mod reviews_list;
mod reviews_write;

use std::collections::HashMap;

use toolkit::{Entity, Exists, Labels, ToolError, Toolbox};
use uuid::Uuid;

pub use authors_search::AuthorsSearch;
pub use movies_get::MoviesGet;
pub use movies_search::MoviesSearch;
pub use reviews_delete::ReviewsDelete;
pub use reviews_list::ReviewsList;
pub use reviews_write::ReviewsWrite;

use crate::model::{Author, Movie, Review};
use store::{ReviewRow, Store};

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

/// How a `Validation Failed` message names an argument: capitalised (`MovieId`,
/// `IncludeReviews`), as the tools' contract (docs/tools.md) has it.
pub const LABELS: Labels = Labels::Capitalised;

/// The one list of the server's tools, in the order the server's instructions name them
/// (`tools/list` is in name order): a new tool is a module and a line here, with its question on
/// the store and its tests.
pub fn toolbox() -> Toolbox<Store> {
    Toolbox::new()
        .labels(LABELS)
        .tool::<MoviesSearch>()
        .tool::<AuthorsSearch>()
        .tool::<MoviesGet>()
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
        let declared = toolbox().specs();
        for spec in declared.iter() {
            let needed = if spec.hints.read_only {
                "reviews.read"
            } else {
                "reviews.write"
            };
            assert_eq!(spec.scope, Some(needed), "{}", spec.name);
        }
        assert_eq!(declared.scopes(), ["reviews.read", "reviews.write"]);
    }

    #[test]
    fn the_tools_a_not_found_answer_names_are_the_servers() {
        let declared = toolbox().specs();
        let listers = [Movie::LISTED_BY, Author::LISTED_BY, Review::LISTED_BY];
        for name in listers.concat() {
            assert!(declared.get(name).is_some(), "no tool is named {name}");
        }
    }

    #[test]
    fn every_tool_says_what_it_lets_a_model_do() {
        for spec in toolbox().specs().iter() {
            assert!(spec.ability.is_some(), "{} declares no ability", spec.name);
        }
    }
}
