//! Pictures of a run (`diabolo plot`, `diabolo animate`): time series of chosen columns with the
//! events marked, the paths in the plane with the string at a few instants, and an animation of
//! the sticks, the string and the spinning diabolos.
//!
//! Every function takes a parsed trajectory ([`Table`]) and optional [events](Event), draws in
//! memory with `plotters` (its SVG backend, or its bitmap backend into an RGB buffer) and writes
//! the finished file to any [`Write`]: SVG text, a PNG (the `png` crate), or a GIF (the `gif`
//! crate, a fixed 255-colour palette with only the changed pixels of each frame stored). Text is
//! laid out with DejaVu Sans, bundled (the `dejavu` crate), so nothing depends on the fonts a
//! machine has.
//!
//! ```no_run
//! use diabolo::output::table::Table;
//! use diabolo::plot::{self, Format};
//! let table = Table::read("sun.csv".as_ref()).unwrap();
//! let events = plot::read_events("sun.jsonl".as_ref()).unwrap();
//! let mut svg = Vec::new();
//! let options = plot::SeriesOptions::default();
//! plot::series(&table, &events, &options, Format::Svg, &mut svg).unwrap();
//! ```

pub mod animate;
mod glyphs;
pub mod orbits;
mod raster;
pub mod series;
pub mod space;
pub mod window;
pub mod xy;

use crate::input_limits::{read_failure, Records};
use crate::output::compress;
use crate::output::table::{interpolate, locate};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor;
use thiserror::Error;

use crate::output::table::Table;
use crate::simulation::EventKind;
use glyphs::GlyphText;

pub use animate::{animate, animate_with_progress, AnimateOptions, Animation};
pub use orbits::{bifurcation, is_branch_header, poincare, read_branch, Cut, OrbitPictureOptions};
pub use series::{default_panels, series, SeriesOptions};
pub use space::{View, AXLE_DRAWN};
pub use window::Window;
pub use xy::{xy, XyOptions};

/// The axle radius r of docs/model.md's realistic diabolo (m): w = r omega.
pub const AXLE_RADIUS: f64 = 0.0065;
/// Half of the diabolo's 127 mm width (m): the drawn size of a spool unless `--radius` says
/// otherwise (the scenario's `params.diabolo_radius`).
pub const DIABOLO_RADIUS: f64 = 0.0635;

/// The disc radius to draw, m: `radius`, or [`DIABOLO_RADIUS`]; refused unless positive and
/// finite.
pub fn drawn_radius(radius: Option<f64>) -> Result<f64, PlotError> {
    match radius {
        None => Ok(DIABOLO_RADIUS),
        Some(r) if r.is_finite() && r > 0.0 && r <= 10.0 => Ok(r),
        Some(r) => Err(PlotError::Options(format!(
            "--radius {}: give the diabolo's radius in m, a positive number up to 10 (the \
             scenario's params.diabolo_radius; 0.0635 for a 127 mm diabolo)",
            crate::display::Compact(r)
        ))),
    }
}

/// The most rows of a trajectory a picture is drawn from: longer files are thinned evenly as
/// they are read (see [`Table::read_thinned`]), so memory does not grow with the file. 65,536
/// rows are more points than any picture has pixels across.
pub const MAX_ROWS: usize = 1 << 16;
/// The longest side of a picture, px: pictures are drawn whole in memory.
pub const MAX_SIDE: u64 = 16384;
/// The most pixels of a picture (2^25, 33.5 million: an 8K frame of 7680 x 4320 fits): a PNG or
/// a GIF frame is drawn in memory at 3 bytes a pixel, 100 MB at most.
pub const MAX_PIXELS: u64 = 1 << 25;
/// The most pixels of all the frames of a GIF together (2^32, about 4.3e9: 30 s of 1920 x 1080 at
/// 30 fps fit): each frame is drawn and compared with the previous one, about 8 ns a pixel, so
/// this bounds the drawing time to about 35 s.
pub const MAX_GIF_PIXELS: u64 = 1 << 32;
/// The most values in an animated SVG, frames x objects (2^20): about 70 bytes each, so the file
/// stays below about 70 MB, which a browser still plays.
pub const MAX_SVG_VALUES: u64 = 1 << 20;
/// The most instants of `plot --xy` showing the string: beyond a few dozen they hide each other.
pub const MAX_INSTANTS: usize = 1000;

