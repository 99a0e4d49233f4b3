//! Trajectory regression (`diabolo check`): two trajectory CSVs compared column by column, the
//! expected one interpolated linearly in t when the time grids differ. A value passes when
//! |actual - expected| <= atol + rtol |expected|.
//!
//! Both files are read as streams, row by row ([`TrajectoryReader`]): the comparison holds two
//! rows of the expected trajectory at a time (the ones around the actual row's t), so memory does
//! not grow with the files. The same strict reader reads the trajectories that `plot` and
//! `animate` draw ([`Table::read_at_most`]): a cell that is not a number is an input error naming
//! the file, the row and the column.

use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use thiserror::Error;

use crate::display::{echoed, Compact};

/// The columns of a trajectory that hold text, not numbers.
pub const TEXT_COLUMNS: [&str; 1] = ["phase"];

/// A file that cannot be compared or drawn, or a comparison with nothing to compare.
#[derive(Debug, Error)]
pub enum CheckError {
    #[error("{file}: {reason}")]
    Input { file: String, reason: String },
    #[error(
        "{file}: row {row}, column {column}: {value} is not a number (every column but {text} \
         holds numbers, NaN or inf); fix the cell or regenerate the file with diabolo run",
        text = TEXT_COLUMNS.join(", ")
    )]
    NotANumber {
        file: String,
        /// The row in the file, the header being row 1.
        row: u64,
        column: String,
        /// The cell, as echoed.
        value: String,
    },
    #[error("{file}: row {row}: t = {t} {reason}")]
    Time {
        file: String,
        row: u64,
        t: String,
        reason: String,
    },
    #[error("nothing to compare: {reason}")]
    NothingToCompare { reason: String },
}

/// One row of a trajectory: its numbers (NaN in the text columns) and its fields as text.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub numbers: Vec<f64>,
    pub fields: csv::StringRecord,
}

impl Row {
    pub fn t(&self) -> f64 {
        self.numbers[0]
    }

    /// The text of a column (trimmed).
    pub fn text(&self, column: usize) -> &str {
        self.fields.get(column).unwrap_or("")
    }
}

/// Rows of a trajectory, one at a time.
pub trait RowSource {
    /// The file's name, for messages.
    fn file(&self) -> &str;
    fn names(&self) -> &[String];
    /// Reads the next row into `row`; false at the end (`row` is then unspecified).
    fn read(&mut self, row: &mut Row) -> Result<bool, CheckError>;
}

/// A strict, streaming reader of a trajectory CSV: a header whose first column is `t`, then rows
/// of as many fields, numbers in every column but the text ones (`phase`), t finite and
/// increasing. Spaces around fields are ignored.
pub struct TrajectoryReader<R: Read> {
    file: String,
    names: Vec<String>,
    text: Vec<bool>,
    csv: csv::Reader<R>,
    previous_t: Option<f64>,
}

impl TrajectoryReader<BufReader<File>> {
    /// Opens a trajectory file and reads its header.
    pub fn open(path: &Path) -> Result<Self, CheckError> {
        let file = path.display().to_string();
        let input = File::open(path).map_err(|e| CheckError::Input {
            file: file.clone(),
            reason: format!("cannot read: {e}"),
        })?;
        Self::new(file, BufReader::with_capacity(1 << 16, input))
    }
}

impl<R: Read> TrajectoryReader<R> {
    /// A reader of `input` (named `file` in messages); reads the header.
    pub fn new(file: String, input: R) -> Result<Self, CheckError> {
        let mut csv = csv::ReaderBuilder::new()
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(input);
        let fail = |reason: String| CheckError::Input {
            file: file.clone(),
            reason,
        };
        let names: Vec<String> = csv
            .headers()
            .map_err(|e| fail(format!("not a CSV file: {}", csv_reason(&e))))?
            .iter()
            .map(String::from)
            .collect();
        if names.first().map(String::as_str) != Some("t") {
            return Err(fail(
                "the first column must be t (a trajectory written by diabolo run)".into(),
            ));
        }
        let text = names
            .iter()
            .map(|n| TEXT_COLUMNS.contains(&n.as_str()))
            .collect();
        Ok(Self {
            file,
            names,
            text,
            csv,
            previous_t: None,
        })
    }

    /// True for a text column (`phase`).
    pub fn is_text(&self, column: usize) -> bool {
        self.text[column]
    }
}

impl<R: Read> RowSource for TrajectoryReader<R> {
    fn file(&self) -> &str {
        &self.file
    }

    fn names(&self) -> &[String] {
        &self.names
    }

