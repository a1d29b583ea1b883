//! Substring search over movie titles and author names, a page at a time, with the exact number
//! of matches. A term is matched with `LIKE '%term%'` on the folded text, its `\`, `%` and `_`
//! escaped so that every character is literal; the trigram index (`pg_trgm`) finds the
//! candidates of a term of three characters or more, and PostgreSQL walks the order's index
//! instead when that reads fewer rows. Browsing (no term) reads the kept total.

use sqlx::postgres::PgRow;
use sqlx::{AssertSqlSafe, FromRow, PgConnection};
use uuid::Uuid;

use super::super::{ReviewRow, Rows};
use super::rows::{self, REVIEW_COLUMNS};
use super::{PostgresStore, StoreError};

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

/// A row that has an id, whose reviews can be read with it.
pub(super) trait Identified {
    fn id(&self) -> Uuid;
}

/// Review order, for the reviews of several movies or authors at once.
pub(super) const REVIEW_ORDER: &str = "movie_title_folded, movie_title, author_last_name_folded, \
     author_last_name, author_first_name_folded, author_first_name, id";

impl PostgresStore {
    /// A page of the rows of `searched` whose folded text contains `term` (already trimmed and
    /// folded; `None`: every row) and, if asked for, every review of those rows in review
    /// order, all from one snapshot.
    pub(super) async fn search_with_reviews<T>(
        &self,
        searched: &'static Searched,
        term: Option<String>,
        offset: u32,
        limit: u32,
        with_reviews: bool,
    ) -> Result<(Rows<T>, Option<Vec<ReviewRow>>), StoreError>
    where
        T: for<'r> FromRow<'r, PgRow> + Identified + Send + Unpin,
    {
        // PostgreSQL's text holds no NUL, so no title or name contains one.
        if term.as_deref().is_some_and(|term| term.contains('\0')) {
            let nothing = Rows {
                items: Vec::new(),
                total: 0,
            };
            return Ok((nothing, with_reviews.then(Vec::new)));
        }
        self.read(async |connection| {
            let rows = search(connection, searched, term.as_deref(), offset, limit).await?;
            let reviews = if with_reviews {
                let ids: Vec<Uuid> = rows.items.iter().map(Identified::id).collect();
                Some(reviews_of(connection, searched.reviews_by, &ids).await?)
            } else {
                None
            };
            Ok((rows, reviews))
        })
        .await
    }
}

/// A page of the rows of `searched` whose text contains `term`, in order, and their number.
async fn search<T>(
    connection: &mut PgConnection,
    searched: &Searched,
    term: Option<&str>,
    offset: u32,
    limit: u32,
) -> Result<Rows<T>, sqlx::Error>
where
    T: for<'r> FromRow<'r, PgRow> + Send + Unpin,
{
    let Searched {
        table,
        columns,
        text,
        order,
        ..
    } = searched;
    let pattern = term.map(like_pattern);
    let (page, count) = match pattern {
        None => (
            format!("SELECT {columns} FROM {table} ORDER BY {order} LIMIT $1 OFFSET $2"),
            format!("SELECT {table} FROM totals"),
        ),
        Some(_) => (
            format!(
                "SELECT {columns} FROM {table} WHERE {text} LIKE $3 ESCAPE '\\' \
                 ORDER BY {order} LIMIT $1 OFFSET $2"
            ),
            format!("SELECT count(*) FROM {table} WHERE {text} LIKE $1 ESCAPE '\\'"),
        ),
    };
    let mut query = sqlx::query_as::<_, T>(AssertSqlSafe(page))
        .bind(i64::from(limit))
        .bind(i64::from(offset));
    if let Some(pattern) = &pattern {
        query = query.bind(pattern);
    }
    let items = query.fetch_all(&mut *connection).await?;
    let total = match Rows::<T>::total_from_page(offset, limit, items.len()) {
        Some(total) => total,
        None => {
            let mut count = sqlx::query_scalar::<_, i64>(AssertSqlSafe(count));
            if let Some(pattern) = &pattern {
                count = count.bind(pattern);
            }
            rows::count(count.fetch_one(&mut *connection).await?)?
        }
    };
    Ok(Rows { items, total })
}

/// Every review of the rows with these ids (`by`: the column of `reviews` that names them), in
/// review order.
async fn reviews_of(
    connection: &mut PgConnection,
    by: &str,
    ids: &[Uuid],
) -> Result<Vec<ReviewRow>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {REVIEW_COLUMNS} FROM reviews WHERE {by} = ANY($1) ORDER BY {REVIEW_ORDER}"
    );
    sqlx::query_as(AssertSqlSafe(sql))
        .bind(ids)
        .fetch_all(connection)
        .await
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
}
