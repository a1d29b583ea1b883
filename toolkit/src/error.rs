//! The ways a tool call can fail, and the exact text a model reads for each.

mod envelope;

use std::fmt;

use uuid::Uuid;

pub use envelope::{ERROR_META_KEY, ErrorKind, error_envelope_schema};

use crate::{Entity, Tool};

/// Why a tool call failed. Every variant becomes an `isError: true` result with one text block;
/// none of them is a protocol error.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments break declared rules: `Validation Failed: …`.
    Invalid(Violations),
    /// An id names nothing: `Not Found: …`.
    NotFound {
        /// The kind of thing, as in "No movie has the id …".
        entity: &'static str,
        /// The id that names nothing.
        id: Uuid,
        /// The tools that return valid ids of this kind.
        listed_by: &'static [&'static str],
    },
    /// An id the tool's `run` was given names nothing, and the tool leaves it to the toolkit to
    /// say which: the toolkit checks the `exists` arguments in argument order and answers with
    /// the first miss as `Not Found` (see [`Run::CHECKS_EXISTENCE`](crate::Run::CHECKS_EXISTENCE)).
    Missing,
    /// The call was cancelled ([`Context::cancelled`](crate::Context::cancelled)):
    /// `Cancelled: …`. The toolkit answers a call this way when it stops a cancelled `run`; a
    /// tool that notices the cancellation itself (between two files, say) returns it too.
    Cancelled,
    /// The user declined to confirm the call, or dismissed the question: `Cancelled: ` and
    /// what did not happen ([`Confirm::DECLINED`](crate::Confirm::DECLINED)).
    Declined(&'static str),
    /// A retried call's confirmation (its `requestState`) was forged, has expired, or was
    /// given for other arguments or another caller: nothing ran.
    StaleConfirmation,
    /// The tool asks the user to confirm, the client cannot ask, and the server requires it
    /// ([`ConfirmPolicy::Require`](crate::ConfirmPolicy::Require)).
    CannotConfirm,
    /// The call ran past its time limit ([`Toolbox::timeout`](crate::Toolbox::timeout) or
    /// `#[tool(timeout = "30s")]`) and was stopped as a cancelled call is: `Timed Out: …`.
    TimedOut {
        /// The tool's name.
        tool: &'static str,
        /// The time limit.
        after: std::time::Duration,
    },
    /// The caller has called the tool as often as its rate limit allows for now
    /// ([`RateLimit`](crate::RateLimit)): `Rate Limited: …`. Nothing ran.
    RateLimited {
        /// The tool's name.
        tool: &'static str,
        /// The limit the caller reached.
        limit: crate::RateLimit,
        /// How long until the next call is allowed.
        retry_in: std::time::Duration,
    },
    /// The tool ran, but its result is larger than the server sends
    /// ([`Toolbox::max_result_bytes`](crate::Toolbox::max_result_bytes)): `Result Too Large: …`.
    TooLarge {
        /// The tool's name.
        tool: &'static str,
        /// The result's size in bytes.
        size: usize,
        /// The most the server sends.
        limit: usize,
        /// Whether the tool changes nothing, so asking again for less is safe.
        read_only: bool,
    },
    /// The call contradicts another, and nothing ran: the text is the client's to read as it
    /// is (`Conflict: …`). What a call answers whose `idempotencyKey` was used for a call with
    /// other arguments.
    Conflict(String),
    /// A [`Layer`](crate::Layer) refused the call: the text is its own, as the client reads
    /// it (`Forbidden: …`). Nothing ran.
    Refused(String),
    /// Anything else. The client sees only `Error: Something unexpected happened.` and a
    /// reference; the cause goes to the log under the same reference.
    Unexpected(Box<dyn std::error::Error + Send + Sync>),
}

impl ToolError {
    /// A `Not Found` for an id of entity `E`.
    pub fn not_found<E: Entity>(id: Uuid) -> Self {
        ToolError::NotFound {
            entity: E::NAME,
            id,
            listed_by: E::LISTED_BY,
        }
    }

    /// A broken rule that only the tool can see (one needing the database, say), reported in
    /// the same form as a declared one. `field` is the Rust field name of an argument of `T`.
    pub fn invalid<T: Tool>(field: &str, sentence: impl Into<String>) -> Self {
        let mut violations = Violations::default();
        violations.push_arg::<T>(field, sentence);
        ToolError::Invalid(violations)
    }

    /// A refusal in the server's own words, which the client reads as they are: what a
    /// [`Layer`](crate::Layer) answers a call it does not let through.
    pub fn refused(message: impl Into<String>) -> Self {
        ToolError::Refused(message.into())
    }

    /// A conflict with another call, in the server's own words (`Conflict: …`).
    pub fn conflict(message: impl Into<String>) -> Self {
        ToolError::Conflict(message.into())
    }

    /// An unexpected failure with its cause, for the log.
    pub fn unexpected(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ToolError::Unexpected(cause.into())
    }
}

