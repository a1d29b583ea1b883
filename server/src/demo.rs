//! The deterministic demo data set: the same seed gives the same ids and values on every
//! machine and every release, because the generator is a fixed algorithm (SplitMix64) over
//! fixed word lists, not a library whose output may change.
//!
//! Titles take the shapes film titles take ("The Silent River", "Summer in Lisbon", "Night of
//! the Wolf"), so that everyday words such as "the", "night" or "love" find movies; authors have
//! first and last names; reviews have 1 to 5 stars. So that every promise of the tools shows in
//! the data, the set also holds accented titles and names, remakes (a title twice), two authors
//! with one name, titles that differ only in case or in `_`/`%`, movies and authors without
//! reviews, and averages that land exactly on a .x5 midpoint.

use uuid::Uuid;

use store::{NewAuthor, NewMovie, NewReview};

/// How big a data set to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub movies: usize,
    pub authors: usize,
    pub reviews: usize,
}

impl Size {
    /// The demo set a new database gets: several pages for every tool.
    pub const DEMO: Size = Size {
        movies: 200,
        authors: 50,
        reviews: 1000,
    };
}

/// The seed of the demo set.
pub const DEMO_SEED: u64 = 2026;

/// A generated data set.
#[derive(Debug, Clone, PartialEq)]
pub struct DataSet {
    pub movies: Vec<NewMovie>,
    pub authors: Vec<NewAuthor>,
    pub reviews: Vec<NewReview>,
}

/// Words film titles are made of. Everyday words ("the", "night", "love") find movies.
const ADJECTIVES: &[&str] = &[
    "Silent",
    "Last",
    "Broken",
    "Golden",
    "Lost",
    "Hidden",
    "Dark",
    "Wild",
    "Quiet",
    "Burning",
    "Frozen",
    "Secret",
    "Little",
    "Long",
    "Crimson",
    "Distant",
    "Final",
    "Eternal",
    "Forgotten",
    "Endless",
    "Hollow",
    "Savage",
    "Gentle",
    "Restless",
    "Bitter",
    "Sweet",
    "Electric",
    "Velvet",
    "Scarlet",
    "Lonely",
    "Northern",
    "Blue",
    "Second",
    "Invisible",
    "Perfect",
    "Strange",
    "Beautiful",
    "Green",
    "Midnight",
    "Summer",
];

const NOUNS: &[&str] = &[
    "Night",
    "Love",
    "River",
    "Summer",
    "Winter",
    "Heart",
    "Road",
    "City",
    "Garden",
    "Shadow",
    "Storm",
    "Dream",
    "Kingdom",
    "Mirror",
    "Island",
    "Station",
    "Letter",
    "Song",
    "Witness",
    "Stranger",
    "Promise",
    "Harvest",
    "Horizon",
    "Journey",
    "Empire",
    "Sky",
    "Sea",
    "Fire",
    "Moon",
    "Dance",
    "Wolf",
    "House",
    "Border",
    "Silence",
    "Rain",
    "Morning",
    "Bridge",
    "Crown",
    "Ghost",
    "Thunder",
    "Memory",
    "Voyage",
    "Desert",
    "Lighthouse",
    "Orchard",
    "Tide",
];

const PLACES: &[&str] = &[
    "Paris",
    "Lisbon",
    "Tokyo",
    "Harlem",
    "Marrakesh",
    "Vienna",
    "Havana",
    "Brooklyn",
    "Berlin",
    "Istanbul",
    "Naples",
    "Montreal",
    "Seoul",
    "Cairo",
    "Dublin",
    "Lagos",
    "Mumbai",
    "Oslo",
    "Santiago",
    "Prague",
];

/// Openings of titles that end in a place.
const TO_PLACES: &[&str] = &[
    "Return to",
    "Letters from",
    "Last Train to",
    "Escape from",
    "Midnight in",
    "Love in",
    "A Summer in",
];

/// Who a "Return of the River King" returns as, and what they rule.
const RULERS: &[&str] = &["King", "Queen", "Prince", "Witch", "Thief", "Hunter"];
const REALMS: &[&str] = &[
    "River", "Moon", "Wolf", "Storm", "Shadow", "Sea", "Desert", "Fire", "Thunder", "Winter",
    "Mountain", "Forest", "Dragon", "Snow",
];

