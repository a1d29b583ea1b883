//! `min`, `max`: an integer's bounds. Every integer argument has this rule: the declared bounds
//! narrow the field type's own, which always apply, so an offset of 2^70 is a broken rule and
//! never an overflow.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Checked, Key, Rule, Written};
use crate::ast::Base;
use crate::ctxt::Ctxt;
use crate::model::DefaultValue;
use crate::setting::Setting;

pub struct Range;

const MIN: Key = Key {
    name: "min",
    example: "min = 0",
    aliases: &["minimum"],
};
const MAX: Key = Key {
    name: "max",
    example: "max = 50",
    aliases: &["maximum"],
};

impl Rule for Range {
    fn keys(&self) -> &'static [Key] {
        &[MIN, MAX]
    }

    fn check(&self, cx: &mut Ctxt, written: &Written, base: Base) -> Option<Box<dyn Checked>> {
        let Some((type_min, type_max)) = base.integer_range() else {
            for setting in [written.get(&MIN), written.get(&MAX)].into_iter().flatten() {
                let message = if base == Base::String {
                    let length_key = if setting.key == MIN.name {
                        "min_chars"
                    } else {
                        "max_chars"
                    };
                    format!(
                        "`{}` bounds an integer; to limit the length of a String write \
                         `{length_key}`",
                        setting.key
                    )
                } else {
                    format!(
                        "`{}` bounds an integer, and this argument is a {}",
                        setting.key,
                        base.name()
                    )
                };
                cx.error_spanned_by(&setting.key, message);
            }
            return None;
        };
        let mut bound = |key: &Key| {
            let setting = written.integer(cx, key)?;
            within_type(cx, &setting, base, type_min, type_max).then_some(setting.value)
        };
        let min = bound(&MIN).unwrap_or(type_min);
        let max = bound(&MAX).unwrap_or(type_max);
        if min > max
            && let Some(setting) = written.get(&MAX)
        {
            cx.error_spanned_by(
                setting.value_span(),
                format!("`max = {max}` is below `min = {min}`: make `min` no larger than `max`"),
            );
        }
        Some(Box::new(Bounds { min, max }))
    }
}

/// Whether a declared bound lies within the field type's own range (reported if not).
fn within_type(
    cx: &mut Ctxt,
    setting: &Setting<i128>,
    base: Base,
    type_min: i128,
    type_max: i128,
) -> bool {
    let value = setting.value;
    let problem = if value < type_min {
        format!("is below the smallest {} ({type_min})", base.name())
    } else if value > type_max {
        format!("is above the largest {} ({type_max})", base.name())
    } else {
        return true;
    };
    cx.error_spanned_by(
        setting.value_span(),
        format!(
            "`{} = {value}` {problem}: choose a bound the field's type can hold, or a wider type",
            setting.key
        ),
    );
    false
}

/// The bounds a call checks: the declared ones, or the type's where none was declared.
struct Bounds {
    min: i128,
    max: i128,
}

impl Checked for Bounds {
    fn refuse_default(&self, default: &DefaultValue) -> Option<String> {
        let Bounds { min, max } = *self;
        match default {
            DefaultValue::Integer(value) if *value < min || *value > max => Some(format!(
                "the default {value} breaks this argument's own bounds ({min} to {max}): choose \
                 a default between them"
            )),
            _ => None,
        }
    }

    fn spec(&self) -> TokenStream {
        let Bounds { min, max } = self;
        quote!(::toolkit::rule::Range { min: #min, max: #max })
    }
}
