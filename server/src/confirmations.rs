//! How the server's confirmed tool (`reviews_delete`) asks the user: the `--confirm` policy,
//! the keys of `--state-key-file` that seal confirmations (so that replicas accept each
//! other's), and the audit event and counter of every destructive call.

use std::path::Path;

use toolkit::{Audit, ConfirmOutcome, ConfirmPolicy, Confirmations, StateKeys};

use crate::cli::ConfirmMode;
use crate::error::Error;
use crate::metrics::metrics;

/// What the process does with its confirmations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// Serves stdio, where the one caller, the user who started it, has no token.
    Stdio,
    /// Serves HTTP, maybe as one of several replicas.
    Http,
    /// Runs a command (`seed`, `token`, …) and serves no one.
    Nothing,
}

/// The confirmations of a server under `mode`, sealed with the keys in `key_file` (or a random
/// key of this process's own, which an HTTP server's log says).
pub fn confirmations(
    mode: ConfirmMode,
    key_file: Option<&Path>,
    serving: Serving,
) -> Result<Confirmations, Error> {
    let stdio = serving == Serving::Stdio;
    let keys = match key_file {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|error| {
                format!("cannot read the state key file {}: {error}", path.display())
            })?;
            let keys = StateKeys::parse(&text)
                .map_err(|error| format!("the state key file {}: {error}", path.display()))?;
            tracing::info!(keys = keys.len(), path = %path.display(), "sealing confirmations with the key file");
            keys
        }
        None => {
            if mode != ConfirmMode::Off && serving == Serving::Http {
                tracing::warn!(
                    "no --state-key-file: confirmations are sealed with a random key of this \
                     process's own, which other replicas refuse and which is lost when it stops"
                );
            }
            StateKeys::random()
        }
    };
    let policy = match mode {
        ConfirmMode::Ask => ConfirmPolicy::Ask,
        ConfirmMode::Require => ConfirmPolicy::Require,
        ConfirmMode::Off => ConfirmPolicy::Off,
    };
    let nobody = if stdio { "stdio" } else { "anonymous" };
    Ok(Confirmations::new(policy, keys).audit(move |audit| record(audit, nobody)))
}

/// Logs one destructive call and counts it. `nobody` stands for a caller without a token.
fn record(audit: &Audit<'_>, nobody: &str) {
    let caller = audit
        .caller
        .map_or(nobody, |caller| caller.subject.as_str());
    let ids: Vec<String> = audit.ids.iter().map(ToString::to_string).collect();
    tracing::info!(
        target: "audit",
        caller,
        tool = audit.tool,
        ids = ids.join(","),
        outcome = audit.outcome.as_str(),
        "destructive call"
    );
    metrics().confirmation(audit.tool, audit.outcome);
}

/// `ConfirmOutcome` as the counter's label: `confirmed`, `declined`, `not_asked`, `refused`.
pub(crate) fn label(outcome: ConfirmOutcome) -> &'static str {
    match outcome {
        ConfirmOutcome::Confirmed => "confirmed",
        ConfirmOutcome::Declined => "declined",
        ConfirmOutcome::NotAsked => "not_asked",
        ConfirmOutcome::Refused => "refused",
    }
}
