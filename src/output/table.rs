//! CSV tables, the one place that reads and writes them.
//!
//! Reading: every CSV the program reads as a table (a trajectory written by `diabolo run`, a
//! motion-capture recording) goes through [`csv_reader`], one `csv::ReaderBuilder`
//! configuration: no header handling by the crate (the caller takes the first record as the
//! header), rows of any length (the caller names a short or long row), spaces around fields
//! ignored, lines starting with `#` skipped. On it, [`TrajectoryReader`] is the strict streaming
//! reader of a trajectory (numbers in every column but [`TEXT_COLUMNS`], t finite and
//! increasing; a bad cell names the file, the row and the column), [`Table`] a trajectory read
//! into columns, and [`locate`] / [`interpolate`] the value of a column at a time t.
//!
//! Writing: every CSV the program writes (the trajectory, the sweep summary, the replay's
//! per-start errors) is written line by line through [`CsvLine`]: numbers shortest-round-trip
//! (Rust's `{:?}` for f64), text quoted only when it must be (a comma, a quote, a line break),
//! quotes doubled, lines ended by `\n` - the bytes `csv::Writer`'s default configuration writes,
//! without its buffer between the line and the output.

use std::fmt::Write as _;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;

use thiserror::Error;

use crate::display::{echoed, Compact};
use crate::input_limits::{read_failure, Bounded, InputLimit};

/// The columns of a trajectory that hold text, not numbers, besides each diabolo's `dK_mode`.
pub const TEXT_COLUMNS: [&str; 1] = ["phase"];

/// Whether the column `name` holds text: `phase` and each diabolo's `dK_mode` (`string`,
/// `flying`, `dropped`).
pub fn is_text_column(name: &str) -> bool {
    TEXT_COLUMNS.contains(&name) || diabolo_field(name).is_some_and(|f| f == "mode")
}

/// Whether a cell of column `name` may be empty (read as missing, NaN): a diabolo's theta and
/// knot while it is off the string, and the tensions T1..TN of segments the string does not
/// have while diabolos are off it.
pub fn may_be_empty(name: &str) -> bool {
    diabolo_field(name).is_some_and(|f| f == "theta" || f == "knot")
        || name
            .strip_prefix('T')
            .is_some_and(|j| !j.is_empty() && j.bytes().all(|b| b.is_ascii_digit()))
}

/// The field of a per-diabolo column `dK_field` (K a number), if `name` is one.
fn diabolo_field(name: &str) -> Option<&str> {
    let rest = name.strip_prefix('d')?;
    let (k, field) = rest.split_once('_')?;
    (!k.is_empty() && k.bytes().all(|b| b.is_ascii_digit())).then_some(field)
}

/// A trajectory file that cannot be read as a table.
#[derive(Debug, Error)]
pub enum TableError {
    /// The file cannot be opened or parsed as a trajectory (header, row length, no rows).
    #[error("{file}: {reason}")]
    Input {
        /// The file, as named in messages.
        file: String,
        /// What is wrong, with the row when there is one.
        reason: String,
    },
    /// A cell of a numeric column is not a number.
    #[error(
        "{file}: row {row}, column {column}: {value} is not a number (every column but phase \
         and the dK_mode columns holds numbers, NaN or inf; dK_theta, dK_knot and T1..TN may \
         be empty); fix the cell or regenerate the file with diabolo run"
    )]
    NotANumber {
        /// The file, as named in messages.
        file: String,
        /// The row in the file, the header being row 1.
        row: u64,
        /// The column's name in the header.
        column: String,
        /// The cell, as echoed.
        value: String,
    },
    /// A time t that is not finite or does not increase.
    #[error("{file}: row {row}: t = {t} {reason}")]
    Time {
        /// The file, as named in messages.
        file: String,
        /// The row in the file, the header being row 1.
        row: u64,
        /// The t cell, as echoed.
        t: String,
        /// What is wrong with it (not finite, or not after the row before's t).
        reason: String,
    },
}

/// The one CSV reader configuration: records of any length, fields trimmed, `#` lines skipped;
/// the header is the caller's first record.
pub fn csv_reader<R: Read>(input: R) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(input)
}

/// A CSV error's reason without the crate's own position text.
pub fn csv_reason(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".into(),
        csv::ErrorKind::Io(e) => read_failure(e),
        _ => e.to_string(),
    }
}

/// An input limit reached by a CSV read (its message names its own line).
pub fn csv_limit(e: &csv::Error) -> Option<InputLimit> {
    match e.kind() {
        csv::ErrorKind::Io(e) => InputLimit::of(e),
        _ => None,
    }
}

