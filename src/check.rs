//! Trajectory regression (`diabolo check`): two trajectory CSVs compared column by column, the
//! expected one interpolated linearly in t when the time grids differ. A value passes when
//! |actual - expected| <= atol + rtol |expected|.
//!
//! Both files are read as streams, row by row, by the strict trajectory reader of
//! [`crate::output::table`]: the comparison holds two rows of the expected trajectory at a time
//! (the ones around the actual row's t), so memory does not grow with the files.

use std::fmt;
use std::path::Path;

use thiserror::Error;

use crate::display::{echoed, Compact};
use crate::output::table::{is_text_column, Row, RowSource, Table, TableError, TrajectoryReader};

/// A file that cannot be compared, or a comparison with nothing to compare.
#[derive(Debug, Error)]
pub enum CheckError {
    /// A trajectory that cannot be read (names the file, and the row and column when it can).
    #[error(transparent)]
    Table(#[from] TableError),
    /// No column to compare: the expected trajectory has only t, or `--columns` selects none.
    #[error("nothing to compare: {reason}")]
    NothingToCompare {
        /// Why no column is left, and what to do about it.
        reason: String,
    },
}

/// Tolerances and the columns to compare (all columns when empty).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOptions {
    /// rtol: relative tolerance, times |expected| (dimensionless).
    pub rtol: f64,
    /// atol: absolute tolerance, in each column's own unit.
    pub atol: f64,
    /// Names of the columns to compare (t is always the time axis); empty compares them all.
    pub columns: Vec<String>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            rtol: 1e-6,
            atol: 1e-9,
            columns: Vec::new(),
        }
    }
}

/// The worst deviation of one column.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnReport {
    /// The column's name in the CSV header.
    pub name: String,
    /// Largest |actual - expected|, in the column's unit.
    pub worst: f64,
    /// Where it occurs, s.
    pub at: f64,
    /// The largest ratio |actual - expected| / (atol + rtol |expected|); above 1 fails.
    pub worst_ratio: f64,
    /// Text columns: the number of rows at the same time that differ.
    pub text_mismatches: usize,
    /// The error linear interpolation of the expected values alone can make, estimated as the
    /// largest |e(i+1) - 2 e(i) + e(i-1)| / 8 over the expected rows (h^2/8 |f''|, exact for a
    /// parabola at mid-step); it matters only where the grids differ (see [`Grids`]).
    pub interpolation: f64,
}

impl ColumnReport {
    /// True when every value is within tolerance (ratio <= 1) and no text differs.
    pub fn passed(&self) -> bool {
        self.worst_ratio <= 1.0 && self.text_mismatches == 0
    }

    fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            worst: 0.0,
            at: f64::NAN,
            worst_ratio: 0.0,
            text_mismatches: 0,
            interpolation: 0.0,
        }
    }

    /// Records the actual value `a` against the expected `e` at time `t`.
    fn observe(&mut self, t: f64, a: f64, e: f64, options: &CheckOptions) {
        let deviation = (a - e).abs();
        let ratio = if deviation == 0.0 || (a.is_nan() && e.is_nan()) {
            0.0
        } else {
            deviation / (options.atol + options.rtol * e.abs())
        };
        let ratio = if ratio.is_nan() { f64::INFINITY } else { ratio };
        let deviation = if deviation.is_nan() && ratio > 0.0 {
            f64::INFINITY
        } else {
            deviation
        };
        if deviation > self.worst || self.at.is_nan() {
            self.worst = deviation;
            self.at = t;
        }
        self.worst_ratio = self.worst_ratio.max(ratio);
    }

    /// Records the text of a row at the same time in both files.
    fn observe_text(&mut self, t: f64, a: &str, e: &str) {
        if a != e {
            self.text_mismatches += 1;
            if self.at.is_nan() {
                self.at = t;
            }
        }
    }
}

/// The comparison of two trajectories.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// One report per column compared (present in both files).
    pub columns: Vec<ColumnReport>,
    /// Asked for or expected, but absent from the actual trajectory (a failure).
    pub missing: Vec<String>,
    /// In the actual trajectory but not in the expected one (a failure, unless `--columns`
    /// leaves them out).
    pub extra: Vec<String>,
    /// Time ranges (actual, expected) when they differ (a failure).
    pub time_ranges: Option<((f64, f64), (f64, f64))>,
    /// The time grids, when they differ (actual rows between expected rows were compared with
    /// interpolated values; see [`CheckReport::grid_warning`]).
    pub grids: Option<Grids>,
    /// The tolerances and columns the comparison used.
    pub options: CheckOptions,
}

