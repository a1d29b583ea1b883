//! The time limit on a call: past it the call is stopped as a cancelled call is (whatever its
//! `run` holds, a transaction say, is dropped with it) and answered `Timed Out`. Time spent
//! waiting for the user to confirm the call is the user's, not the call's, and is not counted.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::{Answer, Layer, Next, ToolCall, ToolError};

/// Stops a call that runs longer than its tool's `timeout`, or `default` for a tool that
/// declares none.
pub(crate) struct Timeouts {
    pub(crate) default: Option<Duration>,
}

impl Layer for Timeouts {
    async fn around(&self, call: &ToolCall<'_>, next: Next<'_>) -> Result<Answer, ToolError> {
        let Some(limit) = call.spec().timeout.or(self.default) else {
            return Ok(next.run().await);
        };
        let started = Instant::now();
        let deadline = || started + limit + call.context().user_time.spent();
        let run = next.run();
        tokio::pin!(run);
        loop {
            tokio::select! {
                answer = &mut run => return Ok(answer),
                () = tokio::time::sleep_until(deadline().into()) => {}
            }
            // The user may have been asked meanwhile, which moves the deadline on.
            if Instant::now() >= deadline() {
                return Err(ToolError::TimedOut {
                    tool: call.tool(),
                    after: limit,
                });
            }
        }
    }
}

/// The time a call has spent waiting for its user, which its time limit does not count.
#[derive(Default)]
pub(crate) struct UserTime {
    spent: Mutex<Spent>,
}

#[derive(Default)]
struct Spent {
    /// When the wait under way began, if one is.
    since: Option<Instant>,
    /// The waits that have ended.
    before: Duration,
}

impl UserTime {
    /// Counts the time from now until the guard is dropped.
    pub(crate) fn waiting(&self) -> Waiting<'_> {
        self.lock().since = Some(Instant::now());
        Waiting { time: self }
    }

    /// The time spent waiting so far, the wait under way included.
    pub(crate) fn spent(&self) -> Duration {
        let spent = self.lock();
        spent.before + spent.since.map_or(Duration::ZERO, |since| since.elapsed())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Spent> {
        self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A wait for the user under way: see [`UserTime::waiting`].
pub(crate) struct Waiting<'a> {
    time: &'a UserTime,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        let mut spent = self.time.lock();
        if let Some(since) = spent.since.take() {
            spent.before += since.elapsed();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_time_spent_waiting_for_the_user_is_counted() {
        let time = UserTime::default();
        assert_eq!(time.spent(), Duration::ZERO);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            time.spent(),
            Duration::ZERO,
            "time not waiting is the call's"
        );
        {
            let _waiting = time.waiting();
            std::thread::sleep(Duration::from_millis(30));
            assert!(
                time.spent() >= Duration::from_millis(30),
                "a wait counts as it goes"
            );
        }
        let after = time.spent();
        assert!(after >= Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(time.spent(), after, "an ended wait counts no more");
    }
}
