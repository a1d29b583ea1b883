//! The derive's compile-time contract: every mistake in `ui/fail/` is refused with the message
//! in its `.stderr`, and every accepted form in `ui/pass/` compiles.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
    cases.pass("ui/pass/*.rs");
}