/// How the two time grids differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Grids {
    /// Actual rows that fell between two expected rows (compared with interpolated values).
    pub interpolated: usize,
    /// All the actual rows.
    pub rows: usize,
    /// The largest time step of the actual trajectory, s.
    pub actual_step: f64,
    /// The largest time step of the expected trajectory (over the rows compared), s.
    pub expected_step: f64,
}

impl CheckReport {
    /// True when columns were compared and all of them match.
    pub fn passed(&self) -> bool {
        !self.columns.is_empty()
            && self.missing.is_empty()
            && self.extra.is_empty()
            && self.time_ranges.is_none()
            && self.columns.iter().all(ColumnReport::passed)
    }

    /// A warning when the time grids differ: the expected values were interpolated, the error
    /// that alone implies per column (largest first), and how to compare on one grid.
    pub fn grid_warning(&self) -> Option<String> {
        let grids = self.grids.as_ref()?;
        let mut columns: Vec<&ColumnReport> = self
            .columns
            .iter()
            .filter(|c| c.interpolation > 0.0)
            .collect();
        columns.sort_by(|a, b| b.interpolation.total_cmp(&a.interpolation));
        let estimates: Vec<String> = columns
            .iter()
            .take(5)
            .map(|c| format!("{} {:.1e}", c.name, c.interpolation))
            .collect();
        let estimates = if estimates.is_empty() {
            String::new()
        } else {
            format!(
                "; linear interpolation alone can be off by about h^2/8 |f''|: {}",
                estimates.join(", ")
            )
        };
        Some(format!(
            "warning: the time grids differ (actual step up to {} s, expected up to {} s): {} of \
             {} actual rows fall between expected rows and are compared with linearly \
             interpolated values{estimates}. For a strict comparison write both on one grid \
             (diabolo run ... --set sim.output_interval={})",
            Compact(to_nanoseconds(grids.actual_step)),
            Compact(to_nanoseconds(grids.expected_step)),
            grids.interpolated,
            grids.rows,
            Compact(to_nanoseconds(grids.expected_step)),
        ))
    }
}

/// A time step rounded to the nanosecond (a grid of 0.05 s shows as 0.05, not its rounding).
fn to_nanoseconds(step: f64) -> f64 {
    (step * 1e9).round() / 1e9
}

/// The largest second difference of each compared numeric column over the expected rows, and
/// the largest step: what linear interpolation between those rows can miss.
struct Curvature {
    /// Per compared column: the expected values of the last two rows.
    last: Vec<[f64; 2]>,
    /// Per compared column: the largest |second difference| / 8 so far.
    worst: Vec<f64>,
    rows: usize,
    last_t: f64,
    step: f64,
}

impl Curvature {
    fn new(columns: usize) -> Self {
        Self {
            last: vec![[f64::NAN; 2]; columns],
            worst: vec![0.0; columns],
            rows: 0,
            last_t: f64::NAN,
            step: 0.0,
        }
    }

    /// Takes in the next expected row.
    fn observe(&mut self, row: &Row, compared: &[Compared]) {
        for ((c, last), worst) in compared.iter().zip(&mut self.last).zip(&mut self.worst) {
            if c.text {
                continue;
            }
            let value = row.numbers[c.expected];
            if self.rows >= 2 {
                let second = (value - 2.0 * last[1] + last[0]).abs() / 8.0;
                if second.is_finite() {
                    *worst = worst.max(second);
                }
            }
            *last = [last[1], value];
        }
        if self.rows >= 1 {
            self.step = self.step.max(row.t() - self.last_t);
        }
        self.last_t = row.t();
        self.rows += 1;
    }
}

/// A column compared: its name, its index in each file, and whether it holds text.
struct Compared {
    actual: usize,
    expected: usize,
    text: bool,
}

/// The columns to compare (each with its report so far), and those of one file only.
struct Selection {
    reports: Vec<ColumnReport>,
    compared: Vec<Compared>,
    missing: Vec<String>,
    extra: Vec<String>,
}

