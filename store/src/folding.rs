//! How text is compared wherever the contract says "ignoring case": every backend folds search
//! terms and the text they are looked for in the same way, here, rather than by its own rules.

/// The Unicode lowercase form used for case-insensitive search and order, character by
/// character: `str::to_lowercase` lowers a final Σ to ς but an inner one to σ, so "ΟΔΟΣ" would
/// not be found inside "ΟΔΟΣΗΜΟ".
pub fn fold(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// A search query as a search compares it: trimmed and folded; `None` (every row) when absent
/// or empty after trimming.
pub(super) fn search_term(query: Option<&str>) -> Option<String> {
    let query = query?.trim();
    (!query.is_empty()).then(|| fold(query))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_is_the_same_wherever_a_letter_stands() {
        assert!(fold("ΟΔΟΣΗΜΟ").contains(&fold("ΟΔΟΣ")));
        assert_eq!(fold("ÉCOLE Straße"), "école straße");
    }

    #[test]
    fn a_search_term_is_trimmed_and_folded() {
        assert_eq!(search_term(None), None);
        assert_eq!(search_term(Some("  \t ")), None);
        assert_eq!(search_term(Some(" ÉCOLE ")), Some("école".to_owned()));
    }
}