/// A title in one of the shapes film titles take, from the word lists.
///
/// The three-word shapes ("The Silent River of Lisbon", "Night of the Burning Wolf") give the
/// large sets many distinct titles, about one for every ten movies of a million. A movie's
/// reviews are read as a range of the reviews of every movie with its title, so a title shared
/// by hundreds would make the benchmark's `movies_get` measure something no real catalogue does.
fn film_title(rng: &mut SplitMix64) -> String {
    let adjective = *rng.pick(ADJECTIVES);
    let noun = rng.below(NOUNS.len());
    let other = rng.below(NOUNS.len());
    let place = *rng.pick(PLACES);
    // "The Summer Summer", "Fire and Fire": a word is not said twice; the next noun stands in.
    let next = |index: usize| (index + 1) % NOUNS.len();
    let noun = if NOUNS[noun] == adjective || noun == other {
        next(noun)
    } else {
        noun
    };
    let other = if NOUNS[other] == adjective || other == noun {
        next(other)
    } else {
        other
    };
    let (noun, other) = (NOUNS[noun], NOUNS[other]);
    match rng.below(10) {
        0 | 1 => format!("The {adjective} {noun}"),
        2 => format!("{adjective} {noun}"),
        3 => format!("{noun} of the {other}"),
        4 => format!("{noun} in {place}"),
        5 => format!("{} {place}", *rng.pick(TO_PLACES)),
        6 => format!("{noun} and {other}"),
        7 => format!("The {adjective} {noun} of {place}"),
        8 => format!("{noun} of the {adjective} {other}"),
        _ => format!("Return of the {} {}", *rng.pick(REALMS), *rng.pick(RULERS)),
    }
}

const FIRST_NAMES: &[&str] = &[
    "Ada", "Alan", "Amara", "Bea", "Carlos", "Chen", "Dana", "Dmitri", "Elena", "Farah", "Grace",
    "Hiro", "Ines", "Jonas", "Kemi", "Lars", "Lena", "Malik", "Mei", "Nadia", "Omar", "Priya",
    "Quinn", "Rosa", "Sam", "Tomas", "Uma", "Viktor", "Wen", "Yara",
];

const LAST_NAMES: &[&str] = &[
    "Adeyemi", "Anderson", "Bauer", "Castillo", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad",
    "Ito", "Jackson", "Jensen", "Johnson", "Kowalski", "Larsen", "Moreau", "Nakamura", "Nilsson",
    "Okafor", "Peterson", "Petrov", "Quispe", "Robinson", "Rossi", "Santos", "Tanaka", "Thompson",
    "Ueda", "Varga", "Weber", "Wilson", "Xu", "Yilmaz", "Zhang",
];

/// Titles every demo set starts with, each showing one promise: accents (É, Ü, ï), a title that
/// differs from another only in case, and titles with `_` and `%` that LIKE would misread.
const SPECIAL_TITLES: &[&str] = &[
    "Été indien",
    "Über den Wolken",
    "Naïve Hearts",
    "The Silent River",
    "The silent river",
    "Paris_Nights",
    "Paris%Nights",
    "Paris Nights",
];

/// Authors every demo set starts with: accented names, and two authors who share a name.
const SPECIAL_AUTHORS: &[(&str, &str)] = &[
    ("Zoë", "Ångström"),
    ("José", "Núñez"),
    ("Émile", "Zola"),
    ("Sam", "Rossi"),
    ("Sam", "Rossi"),
];

/// Stars given to the first movies and authors so that their averages land exactly on a
/// midpoint: 13/4 = 3.25 shows as 3.3, 11/4 = 2.75 as 2.8, 10/3 as 3.3.
const MIDPOINT_STARS: &[&[u8]] = &[&[3, 3, 3, 4], &[2, 3, 3, 3], &[3, 3, 4]];

/// One movie in this many, and one author in this many, gets no reviews at all.
const UNREVIEWED_EVERY: usize = 8;

/// Makes a data set of `size` from `seed`.
pub fn generate(size: Size, seed: u64) -> DataSet {
    let mut rng = SplitMix64(seed);

    let mut movies: Vec<NewMovie> = Vec::with_capacity(size.movies);
    for index in 0..size.movies {
        let title = match SPECIAL_TITLES.get(index) {
            Some(title) => (*title).to_owned(),
            // Every tenth movie after the specials is a remake of an earlier one.
            None if index.is_multiple_of(10) => movies[rng.below(index)].title.clone(),
            None => film_title(&mut rng),
        };
        movies.push(NewMovie {
            id: rng.uuid(),
            title,
        });
    }

    let authors: Vec<NewAuthor> = (0..size.authors)
        .map(|index| {
            let (first, last) = SPECIAL_AUTHORS
                .get(index)
                .copied()
                .unwrap_or_else(|| (*rng.pick(FIRST_NAMES), *rng.pick(LAST_NAMES)));
            NewAuthor {
                id: rng.uuid(),
                first_name: first.to_owned(),
                last_name: last.to_owned(),
            }
        })
        .collect();

    let reviews = generate_reviews(&mut rng, &movies, &authors, size.reviews);
    DataSet {
        movies,
        authors,
        reviews,
    }
}

