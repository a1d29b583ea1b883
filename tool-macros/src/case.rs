//! Wire names: the one place a Rust field name becomes the name a client sends (camelCase) and
//! the name a validation message shows (camelCase, first letter capitalised).

/// `include_reviews` → `includeReviews`; a raw identifier loses its `r#`.
pub fn wire_name(field: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    let mut name = String::with_capacity(field.len());
    for (index, word) in field.split('_').filter(|word| !word.is_empty()).enumerate() {
        if index == 0 {
            name.push_str(word);
        } else {
            name.push_str(&capitalised(word));
        }
    }
    name
}

/// `movieId` → `MovieId`: how an argument is named in a `Validation Failed` message.
pub fn label(wire_name: &str) -> String {
    capitalised(wire_name)
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_are_camel_case() {
        assert_eq!(wire_name("stars"), "stars");
        assert_eq!(wire_name("movie_id"), "movieId");
        assert_eq!(wire_name("include_reviews"), "includeReviews");
        assert_eq!(wire_name("r#type"), "type");
        assert_eq!(wire_name("a__b"), "aB");
    }

    #[test]
    fn labels_capitalise_the_first_letter() {
        assert_eq!(label("stars"), "Stars");
        assert_eq!(label("movieId"), "MovieId");
        assert_eq!(label("includeReviews"), "IncludeReviews");
    }
}
