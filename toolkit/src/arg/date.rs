//! Calendar dates and timestamps (the `chrono` feature): `chrono::NaiveDate` as `format: date`
//! (`2024-05-31`), and `chrono::DateTime<FixedOffset>` or `DateTime<Utc>` as `format:
//! date-time` (RFC 3339: `2024-05-31T14:30:00Z`, `2024-05-31T16:30:00.5+02:00`).
//!
//! The text is checked against RFC 3339's exact form before chrono reads it, since chrono is
//! lenient in ways RFC 3339 is not (more year digits, a space for the `T`).

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use serde_json::{Map, Value, json};

use super::{Arg, Reading, Rules, json_type, quoted};

const DATE_FORM: &str = "Must be a date in the form 2024-05-31";
const DATE_TIME_FORM: &str =
    "Must be a date and time with its offset, in the form 2024-05-31T14:30:00Z (RFC 3339)";

impl Arg for NaiveDate {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        schema.insert("type".into(), json!("string"));
        schema.insert("format".into(), json!("date"));
        rules.publish(schema);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        let Some(text) = value.as_str() else {
            return at.refuse(format!("{DATE_FORM}, not {}.", json_type(value)));
        };
        let date = full_date(text).then(|| NaiveDate::parse_from_str(text, "%Y-%m-%d").ok());
        let Some(date) = date.flatten() else {
            return at.refuse_for("format", format!("{DATE_FORM}, not {}.", quoted(text)));
        };
        at.check(value, rules)?;
        Some(date)
    }
}

impl Arg for DateTime<FixedOffset> {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        date_time_schema(schema, rules);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        read_date_time(value, rules, at)
    }
}

impl Arg for DateTime<Utc> {
    fn schema(schema: &mut Map<String, Value>, rules: &Rules) {
        date_time_schema(schema, rules);
    }

    fn read(value: &Value, rules: &Rules, at: &mut Reading<'_>) -> Option<Self> {
        read_date_time(value, rules, at).map(|time| time.with_timezone(&Utc))
    }
}

fn date_time_schema(schema: &mut Map<String, Value>, rules: &Rules) {
    schema.insert("type".into(), json!("string"));
    schema.insert("format".into(), json!("date-time"));
    rules.publish(schema);
}

fn read_date_time(
    value: &Value,
    rules: &Rules,
    at: &mut Reading<'_>,
) -> Option<DateTime<FixedOffset>> {
    let Some(text) = value.as_str() else {
        return at.refuse(format!("{DATE_TIME_FORM}, not {}.", json_type(value)));
    };
    let time = rfc3339_date_time(text)
        .then(|| DateTime::parse_from_rfc3339(text).ok())
        .flatten()
        .filter(|time| !leap_second(text) || at_a_leap_second(time));
    let Some(time) = time else {
        return at.refuse_for("format", format!("{DATE_TIME_FORM}, not {}.", quoted(text)));
    };
    at.check(value, rules)?;
    Some(time)
}

/// Whether the seconds written are `60`: a leap second.
fn leap_second(text: &str) -> bool {
    text.as_bytes().get(17..19) == Some(b"60")
}

/// Whether `time` is where a leap second can be, as RFC 3339 has it: the last second of a UTC
/// day (chrono reads `:60` in any minute).
fn at_a_leap_second(time: &DateTime<FixedOffset>) -> bool {
    use chrono::Timelike;
    let utc = time.with_timezone(&Utc);
    (utc.hour(), utc.minute(), utc.second()) == (23, 59, 59) && utc.nanosecond() >= 1_000_000_000
}

/// Whether `text` has, from `at`, the digits of `pattern`'s `d`s where they are, and its other
/// characters exactly. A `const fn`, as are the two forms below, so that a declared default or
/// example is checked against them at compile time.
const fn shaped(text: &[u8], at: usize, pattern: &[u8]) -> bool {
    if text.len() < at + pattern.len() {
        return false;
    }
    let mut index = 0;
    while index < pattern.len() {
        let byte = text[at + index];
        let fits = match pattern[index] {
            b'd' => byte.is_ascii_digit(),
            other => byte == other,
        };
        if !fits {
            return false;
        }
        index += 1;
    }
    true
}

/// RFC 3339's `full-date`: `YYYY-MM-DD`.
pub(crate) const fn full_date(text: &str) -> bool {
    text.len() == 10 && shaped(text.as_bytes(), 0, b"dddd-dd-dd")
}

/// RFC 3339's `date-time`: a full date, `T`, `HH:MM:SS`, an optional fraction, and `Z` or an
/// offset `+HH:MM` (the letters in either case).
pub(crate) const fn rfc3339_date_time(text: &str) -> bool {
    // Bytes, not `str` slices: a multi-byte character may sit anywhere in what was sent.
    let bytes = text.as_bytes();
    if bytes.len() < 20
        || !shaped(bytes, 0, b"dddd-dd-dd")
        || !matches!(bytes[10], b'T' | b't')
        || !shaped(bytes, 11, b"dd:dd:dd")
    {
        return false;
    }
    let mut rest = 19;
    if bytes[rest] == b'.' {
        rest += 1;
        let digits = rest;
        while rest < bytes.len() && bytes[rest].is_ascii_digit() {
            rest += 1;
        }
        if rest == digits {
            return false;
        }
    }
    let left = bytes.len() - rest;
    (left == 1 && matches!(bytes[rest], b'Z' | b'z'))
        || (left == 6 && matches!(bytes[rest], b'+' | b'-') && shaped(bytes, rest + 1, b"dd:dd"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_in_rfc_3339s_form_only() {
        assert!(full_date("2024-05-31"));
        assert!(!full_date("24-05-31") && !full_date("20240-05-31") && !full_date("2024-5-31"));
        for good in [
            "2024-05-31T14:30:00Z",
            "2024-05-31t14:30:00.25+02:00",
            "1990-12-31T23:59:60-08:00",
        ] {
            assert!(rfc3339_date_time(good), "{good}");
        }
        for bad in [
            "2024-05-31 14:30:00Z",
            "2024-05-31T14:30Z",
            "2024-05-31T14:30:00",
            "2024-05-31T14:30:00.Z",
            "2024-05-31T14:30:00+0200",
            "2024-05-3٣T14:30:00Z",
        ] {
            assert!(!rfc3339_date_time(bad), "{bad}");
        }
    }

    #[test]
    fn a_leap_second_is_the_last_second_of_a_utc_day() {
        let read =
            |text: &str| crate::arg::read_alone::<DateTime<FixedOffset>>(serde_json::json!(text));
        assert!(read("1990-12-31T23:59:60Z").is_ok());
        assert!(read("1990-12-31T15:59:60-08:00").is_ok());
        assert!(read("2024-05-31T14:30:60Z").is_err());
        assert!(read("2024-06-30T23:59:60+01:00").is_err());
        assert!(
            read("2024-05-3٣T14:30:00Z").is_err(),
            "a multi-byte character is refused"
        );
    }
}
