//! `min`, `max`, `exclusive_min`, `exclusive_max`: a number's bounds. The field's type must be a
//! number (`toolkit::rule::Numeric`) that holds each bound, which the generated code checks; the
//! type's own bounds (an `u8` holds 0 to 255) always apply too, so an offset of 2^70 is a broken
//! rule and never an overflow.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Checked, Key, Number, Rule, Subject, Written, located, whole_refusal};
use crate::ctxt::Ctxt;
use crate::model::Value;
use crate::setting::Setting;

pub struct Range;

const MIN: Key = Key {
    name: "min",
    example: "min = 0",
    aliases: &["minimum", "ge", "gte"],
    flag: false,
};
const MAX: Key = Key {
    name: "max",
    example: "max = 50",
    aliases: &["maximum", "le", "lte"],
    flag: false,
};
const EXCLUSIVE_MIN: Key = Key {
    name: "exclusive_min",
    example: "exclusive_min = 0.0",
    aliases: &["exclusive_minimum", "gt"],
    flag: false,
};
const EXCLUSIVE_MAX: Key = Key {
    name: "exclusive_max",
    example: "exclusive_max = 1.0",
    aliases: &["exclusive_maximum", "lt"],
    flag: false,
};

impl Rule for Range {
    fn keys(&self) -> &'static [Key] {
        &[MIN, MAX, EXCLUSIVE_MIN, EXCLUSIVE_MAX]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written) -> Option<Box<dyn Checked>> {
        let lower = side(cx, written, &MIN, &EXCLUSIVE_MIN, "below");
        let upper = side(cx, written, &MAX, &EXCLUSIVE_MAX, "above");
        if let (Some(lower), Some(upper)) = (&lower, &upper) {
            check_not_empty(cx, lower, upper);
        }
        (lower.is_some() || upper.is_some())
            .then(|| Box::new(Bounds { lower, upper }) as Box<dyn Checked>)
    }
}

/// One side's bound, inclusive or exclusive; both written is reported.
fn side(
    cx: &mut Ctxt,
    written: &Written,
    inclusive: &Key,
    exclusive: &Key,
    from: &str,
) -> Option<Bound> {
    let bound = |cx: &mut Ctxt, key: &Key, is_exclusive| {
        written.number(cx, key).map(|setting| Bound {
            written: format!("{} = {}", key.name, setting.value),
            number: setting.value,
            exclusive: is_exclusive,
            setting,
        })
    };
    let kept = bound(cx, inclusive, false);
    let excluded = bound(cx, exclusive, true);
    match (kept, excluded) {
        (Some(kept), Some(excluded)) => {
            cx.error_spanned_by(
                &excluded.setting.key,
                format!(
                    "`{}` and `{}` both bound the value from {from}: keep one of them",
                    kept.setting.key, excluded.setting.key
                ),
            );
            Some(kept)
        }
        (kept, excluded) => kept.or(excluded),
    }
}

/// Refuses bounds that no value keeps (`min = 5, max = 1`; `exclusive_min = 1, max = 1`).
fn check_not_empty(cx: &mut Ctxt, lower: &Bound, upper: &Bound) {
    let (low, high) = (lower.number, upper.number);
    let below = match (low, high) {
        (Number::Whole(low), Number::Whole(high)) => high < low,
        _ => high.as_f64() < low.as_f64(),
    };
    let touching = low.as_f64() == high.as_f64() && (lower.exclusive || upper.exclusive);
    let (lower_key, upper_key) = (&lower.setting.key, &upper.setting.key);
    if below {
        cx.error_spanned_by(
            upper.setting.value_span(),
            format!(
                "`{}` is below `{}`: make `{lower_key}` no larger than `{upper_key}`",
                upper.written, lower.written
            ),
        );
    } else if touching {
        cx.error_spanned_by(
            upper.setting.value_span(),
            format!(
                "`{}` and `{}` leave no value an argument could have: widen the range, or \
                 write `min` and `max` for the one value",
                lower.written, upper.written
            ),
        );
    }
}

/// A bound as written.
struct Bound {
    setting: Setting<Number>,
    number: Number,
    exclusive: bool,
    /// `min = 1`, for messages.
    written: String,
}