/// The columns to compare, and those missing from either file. Nothing to compare (an
/// EXPECTED with only t, a `--columns` that selects no column) is an error.
fn selection(
    actual: &[String],
    expected: &[String],
    options: &CheckOptions,
) -> Result<Selection, CheckError> {
    let position = |names: &[String], name: &str| names.iter().position(|n| n == name);
    let wanted: Vec<String> = if options.columns.is_empty() {
        if expected.len() < 2 {
            return Err(CheckError::NothingToCompare {
                reason: "the expected trajectory has no column besides t".into(),
            });
        }
        let mut all: Vec<String> = expected[1..].to_vec();
        all.extend(
            actual[1..]
                .iter()
                .filter(|n| !expected.contains(n))
                .cloned(),
        );
        all
    } else {
        let chosen: Vec<String> = options
            .columns
            .iter()
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty() && c != "t")
            .collect();
        if chosen.is_empty() {
            return Err(CheckError::NothingToCompare {
                reason: format!(
                    "--columns {} selects no column besides t; name the columns to compare, \
                     or leave --columns out to compare them all",
                    echoed(&options.columns.join(","))
                ),
            });
        }
        chosen
    };
    let (mut reports, mut compared, mut missing, mut extra) = (vec![], vec![], vec![], vec![]);
    for name in wanted {
        match (position(actual, &name), position(expected, &name)) {
            (Some(a), Some(e)) => {
                compared.push(Compared {
                    actual: a,
                    expected: e,
                    text: is_text_column(&name),
                });
                reports.push(ColumnReport::new(&name));
            }
            (None, _) => missing.push(name),
            (Some(_), None) => extra.push(name),
        }
    }
    Ok(Selection {
        reports,
        compared,
        missing,
        extra,
    })
}

