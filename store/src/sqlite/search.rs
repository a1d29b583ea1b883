//! Substring search over movie titles and author names, a page at a time, with the exact number
//! of matches.
//!
//! A term of three characters or more is looked up in the table's trigram index (rule 4 of the
//! schema, `migrations/sqlite`) as an FTS5 phrase, which matches exactly the texts containing it. That count is
//! the costly part for a common term (FTS5 reads every position of its trigrams: up to a
//! microsecond per match), so counts are kept in [`MatchCounts`] for as long as the titles and
//! names do not change, which the tools never do.
//!
//! The page: a load inserts the rows in search order, so their rowids follow it, and the
//! trigram index yields its matches in rowid order; while no row has been added or changed
//! since (`totals.movies_in_order`, kept by triggers), the page is the index's matches from
//! the offset on, and reading it stops there. Otherwise the page is read one of two ways,
//! whichever reads fewer rows: a rare term's matches are fetched from the index and sorted
//! (cost grows with the matches), a common term's page is found by walking the order's index
//! and keeping the texts that contain the term (cost grows with the rows walked, about
//! rows × (offset + limit) / matches when matches are spread evenly). The walk is bounded to a
//! first part of the order, and sorts after all when the matches are not spread evenly. On a
//! million titles a common five-letter term has tens of thousands of matches; sorting them all
//! for a page of ten took 70 ms.
//!
//! A shorter term, which no trigram index can serve, and a term with a NUL character, which
//! FTS5 reads as the end of its query, are found by walking every row. Browsing (no term) reads
//! the kept total.

use std::sync::Arc;

use rusqlite::Connection;
use uuid::Uuid;

use super::reviews::{ReviewsOf, reviews_of};
use super::{
    ReviewRow, Rows, SqliteStore, StoreError, TableRow, page_sql, read_number, read_page, read_rows,
};
use crate::match_counts::{KeptCount, MatchCounts, walk_window};

/// A table that can be searched.
pub(super) struct Searched {
    /// The table.
    pub table: &'static str,
    /// The folded text a term must be inside, made from columns of the order's index, so that
    /// walking the order reads only the index.
    pub text: &'static str,
    /// Its trigram index.
    pub index: &'static str,
    /// Its column in `totals`.
    pub total: &'static str,
    /// Its column in `totals` that says whether its rowids follow its order.
    pub in_order: &'static str,
    /// Its order.
    pub order: &'static str,
    /// The order's first column: the rows up to a value of it are a first part of the order.
    pub leading: &'static str,
    /// Which reviews belong to its rows.
    pub reviews_of: ReviewsOf,
}

/// The most rows (offset plus limit) a search may page through on the caller's thread: paging
/// through the index's matches costs about a microsecond a row.
const BOUNDED_ROWS: u32 = 500;

/// How far a search may go where it is made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Only as far as its page: a search that would count every match or walk the rows stops
    /// short (`None`), to be made apart.
    Page,
    /// As far as it needs.
    All,
}

/// A page of a search, and the reviews of its rows when they were asked for.
type Found<T> = (Rows<T>, Option<Vec<ReviewRow>>);

/// What one search asks for: a term (lowercase and trimmed; `None` to browse), a page, and
/// whether to read the reviews of the page's rows too.
struct Wanted {
    term: Option<String>,
    offset: u32,
    limit: u32,
    with_reviews: bool,
}

impl SqliteStore {
    /// A page of the rows of `searched` whose text contains `term` (see [`search`]) and, if
    /// asked for, every review of those rows in review order, read with the page so that they
    /// agree with its review counts.
    ///
    /// A page near the start is first searched on this thread, as far as its page only
    /// ([`Reach::Page`]); a search that must count its matches or walk the rows stops short
    /// there, having read one row of `totals`, and is made on a blocking thread, since its cost
    /// grows with the data.
    pub(super) async fn search_with_reviews<T: TableRow + Send + 'static>(
        &self,
        searched: &'static Searched,
        term: Option<String>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<Found<T>, StoreError> {
        let counts = Arc::clone(&self.match_counts);
        let wanted = Wanted {
            term,
            offset,
            limit,
            with_reviews,
        };
        if offset.saturating_add(limit) <= BOUNDED_ROWS {
            let found = self
                .read(|connection| search_page(connection, searched, &counts, &wanted, Reach::Page))
                .await?;
            if let Some(found) = found {
                return Ok(found);
            }
        }
        let found = self
            .read_apart(move |connection| {
                search_page(connection, searched, &counts, &wanted, Reach::All)
            })
            .await?;
        // `Reach::All` never stops short.
        found.ok_or_else(|| StoreError::failed("a search stopped short of its page"))
    }
}

/// A page of the search `wanted`, with its rows' reviews if asked for, in the caller's read
/// transaction; `None` when the search stops short of its `reach`.
fn search_page<T: TableRow>(
    connection: &Connection,
    searched: &Searched,
    counts: &MatchCounts,
    wanted: &Wanted,
    reach: Reach,
) -> rusqlite::Result<Option<Found<T>>> {
    let Wanted {
        ref term,
        offset,
        limit,
        with_reviews,
    } = *wanted;
    let term = term.as_deref();
    let Some(rows) = search::<T>(connection, searched, counts, term, offset, limit, reach)? else {
        return Ok(None);
    };
    let reviews = if with_reviews {
        let ids: Vec<Uuid> = rows.items.iter().map(TableRow::id).collect();
        Some(reviews_of(connection, searched.reviews_of, &ids)?)
    } else {
        None
    };
    Ok(Some((rows, reviews)))
}

