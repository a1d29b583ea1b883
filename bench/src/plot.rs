//! The benchmark's figures, PNGs: each tool's latency against a column of runs (data sizes over
//! stdio, connection counts over HTTP), in panels side by side on a shared log scale, SQLite
//! and PostgreSQL in the same panels.
//!
//! Drawn by hand on an RGB canvas ([`canvas`]), because a plotting library needs system fonts
//! to write a label, and a fresh machine may have none.
//!
//! A tool is told apart by its colour and by its marker's shape, since two tools often measure
//! the same (the two searches) and one line then hides the other; the markers are also nudged
//! a few pixels apart along x for the same reason. A backend is told apart by its line style:
//! SQLite solid with filled markers, PostgreSQL dashed with hollow ones.

mod canvas;
mod legend;
mod scale;

use std::path::Path;

use canvas::{Canvas, Dash, Marker, Rgb, text_width};
use legend::{LEGEND_ROW, draw_legend, legend_rows};
use scale::{Tick, ticks};

pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// Which store a line was measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    const ALL: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

    fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }

    fn dash(self) -> Dash {
        match self {
            Backend::Sqlite => Dash::Solid,
            Backend::Postgres => Dash::Dashed { on: 8, off: 5 },
        }
    }

    /// The inside of a hollow marker; `None` for a filled one.
    fn hollow(self) -> Option<Rgb> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(WHITE),
        }
    }

    fn legend(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite: solid line, filled marker",
            Backend::Postgres => "PostgreSQL: dashed line, hollow marker",
        }
    }
}

/// What to draw.
pub struct Figure {
    pub title: String,
    /// What the latencies are (the axis is a log scale of µs).
    pub y_title: String,
    /// What the columns are.
    pub x_title: String,
    /// The runs along x, left to right: data sizes, connection counts.
    pub columns: Vec<Column>,
    /// The tools' names; a [`Line`] refers to one by its index.
    pub tools: Vec<String>,
    /// Side by side, sharing the latency scale.
    pub panels: Vec<Panel>,
}

/// A column's label, in two lines.
pub struct Column {
    /// "small", "64".
    pub name: String,
    /// More, in the x axis title's terms ("100/1k"); may be empty.
    pub detail: String,
}

pub struct Panel {
    pub title: String,
    pub lines: Vec<Line>,
}

/// One tool on one backend: its latency in µs in each column, `None` where not measured.
pub struct Line {
    pub tool: usize,
    pub backend: Backend,
    pub values: Vec<Option<f64>>,
}

impl Line {
    /// The values a log scale can show: a latency of 0 (or NaN) has no place on it and is left
    /// out like an unmeasured one.
    fn points(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.values
            .iter()
            .enumerate()
            .filter_map(|(column, value)| {
                value
                    .filter(|micros| micros.is_finite() && *micros > 0.0)
                    .map(|micros| (column, micros))
            })
    }
}

const WIDTH: usize = 1000;
/// Room for the y axis's title and tick labels ("500 µs").
const LEFT: i64 = 92;
const RIGHT: i64 = 16;
const GAP: i64 = 32;
const PANEL_TOP: i64 = 76;
const PANEL_HEIGHT: i64 = 360;
/// From the panels' bottom edge to the legend's first row: the column labels and the x title.
const LEGEND_OFFSET: i64 = 70;
/// How far apart along x the tools' markers in one column are nudged.
const DODGE: i64 = 7;
const MARKER: i64 = 5;

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [20, 20, 20];
const GREY: Rgb = [110, 110, 110];
const FRAME: Rgb = [190, 190, 190];
const GRID: Rgb = [205, 205, 205];
const FAINT: Rgb = [232, 232, 232];
const COLOURS: [Rgb; 6] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
];

fn colour(tool: usize) -> Rgb {
    COLOURS[tool % COLOURS.len()]
}

fn marker(tool: usize) -> Marker {
    Marker::ALL[tool % Marker::ALL.len()]
}

/// Draws `figure` and writes it to `path` as a PNG.
pub fn write(path: &Path, figure: &Figure) -> Result<(), Error> {
    render(figure)?.write_png(path)
}

/// Where things go: the panels side by side, the latency scale they share.
struct Layout {
    panels: i64,
    columns: i64,
    tools: i64,
    /// The axis's ends, as log10 µs.
    bottom_log: f64,
    top_log: f64,
}

