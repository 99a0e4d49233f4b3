//! The animation of a trajectory in space: the views side by side (front and from above), at
//! one scale, each with the string through the objects on it, the sticks, and each diabolo as
//! its disc at a slant (the projected circle of the drawn radius about the axle), the spool's
//! bow-tie turning in that disc, and the axle as a segment [`AXLE_DRAWN`] long.

use std::fmt::Write as _;

use nalgebra::Vector3;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor;

use super::style::{escape, hex, lighten, trim_to, DROPPED};
use super::{Frame, Linear, Scene, FOOTER, HANDLE, HEADER};
use crate::plot::space::{axle_ends, disc_basis, disc_outline, unit, Space, View, AXLE_DRAWN};
use crate::plot::xy::object_colour;
use crate::plot::{draw_error, interpolate, PlotError};

/// The height of a view's caption line, px.
const CAPTION: f64 = 18.0;
/// Pixels between two views.
const GAP: f64 = 10.0;
/// Points on a drawn rim.
const RIM_POINTS: usize = 32;
/// The colour of an axle.
const AXLE: RGBColor = RGBColor(51, 51, 51);

/// Where a view is drawn: its view, the data's corner (x0, y1) at the pixel (left, top), and
/// its caption's place.
pub(super) struct ViewLayout {
    view: View,
    corner: (f64, f64),
    origin: (f64, f64),
    caption: (f64, f64),
}

/// The views laid out side by side at one scale (metres to pixels).
pub(super) struct Layout {
    pub views: Vec<ViewLayout>,
    pub scale: f64,
    /// The width of one view, px (the scale bar's reference).
    pub view_width: f64,
}

