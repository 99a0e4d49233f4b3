//! The animation laid out: the view and its scale, the frames in pixels, the spools' drawn
//! angles and the events' labels.

use super::space::{parts, Layout};
use super::style::{nice_at_least, scale_bar, trim};
use super::{
    frame_budget, AnimateOptions, Frame, Label, Scene, EVENT_FRAMES, FOOTER, HANDLE, HEADER,
    LABEL_LINE, MAX_TURN_PER_FRAME,
};
use crate::display::Compact;
use crate::output::table::Table;
use crate::plot::space::{views_to_draw, Space};
use crate::plot::{
    check_size, drawn_radius, interpolate, locate, Columns, Event, Format, PlotError, AXLE_RADIUS,
};

impl<'a> Scene<'a> {
    pub(super) fn new(
        table: &'a Table,
        options: &AnimateOptions,
        format: Format,
    ) -> Result<Self, PlotError> {
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
        let space = Space::read(&columns)?;
        let views = views_to_draw(&options.views, space.is_some())?;
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
        let animated = match &space {
            None => columns.diabolos + 2,
            Some(_) => views.len() * parts(columns.diabolos),
        };
        frame_budget(count, options, format, animated)?;

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
        let planar = |x: f64, y: f64| (left + (x - x0) * scale, top + (y1 - y) * scale);
        // In space: the views side by side at one scale; positions are the first view's.
        let layout = match &space {
            None => None,
            Some(space) => Some(Layout::new(&views, &objects, space, radius, (w, h))?),
        };
        let (scale, aw) = layout
            .as_ref()
            .map_or((scale, aw), |l| (l.scale, l.view_width));
        let pixel = |i: usize, at: f64| {
            let (x, y) = (
                interpolate(t, objects[i].0, at),
                interpolate(t, objects[i].1, at),
            );
            match (&layout, &space) {
                (Some(layout), Some(space)) => {
                    layout.pixel(0, [x, y, interpolate(t, space.z[i], at)])
                }
                _ => planar(x, y),
            }
        };

        let mut frames = Vec::with_capacity(count);
        for f in 0..count {
            let at = (t0 + f as f64 * speed / fps).min(t1);
            let points = (0..objects.len()).map(|i| pixel(i, at)).collect();
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
                views: Vec::new(),
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
        if let (Some(layout), Some(space)) = (&layout, &space) {
            for frame in &mut frames {
                frame.views = layout.draw_frame(
                    t,
                    frame.t,
                    &objects,
                    space,
                    &frame.string,
                    &frame.angles,
                    drawn,
                );
            }
        }
        let labels = event_labels(&options.events, count, |e: &Event| {
            if !(t0..=t1).contains(&e.t) {
                return None;
            }
            let first = ((e.t - t0) * fps / speed - 1e-9).ceil().max(0.0) as usize;
            let object = match e.object {
                Some(k) if (0..objects.len() as i64).contains(&k) => k as usize,
                _ => 1.min(objects.len() - 1),
            };
            let (x, y) = pixel(object, e.t);
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
            layout,
        })
    }

    pub(super) fn diabolos(&self) -> usize {
        self.frames[0].points.len() - 2
    }

    pub(super) fn radius(&self) -> f64 {
        (self.radius * self.scale).max(6.0)
    }

    pub(super) fn handle(&self, left: bool) -> (f64, f64) {
        let sign = if left { -1.0 } else { 1.0 };
        (sign * HANDLE.0 * self.scale, -HANDLE.1 * self.scale)
    }

    pub(super) fn note(&self) -> String {
        if self.slowdown == 1.0 {
            "spools turn at the real spin".into()
        } else {
            format!("spools turn {}× slower than real", trim(self.slowdown))
        }
    }

    /// The bow-tie of a spool around (0, 0), unturned: two triangles from the axle to the rim,
    /// 70 degrees wide, the dark one up, the light one down.
    pub(super) fn bow_tie(&self) -> [[(f64, f64); 3]; 2] {
        let r = self.radius() - 1.0;
        let (sin, cos) = 35f64.to_radians().sin_cos();
        let (x, y) = (r * sin, r * cos);
        [
            [(0.0, 0.0), (-x, -y), (x, -y)],
            [(0.0, 0.0), (-x, y), (x, y)],
        ]
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
