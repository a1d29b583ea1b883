//! `pattern = "…"`: a regular expression a string must match. A client reads a schema's
//! `pattern` as ECMA-262 does, the server with Rust's `regex`, so only what the two read alike
//! is accepted: the pattern is parsed here, each construct that one of them lacks or reads
//! differently is refused on the literal, and the meanings ECMA-262 gives `\d`, `\w`, `\s`, `\b`
//! and `.` (ASCII digits and word characters, its own white space and line terminators) are
//! written out in the Rust text the server matches. The result is compiled here once, so a
//! pattern too large to compile is refused too.

use proc_macro2::TokenStream;
use quote::quote;
use regex_syntax::ast::{
    self, AssertionKind, Ast, ClassPerlKind, ClassSet, ClassSetItem, GroupKind, HexLiteralKind,
    LiteralKind, RepetitionKind, SpecialLiteralKind,
};

use super::{Checked, Key, Rule, Subject, Written, requirements};
use crate::ctxt::Ctxt;
use crate::model::Value;
use crate::setting::Literal;

pub struct Pattern;

const PATTERN: Key = Key {
    name: "pattern",
    example: "pattern = \"^[a-z]+$\"",
    aliases: &["regex"],
    flag: false,
};

/// How deeply groups and classes may nest, as Rust's `regex` limits it by default.
const NEST_LIMIT: u32 = 250;

impl Rule for Pattern {
    fn keys(&self) -> &'static [Key] {
        &[PATTERN]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let setting = written.get(&PATTERN)?;
        let Literal::String(source) = &setting.value else {
            cx.error_spanned_by(
                setting.value_span(),
                format!(
                    "unexpected value for `pattern`: write `{}`",
                    PATTERN.example
                ),
            );
            return None;
        };
        match translate(source) {
            Ok(rust) => Some(Box::new(Matches {
                source: source.clone(),
                rust,
                key: setting.key.clone(),
            })),
            Err(refusal) => {
                cx.error_spanned_by(setting.value_span(), refusal);
                None
            }
        }
    }
}

/// The Rust text of an ECMA-262 pattern, or why it is refused.
pub fn translate(source: &str) -> Result<String, String> {
    let parsed = ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(source)
        .map_err(|error| format!("invalid pattern: {}", error.kind()))?;
    let mut edits = Vec::new();
    walk(&parsed, source, &mut edits)?;
    edits.sort_by_key(|edit| edit.0);
    let mut rust = String::with_capacity(source.len() + 16);
    let mut at = 0;
    for (start, end, replacement) in edits {
        rust.push_str(&source[at..start]);
        rust.push_str(replacement);
        at = end;
    }
    rust.push_str(&source[at..]);
    regex::Regex::new(&rust).map_err(|error| format!("this pattern does not compile: {error}"))?;
    Ok(rust)
}