    fn read(&mut self, row: &mut Row) -> Result<bool, CheckError> {
        let line = self.csv.position().line() + 1;
        let more = self
            .csv
            .read_record(&mut row.fields)
            .map_err(|e| CheckError::Input {
                file: self.file.clone(),
                reason: format!("row {line}: {}", csv_reason(&e)),
            })?;
        if !more {
            return Ok(false);
        }
        let line = row.fields.position().map_or(line, |p| p.line());
        if row.fields.len() != self.names.len() {
            return Err(CheckError::Input {
                file: self.file.clone(),
                reason: format!(
                    "row {line} has {} fields, the header {}",
                    row.fields.len(),
                    self.names.len()
                ),
            });
        }
        row.numbers.clear();
        for (column, field) in row.fields.iter().enumerate() {
            let value = if self.text[column] {
                f64::NAN
            } else {
                field.parse().map_err(|_| CheckError::NotANumber {
                    file: self.file.clone(),
                    row: line,
                    column: self.names[column].clone(),
                    value: if field.is_empty() {
                        "an empty cell".into()
                    } else {
                        format!("`{}`", echoed(field))
                    },
                })?
            };
            row.numbers.push(value);
        }
        let t = row.numbers[0];
        let time_error = |reason: String| CheckError::Time {
            file: self.file.clone(),
            row: line,
            t: echoed(row.text(0)),
            reason,
        };
        if !t.is_finite() {
            return Err(time_error("is not a finite time".into()));
        }
        if let Some(previous) = self.previous_t.filter(|&p| t <= p) {
            return Err(time_error(format!(
                "does not increase (the row before has t = {}); rows must be in time order",
                Compact(previous)
            )));
        }
        self.previous_t = Some(t);
        Ok(true)
    }
}

/// A CSV error's reason without the crate's own position text.
fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        csv::ErrorKind::Io(e) => format!("cannot read: {e}"),
        _ => e.to_string(),
    }
}

/// A trajectory CSV read into columns (every row, or evenly thinned to a bound).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub names: Vec<String>,
    /// One vector per column (text columns such as `phase` hold NaN; see `text`).
    pub numbers: Vec<Vec<f64>>,
    /// The text of each text column (`phase`); empty for the numeric columns.
    pub text: Vec<Vec<String>>,
    /// The rows in the file (more than kept when thinned).
    pub rows_read: usize,
    /// Every `stride`-th row of the file is kept (and the last row): 1 when none was left out.
    pub stride: usize,
}

impl Table {
    /// Reads every row of a trajectory file.
    pub fn read(path: &Path) -> Result<Self, CheckError> {
        Self::read_at_most(path, usize::MAX)
    }

    /// Reads a trajectory file keeping at most about `max_rows` rows, evenly spread: when the
    /// kept rows reach `max_rows`, every other one is dropped and from then on every second
    /// (fourth, ...) row of the file is kept, so memory is bounded whatever the file's length.
    /// The last row is always kept (the table spans the whole run).
    pub fn read_at_most(path: &Path, max_rows: usize) -> Result<Self, CheckError> {
        Self::collect(&mut TrajectoryReader::open(path)?, max_rows)
    }

    /// Parses CSV text with a header row and a `t` column.
    pub fn parse(text: &str) -> Result<Self, String> {
        TrajectoryReader::new("(text)".into(), text.as_bytes())
            .and_then(|mut reader| Self::collect(&mut reader, usize::MAX))
            .map_err(|e| match e {
                CheckError::Input { reason, .. } => reason,
                other => other.to_string().trim_start_matches("(text): ").to_string(),
            })
    }

    fn collect<R: Read>(
        reader: &mut TrajectoryReader<R>,
        max_rows: usize,
    ) -> Result<Self, CheckError> {
        let max_rows = max_rows.max(2);
        let columns = reader.names.len();
        let mut table = Self {
            names: reader.names.clone(),
            numbers: vec![Vec::new(); columns],
            text: vec![Vec::new(); columns],
            rows_read: 0,
            stride: 1,
        };
        let (mut row, mut last) = (Row::default(), Row::default());
        while reader.read(&mut row)? {
            if table.rows_read % table.stride == 0 {
                table.push(reader, &row);
                if table.numbers[0].len() >= max_rows {
                    table.halve();
                }
            }
            table.rows_read += 1;
            std::mem::swap(&mut row, &mut last);
        }
        if table.rows_read == 0 {
            return Err(CheckError::Input {
                file: reader.file.clone(),
                reason: "no rows".into(),
            });
        }
        if (table.rows_read - 1) % table.stride != 0 {
            table.push(reader, &last);
        }
        Ok(table)
    }

    fn push<R: Read>(&mut self, reader: &TrajectoryReader<R>, row: &Row) {
        for (column, &value) in row.numbers.iter().enumerate() {
            self.numbers[column].push(value);
            if reader.is_text(column) {
                self.text[column].push(row.text(column).to_string());
            }
        }
    }

    /// Keeps every other row (the first, the third...), and from now on every other row of the
    /// file among those that were kept.
    fn halve(&mut self) {
        fn every_other<T>(v: &mut Vec<T>) {
            let mut k = 0;
            v.retain(|_| {
                k += 1;
                k % 2 == 1
            });
        }
        self.numbers.iter_mut().for_each(every_other);
        self.text.iter_mut().for_each(every_other);
        self.stride *= 2;
    }