/// Refuses a picture too large to draw in memory (see [`MAX_SIDE`], [`MAX_PIXELS`]).
pub fn check_size(width: u64, height: u64) -> Result<(), PlotError> {
    if width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS {
        return Err(PlotError::Options(format!(
            "a picture of {width} x {height} pixels is too large: at most {MAX_SIDE} pixels a \
             side and {MAX_PIXELS} pixels in all (it is drawn whole in memory, 3 bytes a pixel); \
             lower --width or --height"
        )));
    }
    Ok(())
}

/// Why a picture was not made.
#[derive(Debug, Error)]
pub enum PlotError {
    /// An input file that cannot be read or parsed.
    #[error("{file}: {reason}")]
    Input {
        /// The file, as named in messages.
        file: String,
        /// What is wrong with it (with the line or row when there is one).
        reason: String,
    },
    /// Options that do not fit the data (unknown column, unsupported format, bad fps...).
    #[error("{0}")]
    Options(String),
    /// The drawing library failed.
    #[error("drawing failed: {0}")]
    Draw(String),
    /// Writing the output failed.
    #[error("{0}")]
    Write(#[from] io::Error),
}

impl PlotError {
    /// True for bad input files and options (nothing was written): exit code 2.
    pub fn is_input(&self) -> bool {
        matches!(self, Self::Input { .. } | Self::Options(_))
    }
}

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// One line of an event log.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// t: time of the event, s.
    pub t: f64,
    /// The event's kind as the log names it (`loosen`, `tense`, `stick`, ...).
    pub kind: String,
    /// The object number, when the event names one.
    pub object: Option<i64>,
}

/// Reads an event log (JSON lines, `{"t": .., "kind": .., "object": ..}`).
pub fn read_events(path: &Path) -> Result<Vec<Event>, PlotError> {
    let file = path.display().to_string();
    let text = compress::read_to_string(path, Records::Lines).map_err(|e| PlotError::Input {
        file: file.clone(),
        reason: read_failure(&e),
    })?;
    parse_events(&text).map_err(|reason| PlotError::Input { file, reason })
}

/// Parses an event log; blank lines are skipped.
pub fn parse_events(text: &str) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
        let t = value
            .get("t")
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| format!("line {}: no number \"t\"", i + 1))?;
        let kind = value
            .get("kind")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("line {}: no text \"kind\"", i + 1))?
            .to_string();
        let object = value.get("object").and_then(serde_json::Value::as_i64);
        events.push(Event { t, kind, object });
    }
    Ok(events)
}

/// An output format, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `.svg`: a vector still picture.
    Svg,
    /// `.png`: a raster still picture.
    Png,
    /// `.gif`: an animation (`diabolo animate` only).
    Gif,
}

impl Format {
    /// The format of `path` by its extension (`.svg`, `.png`, `.gif`, any case).
    pub fn from_path(path: &Path) -> Result<Self, PlotError> {
        Self::by_extension(path).ok_or_else(|| {
            PlotError::Options(format!(
                "{}: unknown picture format; name the file .svg, .png or .gif",
                path.display()
            ))
        })
    }

    /// The format of `path` by its extension, one of the formats `command` (`diabolo plot`)
    /// writes, `supported`: any other extension is an error that suggests those.
    pub fn for_command(
        path: &Path,
        command: &str,
        supported: &[Format],
    ) -> Result<Self, PlotError> {
        match Self::by_extension(path) {
            Some(format) if supported.contains(&format) => Ok(format),
            _ => Err(PlotError::Options(format!(
                "{}: `{command}` writes {}; name the file {}",
                path.display(),
                supported
                    .iter()
                    .map(|f| f.extension().to_ascii_uppercase())
                    .collect::<Vec<_>>()
                    .join(" or "),
                supported
                    .iter()
                    .map(|f| path.with_extension(f.extension()).display().to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            ))),
        }
    }

    /// The format named by the extension of `path` (any case).
    fn by_extension(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_string_lossy().to_ascii_lowercase();
        [Self::Svg, Self::Png, Self::Gif]
            .into_iter()
            .find(|f| f.extension() == extension)
    }

    /// The file extension of the format, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Svg => "svg",
            Self::Png => "png",
            Self::Gif => "gif",
        }
    }
}

