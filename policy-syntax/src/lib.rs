//! How a call policy is written, read by one set of rules whether the derive reads
//! `#[tool(timeout = "30s", rate_limit = "60/min")]` at compile time or a server reads an
//! operator's `--rate-limit reviews_write=30/min` at start-up.
//!
//! - A **duration** is humantime's: a number and a unit, or several (`500ms`, `30s`, `2min`,
//!   `1h 30min`). It is never zero.
//! - A **rate** is `CALLS/PERIOD`: at most `CALLS` calls in any `PERIOD`, a unit alone (`60/min`,
//!   `10/s`, `1000/hour`, `5000/day`) or a duration (`5/30s`). `CALLS` is at least 1.

#![forbid(unsafe_code)]

use std::time::Duration;

/// The longest duration either policy takes: a day. Past it, a timeout no longer bounds a call
/// and a rate's period outlives the state that counts it.
pub const LONGEST: Duration = Duration::from_secs(24 * 60 * 60);

/// The most calls a rate allows in its period.
pub const MOST_CALLS: u32 = 1_000_000;

/// Reads a duration (`30s`, `2min`, `1h 30min`), or says what is wrong with it, as a sentence
/// that ends in what to write.
pub fn duration(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text.trim()).map_err(|error| {
        format!("`{text}` is not a duration ({error}): write a number and a unit, like `30s`, `500ms` or `2min`")
    })?;
    if duration.is_zero() {
        return Err(format!(
            "`{text}` is no time at all: write a duration longer than zero, like `30s`"
        ));
    }
    if duration > LONGEST {
        return Err(format!(
            "`{text}` is longer than a day, the longest a call policy takes: write a day or less, like `24h`"
        ));
    }
    Ok(duration)
}

/// Reads a rate (`60/min`, `5/30s`): the calls allowed, and the period they are allowed in.
pub fn rate(text: &str) -> Result<(u32, Duration), String> {
    let example = "write calls per period, like `60/min`, `10/s` or `5/30s`";
    let Some((calls, period)) = text.trim().split_once('/') else {
        return Err(format!("`{text}` is not a rate: {example}"));
    };
    let calls: u32 = match calls.trim().parse() {
        Ok(calls) if (1..=MOST_CALLS).contains(&calls) => calls,
        _ => {
            return Err(format!(
                "`{text}` does not start with a number of calls from 1 to {MOST_CALLS}: {example}"
            ));
        }
    };
    let period = period.trim();
    // A unit alone is one of it: `min` is `1min`.
    let period = match period.starts_with(|c: char| c.is_ascii_digit()) {
        true => duration(period),
        false => duration(&format!("1{period}")),
    }
    .map_err(|_| format!("`{text}` does not end with a period: {example}"))?;
    Ok((calls, period))
}

/// `duration` as a person reads it in a message: whole seconds where it has no fraction of one
/// (`30 s`, `90 s`), otherwise seconds to the millisecond (`0.5 s`, `1.25 s`).
pub fn seconds(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis.is_multiple_of(1000) {
        return format!("{} s", millis / 1000);
    }
    let text = format!("{}.{:03}", millis / 1000, millis % 1000);
    format!("{} s", text.trim_end_matches('0'))
}

/// The period of a rate as a message says it: `a second`, `a minute`, `an hour`, `a day`, or
/// `every 30 s`.
pub fn period(period: Duration) -> String {
    match period.as_secs() {
        _ if period.subsec_nanos() != 0 => format!("every {}", seconds(period)),
        1 => "a second".to_owned(),
        60 => "a minute".to_owned(),
        3600 => "an hour".to_owned(),
        86400 => "a day".to_owned(),
        _ => format!("every {}", seconds(period)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_as_humantime_writes_them() {
        assert_eq!(duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(duration("2min"), Ok(Duration::from_secs(120)));
        assert_eq!(duration("1h 30min"), Ok(Duration::from_secs(5400)));
        assert_eq!(duration("500ms"), Ok(Duration::from_millis(500)));
        for wrong in ["", "30", "thirty seconds", "0s", "2days"] {
            assert!(duration(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn rates_take_a_unit_alone_or_a_duration() {
        assert_eq!(rate("60/min"), Ok((60, Duration::from_secs(60))));
        assert_eq!(rate("10/s"), Ok((10, Duration::from_secs(1))));
        assert_eq!(rate(" 1000 / hour "), Ok((1000, Duration::from_secs(3600))));
        assert_eq!(rate("5/30s"), Ok((5, Duration::from_secs(30))));
        for wrong in [
            "60",
            "0/min",
            "-1/min",
            "60/",
            "60/fortnight",
            "x/min",
            "2000000/s",
        ] {
            assert!(rate(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn messages_say_durations_in_seconds() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25 s");
        assert_eq!(period(Duration::from_secs(60)), "a minute");
        assert_eq!(period(Duration::from_secs(3600)), "an hour");
        assert_eq!(period(Duration::from_secs(30)), "every 30 s");
    }
}
