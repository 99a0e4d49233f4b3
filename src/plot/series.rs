//! Time series: one panel per chosen quantity, stacked over a shared time axis, with the loose
//! phases shaded and the events drawn as vertical lines (one colour per kind).

use std::io::Write;
use std::ops::Range;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::{
    check_size, draw_error, draw_title, event_colour, event_kinds, event_marks, legend_entry,
    loose_intervals, render_still, tick_label, Columns, Event, Format, Picture, PlotError,
    MANY_EVENTS, SERIES_COLOURS,
};
use crate::output::table::Table;

/// What `diabolo plot` draws as time series.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesOptions {
    /// Panels from top to bottom, each the columns drawn together in it; empty: [`default_panels`].
    pub panels: Vec<Vec<String>>,
    /// Picture width, px.
    pub width: u32,
    /// Height of one panel, px.
    pub panel_height: u32,
    /// The whole picture's height, px, instead of `panel_height` per panel.
    pub height: Option<u32>,
    /// The line above the panels (for example the file name).
    pub title: Option<String>,
}

impl Default for SeriesOptions {
    fn default() -> Self {
        Self {
            panels: Vec::new(),
            width: 900,
            panel_height: 180,
            height: None,
            title: None,
        }
    }
}

impl SeriesOptions {
    /// Panels from `--columns` items: `d1_y` is a panel, `T0+T1` two columns in one panel.
    pub fn panels_from(items: &[String]) -> Vec<Vec<String>> {
        items
            .iter()
            .map(|item| {
                item.split('+')
                    .map(|c| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
            })
            .filter(|panel| !panel.is_empty())
            .collect()
    }
}

/// The default panels: the diabolos' heights, their spins, the segment tensions and the slack
/// (those the trajectory has).
pub fn default_panels(table: &Table) -> Vec<Vec<String>> {
    let has = |name: &String| table.names.contains(name);
    let n = Columns::new(table).diabolos;
    let tensions = (0..).map(|i| format!("T{i}")).take_while(has).collect();
    let panels = vec![
        (1..=n).map(|k| format!("d{k}_y")).collect::<Vec<_>>(),
        (1..=n).map(|k| format!("d{k}_w")).collect(),
        tensions,
        vec!["slack".to_string()],
    ];
    panels
        .into_iter()
        .map(|p| p.into_iter().filter(has).collect::<Vec<_>>())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The quantity a column holds and its unit, from its name.
pub fn describe(name: &str) -> (&'static str, &'static str) {
    let object = |prefix: &str| {
        name.strip_prefix(prefix).is_some_and(|rest| {
            rest.starts_with('_') || rest.split('_').next().is_some_and(is_number)
        })
    };
    let suffix = name.rsplit('_').next().unwrap_or("");
    let on_object = object("left") || object("right") || object("d");
    match name {
        "t" => ("time", "s"),
        "G" => ("gear ratio G", ""),
        "FC" => ("centrifugal term F̂_C", "N/kg"),
        "energy" | "hand_work" | "friction_loss" | "drag_loss" | "impulse_loss" | "string_loss"
        | "axle_work" => ("energy", "J"),
        "slack" => ("slack", "m"),
        _ if name.starts_with('T') && is_number(&name[1..]) => ("tension", "N"),
        _ if on_object => match suffix {
            "x" => ("x", "m"),
            "y" => ("height", "m"),
            "z" => ("depth z", "m"),
            "vx" | "vy" | "vz" => ("velocity", "m/s"),
            "fx" | "fy" | "fz" => ("hand force", "N"),
            "ax" | "ay" | "az" => ("axle direction", ""),
            "tilt" => ("axle tilt", "°"),
            "turn" => ("axle turn", "°"),
            "w" => ("spin w", "m/s"),
            "theta" => ("angle θ", "rad"),
            "knot" => ("knot degree", ""),
            _ => ("", ""),
        },
        _ => ("", ""),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The y-axis label of a panel: quantity and unit.
fn panel_label(columns: &[String]) -> String {
    let described: Vec<(&str, &str)> = columns.iter().map(|c| describe(c)).collect();
    let with_unit = |text: String, unit: &str| {
        if unit.is_empty() {
            text
        } else {
            format!("{text} ({unit})")
        }
    };
    let (quantity, unit) = described[0];
    if described.iter().all(|d| *d == (quantity, unit)) && !quantity.is_empty() {
        if columns.len() == 1 && quantity != columns[0] {
            with_unit(format!("{}: {quantity}", columns[0]), unit)
        } else {
            with_unit(quantity.to_string(), unit)
        }
    } else {
        columns
            .iter()
            .zip(&described)
            .map(|(c, (_, unit))| with_unit(c.clone(), unit))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Draws the time series of `table` (with `events` marked) as SVG or PNG into `out`.
pub fn series(
    table: &Table,
    events: &[Event],
    options: &SeriesOptions,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), PlotError> {
    let columns = Columns::new(table);
    let panels = if options.panels.is_empty() {
        default_panels(table)
    } else {
        options.panels.clone()
    };
    if panels.is_empty() {
        return Err(PlotError::Options(
            "no columns to plot: the trajectory has none of the default ones (dK_y, dK_w, \
             T0..TN, slack); choose some with --columns"
                .into(),
        ));
    }
    let mut data = Vec::new();
    for panel in &panels {
        let mut lines = Vec::new();
        for name in panel {
            let values = columns.require(name)?;
            if !values.iter().any(|v| v.is_finite()) {
                return Err(PlotError::Options(format!(
                    "column {} holds no numbers (plot numeric columns)",
                    crate::display::echoed(name)
                )));
            }
            lines.push((name.as_str(), values));
        }
        data.push(Panel {
            label: panel_label(panel),
            lines,
        });
    }
    let panels = data.len() as u64;
    let height = options.height.map_or(
        u64::from(HEADER) + u64::from(options.panel_height) * panels + u64::from(FOOTER),
        u64::from,
    );
    check_size(options.width.into(), height)?;
    let height = height as u32;
    if u64::from(height) < u64::from(HEADER + FOOTER) + 60 * panels || options.width < 200 {
        return Err(PlotError::Options(format!(
            "{} x {height} pixels is too small for {} panels (at least 200 wide and 60 high a panel)",
            options.width,
            data.len()
        )));
    }
    let phases = columns.phases();
    let picture = Series {
        t: columns.t(),
        loose: loose_intervals(columns.t(), &phases),
        panels: data,
        events,
        title: options.title.clone().unwrap_or_default(),
    };
    render_still(&picture, (options.width, height), format, out)
}

const HEADER: u32 = 50;
const FOOTER: u32 = 20;

struct Panel<'a> {
    label: String,
    lines: Vec<(&'a str, &'a [f64])>,
}

struct Series<'a> {
    t: &'a [f64],
    loose: Vec<(f64, f64)>,
    panels: Vec<Panel<'a>>,
    events: &'a [Event],
    title: String,
}

impl Picture for Series<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let (width, height) = root.dim_in_pixel();
        let (header, body) = root.split_vertically(HEADER);
        self.header(&header)?;
        let panel_height = (height - HEADER - FOOTER) / self.panels.len() as u32;
        let breaks: Vec<u32> = (1..self.panels.len() as u32)
            .map(|i| i * panel_height)
            .collect();
        let areas = body.split_by_breakpoints::<u32, u32, _, _>([], breaks);
        let t0 = self.t[0];
        let t1 = match self.t.last() {
            Some(&t1) if t1 > t0 => t1,
            _ => t0 + 1.0,
        };
        for (i, (panel, area)) in self.panels.iter().zip(&areas).enumerate() {
            let last = i + 1 == self.panels.len();
            self.panel(area, panel, t0..t1, last, width)?;
        }
        Ok(())
    }
}

impl Series<'_> {
    fn header<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        draw_title(area, &self.title)?;
        let mut x = 80;
        let y = 37;
        let any = !self.loose.is_empty();
        if any {
            x = legend_entry(
                area,
                (x, y),
                &|a, (x, y)| {
                    a.draw(&Rectangle::new(
                        [(x, y - 6), (x + 18, y + 6)],
                        BLACK.mix(0.12).filled(),
                    ))
                    .map_err(draw_error)
                },
                "loose phase",
            )?;
        }
        for kind in event_kinds(self.events) {
            let colour = event_colour(kind);
            x = legend_entry(
                area,
                (x, y),
                &move |a, (x, y)| {
                    a.draw(&PathElement::new(
                        vec![(x + 9, y - 7), (x + 9, y + 7)],
                        colour.stroke_width(2),
                    ))
                    .map_err(draw_error)
                },
                kind,
            )?;
        }
        if !any && self.events.is_empty() {
            legend_entry(area, (x, y), &|_, _| Ok(()), "no events")?;
        } else if self.many_events() {
            let count = self.events_drawn();
            let text = format!("{count} events: marks at each panel's top, a row per kind");
            legend_entry(area, (x, y), &|_, _| Ok(()), &text)?;
        }
        Ok(())
    }

