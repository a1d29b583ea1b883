//! The cap on a result's size: a result larger than the server sends is replaced by a tool
//! error that tells the model to ask for less.

use crate::{Answer, Layer, Next, ToolCall, ToolError};

/// Refuses a result of more than `limit` bytes ([`Answer::size`]).
pub(crate) struct ResultSize {
    pub(crate) limit: usize,
}

impl Layer for ResultSize {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        let answer = next.run().await;
        let size = answer.size();
        // An error's text is the toolkit's own, and short.
        if size <= self.limit || answer.outcome().is_error() {
            return Ok(answer);
        }
        Err(ToolError::TooLarge {
            tool: call.tool(),
            size,
            limit: self.limit,
            read_only: call.spec().hints.read_only,
        })
    }
}
