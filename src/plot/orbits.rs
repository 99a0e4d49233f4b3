//! Pictures of periodic motion: the bifurcation diagram of a continuation (`diabolo orbit
//! --continue`'s CSV) and the Poincare section of a long run (`diabolo plot --poincare`).
//!
//! The diagram has two panels over the parameter: a coordinate of the orbit (stable points
//! filled, unstable ones hollow and red, values without an orbit left out) and the modulus of the
//! non-trivial multiplier nearest the unit circle, with the circle's 1 drawn; every flagged
//! crossing (fold, period doubling, Neimark-Sacker) is a dashed vertical line with its name.
//! The Poincare section draws two columns of the trajectory where it is sampled once per period
//! (`--poincare T`, stroboscopic from the first row on) or where a column crosses a value
//! (`--poincare KEY=VALUE[,up|down]`), both by linear interpolation between rows.

use std::io::Write;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::{check_size, draw_error, draw_title, render_still, Format, Picture, PlotError};
use crate::output::table::Table;

/// What the pictures draw.
#[derive(Clone, Debug, PartialEq)]
pub struct OrbitPictureOptions {
    /// Picture width, px.
    pub width: u32,
    /// Picture height, px.
    pub height: u32,
    /// The line above the plot (for example the file name).
    pub title: Option<String>,
}

impl Default for OrbitPictureOptions {
    fn default() -> Self {
        Self {
            width: 900,
            height: 620,
            title: None,
        }
    }
}

/// A continuation's branch, read from its CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// The parameter's key (the first column's name).
    pub parameter: String,
    /// Its values.
    pub values: Vec<f64>,
    /// The coordinate drawn and its values (NaN without an orbit).
    pub coordinate: (String, Vec<f64>),
    /// Stability per value (`None` without an orbit).
    pub stable: Vec<Option<bool>>,
    /// The modulus of the non-trivial multiplier nearest the unit circle (NaN without one).
    pub nearest: Vec<f64>,
    /// The flagged crossings: the value and the kind.
    pub crossings: Vec<(f64, String)>,
}

/// Whether a CSV header is a continuation's (`diabolo orbit --continue`).
pub fn is_branch_header(header: &str) -> bool {
    let names: Vec<&str> = header.trim_end().split(',').collect();
    names.get(1) == Some(&"status") && names.contains(&"nearest_modulus")
}

