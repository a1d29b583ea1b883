//! Where a load puts each row: movies in title order and authors in name order, each with its
//! rank, and reviews in review order (movie rank, author rank, id) with each movie's and
//! author's counts. The ranks must be those the schema's triggers (rule 7 of
//! `migrations/sqlite`) give rows written by hand (equal keys share a rank, neighbours are
//! [`RANK_STEP`] apart), so that a loaded database and one written to by hand order alike.

use std::collections::HashMap;

use uuid::Uuid;

use super::{NewAuthor, NewMovie, NewReview, StoreError};
use crate::fold;

/// How far apart a load puts the ranks of neighbouring titles and names, as the schema that
/// ranks them does: room for at least 32 titles added by hand between two neighbours before the
/// triggers rank them all afresh.
pub(super) const RANK_STEP: i64 = 1 << 32;

/// How many reviews a movie or an author has, and their stars added up.
#[derive(Default)]
pub(super) struct Counts {
    pub(super) reviews: u64,
    pub(super) stars: u64,
}

/// A movie with its folded title, its rank in title order and its counts.
pub(super) struct RankedMovie<'a> {
    pub(super) movie: &'a NewMovie,
    pub(super) title_folded: String,
    pub(super) rank: i64,
    pub(super) counts: Counts,
}

/// An author with their folded names, their rank in name order and their counts.
pub(super) struct RankedAuthor<'a> {
    pub(super) author: &'a NewAuthor,
    pub(super) last_folded: String,
    pub(super) first_folded: String,
    pub(super) rank: i64,
    pub(super) counts: Counts,
}

impl RankedAuthor<'_> {
    /// The name order: last name, then first name, each ignoring case then exact.
    fn name_key(&self) -> (&str, &str, &str, &str) {
        (
            &self.last_folded,
            &self.author.last_name,
            &self.first_folded,
            &self.author.first_name,
        )
    }
}

/// A review with its place in review order, and its movie and author as indexes into the
/// ranked movies and authors. The ranks are copied here, so that sorting five million reviews
/// compares values side by side instead of following two indexes per comparison.
pub(super) struct PlacedReview {
    pub(super) movie_rank: i64,
    pub(super) author_rank: i64,
    pub(super) id: Uuid,
    pub(super) stars: u8,
    pub(super) movie: usize,
    pub(super) author: usize,
}

/// The movies in title order (ignoring case, then exact, then id), ranked. Rust compares
/// strings byte by byte, as SQLite's BINARY collation does, and UUIDs as their 16 bytes.
pub(super) fn movies_in_order(movies: &[NewMovie]) -> Vec<RankedMovie<'_>> {
    let mut ranked: Vec<RankedMovie<'_>> = movies
        .iter()
        .map(|movie| RankedMovie {
            movie,
            title_folded: fold(&movie.title),
            rank: 0,
            counts: Counts::default(),
        })
        .collect();
    ranked.sort_unstable_by(|a, b| {
        (&a.title_folded, &a.movie.title, a.movie.id).cmp(&(
            &b.title_folded,
            &b.movie.title,
            b.movie.id,
        ))
    });
    let ranks = ranks(&ranked, |movie| {
        (movie.title_folded.as_str(), movie.movie.title.as_str())
    });
    for (movie, rank) in ranked.iter_mut().zip(ranks) {
        movie.rank = rank;
    }
    ranked
}

/// The authors in name order (see [`RankedAuthor::name_key`], then id), ranked.
pub(super) fn authors_in_order(authors: &[NewAuthor]) -> Vec<RankedAuthor<'_>> {
    let mut ranked: Vec<RankedAuthor<'_>> = authors
        .iter()
        .map(|author| RankedAuthor {
            author,
            last_folded: fold(&author.last_name),
            first_folded: fold(&author.first_name),
            rank: 0,
            counts: Counts::default(),
        })
        .collect();
    ranked.sort_unstable_by(|a, b| (a.name_key(), a.author.id).cmp(&(b.name_key(), b.author.id)));
    let ranks = ranks(&ranked, RankedAuthor::name_key);
    for (author, rank) in ranked.iter_mut().zip(ranks) {
        author.rank = rank;
    }
    ranked
}

/// The ranks of rows already in order: equal keys share a rank, and each new key's is
/// `RANK_STEP` past the one before, from `RANK_STEP` on.
fn ranks<'a, T, K: PartialEq>(rows: &'a [T], key: impl Fn(&'a T) -> K) -> Vec<i64> {
    let mut rank = 0;
    let mut previous = None;
    rows.iter()
        .map(|row| {
            let key = key(row);
            if previous.as_ref() != Some(&key) {
                rank += RANK_STEP;
                previous = Some(key);
            }
            rank
        })
        .collect()
}