impl Layout {
    fn panel_width(&self) -> i64 {
        (WIDTH as i64 - LEFT - RIGHT - GAP * (self.panels - 1)) / self.panels
    }

    fn panel_left(&self, panel: usize) -> i64 {
        LEFT + panel as i64 * (self.panel_width() + GAP)
    }

    fn panel_bottom(&self) -> i64 {
        PANEL_TOP + PANEL_HEIGHT
    }

    /// The middle of a column's slot in the panel.
    fn column_x(&self, panel: usize, column: usize) -> i64 {
        self.panel_left(panel) + self.panel_width() * (2 * column as i64 + 1) / (2 * self.columns)
    }

    /// Where a tool's marker in a column goes: the column's x, nudged by the tool's place.
    fn x_of(&self, panel: usize, column: usize, tool: usize) -> i64 {
        self.column_x(panel, column) + (2 * tool as i64 - (self.tools - 1)) * DODGE / 2
    }

    fn y_of(&self, micros: f64) -> i64 {
        let fraction = (micros.log10() - self.bottom_log) / (self.top_log - self.bottom_log);
        self.panel_bottom() - (fraction * PANEL_HEIGHT as f64).round() as i64
    }
}

/// The scale every value fits on, and where the panels go.
fn layout(figure: &Figure) -> Result<(Layout, Vec<Tick>), Error> {
    let values = || {
        figure
            .panels
            .iter()
            .flat_map(|panel| &panel.lines)
            .flat_map(|line| line.points().map(|(_, micros)| micros))
    };
    let (Some(low), Some(high)) = (values().reduce(f64::min), values().reduce(f64::max)) else {
        return Err("nothing was measured to plot".into());
    };
    if figure.panels.is_empty() || figure.columns.is_empty() {
        return Err("a figure needs a panel and a column".into());
    }
    let ticks = ticks(low, high);
    let (Some(first), Some(last)) = (ticks.first(), ticks.last()) else {
        return Err("no ticks".into());
    };
    // A margin beyond the end ticks, so that a marker on one is not drawn over the frame.
    let (bottom_log, top_log) = (first.micros().log10(), last.micros().log10());
    let margin = (top_log - bottom_log) * (MARKER + 4) as f64 / PANEL_HEIGHT as f64;
    let layout = Layout {
        panels: figure.panels.len() as i64,
        columns: figure.columns.len() as i64,
        tools: figure.tools.len().max(1) as i64,
        bottom_log: bottom_log - margin,
        top_log: top_log + margin,
    };
    Ok((layout, ticks))
}

fn render(figure: &Figure) -> Result<Canvas, Error> {
    let (layout, ticks) = layout(figure)?;
    let legend = legend_rows(figure);
    let legend_top = layout.panel_bottom() + LEGEND_OFFSET;
    let height = legend_top + legend.len() as i64 * LEGEND_ROW + 6;
    let mut canvas = Canvas::new(WIDTH, usize::try_from(height)?, WHITE);

    let title = &figure.title;
    canvas.text(
        (WIDTH as i64 - text_width(title, 2)) / 2,
        14,
        title,
        BLACK,
        2,
    );
    let y_title = &figure.y_title;
    canvas.text_up(
        12,
        PANEL_TOP + (PANEL_HEIGHT + text_width(y_title, 1)) / 2,
        y_title,
        GREY,
    );

    draw_scale(&mut canvas, &layout, &ticks);
    for (index, panel) in figure.panels.iter().enumerate() {
        draw_panel(&mut canvas, &layout, figure, index, panel);
    }
    let x_title = &figure.x_title;
    let panels_middle = (LEFT + WIDTH as i64 - RIGHT) / 2;
    canvas.text(
        panels_middle - text_width(x_title, 1) / 2,
        layout.panel_bottom() + 44,
        x_title,
        GREY,
        1,
    );
    draw_legend(&mut canvas, &legend, legend_top);
    Ok(canvas)
}