/// Reads a continuation's CSV (`file` names it in messages): the branch of `coordinate` (default:
/// the first coordinate of the orbit's point).
pub fn read_branch(text: &str, file: &str, coordinate: Option<&str>) -> Result<Branch, PlotError> {
    let input = |reason: String| PlotError::Input {
        file: file.to_string(),
        reason,
    };
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let names: Vec<String> = reader
        .headers()
        .map_err(|e| input(e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    if !names
        .first()
        .is_some_and(|_| is_branch_header(&names.join(",")))
    {
        return Err(input(
            "not a continuation (diabolo orbit --continue writes one)".into(),
        ));
    }
    let column = |name: &str| names.iter().position(|n| n == name);
    let first_coordinate = column("energy_net").map(|i| i + 1);
    let chosen = match coordinate {
        Some(name) => column(name).ok_or_else(|| {
            PlotError::Options(format!(
                "--columns {name}: not a column of {file}; give one of the orbit's coordinates ({})",
                names[first_coordinate.unwrap_or(names.len())..]
                    .iter()
                    .filter(|n| !n.starts_with("mu"))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?,
        None => first_coordinate
            .filter(|&i| i < names.len())
            .ok_or_else(|| input("no coordinate columns".into()))?,
    };
    let (status, stable, crossing, nearest) = (
        column("status").unwrap_or(1),
        column("stable").unwrap_or(1),
        column("crossing").unwrap_or(1),
        column("nearest_modulus").unwrap_or(1),
    );
    let number = |s: &str| s.trim().parse::<f64>().unwrap_or(f64::NAN);
    let mut branch = Branch {
        parameter: names[0].clone(),
        values: Vec::new(),
        coordinate: (names[chosen].clone(), Vec::new()),
        stable: Vec::new(),
        nearest: Vec::new(),
        crossings: Vec::new(),
    };
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| input(format!("row {}: {e}", i + 1)))?;
        let field = |c: usize| record.get(c).unwrap_or("");
        let value = number(field(0));
        if !value.is_finite() {
            return Err(input(format!(
                "row {}: the parameter {:?} is not a number",
                i + 1,
                field(0)
            )));
        }
        let ok = field(status) == "ok";
        branch.values.push(value);
        branch
            .coordinate
            .1
            .push(if ok { number(field(chosen)) } else { f64::NAN });
        branch.stable.push(ok.then(|| field(stable) == "true"));
        branch
            .nearest
            .push(if ok { number(field(nearest)) } else { f64::NAN });
        if ok && !field(crossing).is_empty() {
            let at = column("crossing_at").map_or(value, |c| number(field(c)));
            let at = if at.is_finite() { at } else { value };
            branch.crossings.push((at, field(crossing).to_string()));
        }
    }
    if branch.values.is_empty() {
        return Err(input("no rows".into()));
    }
    Ok(branch)
}

/// Draws the bifurcation diagram of `branch` as SVG or PNG into `out`.
pub fn bifurcation(
    branch: &Branch,
    options: &OrbitPictureOptions,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), PlotError> {
    if options.width < 300 || options.height < 300 {
        return Err(PlotError::Options(
            "the picture must be at least 300 x 300 pixels".into(),
        ));
    }
    check_size(options.width.into(), options.height.into())?;
    render_still(
        &Diagram {
            branch,
            title: options.title.clone().unwrap_or_default(),
        },
        (options.width, options.height),
        format,
        out,
    )
}

struct Diagram<'a> {
    branch: &'a Branch,
    title: String,
}

const STABLE: RGBColor = RGBColor(31, 119, 180);
const UNSTABLE: RGBColor = RGBColor(214, 39, 40);
const CROSSING: RGBColor = RGBColor(120, 120, 120);

/// The range of the finite values, padded (a single value gets a unit span around it).
fn span(values: impl Iterator<Item = f64>) -> Option<std::ops::Range<f64>> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return None;
    }
    let pad = if hi > lo {
        0.06 * (hi - lo)
    } else {
        0.5 * lo.abs().max(1e-3)
    };
    Some(lo - pad..hi + pad)
}

impl Picture for Diagram<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let (header, body) = root.split_vertically(36);
        draw_title(&header, &self.title)?;
        let b = self.branch;
        let x = span(b.values.iter().copied()).expect("a branch has values");
        let panels = body.split_evenly((2, 1));
        let coordinate = span(b.coordinate.1.iter().copied())
            .ok_or_else(|| PlotError::Options("no orbit was found at any value".into()))?;
        let moduli = span(b.nearest.iter().copied().chain([1.0])).unwrap_or(0.0..2.0);
        for (panel, (label, ys, range)) in panels.iter().zip([
            (b.coordinate.0.as_str(), &b.coordinate.1, coordinate),
            ("|mu| nearest the unit circle", &b.nearest, moduli),
        ]) {
            let mut chart = ChartBuilder::on(panel)
                .margin(10)
                .margin_right(24)
                .x_label_area_size(36)
                .y_label_area_size(70)
                .build_cartesian_2d(x.clone(), range.clone())
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_desc(b.parameter.as_str())
                .y_desc(label)
                .label_style(("sans-serif", 12))
                .axis_desc_style(("sans-serif", 14))
                .light_line_style(RGBColor(242, 242, 242))
                .bold_line_style(RGBColor(220, 220, 220))
                .draw()
                .map_err(draw_error)?;
            if label.starts_with("|mu|") {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        vec![(x.start, 1.0), (x.end, 1.0)],
                        5,
                        4,
                        BLACK.stroke_width(1),
                    )))
                    .map_err(draw_error)?;
            }
            // The branch: segments between consecutive orbits, coloured by stability.
            let points: Vec<(f64, f64, Option<bool>)> = b
                .values
                .iter()
                .zip(ys.iter())
                .zip(&b.stable)
                .map(|((&v, &y), &s)| (v, y, s))
                .collect();
            chart
                .draw_series(points.windows(2).filter_map(|w| {
                    let (a, c) = (w[0], w[1]);
                    (a.1.is_finite() && c.1.is_finite()).then(|| {
                        let colour = if a.2 == Some(true) && c.2 == Some(true) {
                            STABLE
                        } else {
                            UNSTABLE
                        };
                        PathElement::new(vec![(a.0, a.1), (c.0, c.1)], colour.stroke_width(2))
                    })
                }))
                .map_err(draw_error)?;
            chart
                .draw_series(points.iter().filter(|p| p.1.is_finite()).map(|&(v, y, s)| {
                    if s == Some(true) {
                        Circle::new((v, y), 3, STABLE.filled())
                    } else {
                        Circle::new((v, y), 3, UNSTABLE.stroke_width(1))
                    }
                }))
                .map_err(draw_error)?;
            for (v, kind) in &b.crossings {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        vec![(*v, range.start), (*v, range.end)],
                        4,
                        4,
                        CROSSING.stroke_width(1),
                    )))
                    .map_err(draw_error)?;
                // Labels right of their line, or left of it in the right half.
                let anchor = if *v > 0.5 * (x.start + x.end) {
                    plotters::style::text_anchor::HPos::Right
                } else {
                    plotters::style::text_anchor::HPos::Left
                };
                let style = TextStyle::from(("sans-serif", 12).into_font())
                    .color(&CROSSING)
                    .pos(plotters::style::text_anchor::Pos::new(
                        anchor,
                        plotters::style::text_anchor::VPos::Top,
                    ));
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!(" {} ", kind.replace('_', " ")),
                        (*v, range.end),
                        style,
                    )))
                    .map_err(draw_error)?;
            }
        }
        Ok(())
    }
}

