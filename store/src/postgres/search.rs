//! Substring search over movie titles and author names, a page at a time, with the exact number
//! of matches. A term of three characters or more is matched with `LIKE '%term%'` on the folded
//! text, its `\`, `%` and `_` escaped so that every character is literal, and the trigram index
//! (`pg_trgm`) finds its matches; a shorter term has no trigram, and is looked for with
//! `strpos` in every row. Browsing (no term) walks the order's index and reads the kept total.
//!
//! The page is found one of two ways, chosen here rather than by PostgreSQL's planner, which
//! cannot know that a common word starting titles gathers its matches at one end of the order
//! (walking the order for them read the whole table): every match is fetched and the page
//! sorted out of them (the cost grows with the matches), or, for a term that the count kept
//! for it (`match_counts`) says is common, a part of the order is walked for the page, and the
//! matches are fetched and sorted after all only when that part did not hold enough of them
//! ([`walk_window`]). The walk starts at the term's first match when a search has seen it, and
//! the catalogue has not changed since: sorted text gathers a term's matches in runs (every
//! title that starts with it, every name of one family), and a walk from the start of the
//! order would pass every row before the first run.
//!
//! The page, its total and its reviews are one statement, so they come from one snapshot
//! without a transaction's two extra round trips. Counting a common term's matches is the
//! costly part (on a million titles, 130 ms for a term in a fifth of them), so the total is
//! counted only when neither the page tells it (a page neither full nor past the end is the
//! last one) nor the count kept for the term is of the catalogue's version the statement sees:
//! PostgreSQL evaluates a `CASE` branch only when it is taken, and runs a CTE only when its
//! rows are asked for.

use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, Row as _};
use uuid::Uuid;

use super::rows::{count_at, prefixed, review_at};
use super::{PostgresStore, StoreError};
use crate::columns::REVIEW_COLUMNS;
use crate::match_counts::{KeptCount, walk_window};
use crate::{ReviewRow, Rows};

/// A table that can be searched.
pub(super) struct Searched {
    pub table: &'static str,
    /// The columns of its row type.
    pub columns: &'static str,
    /// The folded text a term must be inside.
    pub text: &'static str,
    /// Its order.
    pub order: &'static str,
    /// The column of `reviews` that names a row of it.
    pub reviews_by: &'static str,
}

/// A row that search pages hold, read from its `columns` starting at a given column.
pub(super) trait PageRow: Sized {
    /// The row in the columns from `first` on; `None` when they are NULL, as a `LEFT JOIN`
    /// leaves them when the page is empty.
    fn at(row: &PgRow, first: usize) -> Result<Option<Self>, sqlx::Error>;
    /// How many columns it is read from.
    const WIDTH: usize;
    fn id(&self) -> Uuid;
}

/// Roughly how much more it costs to fetch and sort one match than to walk past one row. On a
/// million titles loaded in title order, a walk takes about 0.7 µs a row (it reads each row
/// from the table as well as from the index), and fetching matches spread through the table
/// from the trigram index's bitmap and sorting them about 1.6 µs a match.
const SORT_OVER_WALK: f64 = 2.0;

/// Review order, for every list of reviews that is not one movie's or one author's.
pub(super) const REVIEW_ORDER: &str = "movie_title_folded, movie_title, author_last_name_folded, \
     author_last_name, author_first_name_folded, author_first_name, id";

