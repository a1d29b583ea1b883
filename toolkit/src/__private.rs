//! What generated code calls: the re-exports it names, the traits a tool's references and
//! confirmation go through, and the compile-time checks of a declaration's settings against the
//! field types, which the macro cannot see. Not a public API: it may change in any release.

use std::future::Future;

pub use serde_json::{Map as JsonMap, Value as JsonValue};

pub use crate::arg::choice::{read as choice_read, schema as choice_schema};
pub use crate::arg::map::Flatten;
pub use crate::arg::object::deepest;
pub use crate::arg::union::{read_tagged, read_untagged, schema as union_schema};
pub use crate::arg::{Arg, Branch, Rules, Shape, Union};
pub use crate::group::Group;
pub use crate::read::Fields;
pub use crate::rule::{Characters, Numeric};
pub use crate::schema::object_schema;
pub use crate::{ArgSpec, Hints, Literal, Presence, ToolSpec};
use crate::{Entity, Exists, ToolError, Uuid};

/// A type that a string literal (a default or an example) fits. Checked in generated code,
/// so that a literal of the wrong kind is a compile error on it.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` argument cannot have a string default or example",
    label = "a string",
    note = "a string fits a `String` argument, a `#[derive(Choice)]` enum's argument when it \
            names one of its values, or a typed format (a UUID, a URL, a date); an integer \
            choice's is one of its numbers (`default = 3`); a list's is written in brackets \
            (`default = [\"a\", \"b\"]`)"
)]
pub trait StringDefault {
    /// Which strings the type holds, as far as a constant can tell.
    const FORM: StringForm = StringForm::Any;
}

/// Which strings a type holds, as far as a constant can tell: what a string literal is
/// checked against at compile time. A toolbox reads every literal as a call would when it
/// adds the tool, which catches the rest (a URL, the 30th of February).
pub enum StringForm {
    /// Any string, as far as a constant can tell.
    Any,
    /// One of these names (a `Choice`'s).
    Names(&'static [&'static str]),
    /// A UUID in the hyphenated form.
    Uuid,
    /// A date, `2024-05-31`.
    #[cfg(feature = "chrono")]
    Date,
    /// An RFC 3339 date and time, `2024-05-31T14:30:00Z`.
    #[cfg(feature = "chrono")]
    DateTime,
}

impl StringDefault for String {}

impl StringDefault for Uuid {
    const FORM: StringForm = StringForm::Uuid;
}

#[cfg(feature = "url")]
impl StringDefault for url::Url {}

#[cfg(feature = "uri")]
impl StringDefault for fluent_uri::Uri<String> {}

#[cfg(feature = "chrono")]
impl StringDefault for chrono::NaiveDate {
    const FORM: StringForm = StringForm::Date;
}

#[cfg(feature = "chrono")]
impl<Z: chrono::TimeZone> StringDefault for chrono::DateTime<Z>
where
    Self: crate::Arg,
{
    const FORM: StringForm = StringForm::DateTime;
}

/// A type that a list literal (`default = ["a", "b"]`) fits, whose elements are `Item`s.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` argument cannot have a list default or example",
    label = "a list",
    note = "a list in brackets fits a `Vec<T>` argument, each element a literal of `T`; \
            another argument's default is one literal (`default = 10`, `default = \"a\"`)"
)]
pub trait ListDefault {
    /// The type of each element.
    type Item;
}

impl<T: crate::Arg> ListDefault for Vec<T> {
    type Item = T;
}

/// A type that a whole-number default (`default = 3`) fits: a number within its range, or
/// an integer choice when it is one of its values. Checked in generated code, so that a
/// default of the wrong kind is a compile error on the default.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` argument cannot have a whole-number default",
    label = "a whole-number default",
    note = "a whole-number default fits an integer or a float argument, or a \
            `#[derive(Choice)]` enum whose variants are numbers (`Low = 1`) when it is one \
            of them"
)]
pub trait WholeDefault {
    /// The smallest whole number the type holds.
    const MIN: i128;
    /// The largest whole number the type holds.
    const MAX: i128;
    /// The numbers the type holds, where it does not hold every one in its range (an
    /// integer choice's values).
    const NUMBERS: Option<&'static [i64]> = None;
}

