//! What both backends' schemas name alike: the columns each row type is read from, in its
//! fields' order, and the orders movies and authors are listed in (invariant 4 on
//! [`Store`](crate::Store)). Each backend's SQL selects and sorts with these, so the two cannot
//! drift apart. Reviews are ordered differently on each (SQLite by ranks, PostgreSQL by the
//! copied texts), so each backend writes its own review order.

/// The columns a [`MovieRow`](crate::MovieRow) is read from.
pub(crate) const MOVIE_COLUMNS: &str = "id, title, review_count, star_total";

/// The columns an [`AuthorRow`](crate::AuthorRow) is read from.
pub(crate) const AUTHOR_COLUMNS: &str = "id, first_name, last_name, review_count, star_total";

/// The columns a [`ReviewRow`](crate::ReviewRow) is read from: a review carries its movie's
/// title and its author's names.
pub(crate) const REVIEW_COLUMNS: &str =
    "id, stars, movie_id, movie_title, author_id, author_first_name, author_last_name";

/// Title order: ignoring case, then exact, then id.
pub(crate) const MOVIE_ORDER: &str = "title_folded, title, id";

/// Name order: last name, then first name (each ignoring case, then exact), then id.
pub(crate) const AUTHOR_ORDER: &str =
    "last_name_folded, last_name, first_name_folded, first_name, id";