/// One row of a trajectory: its numbers (NaN in the text columns) and its fields as text.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// Every column's value, in header order, in that column's unit (NaN in a text column).
    pub numbers: Vec<f64>,
    /// Every column's field as read (trimmed).
    pub fields: csv::StringRecord,
}

impl Row {
    /// The row's time t, s (its first column).
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
    /// The column names of the header, `t` first.
    fn names(&self) -> &[String];
    /// Reads the next row into `row`; false at the end (`row` is then unspecified).
    fn read(&mut self, row: &mut Row) -> Result<bool, TableError>;
}

/// A strict, streaming reader of a trajectory CSV: a header whose first column is `t`, then rows
/// of as many fields, numbers in every column but the text ones (`phase`), t finite and
/// increasing. Spaces around fields are ignored.
pub struct TrajectoryReader<R: Read> {
    file: String,
    names: Vec<String>,
    text: Vec<bool>,
    /// Whether each column's cells may be empty.
    empty: Vec<bool>,
    csv: csv::Reader<R>,
    previous_t: Option<f64>,
}

impl TrajectoryReader<Bounded<Box<dyn BufRead + Send>>> {
    /// Opens a trajectory file (gzip-compressed or not, rows at most
    /// [`crate::input_limits::MAX_LINE_BYTES`] long, see [`super::compress`]) and reads its header.
    pub fn open(path: &Path) -> Result<Self, TableError> {
        let file = path.display().to_string();
        let input = super::compress::open(path).map_err(|e| TableError::Input {
            file: file.clone(),
            reason: read_failure(&e),
        })?;
        Self::new(file, input)
    }
}

impl<R: Read> TrajectoryReader<R> {
    /// A reader of `input` (named `file` in messages); reads the header.
    pub fn new(file: String, input: R) -> Result<Self, TableError> {
        let mut csv = csv_reader(input);
        let fail = |reason: String| TableError::Input {
            file: file.clone(),
            reason,
        };
        let mut header = csv::StringRecord::new();
        csv.read_record(&mut header)
            .map_err(|e| match csv_limit(&e) {
                Some(limit) => fail(limit.to_string()),
                None => fail(format!("not a CSV file: {}", csv_reason(&e))),
            })?;
        let names: Vec<String> = header.iter().map(String::from).collect();
        if names.first().map(String::as_str) != Some("t") {
            return Err(fail(
                "the first column must be t (a trajectory written by diabolo run)".into(),
            ));
        }
        let text = names.iter().map(|n| is_text_column(n)).collect();
        let empty = names.iter().map(|n| may_be_empty(n)).collect();
        Ok(Self {
            file,
            names,
            text,
            empty,
            csv,
            previous_t: None,
        })
    }

    /// True for a text column (`phase`).
    pub fn is_text(&self, column: usize) -> bool {
        self.text[column]
    }

    /// The cell of `column` as a number (NaN in a text column).
    fn number(&self, line: u64, column: usize, field: &str) -> Result<f64, TableError> {
        if self.text[column] || (field.is_empty() && self.empty[column]) {
            return Ok(f64::NAN);
        }
        field.parse().map_err(|_| TableError::NotANumber {
            file: self.file.clone(),
            row: line,
            column: self.names[column].clone(),
            value: if field.is_empty() {
                "an empty cell".into()
            } else {
                format!("`{}`", echoed(field))
            },
        })
    }

    /// Refuses a t that is not finite or does not increase.
    fn check_time(&mut self, line: u64, row: &Row) -> Result<(), TableError> {
        let t = row.t();
        let time_error = |reason: String| TableError::Time {
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
        Ok(())
    }
}

impl<R: Read> RowSource for TrajectoryReader<R> {
    fn file(&self) -> &str {
        &self.file
    }

    fn names(&self) -> &[String] {
        &self.names
    }