macro_rules! whole_defaults {
    ($($number:ty),*) => {$(
        impl WholeDefault for $number {
            const MIN: i128 = <$number as Numeric>::MIN;
            const MAX: i128 = <$number as Numeric>::MAX;
        }
    )*};
}

whole_defaults!(i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);

/// `format = "email"`'s rule: toolkit's `Email`, or without the `email` feature a stand-in
/// that is never run, since [`email_format`] then fails to compile on the `format` key.
#[cfg(feature = "email")]
pub use crate::rule::Email as EmailRule;

/// The stand-in for `format = "email"`'s rule without the `email` feature (see
/// [`email_format`]).
#[cfg(not(feature = "email"))]
#[derive(Debug)]
pub struct EmailRule;

#[cfg(not(feature = "email"))]
impl crate::rule::Rule for EmailRule {
    fn check(&self, _: &JsonValue) -> Result<(), String> {
        Ok(())
    }

    fn publish(&self, _: &mut JsonMap<String, JsonValue>) {}

    fn name(&self) -> &'static str {
        "format"
    }
}

/// Whether toolkit was built with the `email` feature, which `format = "email"` needs.
#[diagnostic::on_unimplemented(
    message = "`format = \"email\"` needs toolkit's `email` feature",
    label = "the `email` feature is off",
    note = "turn it on where toolkit is a dependency: \
            `toolkit = {{ version = \"…\", features = [\"email\"] }}`"
)]
pub trait EmailFeature {}

#[cfg(feature = "email")]
impl EmailFeature for () {}

/// `format = "email"`, which compiles only with toolkit's `email` feature.
pub const fn email_format<T: EmailFeature>() {}

/// A type that `default = true` or `default = false` fits.
#[diagnostic::on_unimplemented(
    message = "a `{Self}` argument cannot default to `true` or `false`",
    label = "a boolean default",
    note = "`true` and `false` are defaults of a `bool` argument"
)]
pub trait BooleanDefault {}

impl BooleanDefault for bool {}

// Compile-time checks of a field's settings against its type. Generated code calls each in
// a constant, spanned on the setting: a type without the trait is an error there, and a
// literal the type cannot hold panics the constant's evaluation with `refusal`.

/// A field of type `T`, in the stubs of a declaration with mistakes (the real code requires
/// `Arg` where it reads the field).
pub const fn argument<T: crate::Arg>() {}

/// `min_chars` or `max_chars` on a field of type `T`.
pub const fn characters<T: crate::rule::Characters>() {}

/// The element of list type `L`, as the subject of the rules in `each(...)`: it takes a
/// rule when the element type does, and the compile error names the element type.
pub struct Element<L>(core::marker::PhantomData<L>);

impl<L: crate::rule::Each> Characters for Element<L> where L::Item: Characters {}

impl<L: crate::rule::Each> crate::rule::Text for Element<L> where L::Item: crate::rule::Text {}

impl<L: crate::rule::Each> Numeric for Element<L>
where
    L::Item: Numeric,
{
    const MIN: i128 = <L::Item as Numeric>::MIN;
    const MAX: i128 = <L::Item as Numeric>::MAX;
    const FRACTIONS: bool = <L::Item as Numeric>::FRACTIONS;
    const LARGEST: f64 = <L::Item as Numeric>::LARGEST;
}

impl<L: crate::rule::Each> crate::rule::Each for Element<L>
where
    L::Item: crate::rule::Each,
{
    type Item = <L::Item as crate::rule::Each>::Item;
}

