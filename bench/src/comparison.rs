//! Two builds compared (`--baseline`): each figure of the baseline beside the server's, with how
//! many times better the server did; and, over `--rounds` rounds in which the two take turns to
//! go first, each figure's median.
//!
//! Taking turns matters on a shared machine: whichever build runs second meets a warmer cache
//! and a machine that may have sped up or slowed down, so a comparison always run in one order
//! leans one way. Each round's ratio compares two runs taken minutes apart at most, so the
//! median of the rounds' ratios is the figure to read, with their range beside it.

use std::path::Path;

use crate::Error;

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Better {
    /// A rate: calls per second.
    Higher,
    /// A cost: latency, CPU time, memory.
    Lower,
}

/// One figure, for both builds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub(crate) name: String,
    pub(crate) decimals: usize,
    pub(crate) baseline: Option<f64>,
    pub(crate) server: Option<f64>,
    /// How many times better the server did (above 1 is better, whichever way the figure
    /// goes), and over several rounds the lowest and highest of the rounds' ratios.
    ratio: Option<Ratio>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Ratio {
    middle: f64,
    range: Option<(f64, f64)>,
}

impl Row {
    /// The row of a figure `better` one way, shown with `decimals` decimals.
    pub(crate) fn new(
        name: impl Into<String>,
        better: Better,
        decimals: usize,
        baseline: Option<f64>,
        server: Option<f64>,
    ) -> Row {
        let ratio = match (baseline, server) {
            (Some(baseline), Some(server)) if baseline > 0.0 && server > 0.0 => Some(Ratio {
                middle: match better {
                    Better::Higher => server / baseline,
                    Better::Lower => baseline / server,
                },
                range: None,
            }),
            _ => None,
        };
        Row {
            name: name.into(),
            decimals,
            baseline,
            server,
            ratio,
        }
    }
}

/// The two builds side by side: a table's title and its rows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Comparison {
    pub(crate) title: String,
    pub(crate) baseline: String,
    pub(crate) server: String,
    pub(crate) rows: Vec<Row>,
}

/// Prints `comparison` as a Markdown table.
fn print(comparison: &Comparison) {
    println!();
    println!(
        "baseline: {}\nserver: {}",
        comparison.baseline, comparison.server
    );
    println!();
    let over_rounds = comparison.rows.iter().any(|row| {
        row.ratio
            .as_ref()
            .is_some_and(|ratio| ratio.range.is_some())
    });
    let ratio_title = if over_rounds {
        "ratio (lowest–highest)"
    } else {
        "ratio"
    };
    println!(
        "| {} | baseline | server | {ratio_title} |",
        comparison.title
    );
    println!("|---|---:|---:|---:|");
    for row in &comparison.rows {
        let decimals = row.decimals;
        let shown =
            |value: Option<f64>| value.map_or("-".to_owned(), |v| format!("{v:.decimals$}"));
        let ratio = match row.ratio {
            None => "-".to_owned(),
            Some(Ratio {
                middle,
                range: None,
            }) => format!("{middle:.2}×"),
            Some(Ratio {
                middle,
                range: Some((lowest, highest)),
            }) => format!("{middle:.2}× ({lowest:.2}–{highest:.2})"),
        };
        println!(
            "| {} | {} | {} | {ratio} |",
            row.name,
            shown(row.baseline),
            shown(row.server)
        );
    }
}

/// Each figure's median over `rounds` (comparisons of the same figures), titled `title`: the
/// baseline's and the server's medians, and the median of the rounds' ratios with their range.
/// `None` without a round.
fn medians(title: String, rounds: &[Comparison]) -> Option<Comparison> {
    let first = rounds.first()?;
    let rows = first
        .rows
        .iter()
        .enumerate()
        .map(|(index, row)| {
            let column = |value: fn(&Row) -> Option<f64>| {
                median(rounds.iter().filter_map(|round| value(&round.rows[index])))
            };
            let ratios: Vec<f64> = rounds
                .iter()
                .filter_map(|round| round.rows[index].ratio.map(|ratio| ratio.middle))
                .collect();
            let lowest = ratios.iter().copied().reduce(f64::min);
            let highest = ratios.iter().copied().reduce(f64::max);
            Row {
                name: row.name.clone(),
                decimals: row.decimals,
                baseline: column(|row| row.baseline),
                server: column(|row| row.server),
                ratio: median(ratios.iter().copied()).map(|middle| Ratio {
                    middle,
                    range: lowest.zip(highest),
                }),
            }
        })
        .collect();
    Some(Comparison {
        title,
        baseline: first.baseline.clone(),
        server: first.server.clone(),
        rows,
    })
}

/// The median of `values` (the mean of the middle two of an even count); `None` without one.
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() {
        0 => None,
        length if length % 2 == 1 => Some(values[middle]),
        _ => Some((values[middle - 1] + values[middle]) / 2.0),
    }
}