/// A part of the pattern, by byte offsets, and the Rust text that replaces it.
type Edit = (usize, usize, &'static str);

/// ECMA-262's white space and line terminators, which its `\s` matches.
const ECMA_SPACE: &str = r"[\t\n\x0B\x0C\r \xA0\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";
const ECMA_NOT_SPACE: &str = r"[^\t\n\x0B\x0C\r \xA0\u{1680}\u{2000}-\u{200A}\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}\u{FEFF}]";

/// Refuses what ECMA-262 and Rust read differently, and notes the parts to write out.
fn walk(node: &Ast, source: &str, edits: &mut Vec<Edit>) -> Result<(), String> {
    match node {
        Ast::Empty(_) => Ok(()),
        Ast::Flags(_) => Err(refusal(
            "inline flags such as `(?i)` are Rust's own",
            "write the cases out, like `[Aa]`",
        )),
        Ast::Literal(literal) => check_literal(literal, source, false),
        Ast::Dot(span) => {
            edits.push((
                span.start.offset,
                span.end.offset,
                r"[^\n\r\u{2028}\u{2029}]",
            ));
            Ok(())
        }
        Ast::Assertion(assertion) => match assertion.kind {
            AssertionKind::StartLine | AssertionKind::EndLine => Ok(()),
            AssertionKind::WordBoundary => {
                let span = assertion.span;
                edits.push((span.start.offset, span.end.offset, r"(?-u:\b)"));
                Ok(())
            }
            AssertionKind::NotWordBoundary => {
                let span = assertion.span;
                edits.push((span.start.offset, span.end.offset, r"(?-u:\B)"));
                Ok(())
            }
            _ => Err(refusal(
                "`\\A`, `\\z` and the word-boundary forms other than `\\b` and `\\B` are Rust's \
                 own",
                "anchor with `^` and `$`",
            )),
        },
        Ast::ClassUnicode(_) => Err(unicode_class()),
        Ast::ClassPerl(class) => {
            edits.push((class.span.start.offset, class.span.end.offset, perl(class)));
            Ok(())
        }
        Ast::ClassBracketed(class) => walk_class(&class.kind, source, edits),
        Ast::Repetition(repetition) => {
            let op = &source[repetition.op.span.start.offset..repetition.op.span.end.offset];
            if matches!(repetition.op.kind, RepetitionKind::Range(_)) && op.starts_with("{,") {
                return Err(refusal(
                    "`{,n}` is a repetition in Rust but plain text in ECMA-262",
                    "write `{0,n}`",
                ));
            }
            walk(&repetition.ast, source, edits)
        }
        Ast::Group(group) => {
            match &group.kind {
                GroupKind::CaptureName {
                    starts_with_p: true,
                    ..
                } => {
                    return Err(refusal(
                        "`(?P<name>…)` is Rust's own spelling of a named group",
                        "write `(?<name>…)`",
                    ));
                }
                GroupKind::NonCapturing(flags) if !flags.items.is_empty() => {
                    return Err(refusal(
                        "inline flags such as `(?i:…)` are Rust's own",
                        "write the cases out, like `[Aa]`, in a `(?:…)` group",
                    ));
                }
                _ => {}
            }
            walk(&group.ast, source, edits)
        }
        Ast::Alternation(alternation) => alternation
            .asts
            .iter()
            .try_for_each(|ast| walk(ast, source, edits)),
        Ast::Concat(concat) => concat
            .asts
            .iter()
            .try_for_each(|ast| walk(ast, source, edits)),
    }
}

fn walk_class(set: &ClassSet, source: &str, edits: &mut Vec<Edit>) -> Result<(), String> {
    let item = match set {
        ClassSet::BinaryOp(_) => {
            return Err(refusal(
                "class operations `&&`, `--` and `~~` are Rust's own",
                "list the characters the class holds",
            ));
        }
        ClassSet::Item(item) => item,
    };
    match item {
        ClassSetItem::Empty(_) => Ok(()),
        ClassSetItem::Literal(literal) => check_literal(literal, source, true),
        ClassSetItem::Range(range) => {
            check_literal(&range.start, source, true)?;
            check_literal(&range.end, source, true)
        }
        ClassSetItem::Ascii(_) => Err(refusal(
            "POSIX classes such as `[[:alpha:]]` are Rust's own",
            "list the ranges, like `[A-Za-z]`",
        )),
        ClassSetItem::Unicode(_) => Err(unicode_class()),
        // Inside a class, Rust reads the bracketed replacement as a nested class: a union.
        ClassSetItem::Perl(class) => {
            edits.push((class.span.start.offset, class.span.end.offset, perl(class)));
            Ok(())
        }
        ClassSetItem::Bracketed(_) => Err(refusal(
            "a class inside a class is Rust's own",
            "write one class, like `[a-z0-9]`",
        )),
        ClassSetItem::Union(union) => union
            .items
            .iter()
            .try_for_each(|item| walk_class(&ClassSet::Item(item.clone()), source, edits)),
    }
}

/// ECMA-262's meaning of `\d`, `\w` and `\s`, and their negations, in Rust.
fn perl(class: &ast::ClassPerl) -> &'static str {
    match (&class.kind, class.negated) {
        (ClassPerlKind::Digit, false) => "[0-9]",
        (ClassPerlKind::Digit, true) => "[^0-9]",
        (ClassPerlKind::Word, false) => "[0-9A-Za-z_]",
        (ClassPerlKind::Word, true) => "[^0-9A-Za-z_]",
        (ClassPerlKind::Space, false) => ECMA_SPACE,
        (ClassPerlKind::Space, true) => ECMA_NOT_SPACE,
    }
}