impl Bound {
    /// Whether `value` keeps this bound, as a lower (`lower`) or upper one.
    fn keeps(&self, value: Number, lower: bool) -> bool {
        let ordering = match (value, self.number) {
            (Number::Whole(value), Number::Whole(bound)) => value.partial_cmp(&bound),
            (value, bound) => value.as_f64().partial_cmp(&bound.as_f64()),
        };
        match ordering {
            Some(std::cmp::Ordering::Equal) => !self.exclusive,
            Some(std::cmp::Ordering::Less) => !lower,
            Some(std::cmp::Ordering::Greater) => lower,
            None => false,
        }
    }

    fn spec(&self) -> TokenStream {
        let value = match self.number {
            Number::Whole(whole) => quote!(::toolkit::rule::Number::Whole(#whole)),
            Number::Float(float) => quote!(::toolkit::rule::Number::Float(#float)),
        };
        let exclusive = self.exclusive;
        quote!(::core::option::Option::Some(
            ::toolkit::rule::Bound { value: #value, exclusive: #exclusive }
        ))
    }

    /// A constant that fails to compile, on the bound, unless the field's type is a number that
    /// holds it.
    fn assertion(&self, ty: &syn::Type, what: &str) -> TokenStream {
        let refusal = match self.number {
            Number::Whole(value) => whole_refusal(
                &format!("`{}`", self.written),
                value,
                what,
                "choose a bound the type can hold",
            ),
            Number::Float(_) => format!(
                "`{}` is not a value {what} can hold: choose a bound the type can hold, or a \
                 wider type",
                self.written,
            ),
        };
        let span = self.setting.value_start();
        let ty = located(ty, span);
        match self.number {
            Number::Whole(whole) => quote_spanned! {span=>
                const _: () = ::toolkit::__private::whole::<#ty>(#whole, #refusal);
            },
            Number::Float(float) => quote_spanned! {span=>
                const _: () = ::toolkit::__private::float::<#ty>(#float, #refusal);
            },
        }
    }
}

/// The bounds a call checks.
struct Bounds {
    lower: Option<Bound>,
    upper: Option<Bound>,
}

impl Bounds {
    /// The bounds as prose: `between 1 and 50`, `1 or more`, `more than 0 and at most 1`.
    fn prose(&self) -> String {
        let lower = |bound: &Bound| {
            let word = if bound.exclusive {
                "more than"
            } else {
                "at least"
            };
            format!("{word} {}", bound.number)
        };
        let upper = |bound: &Bound| {
            let word = if bound.exclusive {
                "less than"
            } else {
                "at most"
            };
            format!("{word} {}", bound.number)
        };
        match (&self.lower, &self.upper) {
            (Some(low), Some(high)) if !low.exclusive && !high.exclusive => {
                format!("between {} and {}", low.number, high.number)
            }
            (Some(low), Some(high)) => format!("{} and {}", lower(low), upper(high)),
            (Some(low), None) if !low.exclusive => format!("{} or more", low.number),
            (None, Some(high)) if !high.exclusive => format!("{} or less", high.number),
            (Some(low), None) => lower(low),
            (None, Some(high)) => upper(high),
            (None, None) => String::new(),
        }
    }
}

impl Checked for Bounds {
    fn refuse(&self, value: &Value, subject: &Subject) -> Option<String> {
        let value = match value {
            Value::Integer(value) => Number::Whole(*value),
            Value::Float(value) => Number::Float(*value),
            Value::String(_) | Value::Boolean(_) | Value::List(_) => return None,
        };
        let fits = self.lower.as_ref().is_none_or(|low| low.keeps(value, true))
            && self
                .upper
                .as_ref()
                .is_none_or(|high| high.keeps(value, false));
        (!fits).then(|| {
            format!(
                "{} {value} breaks the bounds declared on it: it must be {}; choose {} that \
                 keeps them",
                subject.the,
                self.prose(),
                subject.instead
            )
        })
    }

    fn spec(&self) -> TokenStream {
        let side = |bound: &Option<Bound>| match bound {
            Some(bound) => bound.spec(),
            None => quote!(::core::option::Option::None),
        };
        let (min, max) = (side(&self.lower), side(&self.upper));
        quote!(::toolkit::rule::Range { min: #min, max: #max })
    }

    fn assertions(&self, ty: &syn::Type, what: &str) -> TokenStream {
        [&self.lower, &self.upper]
            .into_iter()
            .flatten()
            .map(|bound| bound.assertion(ty, what))
            .collect()
    }
}
