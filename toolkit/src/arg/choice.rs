//! Choices: a Rust enum of unit variants, `#[derive(Choice)]`, read from one of its wire names
//! and published as a string `enum`, in declaration order, with each value's doc comment in the
//! argument's description; or, where every variant has a discriminant (`Low = 1`), read from
//! one of those integers and published as an integer `enum`.

use serde_json::{Map, Value, json};

use super::{Reading, Rules, json_type, quoted};

/// A string argument with a fixed set of values: what `#[derive(Choice)]` implements for an
/// enum of unit variants, with its [`Arg`](crate::Arg) impl.
pub trait Choice: Sized + Send + 'static {
    /// The wire names, in declaration order: each variant's snake_case name, or its
    /// `#[choice(rename = "…")]`.
    const NAMES: &'static [&'static str];

    /// An integer choice's values (`Low = 1, High = 3`), in the order of
    /// [`NAMES`](Self::NAMES), which then holds them as written (`"1"`); `None` for a string
    /// choice.
    const NUMBERS: Option<&'static [i64]> = None;

    /// Each variant's doc comment, in the order of [`NAMES`](Self::NAMES).
    const DESCRIPTIONS: &'static [Option<&'static str>];

    /// The variant named `NAMES[index]`.
    fn from_index(index: usize) -> Option<Self>;

    /// This variant's place in [`NAMES`](Self::NAMES).
    fn index(&self) -> usize;

    /// This variant's wire name.
    fn name(&self) -> &'static str {
        Self::NAMES.get(self.index()).copied().unwrap_or_default()
    }
}

/// The schema of choice `C`: `"type": "string"` with its names as `enum` (or `"integer"` with
/// its numbers), and a description of each documented value, which the input schema adds to
/// the argument's own.
pub fn schema<C: Choice>(schema: &mut Map<String, Value>, rules: &Rules) {
    match C::NUMBERS {
        Some(numbers) => {
            schema.insert("type".into(), json!("integer"));
            schema.insert("enum".into(), json!(numbers));
        }
        None => {
            schema.insert("type".into(), json!("string"));
            schema.insert("enum".into(), json!(C::NAMES));
        }
    }
    let described: Vec<String> = C::NAMES
        .iter()
        .zip(C::DESCRIPTIONS)
        .filter_map(|(name, description)| {
            let description = description.as_ref()?.trim_end().trim_end_matches('.');
            Some(format!("`{name}`: {description}"))
        })
        .collect();
    if !described.is_empty() {
        schema.insert(
            "description".into(),
            json!(format!("{}.", described.join("; "))),
        );
    }
    rules.publish(schema);
}

/// Reads one of `C`'s names, exactly as written, or for an integer choice one of its numbers
/// (`3` or `3.0`, as an integer is read); anything else is refused with the values, and for a
/// name the one that was probably meant.
pub fn read<C: Choice>(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<C> {
    let names = C::NAMES.join(", ");
    if let Some(numbers) = C::NUMBERS {
        return read_number(value, numbers, &names, rules, at);
    }
    let Some(text) = value.as_str() else {
        return at.refuse_for(
            "enum",
            format!("Must be one of {names}, not {}.", json_type(value)),
        );
    };
    let Some(index) = C::NAMES.iter().position(|name| *name == text) else {
        let mut sentence = format!("Must be one of {names}, not {}.", quoted(text));
        if let Some(meant) = did_you_mean::closest(text, C::NAMES.iter().copied()) {
            sentence.push_str(&format!(" Did you mean {meant}?"));
        }
        return at.refuse_for("enum", sentence);
    };
    at.check(value, rules)?;
    C::from_index(index)
}

/// Reads one of an integer choice's `numbers` (written `names`) as the variant it stands for.
fn read_number<C: Choice>(
    value: &Value,
    numbers: &[i64],
    names: &str,
    rules: &Rules,
    at: &mut Reading<'_>,
) -> Option<C> {
    let Value::Number(number) = value else {
        return at.refuse_for(
            "enum",
            format!("Must be one of {names}, not {}.", json_type(value)),
        );
    };
    // An integral float is the integer it equals, as JSON Schema's `enum` compares numbers.
    let index = numbers.iter().position(|&candidate| {
        number.as_i64() == Some(candidate)
            || number
                .as_f64()
                .is_some_and(|float| number.is_f64() && float == candidate as f64)
    });
    let Some(index) = index else {
        return at.refuse_for("enum", format!("Must be one of {names}, not {number}."));
    };
    at.check(value, rules)?;
    C::from_index(index)
}
