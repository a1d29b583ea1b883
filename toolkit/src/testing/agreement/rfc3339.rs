//! What a tool holding a date-time gives back for the text it was sent, worked out here from
//! RFC 3339's fields alone, without chrono (which the tool reads it with), so that the oracle
//! cannot share a mistake with the parser.
//!
//! The tool receives not the text sent but chrono's value, which serialises as chrono writes
//! RFC 3339: `T` and `Z` in upper case, a zero offset (`+00:00`, `-00:00`, `z`) as `Z`, the
//! seconds' fraction cut (not rounded) to nanoseconds and written in groups of three digits,
//! none when it is zero (`.5` is `.500`, `.0001` is `.000100`, `.000` nothing), a leap second
//! as `:60`, and a year outside 0000 to 9999 (which a date-time converted to UTC can reach)
//! with its sign and at least four digits (`-0001`, `+10000`). A `DateTime<Utc>` holds the
//! instant converted to UTC; a `DateTime<FixedOffset>` keeps the offset sent. The schema says
//! `format: date-time` for both, so which one a tool holds is the caller's to say ([`Zone`]).

/// How a tool holds the date-times it receives: the one thing about them its input schema
/// cannot say, stated by whoever runs the check (`Agreement::date_times_in_utc`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Zone {
    /// With the offset sent: `DateTime<FixedOffset>`.
    Sent,
    /// Converted to UTC: `DateTime<Utc>`.
    Utc,
}

/// The fields of an RFC 3339 date-time.
#[derive(Debug, PartialEq)]
struct Stamp {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    /// 0 to 60, a leap second.
    second: i64,
    /// The fraction's first nine digits, as nanoseconds.
    nanos: u32,
    /// East of UTC, in minutes.
    offset: i64,
}

/// What a tool holding date-times in `zone` receives for `sent`, a date-time both sides
/// accepted; `None` if it is no RFC 3339 date-time after all.
pub fn received(sent: &str, zone: Zone) -> Option<String> {
    let stamp = stamp(sent)?;
    Some(written(&match zone {
        Zone::Sent => stamp,
        Zone::Utc => in_utc(stamp),
    }))
}

/// The fields of `text`, read by RFC 3339's grammar (its values unchecked: both sides have).
fn stamp(text: &str) -> Option<Stamp> {
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = text.get(range)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    let bytes = text.as_bytes();
    let shaped = separators.iter().all(|&(at, c)| bytes.get(at) == Some(&c))
        && matches!(bytes.get(10), Some(b'T' | b't'));
    if !shaped {
        return None;
    }
    let rest = text.get(19..)?;
    let (fraction, offset) = match rest.strip_prefix('.') {
        Some(rest) => rest.split_at(rest.find(|c: char| !c.is_ascii_digit())?),
        None => ("", rest),
    };
    Some(Stamp {
        year: number(0..4)?,
        month: number(5..7)?,
        day: number(8..10)?,
        hour: number(11..13)?,
        minute: number(14..16)?,
        second: number(17..19)?,
        nanos: nanos(fraction),
        offset: offset_minutes(offset)?,
    })
}

/// A fraction's digits as nanoseconds: the first nine, the rest cut off.
fn nanos(fraction: &str) -> u32 {
    let nine: String = fraction
        .chars()
        .chain(std::iter::repeat('0'))
        .take(9)
        .collect();
    nine.parse().unwrap_or(0)
}

/// `Z`, `z` or `±HH:MM`, in minutes east of UTC.
fn offset_minutes(offset: &str) -> Option<i64> {
    if offset.eq_ignore_ascii_case("z") {
        return Some(0);
    }
    let sign = match offset.get(..1)? {
        "+" => 1,
        "-" => -1,
        _ => return None,
    };
    let (hours, minutes) = offset.get(1..)?.split_once(':')?;
    Some(sign * (hours.parse::<i64>().ok()? * 60 + minutes.parse::<i64>().ok()?))
}

/// The same instant at offset zero: the minutes since the epoch moved by the offset, the
/// seconds (a leap second too) and the fraction as they were.
fn in_utc(stamp: Stamp) -> Stamp {
    let days = days_from_civil(stamp.year, stamp.month, stamp.day);
    let minutes = days * 1440 + stamp.hour * 60 + stamp.minute - stamp.offset;
    let (year, month, day) = civil_from_days(minutes.div_euclid(1440));
    let minute_of_day = minutes.rem_euclid(1440);
    Stamp {
        year,
        month,
        day,
        hour: minute_of_day / 60,
        minute: minute_of_day % 60,
        offset: 0,
        ..stamp
    }
}

/// The date-time as chrono writes it (see the module's documentation).
fn written(stamp: &Stamp) -> String {
    let year = if (0..=9999).contains(&stamp.year) {
        format!("{:04}", stamp.year)
    } else {
        format!("{:+05}", stamp.year)
    };
    let fraction = match stamp.nanos {
        0 => String::new(),
        nanos if nanos % 1_000_000 == 0 => format!(".{:03}", nanos / 1_000_000),
        nanos if nanos % 1_000 == 0 => format!(".{:06}", nanos / 1_000),
        nanos => format!(".{nanos:09}"),
    };
    let offset = match stamp.offset {
        0 => "Z".to_owned(),
        minutes => {
            let sign = if minutes < 0 { '-' } else { '+' };
            format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
        }
    };
    format!(
        "{year}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}{offset}",
        stamp.month, stamp.day, stamp.hour, stamp.minute, stamp.second
    )
}

/// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