/// The text a model reads for a broken rule or a missing row; for an unexpected failure, its
/// cause (which only the log sees: the client gets a reference instead).
impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Invalid(violations) => violations.fmt(f),
            ToolError::NotFound {
                entity,
                id,
                listed_by,
            } => f.write_str(&not_found_message(entity, *id, listed_by)),
            ToolError::Missing => f.write_str("an id the tool was given names nothing"),
            ToolError::Cancelled => f.write_str(CANCELLED),
            ToolError::Declined(not_done) => write!(f, "Cancelled: {not_done}"),
            ToolError::StaleConfirmation => f.write_str(
                "Error: the confirmation has expired or does not match this call; call the tool \
                 again.",
            ),
            ToolError::CannotConfirm => f.write_str(
                "Error: this client can't ask the user to confirm, and this server requires it.",
            ),
            ToolError::TimedOut { tool, after } => write!(
                f,
                "Timed Out: {tool} did not finish within {}, and changed nothing. Call it again.",
                policy_syntax::seconds(*after)
            ),
            ToolError::RateLimited {
                tool,
                limit,
                retry_in,
            } => write!(
                f,
                "Rate Limited: {tool} may be called {limit}; try again in {}.",
                policy_syntax::seconds(whole_seconds(*retry_in))
            ),
            ToolError::TooLarge {
                tool,
                size,
                limit,
                read_only,
            } => {
                write!(
                    f,
                    "Result Too Large: the result of {tool} is {} bytes, more than the {} this \
                     server sends.",
                    thousands(*size),
                    thousands(*limit)
                )?;
                match read_only {
                    true => f.write_str(" Ask for less: a smaller page, or a narrower query."),
                    false => f.write_str(
                        " The call itself went through, and what it changed is kept: don't call \
                         it again to see the result.",
                    ),
                }
            }
            ToolError::Conflict(message) | ToolError::Refused(message) => f.write_str(message),
            ToolError::Unexpected(cause) => write!(f, "unexpected failure: {cause}"),
        }
    }
}

/// `duration` rounded up to whole seconds, and at least one: a wait a model can keep.
fn whole_seconds(duration: std::time::Duration) -> std::time::Duration {
    let seconds = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    std::time::Duration::from_secs(seconds.max(1))
}

/// `1234567` as `1,234,567`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// What a cancelled call answers, if anyone still listens: over stdio MCP asks for no answer
/// to a request the client cancelled, and over HTTP the client has gone.
const CANCELLED: &str = "Cancelled: the call was stopped before it finished.";

/// Any error (a database error, say) converts into an unexpected failure, so handlers can use `?`.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(cause: E) -> Self {
        ToolError::Unexpected(Box::new(cause))
    }
}

/// How a `Validation Failed` message names a tool's own arguments: a choice of the server,
/// made once on its [`Toolbox`](crate::Toolbox). A place inside an argument
/// (`edits[1].oldText`) and a name the tool does not declare are always shown as sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Labels {
    /// The wire name, as a client sends it: `thoughtNumber`, `max_length`.
    #[default]
    WireNames,
    /// The wire name with a capital first letter: `ThoughtNumber`, `MovieId`.
    Capitalised,
}

impl Labels {
    /// `name` (a wire name) as this style shows it.
    pub fn apply(self, name: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Labels::WireNames => name.into(),
            Labels::Capitalised => {
                let mut chars = name.chars();
                match chars.next() {
                    Some(first) => first.to_uppercase().chain(chars).collect::<String>().into(),
                    None => name.into(),
                }
            }
        }
    }
}

/// One broken rule: where, and a sentence saying what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// A tool's own argument by its wire name (`movieId`); a place inside one
    /// (`edits[1].oldText`); or a name the tool does not declare, as it was sent.
    pub argument: String,
    /// Whether `argument` is a tool's own argument, which a message names in the server's
    /// [`Labels`] style.
    pub declared: bool,
    /// The rule that broke, by the name a program reads in the error's `violations`:
    /// `required`, `type`, `format`, `enum`, `unknown`, a declared rule's
    /// ([`Rule::name`](crate::rule::Rule::name)), a group's (`one_of`, `any_of`,
    /// `conflicts_with`, `requires`), `each`, or `custom` for one the tool checks itself.
    pub rule: &'static str,
    /// A sentence ending in a full stop.
    pub sentence: String,
}

/// The rule name of a broken rule that a tool checks itself ([`ToolError::invalid`]).
const CUSTOM: &str = "custom";

/// Every rule one call broke, in argument order, then undeclared names in request order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Violations {
    broken: Vec<Violation>,
    labels: Labels,
}

impl Violations {
    /// Adds a broken rule of the tool's own (rule `custom`) at a place shown as it is: a place
    /// inside an argument, or a name the tool does not declare.
    pub fn push(&mut self, place: impl Into<String>, sentence: impl Into<String>) {
        self.push_broken(place, false, CUSTOM, sentence);
    }

    /// Adds a broken rule of the tool's own (rule `custom`) of a tool's own argument, by its
    /// wire name (`movieId`).
    pub fn push_argument(&mut self, name: impl Into<String>, sentence: impl Into<String>) {
        self.push_broken(name, true, CUSTOM, sentence);
    }