/// The reviews in review order (movie rank, author rank, id), each counted on its movie and
/// its author; a review of a movie or by an author not in the set is refused.
pub(super) fn reviews_in_order(
    reviews: &[NewReview],
    movies: &mut [RankedMovie<'_>],
    authors: &mut [RankedAuthor<'_>],
) -> Result<Vec<PlacedReview>, StoreError> {
    let movie_at: HashMap<Uuid, usize> = movies
        .iter()
        .enumerate()
        .map(|(at, ranked)| (ranked.movie.id, at))
        .collect();
    let author_at: HashMap<Uuid, usize> = authors
        .iter()
        .enumerate()
        .map(|(at, ranked)| (ranked.author.id, at))
        .collect();
    let mut placed = Vec::with_capacity(reviews.len());
    for review in reviews {
        let (Some(&movie), Some(&author)) = (
            movie_at.get(&review.movie_id),
            author_at.get(&review.author_id),
        ) else {
            return Err(StoreError::Orphan(review.id));
        };
        for counts in [&mut movies[movie].counts, &mut authors[author].counts] {
            counts.reviews += 1;
            counts.stars += u64::from(review.stars);
        }
        placed.push(PlacedReview {
            movie_rank: movies[movie].rank,
            author_rank: authors[author].rank,
            id: review.id,
            stars: review.stars,
            movie,
            author,
        });
    }
    placed.sort_unstable_by_key(|review| (review.movie_rank, review.author_rank, review.id));
    Ok(placed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn movie(title: &str, id: u128) -> NewMovie {
        NewMovie {
            id: Uuid::from_u128(id),
            title: title.to_owned(),
        }
    }

    fn author(first: &str, last: &str, id: u128) -> NewAuthor {
        NewAuthor {
            id: Uuid::from_u128(id),
            first_name: first.to_owned(),
            last_name: last.to_owned(),
        }
    }

    #[test]
    fn equal_keys_share_a_rank_and_new_keys_step_on() {
        let ranked = ranks(&["a", "a", "b", "c", "c"], |key| *key);
        let step = RANK_STEP;
        assert_eq!(ranked, [step, step, 2 * step, 3 * step, 3 * step]);
    }

    #[test]
    fn movies_go_by_title_ignoring_case_then_exact_then_id() {
        let movies = [
            movie("beta", 1),
            movie("Alpha", 2),
            movie("alpha", 3),
            movie("Alpha", 0),
            movie("Écume", 4),
        ];
        let ranked = movies_in_order(&movies);
        let order: Vec<(&str, u128, i64)> = ranked
            .iter()
            .map(|ranked| {
                (
                    ranked.movie.title.as_str(),
                    ranked.movie.id.as_u128(),
                    ranked.rank,
                )
            })
            .collect();
        let step = RANK_STEP;
        assert_eq!(
            order,
            [
                ("Alpha", 0, step),
                ("Alpha", 2, step),
                ("alpha", 3, 2 * step),
                ("beta", 1, 3 * step),
                ("Écume", 4, 4 * step),
            ]
        );
    }

    #[test]
    fn authors_go_by_last_name_then_first_name() {
        let authors = [
            author("Zoë", "Ångström", 1),
            author("Ada", "Lovelace", 2),
            author("Ada", "Byron", 3),
            author("ada", "Lovelace", 4),
        ];
        let ranked = authors_in_order(&authors);
        let order: Vec<u128> = ranked
            .iter()
            .map(|ranked| ranked.author.id.as_u128())
            .collect();
        assert_eq!(order, [3, 2, 4, 1]);
    }

    #[test]
    fn reviews_go_in_review_order_and_are_counted_on_their_movie_and_author() {
        let movies = [movie("b", 1), movie("a", 2)];
        let authors = [author("x", "y", 10), author("x", "a", 11)];
        let mut ranked_movies = movies_in_order(&movies);
        let mut ranked_authors = authors_in_order(&authors);
        let review = |id: u128, movie: u128, author: u128, stars: u8| NewReview {
            id: Uuid::from_u128(id),
            movie_id: Uuid::from_u128(movie),
            author_id: Uuid::from_u128(author),
            stars,
        };
        let reviews = [
            review(100, 1, 11, 5),
            review(101, 2, 10, 3),
            review(102, 2, 11, 4),
        ];
        let placed = reviews_in_order(&reviews, &mut ranked_movies, &mut ranked_authors).unwrap();
        let order: Vec<u128> = placed.iter().map(|placed| placed.id.as_u128()).collect();
        assert_eq!(
            order,
            [102, 101, 100],
            "movie a before b; author a before y"
        );
        let counts: Vec<(u64, u64)> = ranked_movies
            .iter()
            .map(|movie| (movie.counts.reviews, movie.counts.stars))
            .collect();
        assert_eq!(counts, [(2, 7), (1, 5)]);
        let orphan = [review(103, 9, 10, 1)];
        assert!(matches!(
            reviews_in_order(&orphan, &mut ranked_movies, &mut ranked_authors),
            Err(StoreError::Orphan(id)) if id == Uuid::from_u128(103)
        ));
    }
}
