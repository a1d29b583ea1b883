//! Rate limits: how often one caller may call one tool. Each caller has a token bucket per tool
//! that holds the limit's calls and fills again at the limit's rate, so a caller may call in a
//! burst up to the limit and then as fast as it fills. Over the limit a call is answered
//! `Rate Limited` with the time until the next is allowed, and nothing runs.
//!
//! A caller is the subject of its HTTP token; over stdio, or over HTTP without tokens, every
//! call is the one caller's. The buckets are this process's: each replica of a server counts on
//! its own.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::{Answer, Layer, Next, ToolCall, ToolError};

/// The most callers whose buckets one tool keeps. A bucket that has filled up again is dropped
/// (it is the same as none), so only callers that called within the last period count; past
/// this many, the fullest bucket makes room for the new caller.
pub const MAX_CALLERS_TRACKED: usize = 10_000;

/// At most `calls` calls in any `per`: `60/min`, as `#[tool(rate_limit = "60/min")]` writes it
/// and [`FromStr`] reads it.
///
/// ```
/// use std::time::Duration;
/// use toolkit::RateLimit;
///
/// let limit: RateLimit = "60/min".parse().unwrap();
/// assert_eq!(limit, RateLimit::new(60, Duration::from_secs(60)));
/// assert_eq!(limit.to_string(), "60 times a minute");
/// assert!("60 a minute".parse::<RateLimit>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateLimit {
    calls: u32,
    per: Duration,
}

impl RateLimit {
    /// At most `calls` calls in any `per`.
    ///
    /// # Panics
    ///
    /// If `calls` is zero or `per` is no time: a limit that allows nothing is no limit to set
    /// (serve fewer tools instead).
    pub const fn new(calls: u32, per: Duration) -> RateLimit {
        assert!(calls > 0, "a rate limit allows at least one call");
        assert!(!per.is_zero(), "a rate limit's period is longer than zero");
        RateLimit { calls, per }
    }

    /// How many calls the limit allows in its period, and in a burst.
    pub fn calls(&self) -> u32 {
        self.calls
    }

    /// The period.
    pub fn per(&self) -> Duration {
        self.per
    }

    /// Calls allowed per second, on average.
    fn per_second(&self) -> f64 {
        f64::from(self.calls) / self.per.as_secs_f64()
    }
}

impl FromStr for RateLimit {
    type Err = String;

    /// Reads `CALLS/PERIOD`: `60/min`, `10/s`, `1000/hour`, `5/30s`.
    fn from_str(text: &str) -> Result<RateLimit, String> {
        let (calls, per) = policy_syntax::rate(text)?;
        Ok(RateLimit::new(calls, per))
    }
}

/// `60 times a minute`, `once a second`, `5 times every 30 s`: as a `Rate Limited` message
/// says it.
impl fmt::Display for RateLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let period = policy_syntax::period(self.per);
        match self.calls {
            1 => write!(f, "once {period}"),
            2 => write!(f, "twice {period}"),
            calls => write!(f, "{calls} times {period}"),
        }
    }
}

/// Applies each tool's rate limit to its callers.
pub(crate) struct RateLimits {
    pub(crate) tools: HashMap<&'static str, Buckets>,
}

impl Layer for RateLimits {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        if let Some(buckets) = self.tools.get(call.tool()) {
            let caller = call.caller().map_or("", |caller| caller.subject.as_str());
            if let Err(retry_in) = buckets.take(caller, Instant::now()) {
                return Err(ToolError::RateLimited {
                    tool: call.tool(),
                    limit: buckets.limit,
                    retry_in,
                });
            }
        }
        Ok(next.run().await)
    }
}

/// One tool's buckets, by caller.
pub(crate) struct Buckets {
    limit: RateLimit,
    callers: Mutex<HashMap<String, Bucket>>,
    most: usize,
}

/// What is left of one caller's limit.
#[derive(Clone, Copy)]
struct Bucket {
    /// Calls allowed now, as of `at`: fractions fill in between.
    tokens: f64,
    at: Instant,
}

impl Bucket {
    /// The calls allowed at `now`, filled at `rate` per second up to `capacity`.
    fn tokens_at(&self, now: Instant, rate: f64, capacity: f64) -> f64 {
        let filled = now.saturating_duration_since(self.at).as_secs_f64() * rate;
        (self.tokens + filled).min(capacity)
    }
}

impl Buckets {
    /// No caller has called yet.
    pub(crate) fn new(limit: RateLimit) -> Buckets {
        Buckets::keeping(limit, MAX_CALLERS_TRACKED)
    }

