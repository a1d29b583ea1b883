//! The legend under the panels: a row of tools (colour and marker), then a row of backends
//! (line style, and which backend was not measured).

use super::canvas::{Canvas, Dash, Marker, text_width};
use super::{BLACK, Backend, Figure, GREY, MARKER, RIGHT, WIDTH, colour, marker};

pub const LEGEND_ROW: i64 = 22;

/// One entry of the legend: a sample and its text.
pub enum Sample {
    Tool(usize),
    Backend(Backend),
    /// Text alone, for what was not measured.
    Note,
}

const SAMPLE_WIDTH: i64 = 30;
const ENTRY_GAP: i64 = 24;

fn entry_width(text: &str, sample: &Sample) -> i64 {
    let sample = match sample {
        Sample::Note => 0,
        _ => SAMPLE_WIDTH + 8,
    };
    sample + text_width(text, 1)
}

/// The legend's entries in rows that fit the figure's width: the tools first, then a row for
/// the backends, which are read differently (line style, not colour).
pub fn legend_rows(figure: &Figure) -> Vec<Vec<(Sample, String)>> {
    let measured = |backend: Backend| {
        figure
            .panels
            .iter()
            .flat_map(|panel| &panel.lines)
            .any(|line| line.backend == backend && line.points().next().is_some())
    };
    let mut backends: Vec<(Sample, String)> = Vec::new();
    for backend in Backend::ALL {
        if measured(backend) {
            backends.push((Sample::Backend(backend), backend.legend().to_owned()));
        }
    }
    for backend in Backend::ALL {
        if !measured(backend) {
            backends.push((Sample::Note, format!("({} not measured)", backend.name())));
        }
    }
    let tools = figure
        .tools
        .iter()
        .enumerate()
        .map(|(tool, name)| (Sample::Tool(tool), name.clone()));
    let mut rows = Vec::new();
    for entries in [tools.collect::<Vec<_>>(), backends] {
        let mut row: Vec<(Sample, String)> = Vec::new();
        let mut used = 0;
        for (sample, text) in entries {
            let width = entry_width(&text, &sample);
            if !row.is_empty() && used + ENTRY_GAP + width > WIDTH as i64 - 2 * RIGHT {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            used += if row.is_empty() { 0 } else { ENTRY_GAP } + width;
            row.push((sample, text));
        }
        if !row.is_empty() {
            rows.push(row);
        }
    }
    rows
}

/// The rows centred under the panels.
pub fn draw_legend(canvas: &mut Canvas, rows: &[Vec<(Sample, String)>], top: i64) {
    for (index, row) in rows.iter().enumerate() {
        let y = top + index as i64 * LEGEND_ROW;
        let width: i64 = row
            .iter()
            .map(|(sample, text)| entry_width(text, sample))
            .sum::<i64>()
            + ENTRY_GAP * (row.len() as i64 - 1);
        let mut x = (WIDTH as i64 - width) / 2;
        for (sample, text) in row {
            let middle = (x + SAMPLE_WIDTH / 2, y + 4);
            let (from, to) = ((x, y + 4), (x + SAMPLE_WIDTH, y + 4));
            let text_colour = match sample {
                Sample::Tool(tool) => {
                    canvas.stroke(from, to, colour(*tool), 2, Dash::Solid);
                    canvas.marker(marker(*tool), middle, MARKER, colour(*tool), None);
                    BLACK
                }
                Sample::Backend(backend) => {
                    canvas.stroke(from, to, GREY, 2, backend.dash());
                    canvas.marker(Marker::Circle, middle, MARKER, GREY, backend.hollow());
                    BLACK
                }
                Sample::Note => GREY,
            };
            let text_x = match sample {
                Sample::Note => x,
                _ => x + SAMPLE_WIDTH + 8,
            };
            canvas.text(text_x, y, text, text_colour, 1);
            x += entry_width(text, sample) + ENTRY_GAP;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::tests::figure;

    #[test]
    fn the_legend_says_which_backend_was_not_measured() {
        let mut figure = figure();
        for panel in &mut figure.panels {
            panel.lines.retain(|line| line.backend == Backend::Sqlite);
        }
        let texts: Vec<String> = legend_rows(&figure)
            .into_iter()
            .flatten()
            .map(|(_, text)| text)
            .collect();
        assert!(texts.contains(&Backend::Sqlite.legend().to_owned()));
        assert!(texts.contains(&"(PostgreSQL not measured)".to_owned()));
        assert!(!texts.contains(&Backend::Postgres.legend().to_owned()));
    }
}
