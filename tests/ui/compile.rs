//! The derive's compile-time contract: every mistake in `fail/` is refused with the message in
//! its `.stderr`, and every accepted form in `pass/` compiles (and its assertions hold).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("fail/*.rs");
    cases.pass("pass/*.rs");
}