impl PostgresStore {
    /// A page of the rows of `searched` whose folded text contains `term` (already trimmed and
    /// folded; `None`: every row) and, if asked for, every review of those rows, each row's in
    /// review order, all from one snapshot.
    pub(super) async fn search_with_reviews<T: PageRow>(
        &self,
        searched: &'static Searched,
        term: Option<String>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<T>, Option<Vec<ReviewRow>>), StoreError> {
        // PostgreSQL's text holds no NUL, so no title or name contains one.
        if term.as_deref().is_some_and(|term| term.contains('\0')) {
            let nothing = Rows {
                items: Vec::new(),
                total: 0,
            };
            return Ok((nothing, with_reviews.then(Vec::new)));
        }
        let Searched {
            table,
            columns,
            text,
            order,
            reviews_by,
        } = searched;
        let (review_columns, reviews_join, reviews_order) = if with_reviews {
            (
                format!(", {}", prefixed("r", REVIEW_COLUMNS)),
                format!("LEFT JOIN reviews r ON r.{reviews_by} = p.id"),
                format!(", {}", prefixed("r", REVIEW_ORDER)),
            )
        } else {
            Default::default()
        };
        // What the statement binds as $3 for a term, and how it asks whether a text holds it.
        let containment = term.as_deref().map(|term| containment(text, term));
        let (matches, page, count) = match &containment {
            // Browsing: the page is a walk of the order's index; the total is kept.
            None => (
                String::new(),
                format!("SELECT * FROM {table} ORDER BY {order} LIMIT $1 OFFSET $2"),
                format!("SELECT {table} FROM totals"),
            ),
            // A term binds its value as $3, the count kept for it as $5, counted in the
            // version $4 of the catalogue (NULL when none is kept), how many rows of the order
            // to walk as $6 (0: none), and the first match seen in that version as $7 (NULL:
            // none, and the walk starts at the beginning). `matches` is read only when the walk
            // did not fill the page or the count is needed: PostgreSQL runs a CTE as its rows
            // are asked for, and skips a branch whose one-time filter is false.
            Some((_, contains)) => (
                format!("matches AS MATERIALIZED (SELECT * FROM {table} WHERE {contains}),"),
                format!(
                    "WITH start AS (
                         SELECT {order} FROM {table}
                         WHERE id = $7 AND (SELECT catalogue FROM totals) = $4),
                     walked AS MATERIALIZED (
                         SELECT * FROM (
                             SELECT * FROM {table} WHERE ({order}) >= ({start})
                             ORDER BY {order} LIMIT $6) first_part
                         WHERE {contains} ORDER BY {order} LIMIT $1 + $2),
                     walked_enough AS (SELECT count(*) = $1 + $2 AS yes FROM walked)
                     (SELECT * FROM walked WHERE (SELECT yes FROM walked_enough)
                      ORDER BY {order} OFFSET $2)
                     UNION ALL
                     (SELECT * FROM matches WHERE NOT (SELECT yes FROM walked_enough)
                      ORDER BY {order} LIMIT $1 OFFSET $2)",
                    start = start_key(order),
                ),
                "CASE WHEN (SELECT catalogue FROM totals) = $4 THEN $5 \
                 ELSE (SELECT count(*) FROM matches) END"
                    .to_owned(),
            ),
        };
        let sql = format!(
            "WITH {matches}
             page AS ({page}),
             shown AS (SELECT count(*) AS rows FROM page)
             SELECT (SELECT CASE WHEN rows < $1 AND (rows > 0 OR $2 = 0) THEN $2 + rows
                                 ELSE ({count}) END FROM shown),
                    (SELECT catalogue FROM totals), (SELECT {table} FROM totals),
                    {page_columns}{review_columns}
             FROM (SELECT 1) one LEFT JOIN page p ON TRUE {reviews_join}
             ORDER BY {page_order}{reviews_order}",
            page_columns = prefixed("p", columns),
            page_order = prefixed("p", order),
        );
        let mut query = sqlx::query(AssertSqlSafe(sql))
            .bind(i64::from(limit))
            .bind(i64::from(offset));
        let kept = term
            .as_deref()
            .and_then(|term| self.match_counts.kept(table, term));
        if let Some((value, _)) = containment {
            let window = kept.and_then(|kept| {
                walk_window(kept.rows, kept.matches, offset, limit, SORT_OVER_WALK)
            });
            query = query
                .bind(value)
                .bind(kept.map(|kept| kept.catalogue))
                .bind(kept.and_then(|kept| i64::try_from(kept.matches).ok()))
                .bind(window.map_or(0, |window| i64::try_from(window).unwrap_or(i64::MAX)))
                .bind(kept.and_then(|kept| kept.first));
        }
        let rows = self.fetch_all(query).await?;
        let mut page = Rows {
            items: Vec::new(),
            total: 0,
        };
        let mut reviews = Vec::new();
        let (mut catalogue, mut table_rows) = (0, 0);
        for row in &rows {
            page.total = count_at(row, 0)?;
            catalogue = row.try_get(1)?;
            table_rows = count_at(row, 2)?;
            // A row of the page comes back once per review of it (once if it has none), one
            // after the other; an empty page, as one row with the total alone.
            if let Some(item) = T::at(row, 3)?
                && page
                    .items
                    .last()
                    .is_none_or(|last: &T| last.id() != item.id())
            {
                page.items.push(item);
            }
            if with_reviews && let Some(review) = review_at(row, 3 + T::WIDTH)? {
                reviews.push(review);
            }
        }
        if let Some(term) = &term
            && Rows::<T>::total_from_page(offset, limit, page.items.len()).is_none()
        {
            // A first page's first row is the first match; a later page keeps the one seen.
            let first = if offset == 0 {
                page.items.first().map(T::id)
            } else {
                kept.filter(|kept| kept.catalogue == catalogue)
                    .and_then(|kept| kept.first)
            };
            let kept = KeptCount {
                catalogue,
                matches: page.total,
                rows: table_rows,
                first,
            };
            self.match_counts.keep(table, term, kept);
        }
        Ok((page, with_reviews.then_some(reviews)))
    }
}

