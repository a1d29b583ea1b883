//! What a [`TestClient`](super::TestClient) call returns: the tool result, read the ways a test
//! reads it.

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::ErrorKind;

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

    /// The kind of error the tool answered, as its envelope says ([`error`](Self::error));
    /// `None` when it succeeded, or answered no envelope.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        let kind = self.error()?.get("kind")?.as_str()?;
        ErrorKind::from_name(kind)
    }

    /// What a program reads of the error the tool answered: the envelope in its `_meta`
    /// (`{"kind": "validation", "retryable": false, "violations": [...]}`); `None` when it
    /// succeeded.
    pub fn error(&self) -> Option<&Value> {
        if !self.is_error() {
            return None;
        }
        self.result.meta.as_ref()?.0.get(crate::ERROR_META_KEY)
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
