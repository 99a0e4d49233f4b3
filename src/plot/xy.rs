//! Paths in the plane (`diabolo plot --xy`): the sticks' and diabolos' paths at equal scale in x
//! and y, the string (left stick, diabolos, right stick) at a few instants, and the events marked
//! where the object they name was.
//!
//! A trajectory in space (see [`super::space`]) is drawn in one or more views side by side, by
//! default the front view (x-y) and the view from above (x-z, z toward the audience down the
//! picture), at one scale in all; each diabolo is its disc seen at a slant (an ellipse) with its
//! axle as a segment [`AXLE_DRAWN`] long through the centre.

use std::io::Write;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor;

use super::space::{axle_ends, disc_outline, views_to_draw, Space, View, AXLE_DRAWN};
use super::{
    check_size, draw_error, draw_title, drawn_radius, event_colour, event_kinds, interpolate,
    legend_entry, locate, render_still, Columns, Event, Format, Picture, PlotError, MAX_INSTANTS,
    SERIES_COLOURS,
};
use crate::output::table::Table;

/// What `diabolo plot --xy` draws.
#[derive(Clone, Debug, PartialEq)]
pub struct XyOptions {
    /// Picture width, px.
    pub width: u32,
    /// Picture height, px.
    pub height: u32,
    /// How many instants show the string (evenly spaced in time, both ends included).
    pub instants: usize,
    /// The line above the plot (for example the file name).
    pub title: Option<String>,
    /// The diabolo's radius to draw, m (`None`: 0.0635 m, a 127 mm diabolo).
    pub radius: Option<f64>,
    /// The views side by side (`--view`); empty: the front view, and for a trajectory in space
    /// the front view and the view from above. A planar trajectory has only the front view.
    pub views: Vec<View>,
}

impl Default for XyOptions {
    fn default() -> Self {
        Self {
            width: 800,
            height: 640,
            instants: 5,
            title: None,
            radius: None,
            views: Vec::new(),
        }
    }
}

/// The default width of `plot --xy`, px: 800 for one view, 1200 for two or three side by side.
pub fn default_width(views: usize) -> u32 {
    if views > 1 {
        1200
    } else {
        800
    }
}

/// Whether `table` is a trajectory in space (it has a `left_z`, `right_z` or `dK_z` column),
/// and the views `plot --xy` draws of it for the `requested` ones (see [`XyOptions::views`]);
/// an error names a missing space column or a view a planar trajectory does not have.
pub fn views_of(table: &Table, requested: &[View]) -> Result<Vec<View>, PlotError> {
    let columns = Columns::new(table);
    let spatial = Space::read(&columns)?.is_some();
    views_to_draw(requested, spatial)
}

/// The colour of object `i` in string order (left stick 0, diabolos, right stick n + 1).
pub(super) fn object_colour(i: usize, n: usize) -> RGBColor {
    if i == 0 {
        RGBColor(153, 102, 51)
    } else if i == n + 1 {
        RGBColor(102, 51, 153)
    } else {
        SERIES_COLOURS[(i - 1) % 3]
    }
}

/// The name of object `i` in string order.
fn object_name(i: usize, n: usize) -> String {
    match i {
        0 => "left stick".into(),
        i if i == n + 1 => "right stick".into(),
        i => format!("diabolo {i}"),
    }
}

/// Draws the paths in the plane as SVG or PNG into `out`.
pub fn xy(
    table: &Table,
    events: &[Event],
    options: &XyOptions,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), PlotError> {
    if options.width < 200 || options.height < 150 {
        return Err(PlotError::Options(
            "the picture must be at least 200 x 150 pixels".into(),
        ));
    }
    check_size(options.width.into(), options.height.into())?;
    if options.instants > MAX_INSTANTS {
        return Err(PlotError::Options(format!(
            "--instants {}: at most {MAX_INSTANTS} instants show the string (more hide each \
             other and take long to draw)",
            options.instants
        )));
    }
    let columns = Columns::new(table);
    let objects = columns.positions()?;
    let space = Space::read(&columns)?;
    let views = views_to_draw(&options.views, space.is_some())?;
    let picture = Paths {
        t: columns.t(),
        objects,
        space,
        views,
        phases: columns.phases(),
        events,
        instants: options.instants.max(1),
        title: options.title.clone().unwrap_or_default(),
        radius: drawn_radius(options.radius)?,
        columns,
    };
    render_still(&picture, (options.width, options.height), format, out)
}

struct Paths<'a> {
    t: &'a [f64],
    /// x and y of the left stick, the diabolos, the right stick.
    objects: Vec<(&'a [f64], &'a [f64])>,
    /// The z and axle columns of a trajectory in space.
    space: Option<Space<'a>>,
    /// The views side by side.
    views: Vec<View>,
    phases: Vec<&'a str>,
    events: &'a [Event],
    instants: usize,
    title: String,
    /// The diabolo's radius to draw, m.
    radius: f64,
    /// The table's columns (modes and slots).
    columns: Columns<'a>,
}