/// Where a walk of `order` (its columns, the last of them `id`) starts: at the row `start`
/// holds, or, when it holds none, before every row (`''` comes before every text, and the nil
/// uuid before every id).
fn start_key(order: &str) -> String {
    order
        .split(", ")
        .map(|column| {
            let before_every = if column == "id" {
                "'00000000-0000-0000-0000-000000000000'::uuid"
            } else {
                "''"
            };
            format!("coalesce((SELECT {column} FROM start), {before_every})")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value a search binds for `term`, and the condition, on the column `text`, that holds
/// when the text contains it. A term of three characters or more is a `LIKE` pattern, which the
/// trigram index serves; a shorter one has no trigram, and is looked for in every row.
fn containment(text: &str, term: &str) -> (String, String) {
    if term.chars().count() < 3 {
        (term.to_owned(), format!("strpos({text}, $3) > 0"))
    } else {
        (like_pattern(term), format!("{text} LIKE $3 ESCAPE '\\'"))
    }
}

/// A `LIKE` pattern that matches the texts containing `term`, every character of it taken
/// literally (with `ESCAPE '\'`).
fn like_pattern(term: &str) -> String {
    let mut pattern = String::with_capacity(term.len() + 2);
    pattern.push('%');
    for character in term.chars() {
        if matches!(character, '\\' | '%' | '_') {
            pattern.push('\\');
        }
        pattern.push(character);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_patterns_take_the_term_literally() {
        assert_eq!(like_pattern("abc"), "%abc%");
        assert_eq!(like_pattern(r"50%_a\b"), r"%50\%\_a\\b%");
        assert_eq!(like_pattern("it's \"x\""), "%it's \"x\"%");
    }

    #[test]
    fn a_walk_starts_at_the_kept_row_or_before_every_row() {
        assert_eq!(
            start_key("title_folded, id"),
            "coalesce((SELECT title_folded FROM start), ''), \
             coalesce((SELECT id FROM start), '00000000-0000-0000-0000-000000000000'::uuid)"
        );
    }

    #[test]
    fn terms_too_short_for_a_trigram_are_looked_for_as_they_are() {
        let (value, condition) = containment("title_folded", "a%");
        assert_eq!(
            (value.as_str(), condition.as_str()),
            ("a%", "strpos(title_folded, $3) > 0")
        );
        let (value, condition) = containment("title_folded", "a%b");
        assert_eq!(value, r"%a\%b%");
        assert_eq!(condition, r"title_folded LIKE $3 ESCAPE '\'");
    }
}