/// Reviews: first the midpoint sets (movie i and author i get `MIDPOINT_STARS[i]`, reviewed by
/// the authors and of the movies reserved for them), then random ones. Movies and authors at
/// every `UNREVIEWED_EVERY`th index, counted from the end, are never reviewed.
fn generate_reviews(
    rng: &mut SplitMix64,
    movies: &[NewMovie],
    authors: &[NewAuthor],
    count: usize,
) -> Vec<NewReview> {
    let reviewed = |len: usize| -> Vec<usize> {
        (0..len)
            .filter(|index| len < 2 || !(len - 1 - index).is_multiple_of(UNREVIEWED_EVERY))
            .collect()
    };
    let reviewed_movies = reviewed(movies.len());
    let reviewed_authors = reviewed(authors.len());
    if reviewed_movies.is_empty() || reviewed_authors.is_empty() {
        return Vec::new();
    }

    let mut reviews = Vec::with_capacity(count);
    for (set, stars) in MIDPOINT_STARS.iter().enumerate() {
        for &star in stars.iter() {
            if reviews.len() == count {
                return reviews;
            }
            let movie = reviewed_movies[set % reviewed_movies.len()];
            let author = reviewed_authors[set % reviewed_authors.len()];
            reviews.push(NewReview {
                id: rng.uuid(),
                movie_id: movies[movie].id,
                author_id: authors[author].id,
                stars: star,
            });
        }
    }
    // Random reviews go to movies and authors past the midpoint ones, so those averages stay.
    let skip = MIDPOINT_STARS.len();
    let movie_pool = reviewed_movies.get(skip..).filter(|pool| !pool.is_empty());
    let author_pool = reviewed_authors.get(skip..).filter(|pool| !pool.is_empty());
    let movie_pool = movie_pool.unwrap_or(&reviewed_movies);
    let author_pool = author_pool.unwrap_or(&reviewed_authors);
    while reviews.len() < count {
        let movie = movie_pool[rng.below(movie_pool.len())];
        let author = author_pool[rng.below(author_pool.len())];
        reviews.push(NewReview {
            id: rng.uuid(),
            movie_id: movies[movie].id,
            author_id: authors[author].id,
            stars: 1 + rng.below(5) as u8,
        });
    }
    reviews
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fixed pseudo-random generator, so a seed
/// gives the same sequence everywhere and forever. The benchmark draws its workload from it too.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0); the modulo bias is irrelevant here.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A version-4 UUID from the generator's bits.
    fn uuid(&mut self) -> Uuid {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        bytes[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_data() {
        assert_eq!(generate(Size::DEMO, 7), generate(Size::DEMO, 7));
        assert_ne!(generate(Size::DEMO, 7), generate(Size::DEMO, 8));
    }

    #[test]
    fn the_generator_is_fixed_across_machines_and_releases() {
        // SplitMix64's published first output for seed 0.
        assert_eq!(SplitMix64(0).next_u64(), 0xe220_a839_7b1d_cdaf);
        let data = generate(Size::DEMO, DEMO_SEED);
        assert_eq!(data.movies[0].title, "Été indien");
        // The first generated titles, one of them a remake (index 10).
        let generated: Vec<&str> = data.movies[8..16]
            .iter()
            .map(|movie| movie.title.as_str())
            .collect();
        assert_eq!(
            generated,
            [
                "House and Stranger",
                "Electric Kingdom",
                "House and Stranger",
                "The Distant City",
                "The Forgotten Sky",
                "Northern Letter",
                "Return of the Shadow Hunter",
                "The Green Shadow of Cairo",
            ]
        );
        assert_eq!(
            data.movies[0].id,
            generate(Size::DEMO, DEMO_SEED).movies[0].id
        );
    }

    #[test]
    fn everyday_words_find_movies_in_the_demo_set() {
        let data = generate(Size::DEMO, DEMO_SEED);
        for word in ["the", "night", "love", "summer", "river"] {
            let found = data
                .movies
                .iter()
                .filter(|movie| movie.title.to_lowercase().contains(word))
                .count();
            assert!(found >= 3, "{word}: {found} titles");
        }
    }

    #[test]
    fn sizes_are_honoured_even_when_tiny() {
        for size in [
            Size {
                movies: 0,
                authors: 0,
                reviews: 5,
            },
            Size {
                movies: 1,
                authors: 1,
                reviews: 5,
            },
            Size {
                movies: 3,
                authors: 2,
                reviews: 0,
            },
            Size::DEMO,
        ] {
            let data = generate(size, 1);
            assert_eq!(data.movies.len(), size.movies);
            assert_eq!(data.authors.len(), size.authors);
            let expected = if size.movies == 0 || size.authors == 0 {
                0
            } else {
                size.reviews
            };
            assert_eq!(data.reviews.len(), expected);
        }
    }

    #[test]
    fn the_demo_set_shows_every_promise() {
        let data = generate(Size::DEMO, DEMO_SEED);
        let reviewed = |id: Uuid| {
            data.reviews
                .iter()
                .any(|r| r.movie_id == id || r.author_id == id)
        };
        assert!(
            data.movies.iter().any(|movie| !reviewed(movie.id)),
            "a movie without reviews"
        );
        assert!(
            data.authors.iter().any(|author| !reviewed(author.id)),
            "an author without reviews"
        );
        let titles: Vec<&str> = data.movies.iter().map(|m| m.title.as_str()).collect();
        let remakes = titles
            .iter()
            .filter(|t| titles.iter().filter(|u| u == t).count() > 1);
        assert!(remakes.count() >= 2, "remakes");
        let stars_of = |id: Uuid| -> Vec<u8> {
            data.reviews
                .iter()
                .filter(|r| r.movie_id == id)
                .map(|r| r.stars)
                .collect()
        };
        assert_eq!(stars_of(data.movies[0].id), [3, 3, 3, 4]);
    }
}
