//! Animation (`diabolo animate`): the sticks, the string and the spinning diabolos moving in real
//! time (or `speed` times faster), with the time and the phase shown, and with `--events` each
//! event's kind labelled beside its object, in its colour (as `plot` marks it), for
//! [`EVENT_FRAMES`] frames from the first frame at or after it.
//!
//! Frames are taken every `1 / fps` s of playing time, that is every `speed / fps` s of the
//! trajectory, positions interpolated linearly between rows, the phase that of the last row at or
//! before the frame's time. A spool is a bow-tie (two triangles, one darker, around the axle)
//! turned by the axle's angle, the integral of the spin: angle = (1 / r) ∫ w dt with r the axle
//! radius 6.5 mm (w is the axle surface speed), positive w turning clockwise as drawn (the axle's
//! surface under the V moving left, the way the string runs when the left segment lengthens).
//! A real spool turns 10 to 20 times a second, faster than frames can show, so the drawn angle is
//! the real one divided by a slow-down factor: by default the smallest of 1, 2, 5, 10, 20, 50, ...
//! that keeps the turn between two frames within 30 degrees; the factor is written in the frame.
//!
//! The SVG is self-contained: SMIL `<animate>` / `<animateTransform>` elements with one value per
//! frame (`keyTimes` i / n), looping forever; browsers interpolate between frames. The GIF has one
//! image per frame at the same rate (delays in whole centiseconds, so at most 50 fps).
//!
//! - `scene`: the frames laid out in pixels, the spools' angles, the events' labels.
//! - `svg` and `gif`: the two ways of drawing them; `style`: colours, the scale bar and
//!   numbers as written.
//! - `space`: a trajectory in space (z columns, see [`crate::plot::space`]) in views side by
//!   side, by default the front view and the view from above, at one scale: each diabolo is its
//!   disc at a slant with the bow-tie turning in it and the axle as a segment
//!   [`crate::plot::AXLE_DRAWN`] long, so the front view shows the axle's tilt and the view from
//!   above its turn.

mod gif;
mod scene;
mod space;
mod style;
mod svg;

use std::io::Write;

use super::{Event, Format, PlotError, View, MAX_GIF_PIXELS, MAX_SVG_VALUES};
use crate::display::Compact;
use crate::output::table::Table;

/// What `diabolo animate` makes.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimateOptions {
    /// Frames per second of playing time.
    pub fps: f64,
    /// Trajectory seconds per second of playing time (2 plays twice as fast).
    pub speed: f64,
    /// Picture width, px.
    pub width: u32,
    /// Picture height, px.
    pub height: u32,
    /// How many times slower than real the spools turn; `None` chooses (see the module doc).
    pub spin_slowdown: Option<f64>,
    /// The most frames allowed (the file grows with them).
    pub max_frames: usize,
    /// The line at the top (for example the file name).
    pub title: Option<String>,
    /// The diabolo's radius to draw, m (`None`: 0.0635 m, a 127 mm diabolo).
    pub radius: Option<f64>,
    /// The events to label (`--events`): each event's kind, in its colour, beside the object
    /// it names (the first diabolo when it names none) where the event happened, from the
    /// first frame at or after its time for [`EVENT_FRAMES`] frames.
    pub events: Vec<Event>,
    /// The views side by side of a trajectory in space (`--view`); empty: the front view and
    /// the view from above. A planar trajectory has only the front view.
    pub views: Vec<View>,
}

impl Default for AnimateOptions {
    fn default() -> Self {
        Self {
            fps: 30.0,
            speed: 1.0,
            width: 640,
            height: 480,
            spin_slowdown: None,
            max_frames: 3000,
            title: None,
            radius: None,
            events: Vec::new(),
            views: Vec::new(),
        }
    }
}

/// What was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// The number of frames drawn.
    pub frames: usize,
    /// Playing time, s (frames / fps).
    pub duration: f64,
    /// The spools' slow-down factor used.
    pub spin_slowdown: f64,
}

/// The largest turn of a spool between two frames before the spin is shown slowed down.
const MAX_TURN_PER_FRAME: f64 = std::f64::consts::PI / 6.0;
const HEADER: f64 = 40.0;
const FOOTER: f64 = 30.0;
/// A stick's handle, from its tip (where the string is tied), m: down and outward.
const HANDLE: (f64, f64) = (0.07, -0.24);
/// Frames an event's label shows (half a second at 30 fps), so that a brief event is seen.
pub const EVENT_FRAMES: usize = 15;
/// Pixels between the lines of labels stacked beside one object.
const LABEL_LINE: f64 = 14.0;