/// Roughly how much more it costs to fetch and sort one match than to walk past one row: the
/// walk reads only the order's index, which holds the text.
const SORT_OVER_WALK: f64 = 5.0;

/// A page of the rows of `searched` whose text contains `query` (lowercase and trimmed; `None`
/// to browse), in order. Called inside a read transaction, so the count and the page see the
/// same rows.
///
/// With [`Reach::Page`] it stops short (`None`) rather than count a term's matches or walk the
/// rows: what is left costs no more than the page, browsing (a kept total, then the order) and
/// a term whose count is kept in a table whose rowids follow its order (the index's matches).
fn search<T: TableRow>(
    connection: &Connection,
    searched: &Searched,
    counts: &MatchCounts,
    query: Option<&str>,
    offset: u32,
    limit: u32,
    reach: Reach,
) -> rusqlite::Result<Option<Rows<T>>> {
    let stops_short = reach == Reach::Page;
    let Searched {
        table,
        text,
        index,
        total,
        in_order,
        order,
        leading,
        reviews_of: _,
    } = searched;
    let Some(term) = query else {
        let count = || read_number(connection, &format!("SELECT {total} FROM totals"), []);
        let sql = page_sql::<T>(table, order);
        let values = (None::<&str>, None::<i64>);
        return read_page(connection, &sql, values, offset, limit, count).map(Some);
    };
    let walk = format!("{table} WHERE instr({text}, ?1) > 0");
    if term.chars().count() < 3 || term.contains('\0') {
        if stops_short {
            return Ok(None);
        }
        let count = || read_number(connection, &format!("SELECT COUNT(*) FROM {walk}"), [term]);
        let sql = page_sql::<T>(&walk, order);
        return read_page(connection, &sql, (term, None::<i64>), offset, limit, count).map(Some);
    }

    let (rows, catalogue, rows_in_order): (i64, i64, bool) = connection
        .prepare_cached(&format!(
            "SELECT {total}, catalogue, {in_order} FROM totals"
        ))?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
    let phrase = fts_phrase(term);
    let matches = match counts.get(table, term, catalogue) {
        Some(matches) => matches,
        None if stops_short => return Ok(None),
        None => {
            let sql = format!("SELECT COUNT(*) FROM {index} WHERE {index} MATCH ?1");
            let matches = read_number(connection, &sql, [&phrase])?;
            let kept = KeptCount {
                catalogue,
                matches,
                rows: u64::try_from(rows).unwrap_or_default(),
                first: None,
            };
            counts.keep(table, term, kept);
            matches
        }
    };
    if matches == 0 {
        return Ok(Some(Rows {
            items: Vec::new(),
            total: matches,
        }));
    }
    if rows_in_order {
        // The index yields matches in rowid order, which is the table's order: the page is
        // the index's matches from the offset on, and the index stops there.
        let sql = format!(
            "SELECT {columns} FROM {table}
             WHERE rowid IN (SELECT rowid FROM {index} WHERE {index} MATCH ?1
                             ORDER BY rowid LIMIT ?3 OFFSET ?4)
             ORDER BY {order}",
            columns = T::COLUMNS
        );
        let items = read_rows(connection, &sql, (&phrase, None::<i64>, limit, offset))?;
        return Ok(Some(Rows {
            items,
            total: matches,
        }));
    }
    if stops_short {
        return Ok(None);
    }
    let table_rows = u64::try_from(rows).unwrap_or_default();
    if let Some(window) = walk_window(table_rows, matches, offset, limit, SORT_OVER_WALK) {
        // The walk is bounded to the rows up to the window's last leading key: a first part
        // of the order, whose first matches are the first of all.
        let window = i64::try_from(window).unwrap_or(i64::MAX);
        let everything = window >= rows;
        let items: Vec<T> = if everything {
            read_rows(
                connection,
                &page_sql::<T>(&walk, order),
                (term, None::<i64>, limit, offset),
            )?
        } else {
            let bounded = format!(
                "{table} WHERE {leading} <= (SELECT {leading} FROM {table} ORDER BY {order}
                                             LIMIT 1 OFFSET ?2)
                          AND instr({text}, ?1) > 0"
            );
            read_rows(
                connection,
                &page_sql::<T>(&bounded, order),
                (term, window, limit, offset),
            )?
        };
        if items.len() == limit as usize || everything {
            return Ok(Some(Rows {
                items,
                total: matches,
            }));
        }
    }
    let from = format!("{table} WHERE rowid IN (SELECT rowid FROM {index} WHERE {index} MATCH ?1)");
    let sql = page_sql::<T>(&from, order);
    let items = read_rows(connection, &sql, (&phrase, None::<i64>, limit, offset))?;
    Ok(Some(Rows {
        items,
        total: matches,
    }))
}

/// An FTS5 query for `term` taken literally: one phrase, in double quotes, with any double
/// quote inside doubled. Every other character is literal inside a phrase.
fn fts_phrase(term: &str) -> String {
    format!("\"{}\"", term.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_phrases_take_the_term_literally() {
        assert_eq!(fts_phrase("abc"), "\"abc\"");
        assert_eq!(fts_phrase("a \"b\" OR c*"), "\"a \"\"b\"\" OR c*\"");
    }
}
