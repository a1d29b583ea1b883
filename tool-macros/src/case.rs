//! Wire names: the one place a Rust field name becomes the name a client sends (camelCase by
//! default), and a variant the value a client sends (snake_case by default), or either in the
//! case convention `rename_all = "..."` names, as serde's `rename_all` writes them, so that
//! what a client sends and what the server serialises agree.

use syn::LitStr;

use crate::ctxt::Ctxt;

/// A case convention, by serde's name for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// Each convention's name in `rename_all = "..."`, serde's.
const NAMES: &[(&str, Case)] = &[
    ("lowercase", Case::Lower),
    ("UPPERCASE", Case::Upper),
    ("PascalCase", Case::Pascal),
    ("camelCase", Case::Camel),
    ("snake_case", Case::Snake),
    ("SCREAMING_SNAKE_CASE", Case::ScreamingSnake),
    ("kebab-case", Case::Kebab),
    ("SCREAMING-KEBAB-CASE", Case::ScreamingKebab),
];

impl Case {
    /// The convention `rename_all = "…"` names; an unknown name is reported on the literal,
    /// with the names there are and the one probably meant.
    pub fn named(cx: &mut Ctxt, name: &LitStr) -> Option<Case> {
        let written = name.value();
        if let Some((_, case)) = NAMES.iter().find(|(known, _)| *known == written) {
            return Some(*case);
        }
        let names = NAMES.iter().map(|(known, _)| *known);
        let message = match did_you_mean::closest(&written, names.clone()) {
            Some(meant) => {
                format!("unknown case convention {written:?}; did you mean \"{meant}\"?")
            }
            None => format!(
                "unknown case convention {written:?}; `rename_all` takes one of serde's: {}",
                names
                    .map(|name| format!("\"{name}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        cx.error_spanned_by(name, message);
        None
    }

    /// A field's name (`movie_id`, snake_case as Rust writes it) in this convention.
    pub fn field(self, field: &str) -> String {
        let field = field.strip_prefix("r#").unwrap_or(field);
        match self {
            Case::Lower | Case::Snake => field.to_owned(),
            Case::Upper | Case::ScreamingSnake => field.to_ascii_uppercase(),
            Case::Pascal => pascal(field),
            Case::Camel => wire_name(field),
            Case::Kebab => field.replace('_', "-"),
            Case::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// A variant's name (`ByName`, PascalCase as Rust writes it) in this convention.
    pub fn variant(self, variant: &str) -> String {
        let variant = variant.strip_prefix("r#").unwrap_or(variant);
        match self {
            Case::Lower => variant.to_ascii_lowercase(),
            Case::Upper => variant.to_ascii_uppercase(),
            Case::Pascal => variant.to_owned(),
            Case::Camel => lower_first(variant),
            Case::Snake => snake_case(variant),
            Case::ScreamingSnake => snake_case(variant).to_ascii_uppercase(),
            Case::Kebab => snake_case(variant).replace('_', "-"),
            Case::ScreamingKebab => snake_case(variant).to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `include_reviews` → `includeReviews`: a field's default wire name; a raw identifier loses
/// its `r#`.
pub fn wire_name(field: &str) -> String {
    lower_first(&pascal(field))
}

/// `include_reviews` → `IncludeReviews`: each word after an underscore capitalised, the
/// underscores dropped.
fn pascal(field: &str) -> String {
    let field = field.strip_prefix("r#").unwrap_or(field);
    let mut name = String::with_capacity(field.len());
    let mut capitalise = true;
    for c in field.chars() {
        if c == '_' {
            capitalise = true;
        } else if capitalise {
            name.extend(c.to_uppercase());
            capitalise = false;
        } else {
            name.push(c);
        }
    }
    name
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `ByName` → `by_name`: a variant's default value on the wire, as serde's
/// `rename_all = "snake_case"` writes it (an underscore before each capital but the first:
/// `HTTPGet` → `h_t_t_p_get`).
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

    #[test]
    fn every_convention_renames_fields_and_variants_as_serde_does() {
        let renamed: Vec<(String, String)> = NAMES
            .iter()
            .map(|(_, case)| (case.field("log_group_name"), case.variant("LogGroupName")))
            .collect();
        let expected = [
            ("log_group_name", "loggroupname"),
            ("LOG_GROUP_NAME", "LOGGROUPNAME"),
            ("LogGroupName", "LogGroupName"),
            ("logGroupName", "logGroupName"),
            ("log_group_name", "log_group_name"),
            ("LOG_GROUP_NAME", "LOG_GROUP_NAME"),
            ("log-group-name", "log-group-name"),
            ("LOG-GROUP-NAME", "LOG-GROUP-NAME"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(field, variant)| ((*field).to_owned(), (*variant).to_owned()))
            .collect();
        assert_eq!(renamed, expected);
    }
}
