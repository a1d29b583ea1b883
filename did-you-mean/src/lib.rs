//! Which known name a misspelt one was meant to be: the one rule behind every "did you mean"
//! of the framework, whether the derive is suggesting an attribute key (`titel` → `title`) or
//! the toolkit an argument a client sent (`movie_id` → `movieId`) or a tool an operator named
//! (`wrte` → `write`).
//!
//! Names are compared ignoring case and the separators `_`, `-` and space, so `movie_id`,
//! `MOVIE-ID` and `movieId` are one name. Otherwise a name is meant when it is the nearest
//! within a few edits (an insertion, a deletion, a substitution, or two neighbours swapped):
//! none for a name of up to three letters, where one edit reaches too many names; one for up to
//! seven; two for a longer one.

#![forbid(unsafe_code)]

/// Past this many letters a written name is not compared: nothing a person misspells is that
/// long, and comparing costs time in the length.
const MAX_COMPARED_CHARS: usize = 64;

/// Of `known`, the name `written` was probably meant to be, if any; of two equally near, the
/// first.
///
/// ```
/// let known = ["query", "limit", "movieId"];
/// assert_eq!(did_you_mean::closest("movie_id", known), Some("movieId"));
/// assert_eq!(did_you_mean::closest("limt", known), Some("limit"));
/// assert_eq!(did_you_mean::closest("offset", known), None);
/// ```
pub fn closest<'a>(written: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = fold(written);
    if wanted.chars().count() > MAX_COMPARED_CHARS {
        return None;
    }
    known
        .into_iter()
        .map(|name| {
            let folded = fold(name);
            let allowed = allowed_edits(folded.chars().count());
            (name, strsim::osa_distance(&wanted, &folded), allowed)
        })
        .filter(|&(_, distance, allowed)| distance <= allowed)
        .min_by_key(|&(_, distance, _)| distance)
        .map(|(name, _, _)| name)
}

/// Whether `a` and `b` are one name written two ways (`include_reviews`, `includeReviews`).
pub fn same_name(a: &str, b: &str) -> bool {
    fold(a) == fold(b)
}

/// How many edits away a misspelling of a name of `chars` letters may be.
fn allowed_edits(chars: usize) -> usize {
    match chars {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// `name` lowercased, without separators.
fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_meant_is_the_same_letters_or_a_near_miss() {
        let names = ["query", "limit", "name", "includeReviews", "movieId", "min"];
        let meant = |written: &str| closest(written, names);
        assert_eq!(meant("querry"), Some("query"));
        assert_eq!(meant("limt"), Some("limit"));
        assert_eq!(meant("nmae"), Some("name"));
        assert_eq!(meant("include_reviews"), Some("includeReviews"));
        assert_eq!(meant("includeRveiews"), Some("includeReviews"));
        assert_eq!(meant("MOVIE-ID"), Some("movieId"));
        assert_eq!(meant("MIN"), Some("min"));
        // Three letters or fewer: only the same letters.
        assert_eq!(meant("mix"), None);
        assert_eq!(meant("quxxy"), None);
        assert_eq!(meant(""), None);
        assert_eq!(meant(&"q".repeat(65)), None);
    }

    #[test]
    fn of_two_equally_near_the_first_is_meant() {
        assert_eq!(closest("cart", ["care", "cars"]), Some("care"));
        assert_eq!(closest("cart", ["cars", "care"]), Some("cars"));
    }

    #[test]
    fn one_name_written_two_ways_is_the_same_name() {
        assert!(same_name("read_only", "readOnly"));
        assert!(same_name("max-chars", "MAXCHARS"));
        assert!(!same_name("max_chars", "max_char"));
    }
}