    fn read(&mut self, row: &mut Row) -> Result<bool, TableError> {
        let line = self.csv.position().line() + 1;
        let more = self
            .csv
            .read_record(&mut row.fields)
            .map_err(|e| TableError::Input {
                file: self.file.clone(),
                reason: match csv_limit(&e) {
                    Some(limit) => limit.to_string(),
                    None => format!("row {line}: {}", csv_reason(&e)),
                },
            })?;
        if !more {
            return Ok(false);
        }
        let line = row.fields.position().map_or(line, |p| p.line());
        if row.fields.len() != self.names.len() {
            return Err(TableError::Input {
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
            let value = self.number(line, column, field)?;
            row.numbers.push(value);
        }
        self.check_time(line, row)?;
        Ok(true)
    }
}

/// A trajectory CSV read into columns (every row, or evenly thinned to a bound).
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The column names of the header, `t` first.
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
    pub fn read(path: &Path) -> Result<Self, TableError> {
        Self::read_thinned(path, usize::MAX)
    }

    /// Reads a trajectory file keeping at most about `max_rows` rows, evenly spread: when the
    /// kept rows reach `max_rows`, every other one is dropped and from then on every second
    /// (fourth, ...) row of the file is kept, so memory is bounded whatever the file's length.
    /// The last row is always kept (the table spans the whole run).
    pub fn read_thinned(path: &Path, max_rows: usize) -> Result<Self, TableError> {
        Self::collect(&mut TrajectoryReader::open(path)?, max_rows)
    }

    /// Parses CSV text with a header row and a `t` column.
    pub fn parse(text: &str) -> Result<Self, String> {
        TrajectoryReader::new("(text)".into(), text.as_bytes())
            .and_then(|mut reader| Self::collect(&mut reader, usize::MAX))
            .map_err(|e| match e {
                TableError::Input { reason, .. } => reason,
                other => other.to_string().trim_start_matches("(text): ").to_string(),
            })
    }

    /// Reads every row of `reader`, keeping at most about `max_rows` (see
    /// [`Table::read_thinned`]).
    pub fn collect<R: Read>(
        reader: &mut TrajectoryReader<R>,
        max_rows: usize,
    ) -> Result<Self, TableError> {
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
            return Err(TableError::Input {
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

    /// The rows kept.
    pub fn rows(&self) -> usize {
        self.numbers[0].len()
    }

    /// The index of the column `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The values of the column `name` (NaN in a text column).
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.position(name).map(|c| self.numbers[c].as_slice())
    }

    /// The value of the numeric column `name` at time `at`, s: linear between rows, held at the
    /// ends (see [`interpolate`]).
    pub fn value_at(&self, name: &str, at: f64) -> Option<f64> {
        self.column(name)
            .map(|values| interpolate(&self.numbers[0], values, at))
    }

    /// The rows, one at a time, as a [`RowSource`] named `(table)`.
    pub fn row_source(&self) -> TableRows<'_> {
        TableRows {
            table: self,
            next: 0,
        }
    }
}

/// The rows of a table, as a [`RowSource`].
pub struct TableRows<'a> {
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

    fn read(&mut self, row: &mut Row) -> Result<bool, TableError> {
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

/// The index i with `t[i] <= at < t[i + 1]` (clamped to the samples: held at the ends), and
/// the fraction of the way to `t[i + 1]`.
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

/// Appends `value` shortest-round-trip, by `zmij` (Schubfach), in the notation of Rust's `{:?}`
/// (0.1, 1e-7, 1.5e16, NaN, inf): `zmij` writes 1e-5 <= |value| < 1e-4 plainly (0.0000123) where
/// `{:?}` uses scientific notation (1.23e-5), and a positive exponent with its sign (1.5e+16);
/// both are rewritten. The text is `{:?}`'s but for exact ties between two shortest decimals
/// (917410581810119.25: `zmij` .2, `{:?}` .3); both read back to the same f64.
pub fn push_shortest(out: &mut String, value: f64) {
    if !value.is_finite() {
        out.push_str(if value.is_nan() {
            "NaN"
        } else if value > 0.0 {
            "inf"
        } else {
            "-inf"
        });
        return;
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(value);
    // Most numbers need no rewriting: tell them by their magnitude, not by their text.
    let magnitude = value.abs();
    let small = (1e-5..1e-4)
        .contains(&magnitude)
        .then(|| {
            let (sign, digits) = text.split_at(usize::from(value < 0.0));
            let mantissa = digits.strip_prefix("0.0000").filter(|m| !m.is_empty())?;
            Some((sign, mantissa))
        })
        .flatten();
    if let Some((sign, mantissa)) = small {
        // "0.0000123" (or "-0.0000123") -> "1.23e-5".
        out.push_str(sign);
        let (lead, rest) = mantissa.split_at(1);
        out.push_str(lead);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str("e-5");
    } else if magnitude >= 1e16 {
        // "1.5e+16" -> "1.5e16".
        match text.split_once("e+") {
            Some((mantissa, exponent)) => {
                out.push_str(mantissa);
                out.push('e');
                out.push_str(exponent);
            }
            None => out.push_str(text),
        }
    } else {
        out.push_str(text);
    }
}

/// One CSV line being written: fields appended in order, then [`CsvLine::end`] writes the line
/// and starts the next. The buffer is reused: writing a line allocates nothing once it has
/// grown to the longest line.
#[derive(Clone, Debug)]
pub struct CsvLine {
    line: String,
    /// Where the current line starts in `line` (after the lines kept by
    /// [`CsvLine::end_kept`]).
    start: usize,
    /// True before the line's first field (no comma before it).
    first: bool,
}

impl Default for CsvLine {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl CsvLine {
    /// An empty line with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            line: String::with_capacity(capacity),
            start: 0,
            first: true,
        }
    }

    fn separate(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.line.push(',');
        }
    }

    /// A number, shortest-round-trip ([`push_shortest`]: 0.1, 1e-7, NaN, inf).
    pub fn number(&mut self, value: f64) -> &mut Self {
        self.separate();
        push_shortest(&mut self.line, value);
        self
    }

    /// A word that holds no comma, quote or line break (a name), as it is.
    pub fn word(&mut self, value: &str) -> &mut Self {
        self.separate();
        self.line.push_str(value);
        self
    }

    /// An integer.
    pub fn integer(&mut self, value: i64) -> &mut Self {
        self.separate();
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = value.unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        if value < 0 {
            self.line.push('-');
        }
        for &d in &digits[at..] {
            self.line.push(char::from(d));
        }
        self
    }

    /// Anything whose `Display` holds no comma, quote or line break (an integer, a name).
    pub fn plain(&mut self, value: impl std::fmt::Display) -> &mut Self {
        self.separate();
        let _ = write!(self.line, "{value}");
        self
    }

    /// Text, quoted when it holds a comma, a quote or a line break (quotes doubled).
    pub fn text(&mut self, value: &str) -> &mut Self {
        self.separate();
        if value
            .bytes()
            .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
        {
            self.line.push('"');
            self.line.push_str(&value.replace('"', "\"\""));
            self.line.push('"');
        } else {
            self.line.push_str(value);
        }
        self
    }

    /// Text fields in order (see [`CsvLine::text`]).
    pub fn texts<S: AsRef<str>>(&mut self, values: impl IntoIterator<Item = S>) -> &mut Self {
        for value in values {
            self.text(value.as_ref());
        }
        self
    }

    /// Ends the line (`\n`), writes it to `out` and starts the next. A line of one empty field
    /// is written `""` (else it would read as no field).
    pub fn end(&mut self, out: &mut (impl Write + ?Sized)) -> io::Result<()> {
        self.end_kept();
        let written = out.write_all(self.line.as_bytes());
        self.line.clear();
        self.start = 0;
        written
    }

    /// Ends the line (`\n`, a line of one empty field written `""`) and keeps it in the
    /// buffer: the next line is appended after it (see [`CsvLine::swap_buffer`]).
    pub fn end_kept(&mut self) {
        if self.line.len() == self.start && !self.first {
            self.line.push_str("\"\"");
        }
        self.line.push('\n');
        self.start = self.line.len();
        self.first = true;
    }

    /// Exchanges the line's buffer with `buffer` between lines: the lines kept so far go to
    /// `buffer`, and the next lines are appended to what `buffer` held. Lines formatted
    /// straight into a block of text, without a copy per line.
    pub fn swap_buffer(&mut self, buffer: &mut String) {
        debug_assert!(self.first && self.line.len() == self.start);
        std::mem::swap(&mut self.line, buffer);
        self.start = self.line.len();
    }
}

#[cfg(test)]
mod shortest_tests {
    use super::push_shortest;
    use proptest::prelude::*;

    fn shortest(v: f64) -> String {
        let mut s = String::new();
        push_shortest(&mut s, v);
        s
    }

    #[test]
    fn integers_read_as_display_writes_them() {
        for v in [0, 1, -1, 9, 10, -10, 1234567, i64::MAX, i64::MIN] {
            let mut line = super::CsvLine::default();
            line.integer(v);
            let mut out = Vec::new();
            line.end(&mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap().trim_end(), v.to_string());
        }
    }

    #[test]
    fn numbers_read_as_rusts_debug_writes_them_at_the_edges() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            1e-4,
            9.99e-5,
            1e-5,
            1.5e-5,
            -2.25e-5,
            9.99999e-6,
            1e-7,
            1e15,
            1e16,
            1.5e16,
            -2.5e17,
            -f64::MAX,
            123456789.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.30000000000000004,
        ] {
            assert_eq!(shortest(v), format!("{v:?}"), "{v:e}");
        }
    }