    fn keeping(limit: RateLimit, most: usize) -> Buckets {
        Buckets {
            limit,
            callers: Mutex::new(HashMap::new()),
            most,
        }
    }

    /// Takes one call from `caller`'s bucket at `now`, or says how long until there is one.
    fn take(&self, caller: &str, now: Instant) -> Result<(), Duration> {
        let (rate, capacity) = (self.limit.per_second(), f64::from(self.limit.calls));
        let mut callers = self.callers.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(bucket) = callers.get_mut(caller) {
            let tokens = bucket.tokens_at(now, rate, capacity);
            if tokens < 1.0 {
                return Err(Duration::from_secs_f64((1.0 - tokens) / rate));
            }
            *bucket = Bucket {
                tokens: tokens - 1.0,
                at: now,
            };
            return Ok(());
        }
        if callers.len() >= self.most {
            make_room(&mut callers, self.most, now, rate, capacity);
        }
        let bucket = Bucket {
            tokens: capacity - 1.0,
            at: now,
        };
        callers.insert(caller.to_owned(), bucket);
        Ok(())
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.callers.lock().map_or(0, |callers| callers.len())
    }
}

/// Drops every bucket that has filled up again, which is the same as none; if that leaves
/// `most` still, the fullest, whose caller loses the least.
fn make_room(
    callers: &mut HashMap<String, Bucket>,
    most: usize,
    now: Instant,
    rate: f64,
    capacity: f64,
) {
    callers.retain(|_, bucket| bucket.tokens_at(now, rate, capacity) < capacity);
    if callers.len() < most {
        return;
    }
    let fullest = callers
        .iter()
        .max_by(|a, b| {
            let (a, b) = (
                a.1.tokens_at(now, rate, capacity),
                b.1.tokens_at(now, rate, capacity),
            );
            a.total_cmp(&b)
        })
        .map(|(caller, _)| caller.clone());
    if let Some(fullest) = fullest {
        callers.remove(&fullest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(text: &str) -> RateLimit {
        text.parse().unwrap()
    }

    #[test]
    fn a_caller_may_call_in_a_burst_then_as_the_bucket_fills() {
        let buckets = Buckets::new(limit("3/min"));
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(buckets.take("alice", start), Ok(()));
        }
        // The fourth waits for a third of a minute to pass.
        let wait = buckets.take("alice", start).unwrap_err();
        assert_eq!(wait.as_secs(), 20);
        assert!(
            buckets
                .take("alice", start + Duration::from_secs(19))
                .is_err()
        );
        assert_eq!(
            buckets.take("alice", start + Duration::from_secs(20)),
            Ok(())
        );
        // Another caller has a bucket of its own.
        assert_eq!(buckets.take("bob", start), Ok(()));
    }

    #[test]
    fn a_refused_call_takes_nothing_from_the_bucket() {
        let buckets = Buckets::new(limit("1/s"));
        let start = Instant::now();
        assert_eq!(buckets.take("", start), Ok(()));
        for _ in 0..100 {
            assert!(
                buckets
                    .take("", start + Duration::from_millis(500))
                    .is_err()
            );
        }
        assert_eq!(buckets.take("", start + Duration::from_secs(1)), Ok(()));
    }

    #[test]
    fn the_callers_tracked_are_capped_and_idle_ones_dropped_first() {
        let buckets = Buckets::keeping(limit("2/min"), 3);
        let start = Instant::now();
        for caller in ["a", "b", "c"] {
            assert_eq!(buckets.take(caller, start), Ok(()));
        }
        assert_eq!(buckets.tracked(), 3);
        // A minute on, every bucket has filled up: all are dropped to make room.
        assert_eq!(buckets.take("d", start + Duration::from_secs(60)), Ok(()));
        assert_eq!(buckets.tracked(), 1);
        // When all are in use, the fullest goes: `b` called once, `c` twice.
        let now = start + Duration::from_secs(60);
        buckets.take("b", now).unwrap();
        buckets.take("c", now).unwrap();
        buckets.take("c", now).unwrap();
        buckets.take("e", now).unwrap();
        assert_eq!(buckets.tracked(), 3);
        assert!(
            buckets.take("c", now).is_err(),
            "c kept its bucket, which is empty"
        );
    }

    #[test]
    fn limits_read_and_say_themselves() {
        assert_eq!(limit("1/s").to_string(), "once a second");
        assert_eq!(limit("2/hour").to_string(), "twice an hour");
        assert_eq!(limit("5/30s").to_string(), "5 times every 30 s");
        assert!("0/min".parse::<RateLimit>().is_err());
    }
}
