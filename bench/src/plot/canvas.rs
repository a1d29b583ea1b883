//! Drawing primitives for the benchmark's figure: an RGB canvas with strokes (solid or dashed),
//! marker shapes, text in an 8×8 bitmap font, and PNG output.
//!
//! Nothing here knows about latencies or axes; `plot` lays the figure out with these.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::Error;

pub type Rgb = [u8; 3];

/// How a stroke is drawn along its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    Solid,
    /// `on` pixels drawn, `off` skipped, measured along the stroke so that a steep segment has
    /// dashes as long as a flat one.
    Dashed {
        on: u32,
        off: u32,
    },
}

/// A point's shape. Each series gets its own, so that two series with the same values (drawn
/// one over the other) still show both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Square,
    Circle,
    TriangleUp,
    Diamond,
    Cross,
    TriangleDown,
}

impl Marker {
    pub const ALL: [Marker; 6] = [
        Marker::Square,
        Marker::Circle,
        Marker::TriangleUp,
        Marker::Diamond,
        Marker::Cross,
        Marker::TriangleDown,
    ];

    /// Whether the pixel at (`dx`, `dy`) from the centre is inside the shape of size `r`. The
    /// factors even out how large each shape looks: a square of half-side `r` covers far more
    /// than a diamond of the same `r`.
    fn covers(self, dx: f64, dy: f64, r: f64) -> bool {
        if r <= 0.0 {
            return false;
        }
        let (ax, ay) = (dx.abs(), dy.abs());
        match self {
            Marker::Square => ax.max(ay) <= 0.85 * r,
            Marker::Circle => dx * dx + dy * dy <= r * r + 0.5,
            Marker::Diamond => ax + ay <= 1.25 * r,
            Marker::Cross => (ax - ay).abs() <= 1.6 && ax.max(ay) <= r,
            Marker::TriangleUp | Marker::TriangleDown => {
                let dy = if self == Marker::TriangleUp { dy } else { -dy };
                let (apex, base) = (-1.15 * r, 0.85 * r);
                let half_base = 1.15 * r;
                dy >= apex && dy <= base && ax <= half_base * (dy - apex) / (base - apex)
            }
        }
    }
}

/// The text's width in pixels: every character is 8 font pixels wide.
pub fn text_width(text: &str, scale: i64) -> i64 {
    text.chars().count() as i64 * 8 * scale
}

pub struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

impl Canvas {
    pub fn new(width: usize, height: usize, background: Rgb) -> Canvas {
        Canvas {
            width,
            height,
            pixels: background.repeat(width * height),
        }
    }

    #[cfg(test)]
    pub fn width(&self) -> usize {
        self.width
    }

    #[cfg(test)]
    pub fn height(&self) -> usize {
        self.height
    }

    /// The colour at (`x`, `y`), `None` off the canvas.
    #[cfg(test)]
    pub fn pixel(&self, x: i64, y: i64) -> Option<Rgb> {
        let at = self.offset(x, y)?;
        Some([self.pixels[at], self.pixels[at + 1], self.pixels[at + 2]])
    }

    fn offset(&self, x: i64, y: i64) -> Option<usize> {
        let (x, y) = (usize::try_from(x).ok()?, usize::try_from(y).ok()?);
        (x < self.width && y < self.height).then(|| 3 * (y * self.width + x))
    }

    /// Off-canvas pixels are dropped, so callers may draw shapes that overhang an edge.
    fn set(&mut self, x: i64, y: i64, colour: Rgb) {
        if let Some(at) = self.offset(x, y) {
            self.pixels[at..at + 3].copy_from_slice(&colour);
        }
    }

    pub fn fill_rect(&mut self, x: i64, y: i64, width: i64, height: i64, colour: Rgb) {
        for py in y..y + height {
            for px in x..x + width {
                self.set(px, py, colour);
            }
        }
    }

    /// A straight stroke `thickness` pixels wide: one step per pixel along the longer axis
    /// (a DDA rather than Bresenham's integer steps), so that the dash pattern can follow the
    /// distance travelled along a slanted stroke.
    pub fn stroke(
        &mut self,
        from: (i64, i64),
        to: (i64, i64),
        colour: Rgb,
        thickness: i64,
        dash: Dash,
    ) {
        let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
        let length = (dx * dx + dy * dy).sqrt();
        let steps = dx.abs().max(dy.abs()).max(1.0) as i64;
        // A thick brush is centred on the path: a 2-pixel brush covers the pixel and the one
        // above-left of it.
        let reach = thickness / 2;
        for step in 0..=steps {
            let t = step as f64 / steps as f64;
            let drawn = match dash {
                Dash::Solid => true,
                Dash::Dashed { on, off } => {
                    let period = f64::from(on + off).max(1.0);
                    (t * length) % period < f64::from(on)
                }
            };
            if !drawn {
                continue;
            }
            let x = (from.0 as f64 + t * dx).round() as i64;
            let y = (from.1 as f64 + t * dy).round() as i64;
            for oy in 0..thickness.max(1) {
                for ox in 0..thickness.max(1) {
                    self.set(x + ox - reach, y + oy - reach, colour);
                }
            }
        }
    }

