//! Substring search over movie titles and author names, a page at a time, with the exact number
//! of matches.
//!
//! A term of three characters or more is looked up in the table's trigram index (see the
//! migrations) as an FTS5 phrase, which matches exactly the texts containing it. That count is
//! read first. Then the page is read one of two ways, whichever reads fewer rows: a rare term's
//! matches are fetched from the index and sorted (cost grows with the matches), a common term's
//! page is found by walking the table in order and keeping the texts that contain the term
//! (cost grows with the rows walked, about rows × (offset + limit) / matches when matches are
//! spread evenly; the walk is bounded, and sorts after all when they are not). On a million
//! titles a common five-letter term has tens of thousands of matches; sorting them all for a
//! page of ten took 70 ms.
//!
//! A shorter term, which no trigram index can serve, and a term with a NUL character, which
//! FTS5 reads as the end of its query, are found by walking every row. Browsing (no term) reads
//! the kept total.

use rusqlite::Connection;

use super::{Rows, TableRow, page_sql, read_number, read_page, read_rows};

/// A table that can be searched: its name, its folded text column, its trigram index, its
/// column in `totals` and its order.
pub(super) struct Searched {
    pub table: &'static str,
    pub column: &'static str,
    pub index: &'static str,
    pub total: &'static str,
    pub order: &'static str,
}

/// Roughly how much more it costs to fetch and sort one match than to walk past one row.
const SORT_OVER_WALK: f64 = 5.0;

/// How many times the rows a walk is expected to need it may walk before giving up.
const WINDOW_OVER_ESTIMATE: f64 = 4.0;

/// The fewest rows a walk may walk.
const MIN_WINDOW: f64 = 64.0;

/// A page of the rows of `searched` whose text contains `query` (lowercase and trimmed; `None`
/// to browse), in order. Called inside a read transaction, so the count and the page see the
/// same rows.
pub(super) fn search<T: TableRow>(
    connection: &Connection,
    searched: &Searched,
    query: Option<&str>,
    offset: u32,
    limit: u32,
) -> rusqlite::Result<Rows<T>> {
    let Searched {
        table,
        column,
        index,
        total,
        order,
    } = searched;
    let Some(term) = query else {
        let count = || read_number(connection, &format!("SELECT {total} FROM totals"), []);
        let sql = page_sql::<T>(table, order);
        return read_page(
            connection,
            &sql,
            (None::<&str>, None::<i64>),
            offset,
            limit,
            count,
        );
    };
    let walk = format!("{table} WHERE instr({column}, ?1) > 0");
    if term.chars().count() < 3 || term.contains('\0') {
        let count = || read_number(connection, &format!("SELECT COUNT(*) FROM {walk}"), [term]);
        let sql = page_sql::<T>(&walk, order);
        return read_page(connection, &sql, (term, None::<i64>), offset, limit, count);
    }

    let phrase = fts_phrase(term);
    let (matches, rows): (i64, i64) = connection
        .prepare_cached(&format!(
            "SELECT (SELECT COUNT(*) FROM {index} WHERE {index} MATCH ?1), {total} FROM totals"
        ))?
        .query_row([&phrase], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let total = u64::try_from(matches).unwrap_or(0);
    let sorted_cost = matches as f64 * SORT_OVER_WALK;
    let walked_cost = (f64::from(offset) + f64::from(limit)) * rows as f64 / matches.max(1) as f64;
    if walked_cost < sorted_cost {
        // Matches are not spread evenly (a common word that starts titles gathers them in one
        // part of the order), so the walk is bounded; when its window ends before the page is
        // full, the matches are sorted after all.
        let window = (walked_cost * WINDOW_OVER_ESTIMATE).max(MIN_WINDOW) as i64;
        let window_rows = format!(
            "(SELECT * FROM {table} ORDER BY {order} LIMIT ?2) WHERE instr({column}, ?1) > 0"
        );
        let sql = page_sql::<T>(&window_rows, order);
        let items: Vec<T> = read_rows(connection, &sql, (term, window, limit, offset))?;
        if items.len() == limit as usize || window >= rows {
            return Ok(Rows { items, total });
        }
    }
    let from = format!("{table} WHERE rowid IN (SELECT rowid FROM {index} WHERE {index} MATCH ?1)");
    let sql = page_sql::<T>(&from, order);
    let items = read_rows(connection, &sql, (&phrase, None::<i64>, limit, offset))?;
    Ok(Rows { items, total })
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
