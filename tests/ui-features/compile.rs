//! The derive's contract without toolkit's optional features: each case in `fail/` needs one,
//! and is refused with the message in its `.stderr`, which names the feature.

#[test]
fn ui_without_features() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
}