/// Two times closer than this (relative to their size) are the same time.
fn same_time(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Compares the actual trajectory to the expected one, both read row by row: the expected
/// values at each actual row's t are interpolated from the two expected rows around it (text
/// columns are compared where both files have a row at the same t). Memory does not depend on
/// the number of rows.
pub fn compare_rows(
    actual: &mut dyn RowSource,
    expected: &mut dyn RowSource,
    options: &CheckOptions,
) -> Result<CheckReport, CheckError> {
    let Selection {
        reports: mut columns,
        compared,
        missing,
        extra,
    } = selection(actual.names(), expected.names(), options)?;
    let no_rows = |source: &dyn RowSource| {
        CheckError::from(TableError::Input {
            file: source.file().to_string(),
            reason: "no rows".into(),
        })
    };
    // The expected rows around the actual row: `before` (when `has_before`) and `after`.
    let (mut before, mut after, mut row) = (Row::default(), Row::default(), Row::default());
    if !expected.read(&mut after)? {
        return Err(no_rows(expected));
    }
    let mut curvature = Curvature::new(compared.len());
    curvature.observe(&after, &compared);
    let expected_start = after.t();
    let (mut has_before, mut exhausted) = (false, false);
    let mut actual_span: Option<(f64, f64)> = None;
    let (mut rows, mut interpolated, mut actual_step) = (0, 0, 0.0f64);
    while actual.read(&mut row)? {
        let t = row.t();
        if let Some((_, previous)) = actual_span {
            actual_step = actual_step.max(t - previous);
        }
        actual_span = Some((actual_span.map_or(t, |s| s.0), t));
        rows += 1;
        while !exhausted && t > after.t() && !same_time(t, after.t()) {
            std::mem::swap(&mut before, &mut after);
            if expected.read(&mut after)? {
                has_before = true;
                curvature.observe(&after, &compared);
            } else {
                std::mem::swap(&mut before, &mut after);
                exhausted = true;
            }
        }
        if same_time(t, after.t()) {
            for (report, c) in columns.iter_mut().zip(&compared) {
                if c.text {
                    report.observe_text(t, row.text(c.actual), after.text(c.expected));
                } else {
                    report.observe(t, row.numbers[c.actual], after.numbers[c.expected], options);
                }
            }
        } else if t < after.t() && has_before {
            interpolated += 1;
            let f = (t - before.t()) / (after.t() - before.t());
            for (report, c) in columns.iter_mut().zip(&compared).filter(|(_, c)| !c.text) {
                let (e0, e1) = (before.numbers[c.expected], after.numbers[c.expected]);
                report.observe(t, row.numbers[c.actual], e0 + f * (e1 - e0), options);
            }
        }
    }
    let Some(actual_span) = actual_span else {
        return Err(no_rows(actual));
    };
    let mut expected_end = after.t();
    if !exhausted {
        while expected.read(&mut after)? {
            expected_end = after.t();
        }
    }
    let expected_span = (expected_start, expected_end);
    let tolerance = 1e-9 * (1.0 + expected_end.abs());
    let time_ranges = ((actual_span.0 - expected_span.0).abs() > tolerance
        || (actual_span.1 - expected_span.1).abs() > tolerance)
        .then_some((actual_span, expected_span));
    for (report, worst) in columns.iter_mut().zip(&curvature.worst) {
        report.interpolation = *worst;
    }
    let grids = (interpolated > 0).then_some(Grids {
        interpolated,
        rows,
        actual_step,
        expected_step: curvature.step,
    });
    Ok(CheckReport {
        columns,
        missing,
        extra,
        time_ranges,
        grids,
        options: options.clone(),
    })
}

/// Compares two trajectory files as streams (see [`compare_rows`]).
pub fn compare_files(
    actual: &Path,
    expected: &Path,
    options: &CheckOptions,
) -> Result<CheckReport, CheckError> {
    let mut actual = TrajectoryReader::open(actual)?;
    let mut expected = TrajectoryReader::open(expected)?;
    compare_rows(&mut actual, &mut expected, options)
}

/// Compares `actual` to `expected` (tables in memory; see [`compare_rows`]). With nothing to
/// compare the report has no columns and does not pass.
pub fn compare(actual: &Table, expected: &Table, options: &CheckOptions) -> CheckReport {
    compare_rows(
        &mut actual.row_source(),
        &mut expected.row_source(),
        options,
    )
    .unwrap_or_else(|_| CheckReport {
        columns: Vec::new(),
        missing: Vec::new(),
        extra: Vec::new(),
        time_ranges: None,
        grids: None,
        options: options.clone(),
    })
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<16} {:>12} {:>12} {:>10}  (pass: |actual - expected| <= {} + {} |expected|)",
            "column",
            "worst",
            "at t (s)",
            "of allowed",
            Compact(self.options.atol),
            Compact(self.options.rtol)
        )?;
        for c in &self.columns {
            let status = if c.passed() { "ok" } else { "FAIL" };
            if c.text_mismatches > 0 {
                writeln!(
                    f,
                    "{:<16} {:>12} {:>12.6} {:>10}  {status}",
                    c.name,
                    format!("{} rows", c.text_mismatches),
                    c.at,
                    "-"
                )?;
            } else {
                writeln!(
                    f,
                    "{:<16} {:>12.3e} {:>12.6} {:>10.3}  {status}",
                    c.name, c.worst, c.at, c.worst_ratio
                )?;
            }
        }
        if !self.missing.is_empty() {
            writeln!(
                f,
                "missing from the actual trajectory: {}",
                self.missing.join(", ")
            )?;
        }
        if !self.extra.is_empty() {
            writeln!(
                f,
                "not in the expected trajectory (leave them out with --columns to pass): {}",
                self.extra.join(", ")
            )?;
        }
        if let Some(((a0, a1), (e0, e1))) = self.time_ranges {
            writeln!(
                f,
                "time ranges differ: actual {}..{} s, expected {}..{} s",
                Compact(a0),
                Compact(a1),
                Compact(e0),
                Compact(e1)
            )?;
        }
        let failed = self.columns.iter().filter(|c| !c.passed()).count();
        if self.passed() {
            return write!(f, "PASS: {} columns within tolerance", self.columns.len());
        }
        let mut reasons = Vec::new();
        if failed > 0 {
            reasons.push(format!(
                "{failed} of {} columns beyond tolerance",
                self.columns.len()
            ));
        }
        let others = self.missing.len() + self.extra.len();
        if others > 0 {
            reasons.push(format!("{others} columns in one file only"));
        }
        if let Some(((a0, a1), (e0, e1))) = self.time_ranges {
            reasons.push(format!(
                "the time ranges differ (actual {}-{} s, expected {}-{} s)",
                Compact(a0),
                Compact(a1),
                Compact(e0),
                Compact(e1)
            ));
        }
        write!(f, "FAIL: {}", reasons.join(", "))?;
        if failed == 0 && !self.columns.is_empty() {
            write!(
                f,
                " (all {} columns compared are within tolerance)",
                self.columns.len()
            )?;
        }
        Ok(())
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        Table::parse(text).unwrap()
    }

    #[test]
    fn identical_trajectories_pass_and_a_moved_value_fails_at_its_time() {
        let a = table("t,phase,x\n0,taut,1.0\n0.5,taut,2.0\n1,loose,3.0\n");
        let same = compare(&a, &a, &CheckOptions::default());
        assert!(same.passed());
        let b = table("t,phase,x\n0,taut,1.0\n0.5,taut,2.001\n1,loose,3.0\n");
        let r = compare(&b, &a, &CheckOptions::default());
        assert!(!r.passed());
        let x = &r.columns[1];
        assert_eq!(x.at, 0.5);
        assert!((x.worst - 0.001).abs() < 1e-12);
    }

    #[test]
    fn different_grids_are_interpolated() {
        let fine = table("t,x\n0,0\n0.25,0.25\n0.5,0.5\n0.75,0.75\n1,1\n");
        let coarse = table("t,x\n0,0\n1,1\n");
        assert!(compare(&fine, &coarse, &CheckOptions::default()).passed());
    }

    #[test]
    fn missing_and_extra_columns_and_short_runs_are_reported() {
        let expected = table("t,x,y\n0,0,0\n1,1,1\n");
        let actual = table("t,x,z\n0,0,0\n0.5,1,1\n");
        let r = compare(&actual, &expected, &CheckOptions::default());
        assert_eq!(r.missing, vec!["y"]);
        assert_eq!(r.extra, vec!["z"]);
        assert!(r.time_ranges.is_some());
        assert!(!r.passed());
        let text = r.to_string();
        assert!(text.contains("missing from the actual trajectory: y") && text.contains("FAIL"));
    }

    #[test]
    fn a_run_differing_only_in_its_time_range_fails_naming_the_ranges_not_the_columns() {
        let expected = table("t,x\n0,0\n1,1\n2,2\n3,3\n");
        let actual = table("t,x\n0,0\n1,1\n2,2\n3,3\n3.9,3.9\n");
        let text = compare(&actual, &expected, &CheckOptions::default()).to_string();
        let verdict = text.lines().last().unwrap();
        assert_eq!(
            verdict,
            "FAIL: the time ranges differ (actual 0-3.9 s, expected 0-3 s) (all 1 columns \
             compared are within tolerance)"
        );
        assert!(!text.contains("0 of 1 columns"), "{text}");
    }

    #[test]
    fn the_same_grid_gives_no_grid_warning() {
        let a = table("t,x\n0,0\n0.5,0.25\n1,1\n");
        let r = compare(&a, &a, &CheckOptions::default());
        assert_eq!(r.grids, None);
        assert_eq!(r.grid_warning(), None);
    }

    #[test]
    fn differing_grids_warn_with_the_interpolation_error_of_a_parabola() {
        // x = t^2 on a grid of h = 0.5: linear interpolation is off by h^2/4 = 0.0625 at the
        // mid-steps, which is h^2/8 |x''| with x'' = 2: the estimate is exact.
        let h: f64 = 0.5;
        let coarse: String = (0..=4)
            .map(|i| {
                let t = i as f64 * h;
                format!("{t},{}\n", t * t)
            })
            .collect();
        let fine: String = (0..=8)
            .map(|i| {
                let t = i as f64 * h / 2.0;
                format!("{t},{}\n", t * t)
            })
            .collect();
        let expected = table(&format!("t,x\n{coarse}"));
        let actual = table(&format!("t,x\n{fine}"));
        let r = compare(&actual, &expected, &CheckOptions::default());
        let x = &r.columns[0];
        assert!(
            (x.interpolation - h * h / 4.0).abs() < 1e-12,
            "{}",
            x.interpolation
        );
        // The real deviation at the mid-steps is exactly the estimate.
        assert!((x.worst - h * h / 4.0).abs() < 1e-12, "{}", x.worst);
        let grids = r.grids.clone().unwrap();
        assert_eq!((grids.interpolated, grids.rows), (4, 9));
        assert_eq!((grids.actual_step, grids.expected_step), (0.25, 0.5));
        let warning = r.grid_warning().unwrap();
        assert!(warning.contains("the time grids differ"), "{warning}");
        assert!(warning.contains("4 of 9 actual rows"), "{warning}");
        assert!(warning.contains("x 6.2e-2"), "{warning}");
        assert!(
            warning.contains("--set sim.output_interval=0.5"),
            "{warning}"
        );
    }
}