impl Layout {
    /// The views of every position of the run (the sticks with their handles), each fitted in
    /// its share of a `width` x `height` picture, at the scale that fits them all.
    pub fn new(
        views: &[View],
        objects: &[(&[f64], &[f64])],
        space: &Space,
        radius: f64,
        (width, height): (f64, f64),
    ) -> Result<Self, PlotError> {
        let n = objects.len() - 2;
        let k = views.len() as f64;
        let aw = (width - 20.0 - GAP * (k - 1.0)) / k;
        let ah = height - HEADER - FOOTER - CAPTION;
        let mut boxes = Vec::new();
        for &view in views {
            let (mut x0, mut x1, mut y0, mut y1) = (
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            );
            let mut include = |p: [f64; 3]| {
                let (x, y) = view.project(p);
                if x.is_finite() && y.is_finite() {
                    (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
                }
            };
            for (i, ((xs, ys), zs)) in objects.iter().zip(&space.z).enumerate() {
                for r in 0..xs.len() {
                    let p = [xs[r], ys[r], zs[r]];
                    include(p);
                    if i == 0 || i == n + 1 {
                        let h = handle(i == 0);
                        include([p[0] + h[0], p[1] + h[1], p[2] + h[2]]);
                    }
                }
            }
            if !(x0.is_finite() && y0.is_finite()) {
                return Err(PlotError::Options("the trajectory has no positions".into()));
            }
            let pad = radius.max(0.5 * AXLE_DRAWN) + 0.03 * (x1 - x0).max(y1 - y0);
            boxes.push((x0 - pad, x1 + pad, y0 - pad, y1 + pad));
        }
        let scale = boxes
            .iter()
            .map(|(x0, x1, y0, y1)| (aw / (x1 - x0)).min(ah / (y1 - y0)))
            .fold(f64::INFINITY, f64::min);
        let views = views
            .iter()
            .zip(boxes)
            .enumerate()
            .map(|(i, (&view, (x0, x1, y0, y1)))| {
                let start = 10.0 + i as f64 * (aw + GAP);
                ViewLayout {
                    view,
                    corner: (x0, y1),
                    origin: (
                        start + (aw - (x1 - x0) * scale) / 2.0,
                        HEADER + CAPTION + (ah - (y1 - y0) * scale) / 2.0,
                    ),
                    caption: (start + 2.0, HEADER + CAPTION - 5.0),
                }
            })
            .collect();
        Ok(Self {
            views,
            scale,
            view_width: aw,
        })
    }

    /// The pixel of the point `p` in view `v`.
    pub fn pixel(&self, v: usize, p: [f64; 3]) -> (f64, f64) {
        let layout = &self.views[v];
        let (x, y) = layout.view.project(p);
        (
            layout.origin.0 + (x - layout.corner.0) * self.scale,
            layout.origin.1 + (layout.corner.1 - y) * self.scale,
        )
    }

    /// Every view of the frame at time `at`: `objects` and `space` the run's columns, `string`
    /// the objects on the string in its order, `angles` the spools' drawn angles (degrees,
    /// clockwise seen from the axle's end toward the audience), `rim` the disc's radius in px.
    #[allow(clippy::too_many_arguments)]
    pub fn draw_frame(
        &self,
        t: &[f64],
        at: f64,
        objects: &[(&[f64], &[f64])],
        space: &Space,
        string: &[usize],
        angles: &[f64],
        rim: f64,
    ) -> Vec<Drawn> {
        let n = objects.len() - 2;
        let positions: Vec<[f64; 3]> = objects
            .iter()
            .zip(&space.z)
            .map(|((xs, ys), zs)| {
                [
                    interpolate(t, xs, at),
                    interpolate(t, ys, at),
                    interpolate(t, zs, at),
                ]
            })
            .collect();
        let axles: Vec<Vector3<f64>> = space
            .axles
            .iter()
            .map(|[ax, ay, az]| {
                unit(Vector3::new(
                    interpolate(t, ax, at),
                    interpolate(t, ay, at),
                    interpolate(t, az, at),
                ))
                .unwrap_or_else(Vector3::z)
            })
            .collect();
        (0..self.views.len())
            .map(|v| {
                let view = self.views[v].view;
                let points: Vec<(f64, f64)> = positions.iter().map(|&p| self.pixel(v, p)).collect();
                let mut on_string: Vec<(f64, f64)> = string.iter().map(|&i| points[i]).collect();
                let last = *on_string.last().expect("the string has its two sticks");
                on_string.resize(points.len(), last);
                let offset = |c: (f64, f64), (dx, dy): (f64, f64)| (c.0 + dx, c.1 - dy);
                let sticks = [0, n + 1].map(|i| {
                    let h = handle(i == 0).map(|c| c * self.scale);
                    (points[i], offset(points[i], view.project(h)))
                });
                let discs = (1..=n)
                    .map(|k| {
                        let a = &axles[k - 1];
                        let c = points[k];
                        let (u, w) = disc_basis(a);
                        let (sin, cos) = angles[k - 1].to_radians().sin_cos();
                        // The bow-tie in the disc (s along u, t along w), turned clockwise
                        // seen from +a.
                        let tie = |(s, q): (f64, f64)| {
                            let (s, q) = (s * cos + q * sin, -s * sin + q * cos);
                            let p = s * u + q * w;
                            offset(c, view.project([p.x, p.y, p.z]))
                        };
                        let r = rim - 1.0;
                        let (x, y) = (r * 35f64.to_radians().sin(), r * 35f64.to_radians().cos());
                        Disc {
                            centre: c,
                            rim: disc_outline(a, rim, view, RIM_POINTS)
                                .into_iter()
                                .map(|d| offset(c, d))
                                .collect(),
                            ties: [
                                [(0.0, 0.0), (-x, y), (x, y)].map(tie),
                                [(0.0, 0.0), (-x, -y), (x, -y)].map(tie),
                            ],
                            axle: axle_ends(a, AXLE_DRAWN * self.scale, view).map(|d| offset(c, d)),
                        }
                    })
                    .collect();
                Drawn {
                    string: on_string,
                    sticks,
                    discs,
                }
            })
            .collect()
    }
}

/// A stick's handle from its tip, m: down and outward, in the hands' plane.
fn handle(left: bool) -> [f64; 3] {
    let sign = if left { -1.0 } else { 1.0 };
    [sign * HANDLE.0, HANDLE.1, 0.0]
}

/// One view of a frame, in pixels.
pub(super) struct Drawn {
    /// The string's points in its order, padded with the right stick's to the number of objects.
    string: Vec<(f64, f64)>,
    /// Each stick's tip and the end of its handle (left, right).
    sticks: [((f64, f64), (f64, f64)); 2],
    /// Each diabolo.
    discs: Vec<Disc>,
}

/// A diabolo in a view, in pixels.
struct Disc {
    centre: (f64, f64),
    /// The rim: the disc's circle seen at a slant.
    rim: Vec<(f64, f64)>,
    /// The bow-tie, dark then light.
    ties: [[(f64, f64); 3]; 2],
    /// The axle segment's ends.
    axle: [(f64, f64); 2],
}

/// Animated values per view and frame: the string, two sticks, and per diabolo its centre, rim,
/// two triangles and axle.
pub(super) fn parts(diabolos: usize) -> usize {
    3 + 5 * diabolos
}

fn points(p: &[(f64, f64)]) -> String {
    p.iter()
        .map(|&(x, y)| format!("{},{}", trim_to(x, 1), trim_to(y, 1)))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Scene<'_> {
    /// The views of a trajectory in space into the SVG `s`; `linear` animates an attribute
    /// through one value per frame.
    pub(super) fn svg_views(&self, s: &mut String, linear: &Linear) {
        let Some(layout) = &self.layout else {
            return;
        };
        let n = self.diabolos();
        for (v, view) in layout.views.iter().enumerate() {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#555555\">{}</text>",
                trim_to(view.caption.0, 1),
                trim_to(view.caption.1, 1),
                escape(&caption(view.view))
            );
            // The string, solid while taut and dashed while loose.
            let values = self.frames.iter().map(|f| points(&f.views[v].string));
            let animation = linear(values.collect(), "points", None);
            let loose = |i: usize| self.frames[i].phase == "loose";
            for dashes in ["", " stroke-dasharray=\"6 4\""] {
                let (first, visibility) = self.visibility(|i| loose(i) != dashes.is_empty());
                if !first && visibility.is_empty() {
                    continue;
                }
                let _ = writeln!(
                    s,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"2\" \
                     stroke-linejoin=\"round\"{dashes} visibility=\"{}\">{animation}{visibility}</polyline>",
                    points(&self.frames[0].views[v].string),
                    if first { "visible" } else { "hidden" },
                );
            }
            for (j, i) in [0, n + 1].into_iter().enumerate() {
                let (tip, end) = self.frames[0].views[v].sticks[j];
                let at = |f: &Frame| {
                    let p = f.views[v].sticks[j].0;
                    format!("{} {}", trim_to(p.0, 1), trim_to(p.1, 1))
                };
                self.svg_stick(s, linear, i, &at, (end.0 - tip.0, end.1 - tip.1));
            }
            for k in 1..=n {
                let colour = object_colour(k, n);
                fn disc<'f>(f: &'f Frame, v: usize, k: usize) -> &'f Disc {
                    &f.views[v].discs[k - 1]
                }
                let animate = |part: &dyn Fn(&Disc) -> Vec<(f64, f64)>| {
                    (
                        points(&part(disc(&self.frames[0], v, k))),
                        linear(
                            self.frames
                                .iter()
                                .map(|f| points(&part(disc(f, v, k))))
                                .collect(),
                            "points",
                            None,
                        ),
                    )
                };
                let rim_change = self.rim_change(k, colour);
                let (rim, rim_animation) = animate(&|d| d.rim.clone());
                let _ = writeln!(
                    s,
                    "<polygon points=\"{rim}\" fill=\"#ffffff\" fill-opacity=\"0.7\" stroke=\"{}\" \
                     stroke-width=\"2\" class=\"rim\">{rim_animation}{rim_change}</polygon>",
                    Self::rim_colour(&self.frames[0], k, colour),
                );
                for (t, fill) in [hex(colour), hex(lighten(colour))].into_iter().enumerate() {
                    let (tie, animation) = animate(&|d| d.ties[t].to_vec());
                    let _ = writeln!(
                        s,
                        "<polygon points=\"{tie}\" fill=\"{fill}\">{animation}</polygon>"
                    );
                }
                let (axle, animation) = animate(&|d| d.axle.to_vec());
                let _ = writeln!(
                    s,
                    "<polyline points=\"{axle}\" fill=\"none\" stroke=\"{}\" stroke-width=\"3\" \
                     stroke-linecap=\"round\" class=\"axle\">{animation}</polyline>",
                    hex(AXLE)
                );
                let at = |f: &Frame| {
                    let c = disc(f, v, k).centre;
                    format!("{} {}", trim_to(c.0, 1), trim_to(c.1, 1))
                };
                let _ = writeln!(
                    s,
                    "<g transform=\"translate({})\">{}<circle r=\"2.5\" fill=\"#000000\"/></g>",
                    at(&self.frames[0]),
                    linear(
                        self.frames.iter().map(at).collect(),
                        "transform",
                        Some("translate")
                    ),
                );
            }
        }
    }

    /// The views of a trajectory in space into one GIF frame.
    pub(super) fn draw_views<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        frame: &Frame,
    ) -> Result<(), PlotError> {
        let Some(layout) = &self.layout else {
            return Ok(());
        };
        let ip = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
        let n = self.diabolos();
        for (view, drawn) in layout.views.iter().zip(&frame.views) {
            let style = ("sans-serif", 13.0 * 1.24)
                .into_font()
                .color(&RGBColor(85, 85, 85))
                .pos(text_anchor::Pos::new(
                    text_anchor::HPos::Left,
                    text_anchor::VPos::Bottom,
                ));
            root.draw(&Text::new(caption(view.view), ip(view.caption), style))
                .map_err(draw_error)?;
            let on_string: Vec<(i32, i32)> = drawn.string.iter().map(|&p| ip(p)).collect();
            let string = RGBColor(51, 51, 51).stroke_width(2);
            if frame.phase == "loose" {
                root.draw(&DashedPathElement::new(on_string, 6, 4, string))
                    .map_err(draw_error)?;
            } else {
                for pair in on_string.windows(2) {
                    root.draw(&PathElement::new(pair.to_vec(), string))
                        .map_err(draw_error)?;
                }
            }
            for (j, i) in [0, n + 1].into_iter().enumerate() {
                let (tip, end) = drawn.sticks[j];
                root.draw(&PathElement::new(
                    vec![ip(tip), ip(end)],
                    object_colour(i, n).stroke_width(5),
                ))
                .map_err(draw_error)?;
                root.draw(&Circle::new(ip(tip), 4, BLACK.filled()))
                    .map_err(draw_error)?;
            }
            for (k, disc) in (1..=n).zip(&drawn.discs) {
                let colour = if frame.dropped[k - 1] {
                    DROPPED
                } else {
                    object_colour(k, n)
                };
                let mut rim: Vec<(i32, i32)> = disc.rim.iter().map(|&p| ip(p)).collect();
                root.draw(&Polygon::new(rim.clone(), WHITE.filled()))
                    .map_err(draw_error)?;
                rim.push(rim[0]);
                root.draw(&PathElement::new(rim, colour.stroke_width(2)))
                    .map_err(draw_error)?;
                for (tie, fill) in disc.ties.iter().zip([colour, lighten(colour)]) {
                    root.draw(&Polygon::new(
                        tie.iter().map(|&p| ip(p)).collect::<Vec<_>>(),
                        fill.filled(),
                    ))
                    .map_err(draw_error)?;
                }
                root.draw(&PathElement::new(
                    disc.axle.iter().map(|&p| ip(p)).collect::<Vec<_>>(),
                    AXLE.stroke_width(3),
                ))
                .map_err(draw_error)?;
                root.draw(&Circle::new(ip(disc.centre), 2, BLACK.filled()))
                    .map_err(draw_error)?;
            }
        }
        Ok(())
    }
}

/// A view's caption in the animation.
fn caption(view: View) -> String {
    match view {
        View::Front => "front (x-y)".into(),
        View::Top => "from above (x-z), audience below".into(),
        View::Side => "from the left (z-y), audience right".into(),
    }
}
