//! What the answers of one `C` say: each read into a verdict (good, refused with 503, failed),
//! and the verdicts tallied into the level's latencies per tool, refusals and errors.

use std::time::Duration;

use hyper::StatusCode;
use serde_json::Value;
use uuid::Uuid;

use crate::client::checked;
use crate::http::Level;
use crate::http::loader::{Answer, Loaded, Timed};
use crate::http::replicas::Probed;
use crate::workload::{Call, TOOLS};

/// What was measured beside the answers.
pub(super) struct Measured {
    pub(super) server_cpu: Option<Duration>,
    pub(super) replica_cpu: Vec<Option<Duration>>,
    pub(super) loader_cpu: Option<Duration>,
    pub(super) peak_rss: Option<u64>,
    pub(super) probed: Probed,
}

/// What an answer says, once read.
pub(super) enum Verdict {
    /// Answered well; the review it wrote, for a write.
    Good(Option<Uuid>),
    /// 503, and whether it said when to retry.
    Refused {
        retry_after: bool,
    },
    Failed(String),
}

/// Reads the answer to `call` (request `index` of the run).
pub(super) fn verdict(index: usize, call: &Call, answer: Result<Answer, String>) -> Verdict {
    match answer {
        Err(error) => Verdict::Failed(format!("call {index} failed: {error}")),
        Ok(answer) if answer.status == StatusCode::SERVICE_UNAVAILABLE => Verdict::Refused {
            retry_after: answer.retry_after.is_some(),
        },
        Ok(answer) if answer.status != StatusCode::OK => Verdict::Failed(format!(
            "call {index} ({}): HTTP {}: {}",
            TOOLS[call.tool()],
            answer.status,
            String::from_utf8_lossy(&answer.body)
        )),
        Ok(answer) => match good_answer(call, &answer.body) {
            Ok(written) => Verdict::Good(written),
            Err(error) => {
                Verdict::Failed(format!("call {index} ({}): {error}", TOOLS[call.tool()]))
            }
        },
    }
}

/// Tallies the verdicts on a run's answers: latencies of the good ones per tool, refusals,
/// errors, and the reviews written.
pub(super) fn read_level(
    connections: usize,
    calls: &[Call],
    loaded: Loaded<Verdict>,
    replicas: usize,
    measured: Measured,
) -> Level {
    let mut level = Level {
        connections,
        elapsed: loaded.elapsed,
        latencies: vec![Vec::new(); TOOLS.len()],
        per_replica: vec![0; replicas],
        server_cpu: measured.server_cpu,
        replica_cpu: measured.replica_cpu,
        loader_cpu: measured.loader_cpu,
        peak_rss: measured.peak_rss,
        refused: 0,
        refused_with_retry_after: 0,
        errors: 0,
        first_errors: Vec::new(),
        probed: measured.probed,
        written: Vec::new(),
    };
    for timed in loaded.answers {
        match timed.answer {
            Verdict::Good(written) => {
                level.latencies[calls[timed.index].tool()].push(timed.latency);
                level.per_replica[timed.replica] += 1;
                level.written.extend(written);
            }
            Verdict::Refused { retry_after } => {
                level.refused += 1;
                level.refused_with_retry_after += usize::from(retry_after);
            }
            Verdict::Failed(failure) => {
                level.errors += 1;
                if level.first_errors.len() < 5 {
                    level.first_errors.push(failure);
                }
            }
        }
    }
    level
}

/// The verdicts on answers kept whole during the run.
pub(super) fn read_after(
    loaded: Loaded<Result<Answer, String>>,
    calls: &[Call],
) -> Loaded<Verdict> {
    let answers = loaded.answers.into_iter().map(|timed| Timed {
        answer: verdict(timed.index, &calls[timed.index], timed.answer),
        index: timed.index,
        replica: timed.replica,
        latency: timed.latency,
    });
    Loaded {
        elapsed: loaded.elapsed,
        answers: answers.collect(),
    }
}

/// Checks a `tools/call` answer's body; the review it wrote, for a write.
fn good_answer(call: &Call, body: &[u8]) -> Result<Option<Uuid>, String> {
    let answer: Value = serde_json::from_slice(body)
        .map_err(|error| format!("not JSON ({error}): {}", String::from_utf8_lossy(body)))?;
    let content = checked(&answer)?;
    if !call.writes() {
        return Ok(None);
    }
    content["id"]
        .as_str()
        .and_then(|id| Uuid::parse_str(id).ok())
        .map(Some)
        .ok_or_else(|| format!("reviews_write answered without an id: {answer}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(result: Value) -> Vec<u8> {
        json!({ "jsonrpc": "2.0", "id": 1, "result": result })
            .to_string()
            .into_bytes()
    }

    #[test]
    fn only_a_good_answer_counts_and_a_write_names_its_review() {
        let review = Uuid::new_v4();
        let write = Call::Write {
            movie: Uuid::new_v4(),
            author: Uuid::new_v4(),
            stars: 3,
        };
        let written = answer(json!({ "isError": false, "structuredContent": { "id": review } }));
        assert_eq!(good_answer(&write, &written), Ok(Some(review)));
        let get = Call::Get(Uuid::new_v4());
        let failed = answer(json!({ "isError": true, "structuredContent": {} }));
        assert!(good_answer(&get, &failed).is_err());
        assert!(good_answer(&get, &answer(json!({ "isError": false }))).is_err());
        assert!(good_answer(&get, b"<html>").is_err());
        let nameless = answer(json!({ "isError": false, "structuredContent": {} }));
        assert!(good_answer(&write, &nameless).is_err());
    }
}
