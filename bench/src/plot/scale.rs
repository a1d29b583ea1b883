//! The latency axis's ticks: 1-2-5 steps (100 µs, 200 µs, 500 µs, 1 ms, …), labelled in the
//! unit people write latencies in.

/// A value on the latency axis, `mantissa` × 10^`exponent` µs with `mantissa` 1, 2 or 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    pub mantissa: u8,
    exponent: i32,
}

impl Tick {
    pub fn micros(self) -> f64 {
        f64::from(self.mantissa) * 10f64.powi(self.exponent)
    }

    fn next(self) -> Tick {
        match self.mantissa {
            1 => Tick {
                mantissa: 2,
                ..self
            },
            2 => Tick {
                mantissa: 5,
                ..self
            },
            _ => Tick {
                mantissa: 1,
                exponent: self.exponent + 1,
            },
        }
    }

    /// The largest tick at or below `micros`. Starts a decade low and steps up, so that a
    /// `log10` a hair off (999.999… for 1,000) cannot skip the right one.
    fn at_or_below(micros: f64) -> Tick {
        let mut tick = Tick {
            mantissa: 1,
            exponent: micros.log10().floor() as i32 - 1,
        };
        while tick.next().micros() <= micros * (1.0 + 1e-9) {
            tick = tick.next();
        }
        tick
    }

    /// "200 µs", "1 ms", "5 s", "0.5 µs": the largest unit the value is a whole number of,
    /// so that the labels read as people write latencies.
    pub fn label(self) -> String {
        let (unit, shift) = match self.exponent {
            6.. => ("s", 6),
            3.. => ("ms", 3),
            _ => ("µs", 0),
        };
        let exponent = self.exponent - shift;
        let number = u32::try_from(exponent)
            .ok()
            .and_then(|exponent| 10u64.checked_pow(exponent))
            .map(|power| (u64::from(self.mantissa) * power).to_string())
            .unwrap_or_else(|| (f64::from(self.mantissa) * 10f64.powi(exponent)).to_string());
        format!("{number} {unit}")
    }
}

/// The 1-2-5 ticks from the largest at or below `low` to the smallest at or above `high`; the
/// axis runs from the first to the last, so every value lies on it and both ends are labelled.
/// At least two, so that a single value still has a scale.
pub fn ticks(low: f64, high: f64) -> Vec<Tick> {
    let mut ticks = vec![Tick::at_or_below(low)];
    while let Some(&last) = ticks.last()
        && (last.micros() < high * (1.0 - 1e-9) || ticks.len() < 2)
    {
        ticks.push(last.next());
    }
    ticks
}

#[cfg(test)]
pub fn labels(ticks: &[Tick]) -> Vec<String> {
    ticks.iter().map(|tick| tick.label()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_step_1_2_5_and_cover_the_values() {
        assert_eq!(
            labels(&ticks(147.0, 7149.0)),
            [
                "100 µs", "200 µs", "500 µs", "1 ms", "2 ms", "5 ms", "10 ms"
            ]
        );
        // Values on a tick are not widened past it.
        assert_eq!(labels(&ticks(200.0, 1000.0)), ["200 µs", "500 µs", "1 ms"]);
        // One value still gets a scale.
        assert_eq!(labels(&ticks(1000.0, 1000.0)), ["1 ms", "2 ms"]);
        assert_eq!(
            labels(&ticks(0.3, 3.0)),
            ["0.2 µs", "0.5 µs", "1 µs", "2 µs", "5 µs"]
        );
        assert_eq!(
            labels(&ticks(400_000.0, 1_500_000.0)),
            ["200 ms", "500 ms", "1 s", "2 s"]
        );
    }
}