    /// True when the events are too many for lines across the panels (see [`MANY_EVENTS`]).
    fn many_events(&self) -> bool {
        self.events_drawn() > MANY_EVENTS
    }

    /// The number of events within the time range drawn.
    fn events_drawn(&self) -> usize {
        let (t0, t1) = (self.t[0], self.t[self.t.len() - 1]);
        self.events
            .iter()
            .filter(|e| e.t >= t0 && e.t <= t1)
            .count()
    }

    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        panel: &Panel,
        time: Range<f64>,
        last: bool,
        width: u32,
    ) -> Result<(), PlotError> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, values) in &panel.lines {
            for &v in values.iter().filter(|v| v.is_finite()) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        // Round-off (a slack of 1e-15 m while taut) is not magnified into a signal.
        let least = 1e-6 * lo.abs().max(hi.abs()).max(1.0);
        if hi - lo < least {
            let middle = 0.5 * (lo + hi);
            (lo, hi) = (middle - 0.5 * least, middle + 0.5 * least);
        }
        let pad = 0.06 * (hi - lo);
        let (margin_bottom, label_area) = if last { (0, 44) } else { (4, 22) };
        let (y0, mut y1) = (lo - pad, hi + pad);
        if self.many_events() {
            // Room above the curves for the strip of event marks.
            let strip = f64::from(4 * event_kinds(self.events).len() as u32 + 2);
            let plot = f64::from(
                area.dim_in_pixel()
                    .1
                    .saturating_sub(10 + margin_bottom + label_area),
            );
            if plot > 2.0 * strip {
                y1 += (y1 - y0) * strip / (plot - strip);
            }
        }
        let mut chart = ChartBuilder::on(area)
            .margin_left(8)
            .margin_right(24)
            .margin_top(10)
            .margin_bottom(margin_bottom)
            .x_label_area_size(label_area)
            .y_label_area_size(78)
            .build_cartesian_2d(time.clone(), y0..y1)
            .map_err(draw_error)?;
        let x_step = (time.end - time.start) / 10.0;
        let y_step = (y1 - y0) / 6.0;
        let x_format = |v: &f64| tick_label(*v, x_step);
        let y_format = |v: &f64| tick_label(*v, y_step);
        let mut mesh = chart.configure_mesh();
        mesh.y_desc(panel.label.as_str())
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .y_labels(6)
            .x_labels(12)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(240, 240, 240))
            .bold_line_style(RGBColor(215, 215, 215));
        if last {
            mesh.x_desc("t (s)");
        }
        mesh.draw().map_err(draw_error)?;
        chart
            .draw_series(
                self.loose
                    .iter()
                    .map(|&(a, b)| Rectangle::new([(a, y0), (b, y1)], BLACK.mix(0.12).filled())),
            )
            .map_err(draw_error)?;
        let (columns, rows) = chart.plotting_area().dim_in_pixel();
        if self.many_events() {
            // A strip at the top: a row of 4 px per kind, one mark per pixel column.
            let kinds = event_kinds(self.events);
            let row = (y1 - y0) * 4.0 / f64::from(rows.max(1));
            let marks = event_marks(self.events, &kinds, time.clone(), columns);
            chart
                .draw_series(marks.into_iter().map(|(k, t)| {
                    let top = y1 - row * k as f64;
                    PathElement::new(
                        vec![(t, top), (t, top - row)],
                        event_colour(kinds[k]).stroke_width(1),
                    )
                }))
                .map_err(draw_error)?;
        } else {
            chart
                .draw_series(
                    self.events
                        .iter()
                        .filter(|e| time.contains(&e.t) || e.t == time.end)
                        .map(|e| {
                            PathElement::new(
                                vec![(e.t, y0), (e.t, y1)],
                                event_colour(&e.kind).stroke_width(1),
                            )
                        }),
                )
                .map_err(draw_error)?;
        }
        let buckets = 2 * width as usize;
        // A curve that coincides with an earlier one (within a pixel) is dashed, so both show.
        let pixel = (y1 - y0) / f64::from(rows.max(1));
        for (i, (name, values)) in panel.lines.iter().enumerate() {
            let colour = SERIES_COLOURS[i % SERIES_COLOURS.len()];
            let points = decimate(self.t, values, buckets);
            let twin = panel.lines[..i]
                .iter()
                .find(|(_, earlier)| coincide(earlier, values, pixel));
            let style = colour.stroke_width(2);
            let label = match twin {
                Some((earlier, _)) => format!("{name} (= {earlier}, dashed)"),
                None => name.to_string(),
            };
            let drawn = if twin.is_some() {
                chart.draw_series(std::iter::once(DashedPathElement::new(points, 7, 7, style)))
            } else {
                chart.draw_series(LineSeries::new(points, style))
            };
            drawn
                .map_err(draw_error)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
        }
        if panel.lines.len() > 1 {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font(("sans-serif", 12))
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .draw()
                .map_err(draw_error)?;
        }
        Ok(())
    }
}