    /// Reads back to `v` and is as short as `{:?}` in the same notation.
    fn check(v: f64) -> Result<(), TestCaseError> {
        let (ours, debug) = (shortest(v), format!("{v:?}"));
        if v.is_nan() {
            prop_assert_eq!(ours, debug);
            return Ok(());
        }
        prop_assert_eq!(
            ours.parse::<f64>().unwrap().to_bits(),
            v.to_bits(),
            "{}",
            ours
        );
        prop_assert_eq!(ours.len(), debug.len(), "{} against {}", ours, debug);
        prop_assert_eq!(
            ours.contains('e'),
            debug.contains('e'),
            "{} against {}",
            ours,
            debug
        );
        Ok(())
    }

    proptest! {
        #[test]
        fn every_float_reads_back_as_short_as_rusts_debug(bits in any::<u64>()) {
            check(f64::from_bits(bits))?;
        }

        #[test]
        fn floats_between_1e_5_and_1e_4_take_rusts_scientific_notation(bits in 0x3EE4_F8B5_88E3_68F1u64..=0x3F1A_36E2_EB1C_432Du64) {
            // Every f64 from 1e-5 to 1e-4 (positive floats order as their bits).
            check(f64::from_bits(bits))?;
            check(-f64::from_bits(bits))?;
        }

        #[test]
        fn floats_of_every_decade_read_back_as_short_as_rusts_debug(m in 1.0f64..10.0, e in -30i32..30) {
            let v = m * 10f64.powi(e);
            check(v)?;
            check(-v)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_table_reads_back_with_the_same_bits() {
        let values = [
            0.1,
            -0.0,
            1e-300,
            f64::MIN_POSITIVE / 3.0,
            1.0 / 3.0,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            6.02214076e23,
        ];
        let mut out = Vec::new();
        let mut line = CsvLine::with_capacity(64);
        line.texts(["t", "phase", "x"]).end(&mut out).unwrap();
        for (i, &x) in values.iter().enumerate() {
            line.number(i as f64 * 0.1)
                .text(if i % 2 == 0 { "taut" } else { "loose" })
                .number(x)
                .end(&mut out)
                .unwrap();
        }
        let table = Table::parse(std::str::from_utf8(&out).unwrap()).unwrap();
        assert_eq!(table.names, ["t", "phase", "x"]);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&table.numbers[2]), bits(&values));
        assert_eq!(table.text[1][1], "loose");
    }

