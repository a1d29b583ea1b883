//! The benchmark's plot: p50 latency of each tool against data size, as a PNG.
//!
//! Drawn by hand on an RGB canvas (lines, squares, and text in an 8×8 bitmap font), because a
//! plotting library needs system fonts to write a label, and a fresh machine may have none.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// What to plot: one latency (µs; `None` where not measured) per size, for each tool.
pub struct Series {
    /// The sizes' labels, left to right.
    pub sizes: Vec<String>,
    pub tools: Vec<(String, Vec<Option<f64>>)>,
}

const WIDTH: usize = 960;
const HEIGHT: usize = 560;
const LEFT: usize = 90;
const RIGHT: usize = 230;
const TOP: usize = 60;
const BOTTOM: usize = 80;

type Rgb = [u8; 3];

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [20, 20, 20];
const GRID: Rgb = [200, 200, 200];
const FAINT: Rgb = [235, 235, 235];
const COLOURS: [Rgb; 6] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
];

/// Writes the plot to `path`: sizes along x, latency on a log scale along y.
pub fn latency_by_size(path: &Path, series: &Series) -> Result<(), Error> {
    let values = || {
        series
            .tools
            .iter()
            .flat_map(|(_, p50s)| p50s.iter().flatten())
    };
    let (Some(low), Some(high)) = (
        values().copied().reduce(f64::min),
        values().copied().reduce(f64::max),
    ) else {
        return Err("nothing was measured to plot".into());
    };
    // Whole decades around the values, so every grid line is a round number.
    let first_decade = low.max(1.0).log10().floor() as i32;
    let last_decade = (high.max(1.0).log10().ceil() as i32).max(first_decade + 1);

    let mut canvas = Canvas::new(WIDTH, HEIGHT, WHITE);
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let y_of = |micros: f64| -> i64 {
        let fraction = (micros.max(1.0).log10() - f64::from(first_decade))
            / f64::from(last_decade - first_decade);
        (TOP + plot_height) as i64 - (fraction * plot_height as f64).round() as i64
    };
    let x_of = |index: usize| -> i64 {
        let count = series.sizes.len().max(1);
        (LEFT + plot_width * (2 * index + 1) / (2 * count)) as i64
    };

    canvas.text(
        LEFT as i64,
        20,
        "p50 latency per tool, one call in flight (log scale)",
        BLACK,
        2,
    );
    for decade in first_decade..last_decade {
        for multiple in [2.0, 5.0] {
            let y = y_of(multiple * 10f64.powi(decade));
            canvas.line((LEFT as i64, y), ((LEFT + plot_width) as i64, y), FAINT, 1);
        }
    }
    for decade in first_decade..=last_decade {
        let y = y_of(10f64.powi(decade));
        canvas.line((LEFT as i64, y), ((LEFT + plot_width) as i64, y), GRID, 1);
        let label = decade_label(decade);
        let x = LEFT as i64 - 12 - 8 * label.len() as i64;
        canvas.text(x, y - 4, &label, BLACK, 1);
    }
    let (axis_left, axis_bottom) = (LEFT as i64, (TOP + plot_height) as i64);
    canvas.line((axis_left, TOP as i64), (axis_left, axis_bottom), BLACK, 2);
    canvas.line(
        (axis_left, axis_bottom),
        ((LEFT + plot_width) as i64, axis_bottom),
        BLACK,
        2,
    );
    for (index, label) in series.sizes.iter().enumerate() {
        let x = x_of(index);
        canvas.line((x, axis_bottom), (x, axis_bottom + 6), BLACK, 2);
        canvas.text(
            x - 4 * label.len() as i64,
            axis_bottom + 14,
            label,
            BLACK,
            1,
        );
    }
    canvas.text(
        LEFT as i64,
        (HEIGHT - 30) as i64,
        "data set (movies/reviews)",
        BLACK,
        1,
    );

    for (number, (tool, p50s)) in series.tools.iter().enumerate() {
        let colour = COLOURS[number % COLOURS.len()];
        let points: Vec<(i64, i64)> = p50s
            .iter()
            .enumerate()
            .filter_map(|(index, p50)| p50.map(|micros| (x_of(index), y_of(micros))))
            .collect();
        for pair in points.windows(2) {
            canvas.line(pair[0], pair[1], colour, 2);
        }
        for &(x, y) in &points {
            canvas.square(x, y, 4, colour);
        }
        let legend_x = (WIDTH - RIGHT + 20) as i64;
        let legend_y = (TOP + 10 + 24 * number) as i64;
        canvas.line(
            (legend_x, legend_y + 4),
            (legend_x + 24, legend_y + 4),
            colour,
            2,
        );
        canvas.square(legend_x + 12, legend_y + 4, 4, colour);
        canvas.text(legend_x + 34, legend_y, tool, BLACK, 1);
    }
    canvas.write_png(path)
}

