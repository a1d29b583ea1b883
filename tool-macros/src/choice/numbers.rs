//! Integer choices: an enum whose every variant has a discriminant (`Low = 1, High = 3`) is a
//! choice of those integers. Each discriminant must be an integer literal a JSON client sends
//! exactly; a mix of variants with and without one is refused, since it is neither kind.

use syn::{Expr, ExprLit, ExprUnary, Lit, UnOp, Variant};

use crate::ctxt::Ctxt;
use crate::rule::MAX_SAFE_INTEGER;

/// Each variant's number, where every variant has one; `None` for a string choice, or when a
/// discriminant is refused (reported).
pub fn numbers<'a>(
    cx: &mut Ctxt,
    variants: impl Iterator<Item = &'a Variant> + Clone,
) -> Option<Vec<i64>> {
    let with = variants
        .clone()
        .filter(|v| v.discriminant.is_some())
        .count();
    if with == 0 {
        return None;
    }
    let mut numbers = Vec::new();
    let mut refused = false;
    for variant in variants {
        let Some((_, expr)) = &variant.discriminant else {
            cx.error_spanned_by(
                &variant.ident,
                format!(
                    "`{}` has no value while other variants do: give every variant a number \
                     (`{} = 2`) for an integer choice, or none for a string choice",
                    variant.ident, variant.ident
                ),
            );
            refused = true;
            continue;
        };
        match number(expr) {
            Some(value) if value.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs() => {
                numbers.push(value as i64);
            }
            Some(_) => {
                cx.error_spanned_by(
                    expr,
                    format!(
                        "a choice's number is at most ±{MAX_SAFE_INTEGER} (2^53 − 1), the \
                         integers a JSON client sends exactly"
                    ),
                );
                refused = true;
            }
            None => {
                cx.error_spanned_by(
                    expr,
                    format!(
                        "an integer choice's value is an integer literal, which the schema \
                         publishes: write it out, like `{} = 1`",
                        variant.ident
                    ),
                );
                refused = true;
            }
        }
    }
    (!refused).then_some(numbers)
}

/// The integer a discriminant writes: a literal, or a negated one.
fn number(expr: &Expr) -> Option<i128> {
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(int), ..
        }) => int.base10_parse().ok(),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|value| -value),
        Expr::Group(group) => number(&group.expr),
        _ => None,
    }
}
