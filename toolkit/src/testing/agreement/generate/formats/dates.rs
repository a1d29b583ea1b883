//! Dates and date-times as RFC 3339's `full-date` and `date-time` have them, and near misses
//! of them.

use proptest::prelude::*;
use proptest::sample::select;

use super::*;

// Dates (RFC 3339)

/// Whether `year` is a leap year in the Gregorian calendar.
fn leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// The days in `month` of `year`.
fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A year of four digits, often one where the leap years' rule turns (1900, 2000, 2100) or an
/// end of the range.
fn year() -> BoxedStrategy<u32> {
    let turning = vec![
        0, 1, 4, 1582, 1600, 1900, 1970, 2000, 2023, 2024, 2100, 2400, 9999,
    ];
    prop_oneof![2 => select(turning), 3 => 0..=9999u32].boxed()
}

/// A year, a month and a day of it, often one of its last days (28 to 31 by month and year).
fn date_parts() -> BoxedStrategy<(u32, u32, u32)> {
    (year(), 1..=12u32, any::<bool>(), 0..4u32, 1..=31u32)
        .prop_map(|(year, month, near_end, back, day)| {
            let last = days_in(year, month);
            let day = if near_end { last - back } else { day.min(last) };
            (year, month, day)
        })
        .boxed()
}

/// `YYYY-MM-DD`.
fn date_written((year, month, day): (u32, u32, u32)) -> String {
    format!("{year:04}-{month:02}-{day:02}")
}

/// A full date.
pub(super) fn date_valid() -> BoxedStrategy<String> {
    date_parts().prop_map(date_written).boxed()
}

/// Near misses of dates: a day past its month's end (February 29th of a year that is no leap
/// year), month or day 0 or past the last, fields one digit short or long, other separators,
/// something around it, a troublesome piece.
pub(super) fn date_near() -> BoxedStrategy<String> {
    let past_end = (year(), 1..=12u32)
        .prop_map(|(year, month)| date_written((year, month, days_in(year, month) + 1)));
    let february = select(vec![1900, 2100, 2023, 1, 2000, 2024, 0])
        .prop_map(|year| date_written((year, 2, 29)));
    let out_of_range = (
        year(),
        select(vec![0, 1, 12, 13, 99]),
        select(vec![0, 1, 31, 32, 99]),
    )
        .prop_map(|(year, month, day)| format!("{year:04}-{month:02}-{day:02}"));
    let widths = (date_parts(), 0..5u8).prop_map(|((year, month, day), how)| match how {
        0 => format!("{year:04}-{month}-{day:02}"),
        1 => format!("{year:04}-{month:02}-{day}"),
        2 => format!("{:02}-{month:02}-{day:02}", year % 100),
        3 => format!("{year:05}-{month:02}-{day:02}"),
        _ => format!("+{year:04}-{month:02}-{day:02}"),
    });
    let separators = (date_valid(), select(vec!["/", ".", "", " ", "_"]))
        .prop_map(|(date, separator)| date.replace('-', separator));
    let around = (
        date_valid(),
        select(vec![" ", "\n", "T00:00:00Z", "Z", "x"]),
        any::<bool>(),
    )
        .prop_map(|(date, extra, after)| {
            if after {
                format!("{date}{extra}")
            } else {
                format!("{extra}{date}")
            }
        });
    one_of(vec![
        (
            4,
            mutated(date_valid(), &["0", "9", "-", ":", "T", "٣", "+"]),
        ),
        (2, past_end.boxed()),
        (1, february.boxed()),
        (1, out_of_range.boxed()),
        (1, widths.boxed()),
        (1, separators.boxed()),
        (1, around.boxed()),
    ])
}

// Date-times (RFC 3339)

/// A fraction of a second: none, one to twelve digits (past chrono's nine), or one of those
/// that end in zeros or carry a digit past the nanoseconds.
fn fraction() -> BoxedStrategy<String> {
    let edges = vec![
        ".0",
        ".000",
        ".5",
        ".500",
        ".000000001",
        ".999999999",
        ".9999999999",
        ".123456789012",
        ".000100",
    ];
    prop_oneof![
        3 => Just(String::new()),
        3 => drawn(chars(&[DIGITS]), 1..=12).prop_map(|digits| format!(".{digits}")),
        1 => select(edges).prop_map(str::to_owned),
    ]
    .boxed()
}