impl<L: crate::rule::Each> crate::rule::Items for Element<L> where L::Item: crate::rule::Items {}

impl<L: crate::rule::Each> crate::rule::Entries for Element<L> where L::Item: crate::rule::Entries {}

/// `pattern` on a field of type `T`.
pub const fn text<T: crate::rule::Text>() {}

/// `min_items`, `max_items` or `unique` on a field of type `T`.
pub const fn items<T: crate::rule::Items>() {}

/// `min_entries` or `max_entries` on a field of type `T`.
pub const fn entries<T: crate::rule::Entries>() {}

/// A whole-number bound or default on a field of type `T`.
pub const fn whole<T: Numeric>(value: i128, refusal: &str) {
    if value < T::MIN || value > T::MAX {
        panic!("{}", refusal);
    }
}

/// A whole-number default on a field of type `T`: within its range (else `refusal`), and
/// one of its numbers if it has numbers (else `not_one`).
pub const fn whole_default<T: WholeDefault>(value: i128, refusal: &str, not_one: &str) {
    if value < T::MIN || value > T::MAX {
        panic!("{}", refusal);
    }
    let Some(numbers) = T::NUMBERS else {
        return;
    };
    let mut index = 0;
    while index < numbers.len() {
        if numbers[index] as i128 == value {
            return;
        }
        index += 1;
    }
    panic!("{}", not_one);
}

/// A bound or default with a fraction or an exponent (finite: the macro refuses `1e400`) on
/// a field of type `T`.
pub const fn float<T: Numeric>(value: f64, refusal: &str) {
    if !T::FRACTIONS || value.abs() > T::LARGEST {
        panic!("{}", refusal);
    }
}

/// A string literal on a field of type `T`: one of its names, if it has names (else
/// `not_one`), and in its form, if it has one a constant can check (else `malformed`).
pub const fn string_default<T: StringDefault>(value: &str, not_one: &str, malformed: &str) {
    let fits = match T::FORM {
        StringForm::Any => true,
        StringForm::Names(names) => {
            let mut index = 0;
            while index < names.len() && !same_str(names[index], value) {
                index += 1;
            }
            if index == names.len() {
                panic!("{}", not_one);
            }
            true
        }
        StringForm::Uuid => crate::arg::uuid::hyphenated(value),
        #[cfg(feature = "chrono")]
        StringForm::Date => crate::arg::date::full_date(value),
        #[cfg(feature = "chrono")]
        StringForm::DateTime => crate::arg::date::rfc3339_date_time(value),
    };
    if !fits {
        panic!("{}", malformed);
    }
}

/// A list literal on a field of type `L`, called with `T` = `<L as ListDefault>::Item`:
/// naming the element type is the check that `L` is a list, written as each element's
/// check writes it, so that a field that is no list is one error, not one per element.
pub const fn list_default<T>() {}

/// What reading `value` as a `T` with `rules` refuses, one `place: sentence` each: an
/// [`ArgSpec::refusals`](crate::ArgSpec::refusals).
pub fn refusals<T: crate::Arg>(value: &JsonValue, rules: &crate::arg::Rules) -> Vec<String> {
    let mut violations = crate::Violations::default();
    let mut reading = crate::arg::Reading::new("", false, None, &mut violations);
    let _ = T::read(value, rules, &mut reading);
    violations
        .iter()
        .map(|violation| match violation.argument.as_str() {
            "" => violation.sentence.clone(),
            place => format!("{place}: {}", violation.sentence),
        })
        .collect()
}

/// `a == b`, which a `const fn` cannot write for strings.
const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut index = 0;
    while index < a.len() {
        if a[index] != b[index] {
            return false;
        }
        index += 1;
    }
    true
}

/// A `true` or `false` default on a field of type `T`.
pub const fn boolean_default<T: BooleanDefault>() {}

