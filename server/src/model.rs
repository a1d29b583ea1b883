//! What the tools return: pages of movies, authors and reviews, as clients see them (camelCase,
//! ids as lowercase hyphenated UUIDs). Each type's doc comments are its output schema's
//! descriptions. Rows from the store become these here, at the tool boundary.

use schemars::JsonSchema;
use serde::Serialize;
use uuid::Uuid;

use store::{AuthorRow, MovieRow, ReviewRow, Rows};

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The results on this page.
    pub items: Vec<T>,
    /// The number of results across every page.
    pub total_count: u64,
    /// Pass it as offset to get the next page. Left out on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
}

impl<T> Page<T> {
    /// The page that starts at `offset`: `nextOffset` is where the next one starts, if any.
    pub fn new(items: Vec<T>, total_count: u64, offset: u32) -> Page<T> {
        let next = u64::from(offset) + items.len() as u64;
        Page {
            items,
            total_count,
            next_offset: (next < total_count).then_some(next),
        }
    }

    /// Builds a page from a page of store rows.
    pub fn from_rows<R>(rows: Rows<R>, offset: u32, convert: impl FnMut(R) -> T) -> Page<T> {
        Page::new(
            rows.items.into_iter().map(convert).collect(),
            rows.total,
            offset,
        )
    }
}

/// A movie.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Movie {
    /// The movie's id.
    pub id: Uuid,
    /// The movie's title.
    pub title: String,
    /// How many reviews the movie has.
    pub review_count: u64,
    /// The average rating to one decimal place. Left out when there are no reviews.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_stars: Option<f64>,
    /// Every review of the movie. Only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviews: Option<Vec<Review>>,
}

impl Movie {
    pub fn from_row(row: MovieRow, reviews: Option<Vec<Review>>) -> Movie {
        Movie {
            id: row.id,
            title: row.title,
            review_count: row.review_count,
            average_stars: average_stars(row.review_count, row.star_total),
            reviews,
        }
    }
}

/// An author.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Author {
    /// The author's id.
    pub id: Uuid,
    /// The author's full name.
    pub name: String,
    /// How many reviews the author has written.
    pub review_count: u64,
    /// The average rating they give. Left out when there are no reviews.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_stars: Option<f64>,
    /// Every review by the author. Only when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviews: Option<Vec<Review>>,
}

impl Author {
    pub fn from_row(row: AuthorRow, reviews: Option<Vec<Review>>) -> Author {
        Author {
            id: row.id,
            name: full_name(&row.first_name, &row.last_name),
            review_count: row.review_count,
            average_stars: average_stars(row.review_count, row.star_total),
            reviews,
        }
    }
}

/// A review.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// The review's id.
    pub id: Uuid,
    /// The rating, from 1 to 5.
    #[schemars(range(min = 1, max = 5))]
    pub stars: u8,
    /// The movie's id.
    pub movie_id: Uuid,
    /// The movie's title.
    pub movie_title: String,
    /// The author's id.
    pub author_id: Uuid,
    /// The author's full name.
    pub author_name: String,
}

impl From<ReviewRow> for Review {
    fn from(row: ReviewRow) -> Review {
        Review {
            id: row.id,
            stars: row.stars,
            movie_id: row.movie_id,
            movie_title: row.movie_title,
            author_id: row.author_id,
            author_name: full_name(&row.author_first_name, &row.author_last_name),
        }
    }
}

/// The outcome of deleting a review.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deleted {
    /// The deleted review's id.
    pub review_id: Uuid,
    /// Always true: the review is gone.
    pub deleted: bool,
}

/// "First Last".
pub fn full_name(first: &str, last: &str) -> String {
    format!("{first} {last}")
}

/// The mean of the stars to one decimal place, half away from zero (3.25 → 3.3, 10/3 → 3.3);
/// `None` without reviews. Computed in integers so no midpoint is lost to binary floats.
pub fn average_stars(review_count: u64, star_total: u64) -> Option<f64> {
    if review_count == 0 {
        return None;
    }
    // Stars are positive, so half away from zero is half up: floor(10·total/count + 1/2).
    let tenths = (20 * star_total + review_count) / (2 * review_count);
    Some(tenths as f64 / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages_round_half_away_from_zero() {
        assert_eq!(average_stars(0, 0), None);
        assert_eq!(average_stars(1, 1), Some(1.0));
        assert_eq!(average_stars(3, 10), Some(3.3));
        assert_eq!(average_stars(4, 13), Some(3.3)); // 3.25
        assert_eq!(average_stars(4, 11), Some(2.8)); // 2.75
        assert_eq!(average_stars(3, 11), Some(3.7)); // 3.666…
        assert_eq!(average_stars(20, 49), Some(2.5)); // 2.45
        assert_eq!(average_stars(2, 9), Some(4.5));
    }

    #[test]
    fn next_offset_is_left_out_on_the_last_page() {
        let page = Page::new(vec![1, 2], 5, 0);
        assert_eq!(page.next_offset, Some(2));
        let last = Page::new(vec![5], 5, 4);
        assert_eq!(last.next_offset, None);
        let past_the_end: Page<u8> = Page::new(vec![], 5, 9);
        assert_eq!(past_the_end.next_offset, None);
    }
}
