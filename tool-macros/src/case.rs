//! Wire names: the one place a Rust field name becomes the name a client sends (camelCase), and
//! a choice's variant the value a client sends (snake_case).

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

/// `ByName` → `by_name`: a choice's value on the wire, as serde's `rename_all = "snake_case"`
/// writes a variant (an underscore before each capital but the first: `HTTPGet` → `h_t_t_p_get`),
/// so that the value a client sends and the one the server serialises agree.
pub fn snake_case(variant: &str) -> String {
    let variant = variant.strip_prefix("r#").unwrap_or(variant);
    let mut name = String::with_capacity(variant.len() + 4);
    for (index, c) in variant.chars().enumerate() {
        if c.is_uppercase() && index > 0 {
            name.push('_');
        }
        name.extend(c.to_lowercase());
    }
    name
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
    fn choice_values_are_snake_case_as_serde_writes_them() {
        assert_eq!(snake_case("Name"), "name");
        assert_eq!(snake_case("ByName"), "by_name");
        assert_eq!(snake_case("HTTPGet"), "h_t_t_p_get");
        assert_eq!(snake_case("r#Type"), "type");
    }
}
