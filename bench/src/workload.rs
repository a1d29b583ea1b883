//! The workload: the tools the mix calls, one call of it as the benchmark sends it, and the
//! calls a run sends, drawn from the ids, titles and names the tools showed.

use movie_reviews_mcp::demo::SplitMix64;
use movie_reviews_mcp::tools::{AuthorsSearch, MoviesGet, MoviesSearch, ReviewsList, ReviewsWrite};
use serde_json::{Value, json};
use toolkit::Tool;
use uuid::Uuid;

use crate::Error;
use crate::client::Ids;

/// The tools the mix calls, in table order, named as they declare themselves.
pub(crate) const TOOLS: [&str; 5] = [
    MoviesGet::SPEC.name,
    MoviesSearch::SPEC.name,
    AuthorsSearch::SPEC.name,
    ReviewsList::SPEC.name,
    ReviewsWrite::SPEC.name,
];

/// One call of the workload.
#[derive(Debug, Clone)]
pub(crate) enum Call {
    Get(Uuid),
    SearchMovies(String),
    SearchAuthors(String),
    ListByMovie(Uuid),
    ListByAuthor(Uuid),
    Write {
        movie: Uuid,
        author: Uuid,
        stars: u8,
    },
}

impl Call {
    /// Whether the call writes.
    pub(crate) fn writes(&self) -> bool {
        matches!(self, Call::Write { .. })
    }

    /// Index into [`TOOLS`].
    pub(crate) fn tool(&self) -> usize {
        match self {
            Call::Get(_) => 0,
            Call::SearchMovies(_) => 1,
            Call::SearchAuthors(_) => 2,
            Call::ListByMovie(_) | Call::ListByAuthor(_) => 3,
            Call::Write { .. } => 4,
        }
    }

    pub(crate) fn arguments(&self) -> Value {
        match self {
            Call::Get(id) => json!({ "movieId": id }),
            Call::SearchMovies(query) | Call::SearchAuthors(query) => json!({ "query": query }),
            Call::ListByMovie(id) => json!({ "movieId": id }),
            Call::ListByAuthor(id) => json!({ "authorId": id }),
            Call::Write {
                movie,
                author,
                stars,
            } => json!({ "movieId": movie, "authorId": author, "stars": stars }),
        }
    }
}

/// Weights of get, search, list, write.
pub(crate) fn parse_mix(text: &str) -> Result<[u32; 4], Error> {
    let mut weights = [0; 4];
    for part in text
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        let (name, weight) = part
            .split_once('=')
            .ok_or_else(|| format!("--mix: `{part}` is not NAME=WEIGHT"))?;
        let slot = match name.trim() {
            "get" => 0,
            "search" => 1,
            "list" => 2,
            "write" => 3,
            other => {
                return Err(format!("--mix: unknown `{other}` (get, search, list, write)").into());
            }
        };
        weights[slot] = weight
            .trim()
            .parse()
            .map_err(|_| format!("--mix: `{weight}` is not a whole number"))?;
    }
    if weights.iter().all(|&weight| weight == 0) {
        return Err("--mix: every weight is 0".into());
    }
    Ok(weights)
}

/// A short query from a real title or name: a word of it, at most 5 characters.
fn short_query(random: &mut SplitMix64, texts: &[String]) -> String {
    let text = random.pick(texts);
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|word| word.chars().count() >= 3)
        .collect();
    let word = if words.is_empty() {
        text.as_str()
    } else {
        random.pick(&words)
    };
    word.chars().take(5).collect()
}

pub(crate) fn calls(ids: &Ids, mix: &[u32; 4], count: usize, seed: u64) -> Vec<Call> {
    let mut random = SplitMix64(seed);
    let total: u32 = mix.iter().sum();
    let (mut searches, mut lists) = (0usize, 0usize);
    (0..count)
        .map(|_| {
            let mut roll = (random.next_u64() % u64::from(total)) as u32;
            let kind = mix
                .iter()
                .position(|&weight| {
                    if roll < weight {
                        true
                    } else {
                        roll -= weight;
                        false
                    }
                })
                .unwrap_or(0);
            match kind {
                0 => Call::Get(*random.pick(&ids.movies)),
                1 => {
                    searches += 1;
                    if searches % 2 == 1 {
                        Call::SearchMovies(short_query(&mut random, &ids.titles))
                    } else {
                        Call::SearchAuthors(short_query(&mut random, &ids.names))
                    }
                }
                2 => {
                    lists += 1;
                    if lists % 2 == 1 {
                        Call::ListByMovie(*random.pick(&ids.movies))
                    } else {
                        Call::ListByAuthor(*random.pick(&ids.authors))
                    }
                }
                _ => Call::Write {
                    movie: *random.pick(&ids.movies),
                    author: *random.pick(&ids.authors),
                    stars: (1 + random.below(5)) as u8,
                },
            }
        })
        .collect()
}