    /// A marker centred on `centre`. A hollow one is an outline about 2 pixels thick around
    /// `inside` (the background, so a line under it does not show through); a cross has no
    /// inside and is drawn the same either way.
    pub fn marker(
        &mut self,
        shape: Marker,
        centre: (i64, i64),
        r: i64,
        colour: Rgb,
        hollow: Option<Rgb>,
    ) {
        let reach = 2 * r;
        let r = r as f64;
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let (fx, fy) = (dx as f64, dy as f64);
                if !shape.covers(fx, fy, r) {
                    continue;
                }
                let fill = match hollow {
                    Some(inside) if shape != Marker::Cross && shape.covers(fx, fy, r - 2.2) => {
                        inside
                    }
                    _ => colour,
                };
                self.set(centre.0 + dx, centre.1 + dy, fill);
            }
        }
    }

    /// Text from its top-left corner, each font pixel drawn `scale` × `scale`. ASCII and
    /// Latin-1 (so `µ`) have glyphs; any other character shows as `?`.
    pub fn text(&mut self, x: i64, y: i64, text: &str, colour: Rgb, scale: i64) {
        for (index, character) in text.chars().enumerate() {
            let left = x + index as i64 * 8 * scale;
            for (row, column) in lit_pixels(character) {
                self.fill_rect(left + column * scale, y + row * scale, scale, scale, colour);
            }
        }
    }

    /// Text read bottom to top (turned a quarter left), starting at (`x`, `y`), its bottom-left
    /// corner: for a vertical axis's title.
    pub fn text_up(&mut self, x: i64, y: i64, text: &str, colour: Rgb) {
        for (index, character) in text.chars().enumerate() {
            let bottom = y - index as i64 * 8;
            for (row, column) in lit_pixels(character) {
                self.set(x + row, bottom - column, colour);
            }
        }
    }

    pub fn write_png(&self, path: &Path) -> Result<(), Error> {
        let mut file = BufWriter::new(File::create(path)?);
        self.encode_png(&mut file)?;
        file.flush()?;
        Ok(())
    }

    fn encode_png(&self, out: impl Write) -> Result<(), Error> {
        let mut encoder =
            png::Encoder::new(out, u32::try_from(self.width)?, self.height.try_into()?);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.pixels)?;
        writer.finish()?;
        Ok(())
    }
}

/// The (row, column) of each lit pixel of a character's 8×8 glyph.
fn lit_pixels(character: char) -> impl Iterator<Item = (i64, i64)> {
    let code = u32::from(character);
    let glyph = match code {
        0..=0x7f => font8x8::legacy::BASIC_LEGACY.get(code as usize),
        0xa0..=0xff => font8x8::legacy::LATIN_LEGACY.get(code as usize - 0xa0),
        _ => None,
    }
    .unwrap_or(&font8x8::legacy::BASIC_LEGACY[b'?' as usize]);
    glyph.iter().enumerate().flat_map(|(row, bits)| {
        // Bit 0 is the glyph's leftmost pixel.
        (0..8)
            .filter(move |column| bits & (1 << column) != 0)
            .map(move |column| (row as i64, column))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: Rgb = [255, 255, 255];
    const RED: Rgb = [200, 0, 0];

    fn count(canvas: &Canvas, colour: Rgb) -> usize {
        canvas
            .pixels
            .chunks(3)
            .filter(|pixel| *pixel == colour)
            .count()
    }

    #[test]
    fn a_dashed_stroke_leaves_gaps_a_solid_one_does_not() {
        let mut solid = Canvas::new(100, 10, WHITE);
        solid.stroke((0, 5), (99, 5), RED, 1, Dash::Solid);
        assert_eq!(count(&solid, RED), 100);

        let mut dashed = Canvas::new(100, 10, WHITE);
        dashed.stroke((0, 5), (99, 5), RED, 1, Dash::Dashed { on: 6, off: 4 });
        let drawn = count(&dashed, RED);
        assert!((55..=65).contains(&drawn), "{drawn} of 100 pixels drawn");
        assert_eq!(dashed.pixel(2, 5), Some(RED));
        assert_eq!(dashed.pixel(8, 5), Some(WHITE));
    }

    #[test]
    fn markers_differ_in_shape_and_a_hollow_one_keeps_its_inside() {
        let shapes: Vec<Vec<u8>> = Marker::ALL
            .iter()
            .map(|&shape| {
                let mut canvas = Canvas::new(21, 21, WHITE);
                canvas.marker(shape, (10, 10), 5, RED, None);
                assert!(count(&canvas, RED) > 20, "{shape:?} is too small");
                canvas.pixels
            })
            .collect();
        for (index, shape) in shapes.iter().enumerate() {
            assert!(!shapes[index + 1..].contains(shape), "two shapes are alike");
        }

        let mut hollow = Canvas::new(21, 21, WHITE);
        hollow.marker(Marker::Circle, (10, 10), 5, RED, Some(WHITE));
        assert_eq!(hollow.pixel(10, 10), Some(WHITE));
        assert_eq!(hollow.pixel(10, 5), Some(RED));
    }

    #[test]
    fn micro_has_a_glyph() {
        assert_ne!(
            lit_pixels('µ').collect::<Vec<_>>(),
            lit_pixels('?').collect::<Vec<_>>()
        );
    }
}