/// Animates the run in `table` as SVG or GIF into `out`.
pub fn animate(
    table: &Table,
    options: &AnimateOptions,
    format: Format,
    out: &mut dyn Write,
) -> Result<Animation, PlotError> {
    animate_with_progress(table, options, format, out, &mut |_, _| {})
}

/// [`animate`], calling `progress(drawn, frames)` as each GIF frame is drawn (an SVG is
/// written at once: one call when it is done).
pub fn animate_with_progress(
    table: &Table,
    options: &AnimateOptions,
    format: Format,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Animation, PlotError> {
    let scene = Scene::new(table, options, format)?;
    match format {
        Format::Svg => {
            out.write_all(scene.svg().as_bytes())?;
            progress(scene.frames.len(), scene.frames.len());
        }
        Format::Gif => scene.gif(out, options.fps, progress)?,
        Format::Png => {
            return Err(PlotError::Options(
                "an animation is .svg or .gif (PNG is for `diabolo plot`)".into(),
            ))
        }
    }
    out.flush()?;
    Ok(Animation {
        frames: scene.frames.len(),
        duration: scene.frames.len() as f64 / options.fps,
        spin_slowdown: scene.slowdown,
    })
}

/// Refuses an animation whose file or drawing time would be out of proportion: a GIF's pixels
/// over all frames ([`MAX_GIF_PIXELS`]), an SVG's values over all frames ([`MAX_SVG_VALUES`]).
fn frame_budget(
    frames: usize,
    options: &AnimateOptions,
    format: Format,
    objects: usize,
) -> Result<(), PlotError> {
    let frames = frames as u64;
    let pixels = u64::from(options.width) * u64::from(options.height);
    if format == Format::Gif && frames * pixels > MAX_GIF_PIXELS {
        return Err(PlotError::Options(format!(
            "{frames} frames of {} x {} pixels are {} pixels, more than the {MAX_GIF_PIXELS} a \
             GIF may have in all (each frame is drawn in turn: the time grows with it); lower \
             --fps, --width or --height, or raise --speed",
            options.width,
            options.height,
            Compact((frames * pixels) as f64)
        )));
    }
    let values = frames * objects as u64;
    if format == Format::Svg && values > MAX_SVG_VALUES {
        return Err(PlotError::Options(format!(
            "{frames} frames of {objects} objects are {values} animated values, more than the \
             {MAX_SVG_VALUES} an SVG may hold (about 70 bytes each); lower --fps or raise --speed"
        )));
    }
    Ok(())
}

/// Animates an attribute through one value per frame: (values, attribute, transform type) to
/// the SMIL element (empty for a single frame).
type Linear<'a> = dyn Fn(Vec<String>, &str, Option<&str>) -> String + 'a;

/// One frame, in pixels.
struct Frame<'a> {
    t: f64,
    phase: &'a str,
    /// Left stick, diabolos, right stick.
    points: Vec<(f64, f64)>,
    /// The drawn angle of each spool, degrees clockwise.
    angles: Vec<f64>,
    /// The objects the string runs through, in its order (indices into `points`).
    string: Vec<usize>,
    /// Whether each diabolo lies dropped on the floor (drawn grey).
    dropped: Vec<bool>,
    /// A trajectory in space: each view of the frame (empty for a planar one).
    views: Vec<space::Drawn>,
}

impl Frame<'_> {
    /// The string's points, padded with the right stick's to the length of `points` (so that
    /// an SVG animation interpolates polylines of one length).
    fn string_points(&self) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = self.string.iter().map(|&i| self.points[i]).collect();
        let last = *points.last().expect("the string has its two sticks");
        points.resize(self.points.len(), last);
        points
    }
}

/// An event's label: its kind, where it happened, the frames that show it.
struct Label {
    /// The left end of the text's baseline, px.
    at: (f64, f64),
    /// The event's kind.
    kind: String,
    /// The frames that show it.
    frames: std::ops::Range<usize>,
}

/// An animation laid out: its frames in pixels, the scale, the spools' slow-down and the
/// events' labels.
struct Scene<'a> {
    width: u32,
    height: u32,
    fps: f64,
    title: String,
    frames: Vec<Frame<'a>>,
    /// Metres to pixels.
    scale: f64,
    /// The diabolo's radius, m.
    radius: f64,
    slowdown: f64,
    /// The scale bar: its length in px and its label.
    bar: (f64, String),
    /// The events' labels.
    labels: Vec<Label>,
    /// A trajectory in space: its views laid out (`None` for a planar one).
    layout: Option<space::Layout>,
}