/// An offset, as written and in minutes east of UTC: `Z` or `z`, or `+` or `-` with hours to
/// 23 and minutes to 59 (`-00:00` among them).
fn offset() -> BoxedStrategy<(String, i32)> {
    let zulu = select(vec!["Z", "z"]).prop_map(|z| (z.to_owned(), 0));
    let numeric = (
        any::<bool>(),
        0..=23i32,
        prop_oneof![0..=59i32, select(vec![0, 30, 59])],
    )
        .prop_map(|(east, hours, minutes)| {
            let sign = if east { '+' } else { '-' };
            let total = (hours * 60 + minutes) * if east { 1 } else { -1 };
            (format!("{sign}{hours:02}:{minutes:02}"), total)
        });
    prop_oneof![1 => zulu, 3 => numeric].boxed()
}

/// A date-time: a date, `T` or `t`, a time with seconds to 59 and perhaps a fraction, an
/// offset; or a leap second, `:60` at 23:59 UTC, whatever the offset (`00:59:60+01:00`).
pub(super) fn date_time_valid() -> BoxedStrategy<String> {
    let seconds = prop_oneof![0..=59u32, select(vec![0, 59])];
    let ordinary = (
        date_valid(),
        select(vec!["T", "t"]),
        (0..=23u32, 0..=59u32, seconds),
        fraction(),
        offset(),
    )
        .prop_map(|(date, t, (hour, minute, second), fraction, (offset, _))| {
            format!("{date}{t}{hour:02}:{minute:02}:{second:02}{fraction}{offset}")
        });
    let leap_second = (date_valid(), fraction(), offset()).prop_map(|(date, fraction, offset)| {
        let (hour, minute) = local_of_last_utc_minute(offset.1);
        format!("{date}T{hour:02}:{minute:02}:60{fraction}{}", offset.0)
    });
    prop_oneof![5 => ordinary, 1 => leap_second].boxed()
}

/// The local hour and minute of 23:59 UTC at `offset` minutes east.
fn local_of_last_utc_minute(offset: i32) -> (i32, i32) {
    let minute_of_day = (23 * 60 + 59 + offset).rem_euclid(1440);
    (minute_of_day / 60, minute_of_day % 60)
}

/// Near misses of date-times: a date's near miss, an hour, minute or second past its last, a
/// leap second not at the last second of a UTC day, offsets past 23:59 or not in `±HH:MM`, no
/// offset, fields one digit short, another separator for the `T`, a broken fraction, a five-
/// digit year, a troublesome piece.
pub(super) fn date_time_near() -> BoxedStrategy<String> {
    let time = "T14:30:00Z";
    let bad_date = date_near().prop_map(move |date| format!("{date}{time}"));
    let past_last = (
        date_valid(),
        select(vec!["24:00:00", "23:60:00", "23:59:61", "99:00:00"]),
    )
        .prop_map(|(date, time)| format!("{date}T{time}Z"));
    let leap_elsewhere = (date_valid(), 0..=23i32, 0..=59i32, offset(), -1..=1i32).prop_map(
        |(date, hour, minute, (offset, minutes), shift)| {
            // Either any minute, or a minute next to where a leap second would be.
            let (hour, minute) = if shift == 0 {
                (hour, minute)
            } else {
                local_of_last_utc_minute(minutes + shift)
            };
            format!("{date}T{hour:02}:{minute:02}:60{offset}")
        },
    );
    let offsets = vec![
        "+24:00", "-24:00", "+23:60", "+0200", "+02", "02:00", "UTC", "GMT", "Z+01:00", "",
        "+2:00", "+02:0", "z ", "ZZ", "+02:00Z",
    ];
    let bad_offset = (date_valid(), select(offsets))
        .prop_map(|(date, offset)| format!("{date}T14:30:00{offset}"));
    let shapes = vec![
        "T1:30:00Z",
        "T01:3:00Z",
        "T01:30:0Z",
        " 01:30:00Z",
        "_01:30:00Z",
        "01:30:00Z",
        "TT01:30:00Z",
        "T01:30Z",
        "T01:30:00.Z",
        "T01:30:00,5Z",
        "T01:30:00.5.5Z",
        "T013000Z",
    ];
    let bad_shape = (date_valid(), select(shapes)).prop_map(|(date, rest)| format!("{date}{rest}"));
    let five_digits = (10_000..=12_024u32, 1..=12u32)
        .prop_map(|(year, month)| format!("{year}-{month:02}-01T00:00:00Z"));
    one_of(vec![
        (
            5,
            mutated(
                date_time_valid(),
                &["0", "9", "-", ":", "T", "t", ".", "Z", "+", "٣"],
            ),
        ),
        (1, bad_date.boxed()),
        (1, past_last.boxed()),
        (2, leap_elsewhere.boxed()),
        (1, bad_offset.boxed()),
        (1, bad_shape.boxed()),
        (1, five_digits.boxed()),
    ])
}