/// How a long run is cut for its Poincare section.
#[derive(Clone, Debug, PartialEq)]
pub enum Cut {
    /// Once per period T (s), from the first row's time on.
    Period(f64),
    /// Where `column` crosses `value` upward (`rising`) or downward.
    Section {
        /// The column.
        column: String,
        /// The value.
        value: f64,
        /// Upward or downward.
        rising: bool,
    },
}

impl Cut {
    /// `T` (a period, s) or `KEY=VALUE[,up|down]`.
    pub fn parse(spec: &str) -> Result<Self, PlotError> {
        let bad = |reason: &str| PlotError::Options(format!("--poincare {spec}: {reason}"));
        if let Ok(period) = spec.trim().parse::<f64>() {
            if !(period.is_finite() && period > 0.0) {
                return Err(bad(
                    "a period must be a finite number of seconds greater than 0",
                ));
            }
            return Ok(Self::Period(period));
        }
        let (column, rest) = spec
            .split_once('=')
            .ok_or_else(|| bad("give a period T in s, or a section KEY=VALUE[,up|down]"))?;
        let (value, direction) = rest.split_once(',').unwrap_or((rest, "up"));
        let value = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad("VALUE is not a finite number"))?;
        let rising = match direction.trim() {
            "up" => true,
            "down" => false,
            _ => return Err(bad("the direction is up or down")),
        };
        Ok(Self::Section {
            column: column.trim().to_string(),
            value,
            rising,
        })
    }

    /// The points (a, b) of columns `a` and `b` of `table` on the section.
    pub fn points(&self, table: &Table, a: &str, b: &str) -> Result<Vec<(f64, f64)>, PlotError> {
        let column = |name: &str| {
            table
                .names
                .iter()
                .position(|n| n == name)
                .filter(|&i| table.text[i].is_empty())
                .map(|i| &table.numbers[i])
                .ok_or_else(|| {
                    PlotError::Options(format!("{name}: not a numeric column of the trajectory"))
                })
        };
        let (t, xa, xb) = (&table.numbers[0], column(a)?, column(b)?);
        let at = |i: usize, f: f64| {
            (
                xa[i] + f * (xa[i + 1] - xa[i]),
                xb[i] + f * (xb[i + 1] - xb[i]),
            )
        };
        let mut points = Vec::new();
        match self {
            Self::Period(period) => {
                let mut k = 0.0;
                for i in 0..t.len().saturating_sub(1) {
                    loop {
                        let due = t[0] + k * period;
                        if due > t[i + 1] {
                            break;
                        }
                        if due >= t[i] && t[i + 1] > t[i] {
                            points.push(at(i, (due - t[i]) / (t[i + 1] - t[i])));
                        }
                        k += 1.0;
                    }
                }
            }
            Self::Section {
                column: key,
                value,
                rising,
            } => {
                let g = column(key)?;
                for i in 0..g.len().saturating_sub(1) {
                    let (g0, g1) = (g[i] - value, g[i + 1] - value);
                    let crossed = if *rising {
                        g0 < 0.0 && g1 >= 0.0
                    } else {
                        g0 > 0.0 && g1 <= 0.0
                    };
                    if crossed {
                        points.push(at(i, g0 / (g0 - g1)));
                    }
                }
            }
        }
        Ok(points
            .into_iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect())
    }
}