/// The escapes both read alike: the syntax characters (and `-` in a class), `\/`, `\xHH`,
/// `\uHHHH`, `\u{H…}`, and `\t \n \r \f \v`.
fn check_literal(literal: &ast::Literal, source: &str, in_class: bool) -> Result<(), String> {
    let written = &source[literal.span.start.offset..literal.span.end.offset];
    let fine = match &literal.kind {
        LiteralKind::Verbatim => true,
        LiteralKind::Meta => {
            "^$\\.*+?()[]{}|/".contains(literal.c) || (in_class && literal.c == '-')
        }
        LiteralKind::Superfluous => literal.c == '/',
        LiteralKind::HexFixed(HexLiteralKind::X | HexLiteralKind::UnicodeShort) => true,
        LiteralKind::HexBrace(HexLiteralKind::UnicodeShort | HexLiteralKind::UnicodeLong) => {
            written.starts_with("\\u{")
        }
        LiteralKind::Special(kind) => {
            !matches!(kind, SpecialLiteralKind::Bell | SpecialLiteralKind::Space)
        }
        _ => false,
    };
    if fine {
        Ok(())
    } else {
        Err(refusal(
            &format!("the escape `{written}` is not read alike by Rust and ECMA-262"),
            "escape only the syntax characters `^$\\.*+?()[]{}|/`, and write a code point as \
             `\\xHH`, `\\uHHHH` or `\\u{H…}`",
        ))
    }
}

fn unicode_class() -> String {
    refusal(
        "Unicode classes such as `\\p{Greek}` are named differently by Rust and ECMA-262",
        "list the ranges the class holds",
    )
}

fn refusal(what: &str, instead: &str) -> String {
    format!(
        "{what}, and a pattern must read the same in a client, which reads it as ECMA-262 \
         (JavaScript) does, and in the server: {instead}"
    )
}

/// The pattern a call checks.
struct Matches {
    source: String,
    rust: String,
    /// The key written, where a field type that is not a string is reported.
    key: syn::Ident,
}

impl Checked for Matches {
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String> {
        let Value::String(text) = value else {
            return None;
        };
        let matches = regex::Regex::new(&self.rust).is_ok_and(|regex| regex.is_match(text));
        (!matches).then(|| {
            format!(
                "{} {text:?} does not match the pattern {}: choose {} that does",
                subject.the, self.source, subject.instead
            )
        })
    }

    fn spec(&self) -> TokenStream {
        let (source, rust) = (&self.source, &self.rust);
        quote!(::toolkit::rule::Pattern { source: #source, rust: #rust })
    }

    fn assertions(&self, ty: &syn::Type, _what: &str) -> TokenStream {
        requirements(std::slice::from_ref(&self.key), ty, "text")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecma_meanings_are_written_out() {
        assert_eq!(translate(r"^[A-Z]{2}-\d+$").unwrap(), r"^[A-Z]{2}-[0-9]+$");
        assert_eq!(translate(r"[\w.-]+").unwrap(), r"[[0-9A-Za-z_].-]+");
        assert_eq!(translate(r"\bcat\B").unwrap(), r"(?-u:\b)cat(?-u:\B)");
        assert_eq!(translate("a.c").unwrap(), r"a[^\n\r\u{2028}\u{2029}]c");
        assert_eq!(translate(r"(?<year>\d{4})").unwrap(), r"(?<year>[0-9]{4})");
        assert_eq!(
            translate(r"\x41\u0042\u{43}\/").unwrap(),
            r"\x41\u0042\u{43}\/"
        );
    }

    #[test]
    fn what_the_two_read_differently_is_refused() {
        for pattern in [
            "(?i)abc",
            "(?i:a)",
            r"\Aa\z",
            r"\p{Greek}",
            "[[:alpha:]]",
            "[a&&b]",
            "[[a]b]",
            "(?P<n>a)",
            r"\x{41}",
            r"\U00000041",
            r"\#",
            "a{,3}",
            r"\a",
            r"\-",
        ] {
            assert!(translate(pattern).is_err(), "{pattern} is accepted");
        }
        assert!(translate("(").unwrap_err().starts_with("invalid pattern:"));
        assert!(
            translate("a{1000}{1000}")
                .unwrap_err()
                .starts_with("this pattern does not compile")
        );
    }
}