    /// True when rows of the file were left out.
    pub fn thinned(&self) -> bool {
        self.numbers[0].len() < self.rows_read
    }

    pub fn rows(&self) -> usize {
        self.numbers[0].len()
    }
}

/// The rows of a table, as a [`RowSource`].
struct TableRows<'a> {
    table: &'a Table,
    next: usize,
}

impl RowSource for TableRows<'_> {
    fn file(&self) -> &str {
        "(table)"
    }

    fn names(&self) -> &[String] {
        &self.table.names
    }

    fn read(&mut self, row: &mut Row) -> Result<bool, CheckError> {
        let (table, i) = (self.table, self.next);
        if i >= table.rows() {
            return Ok(false);
        }
        row.numbers.clear();
        row.numbers.extend(table.numbers.iter().map(|c| c[i]));
        row.fields.clear();
        for text in &table.text {
            row.fields
                .push_field(text.get(i).map_or("", String::as_str));
        }
        self.next += 1;
        Ok(true)
    }
}

/// Tolerances and the columns to compare (all columns when empty).
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
    /// Text columns: the number of rows at the same time that differ.
    pub text_mismatches: usize,
}

impl ColumnReport {
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
    pub columns: Vec<ColumnReport>,
    /// Asked for or expected, but absent from the actual trajectory (a failure).
    pub missing: Vec<String>,
    /// In the actual trajectory but not in the expected one (a failure, unless `--columns`
    /// leaves them out).
    pub extra: Vec<String>,
    /// Time ranges (actual, expected) when they differ (a failure).
    pub time_ranges: Option<((f64, f64), (f64, f64))>,
    pub options: CheckOptions,
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
                    text: TEXT_COLUMNS.contains(&name.as_str()),
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
    let no_rows = |source: &dyn RowSource| CheckError::Input {
        file: source.file().to_string(),
        reason: "no rows".into(),
    };
    // The expected rows around the actual row: `before` (when `has_before`) and `after`.
    let (mut before, mut after, mut row) = (Row::default(), Row::default(), Row::default());
    if !expected.read(&mut after)? {
        return Err(no_rows(expected));
    }
    let expected_start = after.t();
    let (mut has_before, mut exhausted) = (false, false);
    let mut actual_span: Option<(f64, f64)> = None;
    while actual.read(&mut row)? {
        let t = row.t();
        actual_span = Some((actual_span.map_or(t, |s| s.0), t));
        while !exhausted && t > after.t() && !same_time(t, after.t()) {
            std::mem::swap(&mut before, &mut after);
            if expected.read(&mut after)? {
                has_before = true;
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
    Ok(CheckReport {
        columns,
        missing,
        extra,
        time_ranges,
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
    let rows = |table| TableRows { table, next: 0 };
    compare_rows(&mut rows(actual), &mut rows(expected), options).unwrap_or_else(|_| CheckReport {
        columns: Vec::new(),
        missing: Vec::new(),
        extra: Vec::new(),
        time_ranges: None,
        options: options.clone(),
    })
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
            write!(f, "PASS: {} columns within tolerance", self.columns.len())
        } else {
            write!(
                f,
                "FAIL: {failed} of {} columns beyond tolerance",
                self.columns.len()
            )?;
            let others = self.missing.len() + self.extra.len();
            if others > 0 {
                write!(f, ", {others} columns in one file only")?;
            }
            if self.time_ranges.is_some() {
                write!(f, ", time ranges differ")?;
            }
            Ok(())
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
    fn thinned_tables_keep_evenly_spread_rows_and_the_last() {
        let text: String = std::iter::once("t,phase,x\n".to_string())
            .chain((0..100).map(|i| format!("{i},taut,{}\n", 2 * i)))
            .collect();
        let mut reader = TrajectoryReader::new("x.csv".into(), text.as_bytes()).unwrap();
        let table = Table::collect(&mut reader, 8).unwrap();
        // 100 rows into at most 8: one in 16 (0, 16, ..., 96) and the last, 99.
        assert_eq!(table.stride, 16);
        assert_eq!(
            table.numbers[0],
            [0.0, 16.0, 32.0, 48.0, 64.0, 80.0, 96.0, 99.0]
        );
        assert_eq!(table.numbers[2][7], 198.0);
        assert_eq!(table.text[1].len(), 8);
        assert!(table.text[2].is_empty());
        assert!(table.thinned() && table.rows_read == 100);
    }

    #[test]
    fn a_bad_cell_names_the_file_row_and_column() {
        let mut reader =
            TrajectoryReader::new("x.csv".into(), "t,x\n0,1\n1, 2 \n2,two\n".as_bytes()).unwrap();
        let mut row = Row::default();
        assert!(reader.read(&mut row).unwrap());
        assert!(reader.read(&mut row).unwrap());
        assert_eq!(row.numbers, [1.0, 2.0]);
        let error = reader.read(&mut row).unwrap_err().to_string();
        assert!(
            error.starts_with("x.csv: row 4, column x: `two` is not a number"),
            "{error}"
        );
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