const HEADER: u32 = 50;
/// The most points drawn of one path.
const MAX_PATH_POINTS: usize = 4000;
/// Points on the drawn rim of a diabolo in space.
const RIM_POINTS: usize = 48;
/// The colour of a drawn axle.
const AXLE_COLOUR: RGBColor = RGBColor(51, 51, 51);

/// One view's paths: (across, up) of each object at each row.
type Projected = Vec<(Vec<f64>, Vec<f64>)>;

impl Picture for Paths<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let (header, body) = root.split_vertically(HEADER);
        self.header(&header)?;
        let areas = if self.views.len() == 1 {
            vec![body]
        } else {
            body.split_evenly((1, self.views.len()))
        };
        let paths: Vec<Projected> = self.views.iter().map(|&v| self.projected(v)).collect();
        let boxes = paths
            .iter()
            .map(|p| self.data_box(p))
            .collect::<Result<Vec<_>, _>>()?;
        // One scale in every view: the largest at which each view's box fits its panel.
        let mut scale = f64::INFINITY;
        for ((area, &view), &(x0, x1, y0, y1)) in areas.iter().zip(&self.views).zip(&boxes) {
            let (w, h) = self
                .chart(area, view, 0.0..1.0, 0.0..1.0)?
                .plotting_area()
                .dim_in_pixel();
            scale = scale.min((w as f64 / (x1 - x0)).min(h as f64 / (y1 - y0)));
        }
        for (((area, &view), paths), data_box) in
            areas.iter().zip(&self.views).zip(&paths).zip(boxes)
        {
            self.panel(area, view, paths, data_box, scale)?;
        }
        Ok(())
    }
}