/// Registers the bundled DejaVu Sans under the family names plotters asks for.
fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for family in ["sans-serif", "serif", "monospace"] {
            for (style, bytes) in [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
            ] {
                if plotters::style::register_font(family, style, bytes).is_err() {
                    panic!("the bundled DejaVu Sans font is valid");
                }
            }
        }
    });
}

/// Something drawn once on a drawing area of any backend.
trait Picture {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError>;
}

/// Draws a still picture as SVG or PNG into `out`.
fn render_still(
    picture: &impl Picture,
    (width, height): (u32, u32),
    format: Format,
    out: &mut dyn Write,
) -> Result<(), PlotError> {
    register_fonts();
    match format {
        Format::Svg => {
            let mut text = String::new();
            {
                let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
                root.fill(&WHITE).map_err(draw_error)?;
                picture.draw(&root)?;
                root.present().map_err(draw_error)?;
            }
            out.write_all(text.as_bytes())?;
        }
        Format::Png => {
            let mut buffer = vec![255u8; width as usize * height as usize * 3];
            {
                let root = GlyphText(
                    BitMapBackend::with_buffer(&mut buffer, (width, height)),
                    true,
                )
                .into_drawing_area();
                root.fill(&WHITE).map_err(draw_error)?;
                picture.draw(&root)?;
                root.present().map_err(draw_error)?;
            }
            raster::write_png(out, width, height, &buffer)?;
        }
        Format::Gif => {
            return Err(PlotError::Options(
                "a still picture is .svg or .png (GIF is for `diabolo animate`)".into(),
            ))
        }
    }
    out.flush()?;
    Ok(())
}

/// The x and y columns of one object.
type Path2<'a> = (&'a [f64], &'a [f64]);

/// Draws a legend swatch at a point.
type Swatch<'a, DB> = dyn Fn(&DrawingArea<DB, Shift>, (i32, i32)) -> Result<(), PlotError> + 'a;

/// Checked access to the columns of a trajectory.
struct Columns<'a> {
    table: &'a Table,
    /// The number of diabolos (columns d1_x, d2_x, ...).
    diabolos: usize,
}

impl<'a> Columns<'a> {
    fn new(table: &'a Table) -> Self {
        let diabolos = (1..)
            .take_while(|k| table.names.iter().any(|n| *n == format!("d{k}_x")))
            .count();
        Self { table, diabolos }
    }

    fn t(&self) -> &'a [f64] {
        &self.table.numbers[0]
    }

    fn get(&self, name: &str) -> Option<&'a [f64]> {
        self.table
            .names
            .iter()
            .position(|n| n == name)
            .map(|i| self.table.numbers[i].as_slice())
    }

    fn require(&self, name: &str) -> Result<&'a [f64], PlotError> {
        self.get(name).ok_or_else(|| {
            PlotError::Options(format!(
                "the trajectory has no column {} (it has {})",
                crate::display::echoed(name),
                crate::display::echoed(&self.table.names.join(","))
            ))
        })
    }

    /// The phase text of each row (`taut`, `loose`), empty when the column is missing.
    fn phases(&self) -> Vec<&'a str> {
        match self.table.names.iter().position(|n| n == "phase") {
            Some(i) => self.table.text[i].iter().map(String::as_str).collect(),
            None => vec![""; self.t().len()],
        }
    }

    /// The objects the string runs through at row `row`, in its order: the left stick (0), the
    /// diabolos on the string by slot (1..N), the right stick (N + 1). A trajectory without mode
    /// columns has every diabolo on the string in index order.
    fn string_order(&self, row: usize) -> Vec<usize> {
        let n = self.diabolos;
        let mut on: Vec<(f64, usize)> = (1..=n)
            .filter(|&k| self.mode(row, k).is_none_or(|m| m == "string"))
            .map(|k| {
                let slot = self.get(&format!("d{k}_slot")).map_or(k as f64, |s| s[row]);
                (slot, k)
            })
            .collect();
        on.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut order = vec![0];
        order.extend(on.into_iter().map(|(_, k)| k));
        order.push(n + 1);
        order
    }

    /// The mode of diabolo `k` at row `row` (`string`, `flying`, `dropped`), if the trajectory
    /// has mode columns.
    fn mode(&self, row: usize, k: usize) -> Option<&'a str> {
        let name = format!("d{k}_mode");
        let column = self.table.names.iter().position(|n| *n == name)?;
        self.table.text[column].get(row).map(String::as_str)
    }

    /// x and y of the left stick, each diabolo, the right stick (index order).
    fn positions(&self) -> Result<Vec<Path2<'a>>, PlotError> {
        if self.diabolos == 0 {
            return Err(PlotError::Options(
                "the trajectory has no diabolo columns (d1_x, d1_y, ...)".into(),
            ));
        }
        let mut names = vec!["left".to_string()];
        names.extend((1..=self.diabolos).map(|k| format!("d{k}")));
        names.push("right".into());
        names
            .iter()
            .map(|n| {
                Ok((
                    self.require(&format!("{n}_x"))?,
                    self.require(&format!("{n}_y"))?,
                ))
            })
            .collect()
    }
}

