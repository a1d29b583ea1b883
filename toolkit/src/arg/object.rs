//! Objects: a struct with `#[derive(Args)]`, whose fields take the same `#[arg(...)]` rules as
//! a tool's arguments. Its schema is inlined where it is used (no `$ref`, which several clients
//! do not resolve), with its own `required` list and `additionalProperties: false`; a field's
//! problem is reported under its path in wire names (`edits[1].oldText`).

use crate::ArgSpec;
use crate::read::Fields;

/// An object argument: what `#[derive(Args)]` implements for a struct, with its
/// [`Arg`](crate::Arg) impl.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an object argument",
    label = "not a `#[derive(Args)]` struct",
    note = "a tagged union's variant is an object: a struct variant (`File {{ path: String }}`), \
            or a newtype over a `#[derive(Args)]` struct"
)]
pub trait Args: crate::Arg {
    /// The fields, in declaration order, as a tool's arguments are declared.
    const ARGS: &'static [ArgSpec];

    /// Which fields are given together (`one_of`, `any_of`, `conflicts_with`, `requires`).
    const GROUPS: &'static [crate::group::Group] = &[];

    /// Reads the object's fields, once it is known to be an object: what [`Arg::read`]
    /// (crate::Arg::read) does after that, and what a tagged union's variant reads.
    #[doc(hidden)]
    fn read_fields(fields: Fields<'_>) -> Option<Self>;
}

/// The deepest of `depths`: a `const fn`, for a derive's [`NESTING`](crate::Arg::NESTING).
pub const fn deepest(depths: &[usize]) -> usize {
    let mut deepest = 0;
    let mut index = 0;
    while index < depths.len() {
        if depths[index] > deepest {
            deepest = depths[index];
        }
        index += 1;
    }
    deepest
}