impl Paths<'_> {
    /// Each object's path in `view`.
    fn projected(&self, view: View) -> Projected {
        match &self.space {
            None => self
                .objects
                .iter()
                .map(|(xs, ys)| (xs.to_vec(), ys.to_vec()))
                .collect(),
            Some(space) => self
                .objects
                .iter()
                .zip(&space.z)
                .map(|((xs, ys), zs)| {
                    (0..xs.len())
                        .map(|r| view.project([xs[r], ys[r], zs[r]]))
                        .unzip()
                })
                .collect(),
        }
    }

    /// The box of a view's paths, padded: (x0, x1, y0, y1).
    fn data_box(&self, paths: &Projected) -> Result<(f64, f64, f64, f64), PlotError> {
        let (mut x0, mut x1, mut y0, mut y1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for (xs, ys) in paths {
            for (&x, &y) in xs.iter().zip(ys.iter()) {
                if x.is_finite() && y.is_finite() {
                    (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
                }
            }
        }
        if !(x0.is_finite() && y0.is_finite()) {
            return Err(PlotError::Options("the trajectory has no positions".into()));
        }
        let pad = self.radius + 0.04 * (x1 - x0).max(y1 - y0);
        Ok((x0 - pad, x1 + pad, y0 - pad, y1 + pad))
    }

    /// The chart of `view` on `area` over the ranges (a trajectory in space has a caption
    /// naming each view).
    fn chart<'b, DB: DrawingBackend>(
        &self,
        area: &'b DrawingArea<DB, Shift>,
        view: View,
        x: std::ops::Range<f64>,
        y: std::ops::Range<f64>,
    ) -> Result<
        ChartContext<
            'b,
            DB,
            Cartesian2d<
                plotters::coord::types::RangedCoordf64,
                plotters::coord::types::RangedCoordf64,
            >,
        >,
        PlotError,
    > {
        let mut builder = ChartBuilder::on(area);
        builder
            .margin(12)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(56);
        if self.space.is_some() {
            builder.caption(view.caption(), ("sans-serif", 14));
        }
        builder.build_cartesian_2d(x, y).map_err(draw_error)
    }

    /// One view: the paths, the string at the instants, the events.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        view: View,
        objects: &Projected,
        (x0, x1, y0, y1): (f64, f64, f64, f64),
        scale: f64,
    ) -> Result<(), PlotError> {
        let (w, h) = self
            .chart(area, view, 0.0..1.0, 0.0..1.0)?
            .plotting_area()
            .dim_in_pixel();
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        let (hx, hy) = (w as f64 / scale / 2.0, h as f64 / scale / 2.0);
        let mut chart = self.chart(area, view, cx - hx..cx + hx, cy - hy..cy + hy)?;
        let (across, up) = view.axis_labels();
        // The view from above draws -z up the picture: its labels show z.
        let negated = |v: &f64| {
            plotters::data::float::FloatPrettyPrinter {
                allow_scientific: false,
                min_decimal: 1,
                max_decimal: 5,
            }
            .print(-*v + 0.0)
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(across)
            .y_desc(up)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(242, 242, 242))
            .bold_line_style(RGBColor(220, 220, 220));
        if view.up_is_negated() {
            mesh.y_label_formatter(&negated);
        }
        mesh.draw().map_err(draw_error)?;

        let n = objects.len() - 2;
        // Long runs keep every k-th row (and the last), at most about MAX_PATH_POINTS a path.
        let rows = self.t.len();
        let stride = rows.div_ceil(MAX_PATH_POINTS).max(1);
        let kept = (0..rows)
            .step_by(stride)
            .chain(((rows - 1) % stride != 0).then_some(rows - 1));
        let kept: Vec<usize> = kept.collect();
        for (i, (xs, ys)) in objects.iter().enumerate() {
            let colour = object_colour(i, n);
            chart
                .draw_series(LineSeries::new(
                    kept.iter()
                        .map(|&r| (xs[r], ys[r]))
                        .filter(|(x, y)| x.is_finite() && y.is_finite()),
                    colour.mix(0.75).stroke_width(1),
                ))
                .map_err(draw_error)?;
        }

        // The string at a few instants, darker as time goes on.
        let (t0, t1) = (self.t[0], self.t[self.t.len() - 1]);
        let mut labels = Vec::new();
        let radius = (self.radius * scale).round().max(3.0) as i32;
        for j in 0..self.instants {
            let at = if self.instants == 1 {
                t0
            } else {
                t0 + (t1 - t0) * j as f64 / (self.instants - 1) as f64
            };
            let row = nearest_row(self.t, at);
            let shade = 0.3 + 0.7 * (j + 1) as f64 / self.instants as f64;
            let points: Vec<(f64, f64)> =
                objects.iter().map(|(xs, ys)| (xs[row], ys[row])).collect();
            let string = BLACK.mix(shade).stroke_width(2);
            // The string runs through the objects on it only.
            let on_string: Vec<(f64, f64)> = self
                .columns
                .string_order(row)
                .into_iter()
                .map(|i| points[i])
                .collect();
            if self.phases[row] == "loose" {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        on_string.clone(),
                        6,
                        5,
                        string,
                    )))
                    .map_err(draw_error)?;
            } else {
                // Segment by segment: plotters' wide polylines come out with uneven widths.
                chart
                    .draw_series(
                        on_string
                            .windows(2)
                            .map(|pair| PathElement::new(pair.to_vec(), string)),
                    )
                    .map_err(draw_error)?;
            }
            for (i, &p) in points.iter().enumerate() {
                let dropped = i > 0 && i <= n && self.columns.mode(row, i) == Some("dropped");
                let colour = if dropped {
                    RGBColor(153, 153, 153)
                } else {
                    object_colour(i, n)
                };
                let axle = match &self.space {
                    Some(space) if i > 0 && i <= n => space.axle(i, row),
                    _ => None,
                };
                if i == 0 || i == n + 1 {
                    chart
                        .draw_series(std::iter::once(Circle::new(p, 4, colour.filled())))
                        .map_err(draw_error)?;
                } else if let Some(a) = axle {
                    // The disc at a slant and the axle through it.
                    let r = self.radius.max(3.0 / scale);
                    let mut rim: Vec<(f64, f64)> = disc_outline(&a, r, view, RIM_POINTS)
                        .into_iter()
                        .map(|(dx, dy)| (p.0 + dx, p.1 + dy))
                        .collect();
                    chart
                        .draw_series(std::iter::once(Polygon::new(
                            rim.clone(),
                            WHITE.mix(0.6).filled(),
                        )))
                        .map_err(draw_error)?;
                    rim.push(rim[0]);
                    let ends = axle_ends(&a, AXLE_DRAWN, view).map(|(dx, dy)| (p.0 + dx, p.1 + dy));
                    chart
                        .draw_series([
                            PathElement::new(rim, colour.stroke_width(2)),
                            PathElement::new(ends.to_vec(), AXLE_COLOUR.stroke_width(3)),
                        ])
                        .map_err(draw_error)?;
                    chart
                        .draw_series(std::iter::once(Circle::new(p, 2, colour.filled())))
                        .map_err(draw_error)?;
                } else {
                    chart
                        .draw_series([
                            Circle::new(p, radius, WHITE.mix(0.6).filled()),
                            Circle::new(p, radius, colour.stroke_width(2)),
                            Circle::new(p, 2, colour.filled()),
                        ])
                        .map_err(draw_error)?;
                }
            }
            // The time beside the first diabolo, on the side away from the middle of the view.
            let (px, py) = points[1];
            let (dx, dy) = (px - cx, py - cy);
            let norm = dx.hypot(dy).max(1e-12);
            let reach = 1.5 * self.radius;
            let anchor = if dx >= 0.0 {
                text_anchor::HPos::Left
            } else {
                text_anchor::HPos::Right
            };
            let style = TextStyle::from(("sans-serif", 12).into_font())
                .color(&BLACK)
                .pos(text_anchor::Pos::new(anchor, text_anchor::VPos::Center));
            let text = format!("t = {:.2} s", self.t[row]);
            let at = (px + reach * dx / norm, py + reach * dy / norm);
            let (w, h) = area.estimate_text_size(&text, &style).map_err(draw_error)?;
            let (x, y) = chart.backend_coord(&at);
            let left = if dx >= 0.0 { x } else { x - w as i32 };
            let h = h as i32;
            let label_box = [left, y - h / 2, left + w as i32, y + h - h / 2];
            labels.push((label_box, Text::new(text, at, style)));
        }
        // A time label that would overlap one drawn before it is left out.
        let boxes: Vec<[i32; 4]> = labels.iter().map(|(b, _)| *b).collect();
        let kept = apart(&boxes);
        for ((_, label), keep) in labels.into_iter().zip(kept) {
            if keep {
                chart.plotting_area().draw(&label).map_err(draw_error)?;
            }
        }

        // Events where the object they name was (a diabolo or a stick; the first diabolo when
        // the event names none).
        for event in self.events {
            let object = match event.object {
                Some(k) if (0..=n as i64 + 1).contains(&k) => k as usize,
                _ => 1,
            };
            let (xs, ys) = &objects[object];
            let p = (
                interpolate(self.t, xs, event.t),
                interpolate(self.t, ys, event.t),
            );
            let colour = event_colour(&event.kind);
            chart
                .draw_series(std::iter::once(TriangleMarker::new(p, 6, colour.filled())))
                .map_err(draw_error)?;
        }
        Ok(())
    }
    fn header<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_title(area, &self.title)?;
        let n = self.objects.len() - 2;
        let mut x = 12;
        let y = 37;
        for i in 0..self.objects.len() {
            let colour = object_colour(i, n);
            x = legend_entry(
                area,
                (x, y),
                &move |a, (x, y)| {
                    a.draw(&PathElement::new(
                        vec![(x, y), (x + 18, y)],
                        colour.stroke_width(2),
                    ))
                    .map_err(draw_error)
                },
                &object_name(i, n),
            )?;
        }
        x = legend_entry(
            area,
            (x, y),
            &|a, (x, y)| {
                a.draw(&PathElement::new(
                    vec![(x, y), (x + 18, y)],
                    BLACK.stroke_width(2),
                ))
                .map_err(draw_error)
            },
            "string (dashed: loose)",
        )?;
        if self.space.is_some() {
            x = legend_entry(
                area,
                (x, y),
                &|a, (x, y)| {
                    a.draw(&PathElement::new(
                        vec![(x, y), (x + 18, y)],
                        AXLE_COLOUR.stroke_width(3),
                    ))
                    .map_err(draw_error)
                },
                "axle (drawn 12 cm long)",
            )?;
        }
        for kind in event_kinds(self.events) {
            let colour = event_colour(kind);
            x = legend_entry(
                area,
                (x, y),
                &move |a, (x, y)| {
                    a.draw(&TriangleMarker::new((x + 9, y), 6, colour.filled()))
                        .map_err(draw_error)
                },
                kind,
            )?;
        }
        Ok(())
    }
}

/// Which of the boxes [left, top, right, bottom] (px) to keep: each one that overlaps no box kept
/// before it.
fn apart(boxes: &[[i32; 4]]) -> Vec<bool> {
    let overlap =
        |a: &[i32; 4], b: &[i32; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    let mut kept: Vec<[i32; 4]> = Vec::new();
    boxes
        .iter()
        .map(|b| {
            let free = kept.iter().all(|k| !overlap(k, b));
            if free {
                kept.push(*b);
            }
            free
        })
        .collect()
}

/// The row nearest to time `at`.
fn nearest_row(t: &[f64], at: f64) -> usize {
    let (i, f) = locate(t, at);
    if f > 0.5 {
        i + 1
    } else {
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_overlapping_one_kept_before_it_is_left_out() {
        let boxes = [
            [0, 0, 60, 14],
            [30, 5, 90, 19],    // overlaps the first
            [60, 0, 120, 14],   // touches the first only at its edge
            [100, 20, 160, 34], // below the others
            [40, 10, 100, 24],  // overlaps the third
        ];
        assert_eq!(apart(&boxes), vec![true, false, true, true, false]);
    }
}