/// Loose intervals [start, end) of the run: from the first loose row to the next taut one.
fn loose_intervals(t: &[f64], phases: &[&str]) -> Vec<(f64, f64)> {
    let mut intervals: Vec<(f64, f64)> = Vec::new();
    let mut start = None;
    for (i, phase) in phases.iter().enumerate() {
        match (*phase == "loose", start) {
            (true, None) => start = Some(t[i]),
            (false, Some(s)) => {
                intervals.push((s, t[i]));
                start = None;
            }
            _ => {}
        }
    }
    if let (Some(s), Some(&end)) = (start, t.last()) {
        intervals.push((s, end));
    }
    intervals
}

/// Colours taken from the 6x6x6 cube of the GIF palette, so that bitmaps keep them exactly.
const SERIES_COLOURS: [RGBColor; 8] = [
    RGBColor(0, 102, 204),
    RGBColor(204, 51, 0),
    RGBColor(0, 153, 51),
    RGBColor(153, 51, 153),
    RGBColor(255, 153, 0),
    RGBColor(0, 153, 153),
    RGBColor(153, 102, 51),
    RGBColor(102, 102, 102),
];

/// The colour of an event kind by its name in the event log (the same in every picture); grey
/// for a name that is not a kind's.
fn event_colour(kind: &str) -> RGBColor {
    EventKind::from_name(kind).map_or(RGBColor(153, 153, 153), kind_colour)
}

/// The colour of each event kind. The match names every kind: a new kind does not compile until
/// it has its colour.
fn kind_colour(kind: EventKind) -> RGBColor {
    match kind {
        EventKind::Loosen => RGBColor(255, 153, 0),
        EventKind::Tense => RGBColor(204, 0, 0),
        EventKind::SlipReversal => RGBColor(153, 51, 204),
        EventKind::Stick => RGBColor(0, 153, 51),
        EventKind::Unstick => RGBColor(0, 153, 204),
        EventKind::KnotChange => RGBColor(0, 51, 204),
        EventKind::ZenoSettle => RGBColor(153, 102, 51),
        EventKind::Leave => RGBColor(0, 204, 204),
        EventKind::Land => RGBColor(51, 102, 0),
        EventKind::Contact => RGBColor(204, 0, 153),
        EventKind::Separate => RGBColor(255, 102, 153),
        EventKind::Drop => RGBColor(102, 51, 0),
        EventKind::Failure => RGBColor(0, 0, 0),
    }
}

/// Above this many events in a picture's time range, events are drawn as short marks in a strip
/// at the top of each panel (a row per kind, one mark per pixel column) instead of lines across
/// the panels, which would hide the curves.
pub const MANY_EVENTS: usize = 40;

