//! Validated argument values on their way from the JSON object into the tool's struct.
//!
//! The parser turns each argument into an [`ArgValue`] of the kind its spec names; the generated
//! `from_values` then takes each one out as the field's Rust type through [`FromArg`].

use uuid::Uuid;

use crate::{DefaultValue, ToolError};

/// One validated argument value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// A string, within its length rules.
    String(String),
    /// A boolean.
    Boolean(bool),
    /// An integer, within its bounds (which lie inside the field type's own).
    Integer(i128),
    /// A UUID.
    Uuid(Uuid),
}

impl From<DefaultValue> for ArgValue {
    fn from(value: DefaultValue) -> Self {
        match value {
            DefaultValue::String(text) => ArgValue::String(text.to_owned()),
            DefaultValue::Boolean(flag) => ArgValue::Boolean(flag),
            DefaultValue::Integer(number) => ArgValue::Integer(number),
        }
    }
}

/// The validated values of one call, one slot per declared argument, in declaration order.
#[derive(Debug, Default)]
pub struct Values(pub(crate) Vec<Option<ArgValue>>);

impl Values {
    /// Takes the value of the argument at `index` as the field's type.
    ///
    /// The spec's kind and the field's type come from the same declaration, so a mismatch is a
    /// framework bug; it is reported as an unexpected error rather than a panic.
    pub fn take<T: FromArg>(&mut self, index: usize) -> Result<T, ToolError> {
        let value = self.0.get_mut(index).and_then(Option::take);
        T::from_arg(value).ok_or_else(|| {
            ToolError::unexpected(format!(
                "argument {index} does not hold a {}",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// A Rust type an argument can be declared with.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type a tool argument can have",
    label = "not an argument type",
    note = "an argument is a `String`, `bool`, an integer (`i8` to `i64`, `u8` to `u64`) or \
            `toolkit::Uuid`, or \
            an `Option` of one; an id must be `toolkit::Uuid`, the `uuid` crate's"
)]
pub trait FromArg: Sized {
    /// Converts a validated value; `None` when the value is missing or of another kind.
    fn from_arg(value: Option<ArgValue>) -> Option<Self>;
}

impl FromArg for String {
    fn from_arg(value: Option<ArgValue>) -> Option<Self> {
        match value? {
            ArgValue::String(text) => Some(text),
            _ => None,
        }
    }
}

impl FromArg for bool {
    fn from_arg(value: Option<ArgValue>) -> Option<Self> {
        match value? {
            ArgValue::Boolean(flag) => Some(flag),
            _ => None,
        }
    }
}

impl FromArg for Uuid {
    fn from_arg(value: Option<ArgValue>) -> Option<Self> {
        match value? {
            ArgValue::Uuid(id) => Some(id),
            _ => None,
        }
    }
}

macro_rules! integer_from_arg {
    ($($int:ty),*) => {$(
        impl FromArg for $int {
            fn from_arg(value: Option<ArgValue>) -> Option<Self> {
                match value? {
                    ArgValue::Integer(number) => <$int>::try_from(number).ok(),
                    _ => None,
                }
            }
        }
    )*};
}

integer_from_arg!(i8, i16, i32, i64, u8, u16, u32, u64);

impl<T: FromArg> FromArg for Option<T> {
    fn from_arg(value: Option<ArgValue>) -> Option<Self> {
        match value {
            None => Some(None),
            Some(value) => T::from_arg(Some(value)).map(Some),
        }
    }
}
