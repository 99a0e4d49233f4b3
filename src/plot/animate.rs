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

use std::fmt::Write as _;
use std::io::Write;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor;

use super::glyphs::GlyphText;
use super::raster::GifWriter;
use super::xy::object_colour;
use super::{
    check_size, draw_error, drawn_radius, event_colour, interpolate, locate, register_fonts,
    Columns, Event, Format, PlotError, AXLE_RADIUS, MAX_GIF_PIXELS, MAX_SVG_VALUES,
};
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
}

impl<'a> Scene<'a> {
    fn new(table: &'a Table, options: &AnimateOptions, format: Format) -> Result<Self, PlotError> {
        let (fps, speed) = (options.fps, options.speed);
        if !(fps.is_finite() && fps > 0.0) {
            return Err(PlotError::Options(format!(
                "--fps {}: give a positive number of frames per second",
                Compact(fps)
            )));
        }
        if format == Format::Gif && fps > 50.0 {
            return Err(PlotError::Options(format!(
                "--fps {}: a GIF shows at most 50 frames a second (delays are whole \
                 hundredths); use --fps 50 or less",
                Compact(fps)
            )));
        }
        if !(speed.is_finite() && speed > 0.0) {
            return Err(PlotError::Options(format!(
                "--speed {}: give a positive factor (1 is real time)",
                Compact(speed)
            )));
        }
        if options.width < 160 || options.height < 120 {
            return Err(PlotError::Options(
                "the picture must be at least 160 x 120 pixels".into(),
            ));
        }
        check_size(options.width.into(), options.height.into())?;
        let columns = Columns::new(table);
        let objects = columns.positions()?;
        let t = columns.t();
        let phases = columns.phases();
        let n = columns.diabolos;
        let (t0, t1) = (t[0], t[t.len() - 1]);
        let count = ((t1 - t0) / speed * fps + 1e-9).floor() + 1.0;
        if count > options.max_frames as f64 {
            return Err(PlotError::Options(format!(
                "{} frames ({} s of playing time at --speed {}, --fps {}) exceed the limit of {}; \
                 lower --fps or raise --speed",
                Compact(count),
                Compact((t1 - t0) / speed),
                Compact(speed),
                Compact(fps),
                options.max_frames
            )));
        }
        let count = count as usize;
        frame_budget(count, options, format, columns.diabolos + 2)?;

        // The spools' angles at the rows, rad: (1 / r) ∫ w dt, trapezoids.
        let mut angles = Vec::with_capacity(n);
        for k in 1..=n {
            let w = columns.require(&format!("d{k}_w"))?;
            let mut angle = vec![0.0; t.len()];
            for i in 1..t.len() {
                let step = 0.5 * (w[i - 1] + w[i]) * (t[i] - t[i - 1]) / AXLE_RADIUS;
                angle[i] = angle[i - 1] + if step.is_finite() { step } else { 0.0 };
            }
            angles.push(angle);
        }

        // The view: every position of the run (sticks with their handles), equal scale.
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        let mut include = |x: f64, y: f64| {
            if x.is_finite() && y.is_finite() {
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        };
        for (i, (xs, ys)) in objects.iter().enumerate() {
            for (&x, &y) in xs.iter().zip(ys.iter()) {
                include(x, y);
                if i == 0 {
                    include(x - HANDLE.0, y + HANDLE.1);
                } else if i == n + 1 {
                    include(x + HANDLE.0, y + HANDLE.1);
                }
            }
        }
        if !(x0.is_finite() && y0.is_finite()) {
            return Err(PlotError::Options("the trajectory has no positions".into()));
        }
        let radius = drawn_radius(options.radius)?;
        let pad = radius + 0.03 * (x1 - x0).max(y1 - y0);
        (x0, x1, y0, y1) = (x0 - pad, x1 + pad, y0 - pad, y1 + pad);
        let (w, h) = (options.width as f64, options.height as f64);
        let (aw, ah) = (w - 20.0, h - HEADER - FOOTER);
        let scale = (aw / (x1 - x0)).min(ah / (y1 - y0));
        let left = 10.0 + (aw - (x1 - x0) * scale) / 2.0;
        let top = HEADER + (ah - (y1 - y0) * scale) / 2.0;
        let pixel = |x: f64, y: f64| (left + (x - x0) * scale, top + (y1 - y) * scale);

        let mut frames = Vec::with_capacity(count);
        for f in 0..count {
            let at = (t0 + f as f64 * speed / fps).min(t1);
            let points = objects
                .iter()
                .map(|(xs, ys)| pixel(interpolate(t, xs, at), interpolate(t, ys, at)))
                .collect();
            let (row, _) = locate(t, at);
            frames.push(Frame {
                t: at,
                phase: phases[row],
                points,
                angles: angles.iter().map(|a| interpolate(t, a, at)).collect(),
                string: columns.string_order(row),
                dropped: (1..=n)
                    .map(|k| columns.mode(row, k) == Some("dropped"))
                    .collect(),
            });
        }
        let fastest = frames
            .windows(2)
            .flat_map(|pair| {
                pair[0]
                    .angles
                    .iter()
                    .zip(&pair[1].angles)
                    .map(|(a, b)| (b - a).abs())
            })
            .fold(0.0, f64::max);
        let slowdown = match options.spin_slowdown {
            Some(s) if s.is_finite() && s > 0.0 => s,
            Some(s) => {
                return Err(PlotError::Options(format!(
                    "--spin-slowdown {}: give a positive factor (1 shows the real spin)",
                    Compact(s)
                )))
            }
            None => nice_at_least(fastest / MAX_TURN_PER_FRAME),
        };
        for frame in &mut frames {
            for a in &mut frame.angles {
                *a = a.to_degrees() / slowdown;
            }
        }
        let drawn = (radius * scale).max(6.0);
        let labels = event_labels(&options.events, count, |e: &Event| {
            if !(t0..=t1).contains(&e.t) {
                return None;
            }
            let first = ((e.t - t0) * fps / speed - 1e-9).ceil().max(0.0) as usize;
            let object = match e.object {
                Some(k) if (0..objects.len() as i64).contains(&k) => k as usize,
                _ => 1.min(objects.len() - 1),
            };
            let (xs, ys) = &objects[object];
            let (x, y) = pixel(interpolate(t, xs, e.t), interpolate(t, ys, e.t));
            Some((first, object, (x + drawn + 3.0, y - drawn - 3.0)))
        });
        Ok(Self {
            width: options.width,
            height: options.height,
            fps,
            title: options.title.clone().unwrap_or_default(),
            frames,
            scale,
            radius,
            slowdown,
            bar: scale_bar(scale, aw),
            labels,
        })
    }

    fn diabolos(&self) -> usize {
        self.frames[0].points.len() - 2
    }

    fn radius(&self) -> f64 {
        (self.radius * self.scale).max(6.0)
    }

    fn handle(&self, left: bool) -> (f64, f64) {
        let sign = if left { -1.0 } else { 1.0 };
        (sign * HANDLE.0 * self.scale, -HANDLE.1 * self.scale)
    }

    fn note(&self) -> String {
        if self.slowdown == 1.0 {
            "spools turn at the real spin".into()
        } else {
            format!("spools turn {}× slower than real", trim(self.slowdown))
        }
    }

    /// The bow-tie of a spool around (0, 0), unturned: two triangles from the axle to the rim,
    /// 70 degrees wide, the dark one up, the light one down.
    fn bow_tie(&self) -> [[(f64, f64); 3]; 2] {
        let r = self.radius() - 1.0;
        let (sin, cos) = 35f64.to_radians().sin_cos();
        let (x, y) = (r * sin, r * cos);
        [
            [(0.0, 0.0), (-x, -y), (x, -y)],
            [(0.0, 0.0), (-x, y), (x, y)],
        ]
    }

    fn svg(&self) -> String {
        let (w, h) = (self.width, self.height);
        let count = self.frames.len();
        let dur = format!("{}s", trim_to(count as f64 / self.fps, 4));
        // keyTimes i / count for the frames, and 1 for the last frame held to the end.
        let key_times: String = (0..count)
            .map(|i| trim_to(i as f64 / count as f64, 6))
            .chain(std::iter::once("1".to_string()))
            .collect::<Vec<_>>()
            .join(";");
        let animated = count > 1;
        let linear = |values: Vec<String>, attribute: &str, transform: Option<&str>| -> String {
            if !animated {
                return String::new();
            }
            let mut values = values;
            values.push(values[values.len() - 1].clone());
            let (element, kind) = match transform {
                Some(kind) => ("animateTransform", format!(" type=\"{kind}\"")),
                None => ("animate", String::new()),
            };
            format!(
                "<{element} attributeName=\"{attribute}\"{kind} dur=\"{dur}\" \
                 repeatCount=\"indefinite\" calcMode=\"linear\" keyTimes=\"{key_times}\" \
                 values=\"{}\"/>",
                values.join(";")
            )
        };
        let px = |v: f64| trim_to(v, 1);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Verdana, sans-serif\">"
        );
        let _ = writeln!(
            s,
            "<title>{}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>",
            escape(&format!("diabolo animation {}", self.title))
        );
        let _ = writeln!(
            s,
            "<text x=\"12\" y=\"26\" font-size=\"15\" font-weight=\"bold\">{}</text>",
            escape(&self.title)
        );
        // Scale bar and note.
        let (bar, label) = &self.bar;
        let y = h as f64 - 12.0;
        let _ = writeln!(
            s,
            "<path d=\"M12 {y0} V{y} H{x1} V{y0}\" fill=\"none\" stroke=\"#000000\" \
             stroke-width=\"1.5\"/>\n<text x=\"{tx}\" y=\"{ty}\" font-size=\"12\">{label}</text>",
            y0 = px(y - 5.0),
            y = px(y),
            x1 = px(12.0 + bar),
            tx = px(18.0 + bar),
            ty = px(y + 1.0),
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\" fill=\"#555555\">{}</text>",
            w - 12,
            px(y + 1.0),
            escape(&self.note())
        );

        // The string, through the objects on it.
        let points_of = |f: &Frame| {
            f.string_points()
                .iter()
                .map(|&(x, y)| format!("{},{}", px(x), px(y)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Solid while taut, dashed while loose (two polylines, each shown in its phase).
        let points = linear(self.frames.iter().map(points_of).collect(), "points", None);
        let loose = |i: usize| self.frames[i].phase == "loose";
        for (dashes, shown) in [("", !loose(0)), (" stroke-dasharray=\"6 4\"", loose(0))] {
            let (first, visibility) = self.visibility(|i| loose(i) != dashes.is_empty());
            if !first && visibility.is_empty() {
                continue;
            }
            debug_assert_eq!(first, shown);
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"2\" \
                 stroke-linejoin=\"round\"{dashes} visibility=\"{}\">{points}{visibility}</polyline>",
                points_of(&self.frames[0]),
                if first { "visible" } else { "hidden" },
            );
        }

        // The sticks: a handle and the tip.
        let n = self.diabolos();
        for (i, left) in [(0, true), (n + 1, false)] {
            let colour = hex(object_colour(i, n));
            let (hx, hy) = self.handle(left);
            let at = |f: &Frame| format!("{} {}", px(f.points[i].0), px(f.points[i].1));
            let _ = writeln!(
                s,
                "<g transform=\"translate({})\">{}<line x1=\"0\" y1=\"0\" x2=\"{}\" y2=\"{}\" \
                 stroke=\"{colour}\" stroke-width=\"5\" stroke-linecap=\"round\"/>\
                 <circle r=\"4.5\" fill=\"#000000\"/></g>",
                at(&self.frames[0]),
                linear(
                    self.frames.iter().map(at).collect(),
                    "transform",
                    Some("translate")
                ),
                px(hx),
                px(hy)
            );
        }

        // The diabolos: rim, turning bow-tie, axle.
        let r = self.radius();
        let [dark, light] = self.bow_tie();
        let polygon = |p: &[(f64, f64); 3]| {
            p.iter()
                .map(|&(x, y)| format!("{},{}", px(x), px(y)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for k in 1..=n {
            let colour = object_colour(k, n);
            let at = |f: &Frame| format!("{} {}", px(f.points[k].0), px(f.points[k].1));
            let angle = |f: &Frame| trim_to(f.angles[k - 1], 1);
            // A dropped diabolo's rim turns grey (a discrete change, when it drops).
            let rim = |f: &Frame| {
                if f.dropped[k - 1] {
                    hex(DROPPED)
                } else {
                    hex(colour)
                }
            };
            let rim_change = if self.frames.iter().any(|f| f.dropped[k - 1]) {
                let mut values: Vec<String> = self.frames.iter().map(rim).collect();
                values.push(values[values.len() - 1].clone());
                format!(
                    "<animate attributeName=\"stroke\" dur=\"{dur}\" repeatCount=\"indefinite\" \
                     calcMode=\"discrete\" keyTimes=\"{key_times}\" values=\"{}\"/>",
                    values.join(";")
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "<g transform=\"translate({})\">{}\
                 <circle r=\"{}\" fill=\"#ffffff\" fill-opacity=\"0.7\" stroke=\"{}\" stroke-width=\"2\">{rim_change}</circle>\
                 <g transform=\"rotate({})\">{}\
                 <polygon points=\"{}\" fill=\"{}\"/><polygon points=\"{}\" fill=\"{}\"/></g>\
                 <circle r=\"2.5\" fill=\"#000000\"/></g>",
                at(&self.frames[0]),
                linear(self.frames.iter().map(at).collect(), "transform", Some("translate")),
                px(r),
                rim(&self.frames[0]),
                angle(&self.frames[0]),
                linear(self.frames.iter().map(angle).collect(), "transform", Some("rotate")),
                polygon(&dark),
                hex(colour),
                polygon(&light),
                hex(lighten(colour)),
            );
        }

        // Time and phase, one text per value shown while it holds.
        self.texts(
            &mut s,
            |f| format!("t = {:.2} s", f.t),
            w as f64 - 150.0,
            |_| "#000000",
        );
        self.texts(
            &mut s,
            |f| f.phase.to_string(),
            w as f64 - 60.0,
            |f| phase_colour_hex(f.phase),
        );
        for label in &self.labels {
            let (first, animation) = self.visibility(|i| label.frames.contains(&i));
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\" visibility=\"{}\">{}{animation}</text>",
                trim_to(label.at.0, 1),
                trim_to(label.at.1, 1),
                hex(event_colour(&label.kind)),
                if first { "visible" } else { "hidden" },
                escape(&label.kind)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// Runs of frames showing the same value: (first frame, end frame, value).
    fn runs(&self, value: impl Fn(&Frame) -> String) -> Vec<(usize, usize, String)> {
        let mut runs: Vec<(usize, usize, String)> = Vec::new();
        for (i, f) in self.frames.iter().enumerate() {
            let v = value(f);
            match runs.last_mut() {
                Some(run) if run.2 == v => run.1 = i + 1,
                _ => runs.push((i, i + 1, v)),
            }
        }
        runs
    }

    fn key_time(&self, frame: usize) -> String {
        trim_to(frame as f64 / self.frames.len() as f64, 6)
    }

    /// Whether an element shows at the first frame, and the discrete animation of its
    /// visibility that shows it on exactly the frames where `visible` holds (empty when that
    /// never changes).
    fn visibility(&self, visible: impl Fn(usize) -> bool) -> (bool, String) {
        let first = visible(0);
        let mut values = vec![first];
        let mut times = vec!["0".to_string()];
        for i in 1..self.frames.len() {
            let shown = visible(i);
            if values.last() != Some(&shown) {
                values.push(shown);
                times.push(self.key_time(i));
            }
        }
        if values.len() == 1 {
            return (first, String::new());
        }
        let values: Vec<&str> = values
            .iter()
            .map(|&v| if v { "visible" } else { "hidden" })
            .collect();
        let animation = format!(
            "<animate attributeName=\"visibility\" dur=\"{}s\" repeatCount=\"indefinite\" \
             calcMode=\"discrete\" keyTimes=\"{}\" values=\"{}\"/>",
            trim_to(self.frames.len() as f64 / self.fps, 4),
            times.join(";"),
            values.join(";")
        );
        (first, animation)
    }

    /// Texts shown one at a time: each visible during its run of frames.
    fn texts(
        &self,
        s: &mut String,
        value: impl Fn(&Frame) -> String,
        x: f64,
        colour: impl Fn(&Frame) -> &'static str,
    ) {
        for (start, end, text) in self.runs(value) {
            let (first, animation) = self.visibility(|i| (start..end).contains(&i));
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"26\" font-size=\"15\" fill=\"{}\" visibility=\"{}\">{}{animation}</text>",
                trim_to(x, 1),
                colour(&self.frames[start]),
                if first { "visible" } else { "hidden" },
                escape(&text)
            );
        }
    }

    fn gif(
        &self,
        out: &mut dyn Write,
        fps: f64,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), PlotError> {
        register_fonts();
        let (w, h) = (self.width, self.height);
        let mut gif = GifWriter::new(out, w, h, fps)?;
        let mut buffer = vec![255u8; w as usize * h as usize * 3];
        for (i, frame) in self.frames.iter().enumerate() {
            {
                let root = GlyphText(BitMapBackend::with_buffer(&mut buffer, (w, h)), false)
                    .into_drawing_area();
                root.fill(&WHITE).map_err(draw_error)?;
                self.draw_frame(&root, i, frame)?;
                root.present().map_err(draw_error)?;
            }
            gif.frame(&buffer)?;
            progress(i + 1, self.frames.len());
        }
        gif.finish()?;
        Ok(())
    }

    /// One frame with plotters (the GIF's frames).
    fn draw_frame<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        index: usize,
        frame: &Frame,
    ) -> Result<(), PlotError> {
        let ip = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
        // plotters' font size s has an em of s / 1.24 px: the same letters as the SVG's.
        let text = |em: f64, colour: RGBColor, h: text_anchor::HPos| {
            ("sans-serif", em * 1.24)
                .into_font()
                .color(&colour)
                .pos(text_anchor::Pos::new(h, text_anchor::VPos::Center))
        };
        let left = text_anchor::HPos::Left;
        let (w, h) = (self.width as i32, self.height as i32);
        let bold = TextStyle::from(("sans-serif", 15.0 * 1.24, FontStyle::Bold).into_font())
            .color(&BLACK)
            .pos(text_anchor::Pos::new(left, text_anchor::VPos::Center));
        root.draw(&Text::new(self.title.clone(), (12, 21), bold))
            .map_err(draw_error)?;
        root.draw(&Text::new(
            format!("t = {:.2} s", frame.t),
            (w - 150, 21),
            text(15.0, BLACK, left),
        ))
        .map_err(draw_error)?;
        let phase_colour = phase_colour(frame.phase);
        root.draw(&Text::new(
            frame.phase.to_string(),
            (w - 60, 21),
            text(15.0, phase_colour, left),
        ))
        .map_err(draw_error)?;
        let (bar, label) = &self.bar;
        let y = h - 12;
        let x1 = 12 + bar.round() as i32;
        root.draw(&PathElement::new(
            vec![(12, y - 5), (12, y), (x1, y), (x1, y - 5)],
            BLACK.stroke_width(1),
        ))
        .map_err(draw_error)?;
        root.draw(&Text::new(
            label.clone(),
            (x1 + 6, y - 3),
            text(12.0, BLACK, left),
        ))
        .map_err(draw_error)?;
        root.draw(&Text::new(
            self.note(),
            (w - 12, y - 3),
            text(12.0, RGBColor(85, 85, 85), text_anchor::HPos::Right),
        ))
        .map_err(draw_error)?;

        let points: Vec<(i32, i32)> = frame.points.iter().map(|&p| ip(p)).collect();
        let on_string: Vec<(i32, i32)> = frame.string.iter().map(|&i| points[i]).collect();
        let string = RGBColor(51, 51, 51).stroke_width(2);
        if frame.phase == "loose" {
            root.draw(&DashedPathElement::new(on_string.clone(), 6, 4, string))
                .map_err(draw_error)?;
        } else {
            // Segment by segment: plotters' wide polylines come out with uneven widths.
            for pair in on_string.windows(2) {
                root.draw(&PathElement::new(pair.to_vec(), string))
                    .map_err(draw_error)?;
            }
        }
        let n = self.diabolos();
        for (i, is_left) in [(0, true), (n + 1, false)] {
            let (hx, hy) = self.handle(is_left);
            let (x, y) = frame.points[i];
            root.draw(&PathElement::new(
                vec![points[i], ip((x + hx, y + hy))],
                object_colour(i, n).stroke_width(5),
            ))
            .map_err(draw_error)?;
            root.draw(&Circle::new(points[i], 4, BLACK.filled()))
                .map_err(draw_error)?;
        }
        let r = self.radius();
        for k in 1..=n {
            let colour = if frame.dropped[k - 1] {
                DROPPED
            } else {
                object_colour(k, n)
            };
            let (cx, cy) = frame.points[k];
            root.draw(&Circle::new(points[k], r.round() as i32, WHITE.filled()))
                .map_err(draw_error)?;
            root.draw(&Circle::new(
                points[k],
                r.round() as i32,
                colour.stroke_width(2),
            ))
            .map_err(draw_error)?;
            let (sin, cos) = frame.angles[k - 1].to_radians().sin_cos();
            let turn = |&(x, y): &(f64, f64)| ip((cx + x * cos - y * sin, cy + x * sin + y * cos));
            let [dark, light] = self.bow_tie();
            root.draw(&Polygon::new(
                dark.iter().map(turn).collect::<Vec<_>>(),
                colour.filled(),
            ))
            .map_err(draw_error)?;
            root.draw(&Polygon::new(
                light.iter().map(turn).collect::<Vec<_>>(),
                lighten(colour).filled(),
            ))
            .map_err(draw_error)?;
            root.draw(&Circle::new(points[k], 2, BLACK.filled()))
                .map_err(draw_error)?;
        }
        for label in self.labels.iter().filter(|l| l.frames.contains(&index)) {
            let baseline = text_anchor::Pos::new(left, text_anchor::VPos::Bottom);
            root.draw(&Text::new(
                label.kind.clone(),
                ip(label.at),
                text(12.0, event_colour(&label.kind), left).pos(baseline),
            ))
            .map_err(draw_error)?;
        }
        Ok(())
    }
}

/// The labels of `events` within the animation's `frames`: `place(event)` gives the first
/// frame at or after it, the object it names and the label's place beside that object (`None`
/// for an event outside the animation's time); labels of one object shown at once stack
/// upwards.
fn event_labels(
    events: &[Event],
    frames: usize,
    place: impl Fn(&Event) -> Option<(usize, usize, (f64, f64))>,
) -> Vec<Label> {
    let mut labels: Vec<(usize, Label)> = Vec::new();
    for event in events {
        let Some((first, object, (x, y))) = place(event).filter(|p| p.0 < frames) else {
            continue;
        };
        let shown = first..(first + EVENT_FRAMES).min(frames);
        let below = labels
            .iter()
            .filter(|(o, l)| {
                *o == object && l.frames.start < shown.end && shown.start < l.frames.end
            })
            .count();
        labels.push((
            object,
            Label {
                at: (x, y - below as f64 * LABEL_LINE),
                kind: event.kind.clone(),
                frames: shown,
            },
        ));
    }
    labels.into_iter().map(|(_, label)| label).collect()
}

/// The colour of a diabolo lying dropped on the floor.
const DROPPED: RGBColor = RGBColor(153, 153, 153);

fn phase_colour(phase: &str) -> RGBColor {
    if phase == "loose" {
        RGBColor(204, 102, 0)
    } else {
        RGBColor(0, 153, 51)
    }
}

fn phase_colour_hex(phase: &str) -> &'static str {
    if phase == "loose" {
        "#cc6600"
    } else {
        "#009933"
    }
}

/// Halfway to white (a cube colour again when the channels are multiples of 102).
fn lighten(c: RGBColor) -> RGBColor {
    let l = |v: u8| ((v as u16 + 255) / 2 / 51 * 51) as u8;
    RGBColor(l(c.0), l(c.1), l(c.2))
}

fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The smallest of 1, 2, 5, 10, 20, 50, ... at least `x`.
fn nice_at_least(x: f64) -> f64 {
    if x.is_nan() || x <= 1.0 {
        return 1.0;
    }
    let mut decade = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * decade >= x {
                return m * decade;
            }
        }
        decade *= 10.0;
    }
}

/// A scale bar of a round length about a fifth of the view: its length in px and label.
fn scale_bar(scale: f64, view: f64) -> (f64, String) {
    let target = view / 5.0 / scale;
    let mut length = 1e-3;
    for candidate in [
        1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0,
    ] {
        if candidate <= target {
            length = candidate;
        }
    }
    let label = if length < 1.0 {
        format!("{} cm", trim(length * 100.0))
    } else {
        format!("{} m", trim(length))
    };
    (length * scale, label)
}

/// A number without trailing zeros.
fn trim(v: f64) -> String {
    trim_to(v, 3)
}

/// A number with at most `digits` decimals, without trailing zeros.
fn trim_to(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_factors() {
        assert_eq!(nice_at_least(0.3), 1.0);
        assert_eq!(nice_at_least(1.0), 1.0);
        assert_eq!(nice_at_least(1.5), 2.0);
        assert_eq!(nice_at_least(7.0), 10.0);
        assert_eq!(nice_at_least(101.0), 200.0);
    }

    #[test]
    fn numbers_are_written_short() {
        assert_eq!(trim_to(12.0, 1), "12");
        assert_eq!(trim_to(12.25, 1), "12.2");
        assert_eq!(trim_to(-0.01, 1), "0");
        assert_eq!(trim_to(0.5, 6), "0.5");
    }

    #[test]
    fn scale_bar_is_a_round_length() {
        let (px, label) = scale_bar(200.0, 600.0);
        assert_eq!(label, "50 cm");
        assert_eq!(px, 100.0);
    }
}
