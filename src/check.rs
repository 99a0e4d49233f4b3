//! Trajectory regression (`diabolo check`): two trajectory CSVs compared column by column, the
//! expected one interpolated linearly in t when the time grids differ. A value passes when
//! |actual - expected| <= atol + rtol |expected|.

use std::fmt;
use std::path::Path;

use thiserror::Error;

/// A trajectory CSV read into columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub names: Vec<String>,
    /// One vector per column (text columns such as `phase` hold NaN; see `text`).
    pub numbers: Vec<Vec<f64>>,
    /// The raw text of each column.
    pub text: Vec<Vec<String>>,
}

/// A file that cannot be compared.
#[derive(Debug, Error)]
pub enum CheckError {
    #[error("{file}: {reason}")]
    Input { file: String, reason: String },
}

impl Table {
    pub fn read(path: &Path) -> Result<Self, CheckError> {
        let file = path.display().to_string();
        let fail = |reason: String| CheckError::Input {
            file: file.clone(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        Self::parse(&text).map_err(fail)
    }

    /// Parses CSV text with a header row and a `t` column.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let names: Vec<String> = reader
            .headers()
            .map_err(|e| format!("not a CSV file: {e}"))?
            .iter()
            .map(String::from)
            .collect();
        if names.first().map(String::as_str) != Some("t") {
            return Err("the first column must be t (a trajectory written by diabolo run)".into());
        }
        let mut columns = vec![Vec::new(); names.len()];
        for (row, record) in reader.records().enumerate() {
            let record = record.map_err(|e| format!("row {}: {e}", row + 2))?;
            if record.len() != names.len() {
                return Err(format!(
                    "row {} has {} fields, the header {}",
                    row + 2,
                    record.len(),
                    names.len()
                ));
            }
            for (column, field) in columns.iter_mut().zip(record.iter()) {
                column.push(field.to_string());
            }
        }
        let numbers: Vec<Vec<f64>> = columns
            .iter()
            .map(|c| c.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect())
            .collect();
        let t = &numbers[0];
        if let Some(i) = (0..t.len()).find(|&i| !t[i].is_finite() || (i > 0 && t[i] <= t[i - 1])) {
            return Err(format!(
                "row {}: t = {} does not increase",
                i + 2,
                columns[0][i]
            ));
        }
        if t.is_empty() {
            return Err("no rows".into());
        }
        Ok(Self {
            names,
            numbers,
            text: columns,
        })
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// Tolerances and the columns to compare (all shared columns when empty).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckOptions {
    pub rtol: f64,
    pub atol: f64,
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
    pub name: String,
    /// Largest |actual - expected|.
    pub worst: f64,
    /// Where it occurs, s.
    pub at: f64,
    /// The largest ratio |actual - expected| / (atol + rtol |expected|); above 1 fails.
    pub worst_ratio: f64,
    /// Text columns: the number of rows that differ.
    pub text_mismatches: usize,
}

impl ColumnReport {
    pub fn passed(&self) -> bool {
        self.worst_ratio <= 1.0 && self.text_mismatches == 0
    }
}

/// The comparison of two trajectories.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    pub columns: Vec<ColumnReport>,
    /// Asked for or expected, but absent from the actual trajectory (a failure).
    pub missing: Vec<String>,
    /// In the actual trajectory only (reported, not a failure).
    pub extra: Vec<String>,
    /// Time ranges (actual, expected) when they differ (a failure).
    pub time_ranges: Option<((f64, f64), (f64, f64))>,
    pub options: CheckOptions,
}

impl CheckReport {
    pub fn passed(&self) -> bool {
        self.missing.is_empty()
            && self.time_ranges.is_none()
            && self.columns.iter().all(ColumnReport::passed)
    }
}

/// Compares `actual` to `expected`.
pub fn compare(actual: &Table, expected: &Table, options: &CheckOptions) -> CheckReport {
    let wanted: Vec<String> = if options.columns.is_empty() {
        expected
            .names
            .iter()
            .filter(|n| *n != "t")
            .cloned()
            .collect()
    } else {
        options.columns.clone()
    };
    let mut missing = Vec::new();
    let extra = actual
        .names
        .iter()
        .filter(|n| expected.column(n).is_none())
        .cloned()
        .collect();
    let (ta, te) = (&actual.numbers[0], &expected.numbers[0]);
    let span = |t: &[f64]| (t[0], t[t.len() - 1]);
    let (ra, re) = (span(ta), span(te));
    let tolerance = 1e-9 * (1.0 + re.1.abs());
    let time_ranges =
        ((ra.0 - re.0).abs() > tolerance || (ra.1 - re.1).abs() > tolerance).then_some((ra, re));
    let same_grid =
        ta.len() == te.len() && ta.iter().zip(te).all(|(a, e)| (a - e).abs() <= tolerance);
    let mut columns = Vec::new();
    for name in wanted {
        let (Some(ia), Some(ie)) = (actual.column(&name), expected.column(&name)) else {
            missing.push(name);
            continue;
        };
        let mut report = ColumnReport {
            name: name.clone(),
            worst: 0.0,
            at: f64::NAN,
            worst_ratio: 0.0,
            text_mismatches: 0,
        };
        let textual =
            expected.numbers[ie].iter().all(|v| v.is_nan()) && !expected.numbers[ie].is_empty();
        for (k, &t) in ta.iter().enumerate() {
            if t < re.0 - tolerance || t > re.1 + tolerance {
                continue;
            }
            if textual {
                if same_grid && actual.text[ia][k] != expected.text[ie][k] {
                    report.text_mismatches += 1;
                    if report.at.is_nan() {
                        report.at = t;
                    }
                }
                continue;
            }
            let e = if same_grid {
                expected.numbers[ie][k]
            } else {
                interpolate(te, &expected.numbers[ie], t)
            };
            let a = actual.numbers[ia][k];
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
            if deviation > report.worst || report.at.is_nan() {
                report.worst = deviation;
                report.at = t;
            }
            report.worst_ratio = report.worst_ratio.max(ratio);
        }
        columns.push(report);
    }
    CheckReport {
        columns,
        missing,
        extra,
        time_ranges,
        options: options.clone(),
    }
}

/// The index i with t[i] <= at < t[i + 1] (clamped to the samples: held at the ends), and the
/// fraction of the way to t[i + 1].
pub fn locate(t: &[f64], at: f64) -> (usize, f64) {
    let n = t.len();
    if n < 2 || at <= t[0] {
        return (0, 0.0);
    }
    if at >= t[n - 1] {
        return (n - 1, 0.0);
    }
    let i = t.partition_point(|&ti| ti <= at) - 1;
    (i, (at - t[i]) / (t[i + 1] - t[i]))
}

/// A column's value at time `at`, linear between samples, held at the ends.
pub fn interpolate(t: &[f64], v: &[f64], at: f64) -> f64 {
    let (i, f) = locate(t, at);
    if f == 0.0 {
        v[i]
    } else {
        v[i] + f * (v[i + 1] - v[i])
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<16} {:>12} {:>12} {:>10}  (pass: |actual - expected| <= {:e} + {:e} |expected|)",
            "column", "worst", "at t (s)", "of allowed", self.options.atol, self.options.rtol
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
                "extra in the actual trajectory (not compared): {}",
                self.extra.join(", ")
            )?;
        }
        if let Some(((a0, a1), (e0, e1))) = self.time_ranges {
            writeln!(
                f,
                "time ranges differ: actual {a0}..{a1} s, expected {e0}..{e1} s"
            )?;
        }
        let failed = self.columns.iter().filter(|c| !c.passed()).count();
        if self.passed() {
            write!(f, "PASS: {} columns within tolerance", self.columns.len())
        } else {
            write!(
                f,
                "FAIL: {failed} of {} columns beyond tolerance",
                self.columns.len()
            )
        }
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
}
