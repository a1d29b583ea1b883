//! What a program reads of a tool error. The text of an error is written for a model; a client,
//! a gateway or a retry loop reads the same error's `_meta["toolkit/error"]` instead:
//!
//! ```json
//! {"kind": "rate_limited", "retryable": true, "retryAfterMs": 12000}
//! ```
//!
//! `kind` is one of the [`ErrorKind`]s, `retryable` says whether calling again with the same
//! arguments may succeed and is safe, and what applies to the kind follows: `retryAfterMs` for a
//! rate limit, `violations` for broken rules, `reference` for an unexpected failure.

use std::fmt;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{ToolError, Violations};

/// The `_meta` key under which an error result carries what a program reads of it.
pub const ERROR_META_KEY: &str = "toolkit/error";

/// What kind of error a tool answered: the envelope's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `validation`: the arguments break the tool's rules (`Validation Failed: …`).
    Validation,
    /// `not_found`: an id names nothing (`Not Found: …`).
    NotFound,
    /// `conflict`: the call contradicts another (`Conflict: …`): an `idempotencyKey` used
    /// for a different call, say.
    Conflict,
    /// `rate_limited`: the caller has called the tool as often as it may for now
    /// (`Rate Limited: …`).
    RateLimited,
    /// `timed_out`: the call ran past its time limit and was stopped (`Timed Out: …`).
    TimedOut,
    /// `cancelled`: the call was stopped, or the user declined to confirm it
    /// (`Cancelled: …`).
    Cancelled,
    /// `refused`: the server would not run the call, or send its result: a layer's refusal, a
    /// confirmation that expired or that the client cannot ask for, a result too large.
    Refused,
    /// `unexpected`: the tool failed (`Error: Something unexpected happened. …`); the log has
    /// the cause under the envelope's `reference`.
    Unexpected,
}

impl ErrorKind {
    /// Every kind, in the order documented.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::Validation,
        ErrorKind::NotFound,
        ErrorKind::Conflict,
        ErrorKind::RateLimited,
        ErrorKind::TimedOut,
        ErrorKind::Cancelled,
        ErrorKind::Refused,
        ErrorKind::Unexpected,
    ];

    /// The kind as the envelope writes it: `validation`, `not_found`, `conflict`,
    /// `rate_limited`, `timed_out`, `cancelled`, `refused`, `unexpected`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Validation => "validation",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::RateLimited => "rate_limited",
            ErrorKind::TimedOut => "timed_out",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Refused => "refused",
            ErrorKind::Unexpected => "unexpected",
        }
    }

    /// The kind written `name`, if there is one.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ToolError {
    /// The kind of error a program reads ([`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            ToolError::Invalid(_) => ErrorKind::Validation,
            ToolError::NotFound { .. } | ToolError::Missing => ErrorKind::NotFound,
            ToolError::Conflict(_) => ErrorKind::Conflict,
            ToolError::RateLimited { .. } => ErrorKind::RateLimited,
            ToolError::TimedOut { .. } => ErrorKind::TimedOut,
            ToolError::Cancelled | ToolError::Declined(_) => ErrorKind::Cancelled,
            ToolError::StaleConfirmation
            | ToolError::CannotConfirm
            | ToolError::TooLarge { .. }
            | ToolError::Refused(_) => ErrorKind::Refused,
            ToolError::Unexpected(_) => ErrorKind::Unexpected,
        }
    }

    /// Whether calling again with the same arguments may succeed and is safe. An unexpected
    /// failure is retryable only for a tool that changes nothing or is idempotent
    /// (`retry_safe`): of any other, it is not known whether the change was made.
    fn retryable(&self, retry_safe: bool) -> bool {
        match self {
            ToolError::RateLimited { .. }
            | ToolError::TimedOut { .. }
            | ToolError::Cancelled
            | ToolError::StaleConfirmation => true,
            ToolError::Unexpected(_) => retry_safe,
            _ => false,
        }
    }

    /// The envelope a program reads, `_meta["toolkit/error"]`. `reference` is what an
    /// unexpected failure's text and log line carry.
    pub(crate) fn envelope(&self, retry_safe: bool, reference: Option<&str>) -> Value {
        let mut envelope = Map::new();
        envelope.insert("kind".into(), json!(self.kind().as_str()));
        envelope.insert("retryable".into(), json!(self.retryable(retry_safe)));
        match self {
            ToolError::RateLimited { retry_in, .. } => {
                envelope.insert("retryAfterMs".into(), json!(whole_millis(*retry_in)));
            }
            ToolError::Invalid(violations) => {
                envelope.insert("violations".into(), violations_json(violations));
            }
            _ => {}
        }
        if let Some(reference) = reference {
            envelope.insert("reference".into(), json!(reference));
        }
        Value::Object(envelope)
    }
}