/// Draws the Poincare section of `table` (columns `a` against `b`, cut by `cut`) as SVG or PNG.
pub fn poincare(
    table: &Table,
    cut: &Cut,
    (a, b): (&str, &str),
    options: &OrbitPictureOptions,
    format: Format,
    out: &mut dyn Write,
) -> Result<usize, PlotError> {
    check_size(options.width.into(), options.height.into())?;
    let points = cut.points(table, a, b)?;
    if points.is_empty() {
        return Err(PlotError::Options(format!(
            "--poincare: the trajectory never reaches the section ({})",
            match cut {
                Cut::Period(t) => format!("it is shorter than one period of {t} s"),
                Cut::Section { column, value, .. } => format!("{column} never crosses {value}"),
            }
        )));
    }
    render_still(
        &Section {
            points: &points,
            axes: (a, b),
            title: options.title.clone().unwrap_or_default(),
        },
        (options.width, options.height),
        format,
        out,
    )?;
    Ok(points.len())
}

struct Section<'a> {
    points: &'a [(f64, f64)],
    axes: (&'a str, &'a str),
    title: String,
}

impl Picture for Section<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), PlotError> {
        let (header, body) = root.split_vertically(36);
        draw_title(
            &header,
            &format!(
                "{}: Poincare section, {} points",
                self.title,
                self.points.len()
            ),
        )?;
        let x = span(self.points.iter().map(|p| p.0)).expect("points");
        let y = span(self.points.iter().map(|p| p.1)).expect("points");
        let mut chart = ChartBuilder::on(&body)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x, y)
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc(self.axes.0)
            .y_desc(self.axes.1)
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 14))
            .light_line_style(RGBColor(242, 242, 242))
            .bold_line_style(RGBColor(220, 220, 220))
            .draw()
            .map_err(draw_error)?;
        // Later points darker: where the motion settles shows.
        let n = self.points.len().max(2) as f64;
        chart
            .draw_series(self.points.iter().enumerate().map(|(i, &p)| {
                Circle::new(
                    p,
                    2,
                    STABLE.mix(0.25 + 0.75 * i as f64 / (n - 1.0)).filled(),
                )
            }))
            .map_err(draw_error)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stroboscopic_cut_samples_once_per_period_by_interpolation() {
        // x = t, v = 2 t on rows every 0.3 s: sampled every 1 s from t = 0.
        let mut text = String::from("t,x,v\n");
        for i in 0..=20 {
            let t = 0.3 * i as f64;
            text.push_str(&format!("{t},{t},{}\n", 2.0 * t));
        }
        let table = Table::parse(&text).unwrap();
        let points = Cut::Period(1.0).points(&table, "x", "v").unwrap();
        assert_eq!(points.len(), 7);
        for (k, (x, v)) in points.iter().enumerate() {
            assert!((x - k as f64).abs() < 1e-12 && (v - 2.0 * k as f64).abs() < 1e-12);
        }
        let up = Cut::parse("x=2.5,up")
            .unwrap()
            .points(&table, "x", "v")
            .unwrap();
        assert_eq!(up.len(), 1);
        assert!((up[0].1 - 5.0).abs() < 1e-12);
        assert!(Cut::parse("x=2.5,down")
            .unwrap()
            .points(&table, "x", "v")
            .unwrap()
            .is_empty());
        assert!(Cut::parse("-1").is_err() && Cut::parse("x=a").is_err());
    }

    #[test]
    fn a_branch_reads_its_stability_crossings_and_gaps() {
        let text = "p,status,error,period,residual,iterations,attempts,stable,crossing,nearest_re,nearest_im,nearest_modulus,energy_net,d1_x,d1_y\n\
                    0.1,ok,,1.0,1e-14,2,1,true,,0.5,0,0.5,0,0.01,0.9\n\
                    0.2,ok,,1.0,1e-14,2,1,false,period_doubling,-1.01,0,1.01,0,0.02,0.9\n\
                    0.3,failed,no orbit,,,,3,,,,,,,,\n";
        let branch = read_branch(text, "b.csv", None).unwrap();
        assert_eq!(branch.parameter, "p");
        assert_eq!(branch.coordinate.0, "d1_x");
        assert_eq!(branch.stable, vec![Some(true), Some(false), None]);
        assert!(branch.coordinate.1[2].is_nan());
        assert_eq!(branch.crossings, vec![(0.2, "period_doubling".to_string())]);
        assert!(read_branch(text, "b.csv", Some("d7_x")).is_err());
        assert!(!is_branch_header("t,phase,x"));
        let mut svg = Vec::new();
        bifurcation(
            &branch,
            &OrbitPictureOptions::default(),
            Format::Svg,
            &mut svg,
        )
        .unwrap();
        let svg = String::from_utf8(svg).unwrap();
        assert!(svg.contains("period doubling"));
    }
}