/// True when two series of one panel are drawn on the same pixels: every pair of values within
/// `pixel` of each other (NaN where the other is NaN too).
fn coincide(a: &[f64], b: &[f64], pixel: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(&a, &b)| (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= pixel)
}

/// The finite points of a series, at most about `buckets` x 2 of them: when there are more, each
/// of `buckets` equal time slices keeps its lowest and highest point (in time order), so the
/// drawn envelope is the same.
fn decimate(t: &[f64], v: &[f64], buckets: usize) -> Vec<(f64, f64)> {
    let points: Vec<(f64, f64)> = t
        .iter()
        .zip(v)
        .filter(|(_, v)| v.is_finite())
        .map(|(&t, &v)| (t, v))
        .collect();
    if points.len() <= 2 * buckets || buckets == 0 {
        return points;
    }
    let (t0, t1) = (points[0].0, points[points.len() - 1].0);
    let slice = |t: f64| (((t - t0) / (t1 - t0) * buckets as f64) as usize).min(buckets - 1);
    let mut kept = Vec::with_capacity(2 * buckets + 2);
    let mut start = 0;
    while start < points.len() {
        let bucket = slice(points[start].0);
        let mut end = start;
        while end < points.len() && slice(points[end].0) == bucket {
            end += 1;
        }
        let part = &points[start..end];
        let low = (0..part.len())
            .min_by(|&a, &b| part[a].1.total_cmp(&part[b].1))
            .unwrap_or(0);
        let high = (0..part.len())
            .max_by(|&a, &b| part[a].1.total_cmp(&part[b].1))
            .unwrap_or(0);
        kept.push(part[low.min(high)]);
        if low != high {
            kept.push(part[low.max(high)]);
        }
        start = end;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_described_with_units() {
        assert_eq!(describe("d1_y"), ("height", "m"));
        assert_eq!(describe("d12_w").1, "m/s");
        assert_eq!(describe("T3"), ("tension", "N"));
        assert_eq!(describe("left_fx"), ("hand force", "N"));
        assert_eq!(describe("slack"), ("slack", "m"));
        assert_eq!(describe("dance").0, "");
        assert_eq!(panel_label(&["T0".into(), "T1".into()]), "tension (N)");
        assert_eq!(panel_label(&["d1_y".into()]), "d1_y: height (m)");
        assert_eq!(panel_label(&["slack".into()]), "slack (m)");
        assert_eq!(
            panel_label(&["d1_y".into(), "d1_w".into()]),
            "d1_y (m), d1_w (m/s)"
        );
    }

    #[test]
    fn decimation_keeps_the_extremes() {
        let t: Vec<f64> = (0..10_000).map(|i| i as f64 * 1e-3).collect();
        let v: Vec<f64> = t.iter().map(|t| (40.0 * t).sin()).collect();
        let kept = decimate(&t, &v, 100);
        assert!(kept.len() <= 200);
        let max = kept.iter().map(|p| p.1).fold(f64::MIN, f64::max);
        let min = kept.iter().map(|p| p.1).fold(f64::MAX, f64::min);
        assert!(max > 0.9999 && min < -0.9999);
        assert!(kept.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn curves_within_a_pixel_coincide_and_others_do_not() {
        let a = [0.0, 1.0, f64::NAN, 2.0];
        assert!(coincide(&a, &[0.0, 1.004, f64::NAN, 2.0], 0.01));
        assert!(!coincide(&a, &[0.0, 1.02, f64::NAN, 2.0], 0.01));
        assert!(!coincide(&a, &[0.0, 1.0, 3.0, 2.0], 0.01));
    }

    #[test]
    fn panels_group_columns_joined_by_plus() {
        let panels = SeriesOptions::panels_from(&["d1_y".into(), "T0+T1".into()]);
        assert_eq!(panels, vec![vec!["d1_y"], vec!["T0", "T1"]]);
    }
}