/// Measures `server` and `baseline` with `measure` `rounds` times, taking turns to go first (the
/// server in the first round); each round's pair as (baseline, server).
pub(crate) fn in_turns<R>(
    rounds: usize,
    server: &Path,
    baseline: &Path,
    mut measure: impl FnMut(&Path) -> Result<R, Error>,
) -> Result<Vec<(R, R)>, Error> {
    (0..rounds)
        .map(|round| {
            if round.is_multiple_of(2) {
                let server = measure(server)?;
                Ok((measure(baseline)?, server))
            } else {
                let baseline = measure(baseline)?;
                Ok((baseline, measure(server)?))
            }
        })
        .collect()
}

/// Prints the comparison of each round's pair (baseline, server), drawn up by `compare` under
/// a title, then, over several rounds, each figure's median; titled after `what` was measured.
pub(crate) fn print_rounds<R>(
    what: &str,
    pairs: &[(R, R)],
    compare: impl Fn(String, &R, &R) -> Comparison,
) {
    let rounds = pairs.len();
    let compared: Vec<Comparison> = pairs
        .iter()
        .enumerate()
        .map(|(round, (baseline, server))| {
            compare(round_title(what, round, rounds), baseline, server)
        })
        .collect();
    compared.iter().for_each(print);
    if rounds > 1
        && let Some(medians) = medians(format!("{what}, median of {rounds} rounds"), &compared)
    {
        print(&medians);
    }
}

/// The title of round `round` (from 0) of `rounds`, after `what` was measured: which build went
/// first is part of it, so that an order effect can be seen.
fn round_title(what: &str, round: usize, rounds: usize) -> String {
    match rounds {
        1 => what.to_owned(),
        _ => {
            let first = if round.is_multiple_of(2) {
                "server"
            } else {
                "baseline"
            };
            format!("{what}, round {} of {rounds} ({first} first)", round + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(rows: Vec<Row>) -> Comparison {
        Comparison {
            title: "t".to_owned(),
            baseline: "before".to_owned(),
            server: "after".to_owned(),
            rows,
        }
    }

    #[test]
    fn a_ratio_above_one_is_the_server_doing_better_either_way() {
        let rate = Row::new("calls/s", Better::Higher, 0, Some(100.0), Some(150.0));
        assert_eq!(rate.ratio.map(|ratio| ratio.middle), Some(1.5));
        let cost = Row::new("p50", Better::Lower, 0, Some(300.0), Some(200.0));
        assert_eq!(cost.ratio.map(|ratio| ratio.middle), Some(1.5));
        // A figure missing, or nothing to divide by, has no ratio.
        assert_eq!(
            Row::new("cpu", Better::Lower, 0, None, Some(1.0)).ratio,
            None
        );
        assert_eq!(
            Row::new("cpu", Better::Lower, 0, Some(1.0), Some(0.0)).ratio,
            None
        );
    }

    #[test]
    fn over_rounds_each_figure_and_each_ratio_is_the_median() {
        let round = |baseline, server| {
            comparison(vec![
                Row::new("calls/s", Better::Higher, 0, Some(baseline), Some(server)),
                Row::new("cpu", Better::Lower, 0, None, Some(server)),
            ])
        };
        let rounds = [
            round(100.0, 110.0),
            round(200.0, 180.0),
            round(100.0, 130.0),
        ];
        let Some(middle) = medians("m".to_owned(), &rounds) else {
            panic!("three rounds have medians");
        };
        let calls = &middle.rows[0];
        assert_eq!((calls.baseline, calls.server), (Some(100.0), Some(130.0)));
        // The ratios were 1.1, 0.9 and 1.3: their median, not the ratio of the medians (1.3).
        let Some(ratio) = calls.ratio else {
            panic!("no ratio");
        };
        assert!((ratio.middle - 1.1).abs() < 1e-9, "{ratio:?}");
        let Some((lowest, highest)) = ratio.range else {
            panic!("no range");
        };
        assert!((lowest - 0.9).abs() < 1e-9 && (highest - 1.3).abs() < 1e-9);
        // A figure one build did not measure has no median, and no ratio.
        let cpu = &middle.rows[1];
        assert_eq!(
            (cpu.baseline, cpu.server, cpu.ratio),
            (None, Some(130.0), None)
        );
        assert_eq!(medians("m".to_owned(), &[]), None);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median([4.0, 1.0, 3.0, 2.0].into_iter()), Some(2.5));
        assert_eq!(median([2.0].into_iter()), Some(2.0));
        assert_eq!(median(std::iter::empty()), None);
    }

    #[test]
    fn the_builds_take_turns_to_go_first() -> Result<(), Error> {
        let (server, baseline) = (Path::new("new"), Path::new("old"));
        let mut order = Vec::new();
        let pairs = in_turns(3, server, baseline, |build| {
            order.push(build.display().to_string());
            Ok(build.display().to_string())
        })?;
        assert_eq!(order, ["new", "old", "old", "new", "new", "old"]);
        for (before, after) in pairs {
            assert_eq!((before.as_str(), after.as_str()), ("old", "new"));
        }
        assert_eq!(
            round_title("small", 1, 2),
            "small, round 2 of 2 (baseline first)"
        );
        assert_eq!(round_title("small", 0, 1), "small");
        Ok(())
    }
}