/// 10^decade microseconds, readably: "1 us", "100 us", "10 ms", "1 s".
fn decade_label(decade: i32) -> String {
    match decade {
        ..=2 => format!("{} us", 10u64.pow(decade.max(0) as u32)),
        3..=5 => format!("{} ms", 10u64.pow((decade - 3) as u32)),
        _ => format!("{} s", 10u64.pow((decade - 6) as u32)),
    }
}

struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: usize, height: usize, background: Rgb) -> Canvas {
        Canvas {
            width,
            height,
            pixels: background.repeat(width * height),
        }
    }

    fn set(&mut self, x: i64, y: i64, colour: Rgb) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let at = 3 * (y as usize * self.width + x as usize);
        self.pixels[at..at + 3].copy_from_slice(&colour);
    }

    fn square(&mut self, x: i64, y: i64, half: i64, colour: Rgb) {
        for dy in -half..=half {
            for dx in -half..=half {
                self.set(x + dx, y + dy, colour);
            }
        }
    }

    /// A straight line `thickness` pixels wide (Bresenham's, thickened).
    fn line(&mut self, from: (i64, i64), to: (i64, i64), colour: Rgb, thickness: i64) {
        let (mut x, mut y) = from;
        let (dx, dy) = ((to.0 - x).abs(), -(to.1 - y).abs());
        let (step_x, step_y) = ((to.0 - x).signum(), (to.1 - y).signum());
        let mut error = dx + dy;
        loop {
            for offset_y in 0..thickness {
                for offset_x in 0..thickness {
                    self.set(x + offset_x, y + offset_y, colour);
                }
            }
            if (x, y) == to {
                return;
            }
            let doubled = 2 * error;
            if doubled >= dy {
                error += dy;
                x += step_x;
            }
            if doubled <= dx {
                error += dx;
                y += step_y;
            }
        }
    }

    /// ASCII text from its top-left corner, each font pixel drawn `scale` × `scale`; other
    /// characters show as `?`.
    fn text(&mut self, x: i64, y: i64, text: &str, colour: Rgb, scale: i64) {
        for (index, character) in text.chars().enumerate() {
            let code = if character.is_ascii() {
                character as usize
            } else {
                '?' as usize
            };
            let glyph = font8x8::legacy::BASIC_LEGACY[code];
            let left = x + index as i64 * 8 * scale;
            for (row, bits) in glyph.iter().enumerate() {
                for column in 0..8 {
                    // Bit 0 is the glyph's leftmost pixel.
                    if bits & (1 << column) != 0 {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                self.set(
                                    left + column * scale + sx,
                                    y + row as i64 * scale + sy,
                                    colour,
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    fn write_png(&self, path: &Path) -> Result<(), Error> {
        let file = BufWriter::new(File::create(path)?);
        let mut encoder = png::Encoder::new(file, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
        writer.finish()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_read_in_the_right_unit() {
        assert_eq!(decade_label(0), "1 us");
        assert_eq!(decade_label(2), "100 us");
        assert_eq!(decade_label(3), "1 ms");
        assert_eq!(decade_label(5), "100 ms");
        assert_eq!(decade_label(6), "1 s");
    }
}
