//! What a [`TestClient`](super::TestClient) call returns: the tool result, read the ways a test
//! reads it.

use rmcp::model::CallToolResult;
use serde_json::Value;

/// The result of one call: a tool's output, or its error, with the progress it reported.
#[derive(Debug, Clone)]
pub struct CallResult {
    result: CallToolResult,
    progress: Vec<Progress>,
}

/// One progress notification a call sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the call has got.
    pub progress: f64,
    /// How far it will go, if it said.
    pub total: Option<f64>,
    /// What it is doing, if it said.
    pub message: Option<String>,
}

/// What kind of error a tool answered, by the first words of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// `Validation Failed: …`: the arguments break the tool's rules.
    Validation,
    /// `Not Found: …`: an id names nothing.
    NotFound,
    /// `Cancelled: …`: the call was stopped, or the user declined to confirm it.
    Cancelled,
    /// `Error: Something unexpected happened. …`: the tool failed; the log has the cause.
    Unexpected,
    /// `Timed Out: …`: the call ran past its time limit and was stopped.
    TimedOut,
    /// `Rate Limited: …`: the caller had called the tool as often as it may for now.
    RateLimited,
    /// `Result Too Large: …`: the result was larger than the server sends.
    TooLarge,
    /// Any other error: the call was refused before it ran (a confirmation that expired, a
    /// client that cannot ask the user when the server requires it, a layer's refusal).
    Refused,
}

impl CallResult {
    pub(super) fn new(result: CallToolResult, progress: Vec<Progress>) -> CallResult {
        CallResult { result, progress }
    }

    /// Whether the tool answered an error.
    pub fn is_error(&self) -> bool {
        self.result.is_error == Some(true)
    }

    /// The text of the result's first text block (the output as JSON, or the error's
    /// message); empty when it has none.
    pub fn text(&self) -> &str {
        (self.result.content.iter())
            .find_map(|block| block.as_text())
            .map_or("", |text| text.text.as_str())
    }

    /// The output, as `structuredContent`; `None` for an error.
    pub fn structured(&self) -> Option<&Value> {
        self.result.structured_content.as_ref()
    }

    /// The kind of error the tool answered; `None` when it succeeded.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        if !self.is_error() {
            return None;
        }
        let text = self.text();
        Some(if text.starts_with("Validation Failed:") {
            ErrorKind::Validation
        } else if text.starts_with("Not Found:") {
            ErrorKind::NotFound
        } else if text.starts_with("Cancelled:") {
            ErrorKind::Cancelled
        } else if text.starts_with("Error: Something unexpected happened.") {
            ErrorKind::Unexpected
        } else if text.starts_with("Timed Out:") {
            ErrorKind::TimedOut
        } else if text.starts_with("Rate Limited:") {
            ErrorKind::RateLimited
        } else if text.starts_with("Result Too Large:") {
            ErrorKind::TooLarge
        } else {
            ErrorKind::Refused
        })
    }

    /// The progress the call reported, in the order sent.
    pub fn progress(&self) -> &[Progress] {
        &self.progress
    }

    /// The result as rmcp holds it.
    pub fn raw(&self) -> &CallToolResult {
        &self.result
    }

    /// The result as rmcp holds it, taken out.
    pub fn into_raw(self) -> CallToolResult {
        self.result
    }
}
