//! The error a command stops with: any error, sent between threads, shown to the operator.

/// What can stop a command.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