/// Checks every `exists = …` argument of a tool; generated with one `Exists` bound per
/// entity the tool refers to. The ids are taken apart from the tool, so they can still be
/// checked after `run` has consumed it.
pub trait References<S> {
    /// The `exists` arguments' ids, in argument order (`None`: not passed).
    type Ids: Copy + Send + AsRef<[Option<Uuid>]>;

    fn reference_ids(&self) -> Self::Ids;

    /// `Not Found` for the first id that names nothing.
    fn check_references(
        ids: Self::Ids,
        state: &S,
    ) -> impl Future<Output = Result<(), ToolError>> + Send;
}

/// How a tool asks the user to confirm a call: its [`Confirm`](crate::Confirm) impl when it
/// declares `confirm` (the derive requires one then), and never asked otherwise.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is declared with `#[tool(confirm)]`, so it must say what the user is asked to confirm",
    label = "needs `impl toolkit::Confirm<{S}> for {Self}`",
    note = "implement `toolkit::Confirm<{S}>` for `{Self}`, whose `confirmation` words the question, or drop `confirm`"
)]
pub trait Confirms<S> {
    /// What did not happen when the user declines.
    const DECLINED: &'static str = "the tool did not run.";

    /// The question the user is asked.
    fn confirmation(
        &self,
        state: &S,
        context: &crate::Context,
    ) -> impl Future<Output = Result<String, ToolError>> + Send {
        let _ = (state, context);
        async { Ok(String::new()) }
    }
}

/// The id an `exists` field holds, whether the field is `Uuid` or `Option<Uuid>`.
#[diagnostic::on_unimplemented(
    message = "`exists` checks an id, so the field must be a `Uuid`, `Option<Uuid>` or `Option<Option<Uuid>>`, not `{Self}`",
    label = "not an id",
    note = "an id is a `toolkit::Uuid` (the `uuid` crate's)"
)]
pub trait ReferenceId {
    fn reference_id(&self) -> Option<Uuid>;
}

impl ReferenceId for Uuid {
    fn reference_id(&self) -> Option<Uuid> {
        Some(*self)
    }
}

impl ReferenceId for Option<Uuid> {
    fn reference_id(&self) -> Option<Uuid> {
        *self
    }
}

impl ReferenceId for Option<Option<Uuid>> {
    fn reference_id(&self) -> Option<Uuid> {
        self.flatten()
    }
}

/// `Not Found` unless the entity `id` names exists.
pub async fn check_exists<E: Entity, S: Exists<E>>(
    state: &S,
    id: Option<Uuid>,
) -> Result<(), ToolError> {
    match id {
        Some(id) if !state.exists(id).await? => Err(ToolError::not_found::<E>(id)),
        _ => Ok(()),
    }
}

/// The argument a tool declared `#[tool(idempotency_key)]` takes, after its own: an optional
/// string of 1 to 100 letters, digits, `_` or `-`.
pub const IDEMPOTENCY_KEY_ARG: ArgSpec = ArgSpec {
    field: "idempotency_key",
    name: crate::policy::idempotency::KEY_ARGUMENT,
    description: Some(
        "A key of your own making for this action: 1 to 100 letters, digits, _ or -. Pass a new \
         key for each new action, and the same key, with the same arguments, when you retry an \
         action whose answer you did not get: the action is then done once, and the retry gets \
         its result.",
    ),
    schema: <String as Arg>::schema,
    rules: Rules {
        own: &[
            &crate::rule::Length {
                min: Some(1),
                max: Some(100),
            },
            // `*`, not `+`: the empty key breaks `min_chars` alone.
            &crate::rule::Pattern {
                source: "^[A-Za-z0-9_-]*$",
                rust: "^[A-Za-z0-9_-]*$",
            },
        ],
        each: None,
    },
    presence: Presence::Optional,
    message: None,
    ignored_with: None,
    nullable: false,
    flatten: None,
    examples: &[],
    refusals: refusals::<String>,
    nested: <String as Arg>::nested_args,
};