    #[test]
    fn text_is_quoted_as_the_csv_crate_writes_it() {
        let fields = [
            "plain",
            "",
            "a,b",
            "say \"hi\"",
            "two\nlines",
            "cr\r",
            " spaced ",
            "#hash",
            "é",
        ];
        let mut expected = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(Vec::new());
        expected.write_record(fields).unwrap();
        expected.write_record([""]).unwrap();
        let mut ours = Vec::new();
        let mut line = CsvLine::default();
        line.texts(fields).end(&mut ours).unwrap();
        line.text("").end(&mut ours).unwrap();
        assert_eq!(ours, expected.into_inner().unwrap());
    }

    #[test]
    fn interpolation_is_exact_at_rows_linear_between_and_held_at_the_ends() {
        let table = Table::parse("t,phase,x\n0,taut,1\n0.5,taut,2\n1,loose,4\n").unwrap();
        let t = &table.numbers[0];
        assert_eq!(locate(t, 0.5), (1, 0.0));
        assert_eq!(locate(t, 0.75), (1, 0.5));
        assert_eq!(table.value_at("x", 0.5), Some(2.0));
        assert_eq!(table.value_at("x", 0.25), Some(1.5));
        assert_eq!(table.value_at("x", 0.75), Some(3.0));
        assert_eq!(table.value_at("x", -1.0), Some(1.0));
        assert_eq!(table.value_at("x", 2.0), Some(4.0));
        assert_eq!(table.value_at("y", 0.5), None);
        assert_eq!(table.column("x"), Some(&[1.0, 2.0, 4.0][..]));
        assert!(table.column("phase").unwrap().iter().all(|x| x.is_nan()));
    }

    #[test]
    fn a_short_row_is_refused_with_its_row_number() {
        let text = "t,phase,x\n0,taut,1\n0.5,taut\n";
        let mut reader = TrajectoryReader::new("x.csv".into(), text.as_bytes()).unwrap();
        let mut row = Row::default();
        assert!(reader.read(&mut row).unwrap());
        let error = reader.read(&mut row).unwrap_err().to_string();
        assert_eq!(error, "x.csv: row 3 has 2 fields, the header 3");
        assert_eq!(
            Table::parse(text).unwrap_err(),
            "row 3 has 2 fields, the header 3"
        );
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
}