/// The marks of `events` in a strip `columns` pixels wide spanning `time`: one per kind and pixel
/// column, as (the kind's row in `kinds`, the time of the column's first event of that kind).
fn event_marks(
    events: &[Event],
    kinds: &[&str],
    time: std::ops::Range<f64>,
    columns: u32,
) -> Vec<(usize, f64)> {
    let span = time.end - time.start;
    let mut seen = std::collections::HashSet::new();
    let mut marks = Vec::new();
    for event in events
        .iter()
        .filter(|e| e.t >= time.start && e.t <= time.end)
    {
        let Some(row) = kinds.iter().position(|k| *k == event.kind) else {
            continue;
        };
        let column = ((event.t - time.start) / span * f64::from(columns)) as u32;
        if seen.insert((row, column.min(columns.saturating_sub(1)))) {
            marks.push((row, event.t));
        }
    }
    marks
}

/// The event kinds present, in order of first appearance.
fn event_kinds(events: &[Event]) -> Vec<&str> {
    let mut kinds: Vec<&str> = Vec::new();
    for e in events {
        if !kinds.contains(&e.kind.as_str()) {
            kinds.push(&e.kind);
        }
    }
    kinds
}

/// The title of a picture, at its top left.
fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
) -> Result<(), PlotError> {
    let style = TextStyle::from(("sans-serif", 16, FontStyle::Bold).into_font())
        .color(&BLACK)
        .pos(text_anchor::Pos::new(
            text_anchor::HPos::Left,
            text_anchor::VPos::Center,
        ));
    area.draw(&Text::new(title.to_string(), (12, 14), style))
        .map_err(draw_error)
}

/// Draws a legend row (colour swatch, then text) from `x` at height `y`; the x after it.
fn legend_entry<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    swatch: &Swatch<DB>,
    text: &str,
) -> Result<i32, PlotError> {
    swatch(root, (x, y))?;
    let style = TextStyle::from(("sans-serif", 13).into_font())
        .color(&BLACK)
        .pos(text_anchor::Pos::new(
            text_anchor::HPos::Left,
            text_anchor::VPos::Center,
        ));
    root.draw(&Text::new(text.to_string(), (x + 24, y), &style))
        .map_err(draw_error)?;
    let (w, _) = root.estimate_text_size(text, &style).map_err(draw_error)?;
    Ok(x + 24 + w as i32 + 16)
}

/// An axis label: fixed decimals enough to tell ticks about `step` apart, or scientific
/// notation for tiny steps.
fn tick_label(v: f64, step: f64) -> String {
    if !(step > 0.0 && step.is_finite()) {
        return format!("{v}");
    }
    let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
    if v == 0.0 {
        "0".into()
    } else if step >= 1e-3 && v.abs() < 1e6 {
        let digits = (-step.log10().floor()).max(0.0) as usize;
        format!("{v:.digits$}")
    } else {
        let digits = (v.abs() / step).log10().ceil().clamp(1.0, 6.0) as usize;
        format!("{v:.digits$e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(t: f64, kind: &str) -> Event {
        Event {
            t,
            kind: kind.into(),
            object: None,
        }
    }

    #[test]
    fn many_events_become_one_mark_per_kind_and_pixel_column() {
        // 162 events in 60 s on 100 columns: at most 100 marks a kind, every kind kept.
        let events: Vec<Event> = (0..162)
            .map(|i| event(i as f64 * 60.0 / 162.0, ["tense", "loosen"][i % 2]))
            .collect();
        let kinds = event_kinds(&events);
        let marks = event_marks(&events, &kinds, 0.0..60.0, 100);
        for row in 0..2 {
            let in_row = marks.iter().filter(|m| m.0 == row).count();
            assert!((50..=100).contains(&in_row), "{in_row} marks of kind {row}");
        }
        // Two events of one kind in one column give one mark; of two kinds, two.
        let close = [
            event(1.0, "tense"),
            event(1.001, "tense"),
            event(1.002, "stick"),
        ];
        let kinds = event_kinds(&close);
        assert_eq!(
            event_marks(&close, &kinds, 0.0..10.0, 100),
            vec![(0, 1.0), (1, 1.002)]
        );
        // Events outside the time range are not marked.
        assert!(event_marks(&close, &kinds, 2.0..10.0, 100).is_empty());
    }
}