/// The JSON Schema of the envelope, `_meta["toolkit/error"]`: what a client may hold an error's
/// envelope to. Each kind has the fields its own, and no others.
///
/// ```
/// let schema = toolkit::error_envelope_schema();
/// assert_eq!(schema["required"], serde_json::json!(["kind", "retryable"]));
/// ```
pub fn error_envelope_schema() -> Value {
    let kinds: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.as_str()).collect();
    let only = |kind: &str, field: &str| {
        json!({
            "if": { "properties": { "kind": { "const": kind } } },
            "then": { "required": [field] },
            "else": { "not": { "required": [field] } },
        })
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "toolkit/error",
        "type": "object",
        "properties": {
            "kind": { "enum": kinds },
            "retryable": { "type": "boolean" },
            "retryAfterMs": { "type": "integer", "minimum": 1 },
            "violations": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "path": { "type": "string" },
                        "rule": { "type": "string", "minLength": 1 },
                        "message": { "type": "string", "minLength": 1 },
                    },
                    "required": ["path", "rule", "message"],
                    "additionalProperties": false,
                },
            },
            "reference": { "type": "string", "pattern": "^[0-9a-f]{8}$" },
        },
        "required": ["kind", "retryable"],
        "additionalProperties": false,
        "allOf": [
            only("rate_limited", "retryAfterMs"),
            only("validation", "violations"),
            only("unexpected", "reference"),
        ],
    })
}

/// `duration` in whole milliseconds, rounded up: a wait that is long enough.
fn whole_millis(duration: Duration) -> u64 {
    let millis =
        duration.as_millis() + u128::from(!duration.subsec_nanos().is_multiple_of(1_000_000));
    u64::try_from(millis).unwrap_or(u64::MAX)
}

/// Each broken rule as `{"path", "rule", "message"}`, the path in wire names whatever the
/// server's label style.
fn violations_json(violations: &Violations) -> Value {
    let each = violations.iter().map(|violation| {
        json!({
            "path": violation.argument,
            "rule": violation.rule,
            "message": violation.sentence,
        })
    });
    Value::Array(each.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RateLimit;

    #[test]
    fn kinds_read_back_from_their_names() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(ErrorKind::from_name("too_large"), None);
    }

    #[test]
    fn a_rate_limit_says_when_to_come_back() {
        let error = ToolError::RateLimited {
            tool: "search",
            limit: RateLimit::new(60, Duration::from_secs(60)),
            retry_in: Duration::from_micros(1_500_500),
        };
        assert_eq!(
            error.envelope(true, None),
            json!({"kind": "rate_limited", "retryable": true, "retryAfterMs": 1501})
        );
    }

    #[test]
    fn an_unexpected_failure_is_retryable_only_where_a_retry_is_safe() {
        let error = ToolError::unexpected("disk full");
        assert_eq!(
            error.envelope(false, Some("0a1b2c3d")),
            json!({"kind": "unexpected", "retryable": false, "reference": "0a1b2c3d"})
        );
        assert_eq!(error.envelope(true, Some("0a1b2c3d"))["retryable"], true);
    }

    #[test]
    fn violations_carry_their_path_rule_and_message() {
        let mut violations = Violations::default();
        violations.push_broken("stars", true, "range", "Must be between 1 and 5.");
        violations.push("edits[1].newText", "Too long for this file.");
        let error = ToolError::Invalid(violations.labelled(crate::Labels::Capitalised));
        assert_eq!(
            error.envelope(false, None),
            json!({
                "kind": "validation",
                "retryable": false,
                "violations": [
                    {"path": "stars", "rule": "range", "message": "Must be between 1 and 5."},
                    {"path": "edits[1].newText", "rule": "custom",
                     "message": "Too long for this file."},
                ],
            })
        );
    }
}