/// The grid lines across every panel and the tick labels left of the first. Where 1-2-5 ticks
/// would crowd (a range of many decades), only the decades are labelled; each still has its
/// grid line.
fn draw_scale(canvas: &mut Canvas, layout: &Layout, ticks: &[Tick]) {
    let pixels_per_decade = PANEL_HEIGHT as f64 / (layout.top_log - layout.bottom_log);
    let crowded = pixels_per_decade * 2f64.log10() < 13.0;
    for &tick in ticks {
        let y = layout.y_of(tick.micros());
        let decade = tick.mantissa == 1;
        for panel in 0..layout.panels as usize {
            let left = layout.panel_left(panel);
            let right = left + layout.panel_width();
            canvas.stroke(
                (left, y),
                (right, y),
                if decade { GRID } else { FAINT },
                1,
                Dash::Solid,
            );
            canvas.stroke((left - 5, y), (left, y), BLACK, 1, Dash::Solid);
        }
        if decade || !crowded {
            let label = tick.label();
            canvas.text(LEFT - 9 - text_width(&label, 1), y - 4, &label, BLACK, 1);
        }
    }
}

fn draw_panel(canvas: &mut Canvas, layout: &Layout, figure: &Figure, index: usize, panel: &Panel) {
    let (left, width) = (layout.panel_left(index), layout.panel_width());
    let (top, bottom) = (PANEL_TOP, layout.panel_bottom());
    let right = left + width;
    // The title in a faux bold (drawn twice a pixel apart): the panels are told apart by it.
    let title_x = left + (width - text_width(&panel.title, 1)) / 2;
    for nudge in 0..2 {
        canvas.text(title_x + nudge, top - 16, &panel.title, BLACK, 1);
    }
    for (column, label) in figure.columns.iter().enumerate() {
        let x = layout.column_x(index, column);
        canvas.stroke((x, top), (x, bottom), FAINT, 1, Dash::Solid);
        canvas.stroke((x, bottom), (x, bottom + 5), BLACK, 1, Dash::Solid);
        for (row, text) in [&label.name, &label.detail].into_iter().enumerate() {
            let y = bottom + 10 + 12 * row as i64;
            canvas.text(x - text_width(text, 1) / 2, y, text, BLACK, 1);
        }
    }
    canvas.stroke((left, top), (right, top), FRAME, 1, Dash::Solid);
    canvas.stroke((right, top), (right, bottom), FRAME, 1, Dash::Solid);
    canvas.stroke((left, top), (left, bottom), BLACK, 1, Dash::Solid);
    canvas.stroke((left, bottom), (right, bottom), BLACK, 1, Dash::Solid);

    // Every line before any marker, so that no line crosses out another tool's marker.
    let position = |line: &Line, column: usize, micros: f64| {
        (layout.x_of(index, column, line.tool), layout.y_of(micros))
    };
    for line in &panel.lines {
        let points: Vec<_> = line
            .points()
            .map(|(column, micros)| position(line, column, micros))
            .collect();
        for pair in points.windows(2) {
            let dash = line.backend.dash();
            canvas.stroke(pair[0], pair[1], colour(line.tool), 2, dash);
        }
    }
    for line in &panel.lines {
        for (column, micros) in line.points() {
            canvas.marker(
                marker(line.tool),
                position(line, column, micros),
                MARKER,
                colour(line.tool),
                line.backend.hollow(),
            );
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::scale::labels;
    use super::*;

    /// Two panels of two columns: `movies_get` on SQLite, and two searches with the very same
    /// values on both backends.
    pub fn figure() -> Figure {
        let line = |tool, backend, values: [f64; 2]| Line {
            tool,
            backend,
            values: values.into_iter().map(Some).collect(),
        };
        let lines = |scale: f64| {
            vec![
                line(0, Backend::Sqlite, [150.0 * scale, 200.0 * scale]),
                line(1, Backend::Sqlite, [300.0 * scale, 250.0 * scale]),
                line(2, Backend::Sqlite, [300.0 * scale, 250.0 * scale]),
                line(1, Backend::Postgres, [600.0 * scale, 800.0 * scale]),
                line(2, Backend::Postgres, [600.0 * scale, 800.0 * scale]),
            ]
        };
        Figure {
            title: "p50 latency per tool, by data size".to_owned(),
            y_title: "p50 latency (log scale)".to_owned(),
            x_title: "data set".to_owned(),
            columns: ["small", "large"]
                .map(|name| Column {
                    name: name.to_owned(),
                    detail: "1/2".to_owned(),
                })
                .into(),
            tools: ["movies_get", "movies_search", "authors_search"]
                .map(str::to_owned)
                .into(),
            panels: vec![
                Panel {
                    title: "one call at a time".to_owned(),
                    lines: lines(1.0),
                },
                Panel {
                    title: "16 in flight".to_owned(),
                    lines: lines(5.0),
                },
            ],
        }
    }

    fn layout_of(figure: &Figure) -> Result<Layout, Error> {
        let (layout, ticks) = layout(figure)?;
        // 150 µs to 4 ms.
        assert_eq!(labels(&ticks).first().map(String::as_str), Some("100 µs"));
        assert_eq!(labels(&ticks).last().map(String::as_str), Some("5 ms"));
        Ok(layout)
    }

    #[test]
    fn each_value_is_drawn_where_the_scale_puts_it() -> Result<(), Error> {
        let figure = figure();
        let canvas = render(&figure)?;
        let layout = layout_of(&figure)?;
        assert_eq!(canvas.width(), WIDTH);

        // movies_get on SQLite: filled markers, a solid line between them.
        let (small, large) = (
            (layout.x_of(0, 0, 0), layout.y_of(150.0)),
            (layout.x_of(0, 1, 0), layout.y_of(200.0)),
        );
        assert_eq!(canvas.pixel(small.0, small.1), Some(colour(0)));
        assert_eq!(canvas.pixel(large.0, large.1), Some(colour(0)));
        let middle = ((small.0 + large.0) / 2, (small.1 + large.1) / 2);
        assert_eq!(canvas.pixel(middle.0, middle.1), Some(colour(0)));
        // In the second panel, five times slower.
        let (x, y) = (layout.x_of(1, 0, 0), layout.y_of(750.0));
        assert_eq!(canvas.pixel(x, y), Some(colour(0)));

        // authors_search on PostgreSQL: a hollow marker, white inside and ringed in its colour.
        let (x, y) = (layout.x_of(0, 1, 2), layout.y_of(800.0));
        assert_eq!(canvas.pixel(x, y), Some(WHITE));
        let ring = (-MARKER..=MARKER).filter(|&dy| canvas.pixel(x, y + dy) == Some(colour(2)));
        assert!(ring.count() >= 2);
        Ok(())
    }

    #[test]
    fn lines_with_the_same_values_both_show() -> Result<(), Error> {
        let figure = figure();
        let canvas = render(&figure)?;
        let layout = layout_of(&figure)?;
        // Only inside the panels: the legend shows every tool anyway.
        let in_panels = |colour: Rgb| {
            let mut count = 0;
            for panel in 0..2 {
                let left = layout.panel_left(panel);
                for y in PANEL_TOP..layout.panel_bottom() {
                    for x in left..left + layout.panel_width() {
                        count += usize::from(canvas.pixel(x, y) == Some(colour));
                    }
                }
            }
            count
        };
        let (movies, authors) = (in_panels(colour(1)), in_panels(colour(2)));
        // Eight markers each, with what shows of their lines.
        assert!(movies > 8 * 20, "movies_search: {movies} pixels");
        assert!(authors > 8 * 20, "authors_search: {authors} pixels");
        Ok(())
    }

    #[test]
    fn the_png_has_the_figure_size_and_its_pixels() -> Result<(), Error> {
        let figure = figure();
        let canvas = render(&figure)?;
        let folder = tempfile::tempdir()?;
        let path = folder.path().join("plot.png");
        write(&path, &figure)?;

        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path)?));
        let mut reader = decoder.read_info()?;
        let mut pixels = vec![0; reader.output_buffer_size().ok_or("too large")?];
        let info = reader.next_frame(&mut pixels)?;
        assert_eq!(
            (info.width as usize, info.height as usize),
            (canvas.width(), canvas.height())
        );
        assert_eq!(info.color_type, png::ColorType::Rgb);
        let layout = layout_of(&figure)?;
        let (x, y) = (layout.x_of(0, 0, 0), layout.y_of(150.0));
        let at = 3 * (y as usize * info.width as usize + x as usize);
        assert_eq!(pixels[at..at + 3], colour(0));
        Ok(())
    }

    #[test]
    fn nothing_measured_is_an_error() {
        let mut figure = figure();
        for panel in &mut figure.panels {
            panel.lines.clear();
        }
        assert!(render(&figure).is_err());
    }
}
