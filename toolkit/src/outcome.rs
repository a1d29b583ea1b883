//! How a call ended, as one typed value: the [`CallRecord`] every call of a routed tool ends
//! in, handed to the observer a server registers ([`Toolbox::on_call`](crate::Toolbox::on_call))
//! for its metrics, logs or audit trail. Nothing needs to read an outcome back from the text a
//! model reads.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::{Caller, ToolError};

/// How a call ended, one value per kind of answer a client can get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallOutcome {
    /// The tool ran and returned its result.
    Ok,
    /// The arguments broke rules: `Validation Failed`.
    Invalid,
    /// An id named nothing: `Not Found`.
    NotFound,
    /// The call was stopped before it finished: the client cancelled it or went away, or the
    /// server was shutting down.
    Cancelled,
    /// The user declined to confirm the call, or dismissed the question.
    Declined,
    /// The call was refused for want of the user's confirmation: the client could not ask and
    /// the server requires it, or the confirmation brought back was stale.
    Unconfirmed,
    /// The call asked the user to confirm it (`input_required`); the client retries it with
    /// the answer, and the retry is a call of its own.
    AskedUser,
    /// The call ran past its time limit and was stopped.
    TimedOut,
    /// The caller had called the tool as often as its rate limit allows: nothing ran.
    RateLimited,
    /// The tool ran, but its result was larger than the server sends.
    TooLarge,
    /// A [`Layer`](crate::Layer) refused the call: nothing ran.
    Refused,
    /// The call contradicted another (an `idempotencyKey` used for other arguments): nothing
    /// ran.
    Conflict,
    /// Anything else: the client got `Something unexpected happened` and a reference.
    Unexpected,
}

impl CallOutcome {
    /// The outcome of a call that failed with `error`.
    pub(crate) fn of_error(error: &ToolError) -> CallOutcome {
        match error {
            ToolError::Invalid(_) => CallOutcome::Invalid,
            ToolError::NotFound { .. } | ToolError::Missing => CallOutcome::NotFound,
            ToolError::Cancelled => CallOutcome::Cancelled,
            ToolError::Declined(_) => CallOutcome::Declined,
            ToolError::StaleConfirmation | ToolError::CannotConfirm => CallOutcome::Unconfirmed,
            ToolError::TimedOut { .. } => CallOutcome::TimedOut,
            ToolError::RateLimited { .. } => CallOutcome::RateLimited,
            ToolError::TooLarge { .. } => CallOutcome::TooLarge,
            ToolError::Refused(_) => CallOutcome::Refused,
            ToolError::Conflict(_) => CallOutcome::Conflict,
            ToolError::Unexpected(_) => CallOutcome::Unexpected,
        }
    }

    /// The outcome as a short snake_case word, for a metric's label or a log field: `ok`,
    /// `invalid`, `not_found`, `cancelled`, `declined`, `unconfirmed`, `asked_user`,
    /// `timed_out`, `rate_limited`, `too_large`, `refused`, `conflict`, `unexpected`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallOutcome::Ok => "ok",
            CallOutcome::Invalid => "invalid",
            CallOutcome::NotFound => "not_found",
            CallOutcome::Cancelled => "cancelled",
            CallOutcome::Declined => "declined",
            CallOutcome::Unconfirmed => "unconfirmed",
            CallOutcome::AskedUser => "asked_user",
            CallOutcome::TimedOut => "timed_out",
            CallOutcome::RateLimited => "rate_limited",
            CallOutcome::TooLarge => "too_large",
            CallOutcome::Refused => "refused",
            CallOutcome::Conflict => "conflict",
            CallOutcome::Unexpected => "unexpected",
        }
    }

    /// Whether the call failed: an error result (`isError`) went back. Asking the user is not
    /// a failure.
    pub fn is_error(self) -> bool {
        !matches!(self, CallOutcome::Ok | CallOutcome::AskedUser)
    }
}

impl fmt::Display for CallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call of a tool, once it has ended.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CallRecord<'a> {
    /// The tool's name.
    pub tool: &'static str,
    /// How it ended.
    pub outcome: CallOutcome,
    /// From the call reaching the tool's route to its answer being made.
    pub duration: Duration,
    /// Who called, where the transport knows (over HTTP, from the token).
    pub caller: Option<&'a Caller>,
}

/// What a server registers to see every call: see
/// [`Toolbox::on_call`](crate::Toolbox::on_call).
pub(crate) type Observer = Arc<dyn Fn(&CallRecord<'_>) + Send + Sync>;
