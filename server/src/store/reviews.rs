//! The `reviews` table: pages in review order (movie title, author last name, first name, id),
//! the reviews of a set of movies or authors, and writes.

use sqlx::{FromRow, QueryBuilder, Sqlite, Transaction};
use uuid::Uuid;

use super::{Rows, Store, StoreError, count, page_bounds};

/// A review with its movie's title and its author's names.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct ReviewRow {
    pub id: Uuid,
    pub stars: i64,
    pub movie_id: Uuid,
    pub movie_title: String,
    pub author_id: Uuid,
    pub author_first_name: String,
    pub author_last_name: String,
}

/// A review to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReview {
    pub id: Uuid,
    pub movie_id: Uuid,
    pub author_id: Uuid,
    pub stars: i64,
}

/// Which reviews a page lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReviewFilter {
    pub movie_id: Option<Uuid>,
    pub author_id: Option<Uuid>,
}

#[derive(FromRow)]
struct CountedReviewRow {
    #[sqlx(flatten)]
    review: ReviewRow,
    total: i64,
}

/// The columns of a [`ReviewRow`], from `reviews r` joined to `movies m` and `authors a`.
const REVIEW_COLUMNS: &str = "r.id, r.stars, r.movie_id, m.title AS movie_title, r.author_id,
     a.first_name AS author_first_name, a.last_name AS author_last_name";

const REVIEW_JOINS: &str = "FROM reviews r
     JOIN movies m ON m.id = r.movie_id
     JOIN authors a ON a.id = r.author_id";

/// Review order: movie title, then author last name, then first name (each ignoring case, then
/// exact), then id.
const REVIEW_ORDER: &str = "ORDER BY m.title_folded, m.title, a.last_name_folded, a.last_name,
     a.first_name_folded, a.first_name, r.id";

impl Store {
    /// A page of reviews, filtered by movie and/or author, in review order.
    pub async fn list_reviews(
        &self,
        filter: ReviewFilter,
        offset: u32,
        limit: u32,
    ) -> Result<Rows<ReviewRow>, StoreError> {
        let (offset, limit) = page_bounds(offset, limit);
        let sql = format!(
            "SELECT {REVIEW_COLUMNS}, COUNT(*) OVER () AS total {REVIEW_JOINS}
             WHERE (?1 IS NULL OR r.movie_id = ?1) AND (?2 IS NULL OR r.author_id = ?2)
             {REVIEW_ORDER} LIMIT ?3 OFFSET ?4"
        );
        let rows: Vec<CountedReviewRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(filter.movie_id)
            .bind(filter.author_id)
            .bind(limit)
            .bind(offset)
            .fetch_all(&self.pool)
            .await?;
        let total = match rows.first() {
            Some(row) => count(row.total),
            None => count(
                sqlx::query_scalar(
                    "SELECT COUNT(*) FROM reviews
                     WHERE (?1 IS NULL OR movie_id = ?1) AND (?2 IS NULL OR author_id = ?2)",
                )
                .bind(filter.movie_id)
                .bind(filter.author_id)
                .fetch_one(&self.pool)
                .await?,
            ),
        };
        Ok(Rows {
            items: rows.into_iter().map(|row| row.review).collect(),
            total,
        })
    }

    /// The review with this id, if there is one.
    pub async fn review(&self, id: Uuid) -> Result<Option<ReviewRow>, StoreError> {
        let sql = format!("SELECT {REVIEW_COLUMNS} {REVIEW_JOINS} WHERE r.id = ?1");
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Whether a review has this id.
    pub async fn review_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM reviews WHERE id = ?1)")
            .bind(id)
            .fetch_one(&self.pool)
            .await
    }

    /// Every review of these movies, in review order.
    pub async fn reviews_of_movies(&self, ids: &[Uuid]) -> Result<Vec<ReviewRow>, StoreError> {
        self.reviews_where_in("r.movie_id", ids).await
    }

    /// Every review by these authors, in review order.
    pub async fn reviews_by_authors(&self, ids: &[Uuid]) -> Result<Vec<ReviewRow>, StoreError> {
        self.reviews_where_in("r.author_id", ids).await
    }

    async fn reviews_where_in(
        &self,
        column: &'static str,
        ids: &[Uuid],
    ) -> Result<Vec<ReviewRow>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = QueryBuilder::<Sqlite>::new(format!(
            "SELECT {REVIEW_COLUMNS} {REVIEW_JOINS} WHERE {column} IN ("
        ));
        let mut list = query.separated(", ");
        for id in ids {
            list.push_bind(*id);
        }
        query.push(") ");
        query.push(REVIEW_ORDER);
        query.build_query_as().fetch_all(&self.pool).await
    }

    /// Saves a new review and returns it as saved.
    pub async fn create_review(&self, review: &NewReview) -> Result<ReviewRow, StoreError> {
        let mut transaction = self.pool.begin().await?;
        insert(&mut transaction, review).await?;
        transaction.commit().await?;
        self.review(review.id).await?.ok_or(StoreError::RowNotFound)
    }

    /// Changes a review's stars; `None` when no review has this id.
    pub async fn set_review_stars(
        &self,
        id: Uuid,
        stars: i64,
    ) -> Result<Option<ReviewRow>, StoreError> {
        let changed = sqlx::query("UPDATE reviews SET stars = ?2 WHERE id = ?1")
            .bind(id)
            .bind(stars)
            .execute(&self.pool)
            .await?
            .rows_affected();
        if changed == 0 {
            return Ok(None);
        }
        self.review(id).await
    }

    /// Deletes a review; false when no review has this id.
    pub async fn delete_review(&self, id: Uuid) -> Result<bool, StoreError> {
        let deleted = sqlx::query("DELETE FROM reviews WHERE id = ?1")
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        Ok(deleted > 0)
    }
}

pub(super) async fn insert(
    transaction: &mut Transaction<'_, Sqlite>,
    review: &NewReview,
) -> Result<(), StoreError> {
    sqlx::query("INSERT INTO reviews (id, movie_id, author_id, stars) VALUES (?1, ?2, ?3, ?4)")
        .bind(review.id)
        .bind(review.movie_id)
        .bind(review.author_id)
        .bind(review.stars)
        .execute(&mut **transaction)
        .await?;
    Ok(())
}