    /// Adds the broken rule named `rule` at `place`, a tool's own argument when `declared`.
    pub(crate) fn push_broken(
        &mut self,
        place: impl Into<String>,
        declared: bool,
        rule: &'static str,
        sentence: impl Into<String>,
    ) {
        self.broken.push(Violation {
            argument: place.into(),
            declared,
            rule,
            sentence: sentence.into(),
        });
    }

    /// Adds a broken rule of the argument that tool `T` declares as the Rust field `field`.
    pub fn push_arg<T: Tool>(&mut self, field: &str, sentence: impl Into<String>) {
        match T::SPEC.arg(field) {
            Some(arg) => self.push_argument(arg.name, sentence),
            None => self.push(field, sentence),
        }
    }

    /// The same violations, to be shown with the arguments named in the style `labels`.
    pub fn labelled(mut self, labels: Labels) -> Self {
        self.labels = labels;
        self
    }

    /// How many rules were broken.
    pub fn len(&self) -> usize {
        self.broken.len()
    }

    /// True when no rule was broken.
    pub fn is_empty(&self) -> bool {
        self.broken.is_empty()
    }

    /// The broken rules, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Violation> {
        self.broken.iter()
    }
}

/// The one-line message every broken rule gets:
/// `Validation Failed: Stars: … Correct the arguments and call the tool again.`
impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Validation Failed:")?;
        for violation in &self.broken {
            let place = if violation.declared {
                self.labels.apply(&violation.argument)
            } else {
                violation.argument.as_str().into()
            };
            // A rule about the tool's arguments together (`one_of`) has no one place.
            if place.is_empty() {
                write!(f, " {}", violation.sentence)?;
            } else {
                write!(f, " {place}: {}", violation.sentence)?;
            }
        }
        f.write_str(" Correct the arguments and call the tool again.")
    }
}

/// The `Not Found` sentence: `Not Found: No movie has the id …. Call movies_search or
/// reviews_list to find movie ids.`
pub(crate) fn not_found_message(entity: &str, id: Uuid, listed_by: &[&str]) -> String {
    let mut message = format!("Not Found: No {entity} has the id {id}.");
    if !listed_by.is_empty() {
        message.push_str(&format!(
            " Call {} to find {entity} ids.",
            join_or(listed_by.iter().copied(), "or")
        ));
    }
    message
}

/// Joins words as prose: `a`, `a or b`, `a, b or c`.
pub(crate) fn join_or<'a>(words: impl ExactSizeIterator<Item = &'a str>, last: &str) -> String {
    let count = words.len();
    let mut text = String::new();
    for (index, word) in words.enumerate() {
        if index > 0 {
            text.push_str(if index + 1 == count { " " } else { ", " });
            if index + 1 == count {
                text.push_str(last);
                text.push(' ');
            }
        }
        text.push_str(word);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_words_as_prose() {
        assert_eq!(join_or(["a"].into_iter(), "or"), "a");
        assert_eq!(join_or(["a", "b"].into_iter(), "or"), "a or b");
        assert_eq!(join_or(["a", "b", "c"].into_iter(), "and"), "a, b and c");
    }

    #[test]
    fn not_found_names_the_listing_tools() {
        let id = Uuid::nil();
        assert_eq!(
            not_found_message("movie", id, &["movies_search", "reviews_list"]),
            "Not Found: No movie has the id 00000000-0000-0000-0000-000000000000. \
             Call movies_search or reviews_list to find movie ids."
        );
        assert_eq!(
            not_found_message("review", id, &[]),
            "Not Found: No review has the id 00000000-0000-0000-0000-000000000000."
        );
    }

    #[test]
    fn violations_read_as_one_line_with_arguments_in_the_servers_style() {
        let mut violations = Violations::default();
        violations.push_argument("stars", "A star rating must be between 1 and 5.");
        violations.push("edits[1].oldText", "This field is required.");
        violations.push(
            "movie_id",
            "Not an argument of this tool. Did you mean movieId?",
        );
        assert_eq!(
            violations.to_string(),
            "Validation Failed: stars: A star rating must be between 1 and 5. \
             edits[1].oldText: This field is required. \
             movie_id: Not an argument of this tool. Did you mean movieId? \
             Correct the arguments and call the tool again."
        );
        assert_eq!(
            violations.labelled(Labels::Capitalised).to_string(),
            "Validation Failed: Stars: A star rating must be between 1 and 5. \
             edits[1].oldText: This field is required. \
             movie_id: Not an argument of this tool. Did you mean movieId? \
             Correct the arguments and call the tool again."
        );
    }

    #[test]
    fn capitalised_labels_capitalise_the_first_letter_only() {
        assert_eq!(Labels::Capitalised.apply("movieId"), "MovieId");
        assert_eq!(Labels::Capitalised.apply("max_length"), "Max_length");
        assert_eq!(Labels::WireNames.apply("movieId"), "movieId");
    }
}
