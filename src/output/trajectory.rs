//! The trajectory CSV of docs/interface.md: fixed leading columns, then per diabolo, then the
//! tensions, then G, F_C, hand forces, energy and slack; then the energy ledger (added columns).
//! Numbers are written shortest-round-trip (Rust's `{:?}` for f64).

use std::io::{self, Write};

use super::table::CsvLine;
use crate::simulation::{Row, Simulation};

/// The header of an N-diabolo trajectory (`string_loss` after `impulse_loss` with a compliant
/// string).
pub fn trajectory_header(n: usize, elastic: bool) -> Vec<String> {
    let mut columns: Vec<String> = [
        "t", "phase", "left_x", "left_y", "left_vx", "left_vy", "right_x", "right_y", "right_vx",
        "right_vy",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for k in 1..=n {
        for field in ["x", "y", "vx", "vy", "w", "theta", "knot"] {
            columns.push(format!("d{k}_{field}"));
        }
    }
    columns.extend((0..=n).map(|j| format!("T{j}")));
    for name in [
        "G",
        "FC",
        "left_fx",
        "left_fy",
        "right_fx",
        "right_fy",
        "energy",
        "slack",
        "hand_work",
        "friction_loss",
        "drag_loss",
        "impulse_loss",
    ] {
        columns.push(name.to_string());
    }
    if elastic {
        columns.push("string_loss".to_string());
    }
    for k in 1..=n {
        columns.push(format!("d{k}_mode"));
        columns.push(format!("d{k}_slot"));
    }
    columns
}

/// Where the fields of a trajectory row go, in column order: a CSV line ([`CsvLine`]) or
/// columns of values ([`TrajectoryColumns`]).
pub trait RowFields {
    /// A number (f64).
    fn number(&mut self, value: f64);
    /// An integer (a knot degree, a slot).
    fn integer(&mut self, value: i64);
    /// A name (a phase, a diabolo's mode).
    fn word(&mut self, value: &'static str);
    /// No value (theta and the knot of a diabolo off the string, a missing tension).
    fn missing(&mut self);
}

impl RowFields for CsvLine {
    fn number(&mut self, value: f64) {
        CsvLine::number(self, value);
    }
    fn integer(&mut self, value: i64) {
        CsvLine::integer(self, value);
    }
    fn word(&mut self, value: &'static str) {
        CsvLine::word(self, value);
    }
    fn missing(&mut self) {
        CsvLine::word(self, "");
    }
}

/// The fields of one row in the columns of [`trajectory_header`]; the G and FC columns are
/// [`Row::formulas`] (on a loose row, the taut formulas on its state).
pub(super) fn row_fields(row: &Row, out: &mut impl RowFields) {
    out.number(row.t);
    out.word(row.phase.map_or("", |p| p.name()));
    for stick in [&row.state.left, &row.state.right] {
        for v in [stick.pos.x, stick.pos.y, stick.vel.x, stick.vel.y] {
            out.number(v);
        }
    }
    for (k, d) in row.state.diabolos.iter().enumerate() {
        for v in [d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin] {
            out.number(v);
        }
        // theta and the knot degree exist on the string only.
        match row.thetas.get(k).copied().flatten() {
            Some(theta) => {
                out.number(theta);
                out.integer(i64::from(d.knot));
            }
            None => {
                out.missing();
                out.missing();
            }
        }
    }
    for j in 0..=row.state.diabolo_count() {
        match row.tensions.get(j) {
            Some(&t) => out.number(t),
            None => out.missing(),
        }
    }
    for v in [
        row.formulas.gear_ratio,
        row.formulas.centrifugal_term,
        row.hand_forces[0].x,
        row.hand_forces[0].y,
        row.hand_forces[1].x,
        row.hand_forces[1].y,
        row.energy,
        row.slack,
        row.hand_work,
        row.friction_loss,
        row.drag_loss,
        row.impulse_loss,
    ] {
        out.number(v);
    }
    if let Some(loss) = row.string_loss {
        out.number(loss);
    }
    for (mode, slot) in row.modes.iter().zip(&row.slots) {
        out.word(mode.name());
        out.integer(*slot as i64);
    }
}

/// The trajectory's header of `columns` ([`header_of`]), as a line to end (its buffer sized
/// for the rows).
pub(super) fn header_line(columns: Vec<String>) -> CsvLine {
    let mut line = CsvLine::with_capacity(24 * columns.len());
    line.texts(columns);
    line
}

/// The trajectory's columns for the diabolos of `simulation`.
pub(super) fn header_of(simulation: &Simulation) -> Vec<String> {
    let n = simulation.initial.diabolo_count();
    let elastic = simulation.params.string_stiffness.is_some();
    trajectory_header(n, elastic)
}

/// Writes the rows of one simulation to any `io::Write` through one reused [`CsvLine`].
pub struct TrajectoryWriter<W: Write> {
    out: W,
    line: CsvLine,
}

impl<W: Write> TrajectoryWriter<W> {
    /// Writes the header for the diabolos of `simulation`.
    pub fn new(mut out: W, simulation: &Simulation) -> io::Result<Self> {
        let mut line = header_line(header_of(simulation));
        line.end(&mut out)?;
        Ok(Self { out, line })
    }

    /// Writes one row.
    pub fn write_row(&mut self, row: &Row) -> io::Result<()> {
        row_fields(row, &mut self.line);
        self.line.end(&mut self.out)
    }

    /// The sink, the writer done.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The sink, to flush or inspect between rows.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The sink, to read between rows.
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

/// The values of one trajectory column.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnValues {
    /// Numbers; NaN where the CSV field is empty (theta and knot off the string).
    Numbers(Vec<f64>),
    /// Integers (`dK_slot`).
    Integers(Vec<i64>),
    /// Names (`phase`, `dK_mode`): each row's index into `names`, the names in order of first
    /// appearance ("" for an empty field).
    Words {
        /// Index into `names` per row.
        codes: Vec<u32>,
        /// The distinct names.
        names: Vec<String>,
    },
}

impl ColumnValues {
    /// The kind of column `name` holds: names for `phase` and `dK_mode`, integers for
    /// `dK_slot`, numbers otherwise (a knot degree is a number: it is empty off the string).
    fn for_column(name: &str) -> Self {
        if name == "phase" || name.ends_with("_mode") {
            Self::Words {
                codes: Vec::new(),
                names: Vec::new(),
            }
        } else if name.ends_with("_slot") {
            Self::Integers(Vec::new())
        } else {
            Self::Numbers(Vec::new())
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        match self {
            Self::Numbers(v) => v.len(),
            Self::Integers(v) => v.len(),
            Self::Words { codes, .. } => codes.len(),
        }
    }

    /// Whether no row is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The trajectory as columns, by the names of [`trajectory_header`]: the values the CSV
/// shows, bit for bit (a number the CSV writes shortest-round-trip reads back to the same f64).
pub struct TrajectoryColumns {
    names: Vec<String>,
    columns: Vec<ColumnValues>,
    /// The column the next field goes to.
    cursor: usize,
}

impl TrajectoryColumns {
    /// Empty columns for the diabolos of `simulation`.
    pub fn new(simulation: &Simulation) -> Self {
        let names = header_of(simulation);
        let columns = names.iter().map(|n| ColumnValues::for_column(n)).collect();
        Self {
            names,
            columns,
            cursor: 0,
        }
    }

    /// Empty columns for a run in space with `n` diabolos and a `compliant` string or not
    /// ([`super::space::space_trajectory_header`]).
    pub fn for_space(n: usize, compliant: bool) -> Self {
        let names = super::space::space_trajectory_header(n, compliant);
        let columns = names.iter().map(|n| ColumnValues::for_column(n)).collect();
        Self {
            names,
            columns,
            cursor: 0,
        }
    }

    /// Appends one row.
    pub fn push_row(&mut self, row: &Row) {
        self.cursor = 0;
        row_fields(row, self);
    }

    /// Appends one row of a run in space.
    pub fn push_space_row(&mut self, row: &crate::simulation::space::SpaceRow) {
        self.cursor = 0;
        super::space::space_row_fields(row, self);
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, ColumnValues::len)
    }

    /// The columns, by name, in CSV order.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &ColumnValues)> {
        self.names.iter().map(String::as_str).zip(&self.columns)
    }

    /// The columns, by name, in CSV order, taken.
    pub fn into_columns(self) -> Vec<(String, ColumnValues)> {
        self.names.into_iter().zip(self.columns).collect()
    }

    fn next(&mut self) -> &mut ColumnValues {
        let column = &mut self.columns[self.cursor];
        self.cursor += 1;
        column
    }
}

impl RowFields for TrajectoryColumns {
    fn number(&mut self, value: f64) {
        match self.next() {
            ColumnValues::Numbers(v) => v.push(value),
            ColumnValues::Integers(v) => v.push(value as i64),
            ColumnValues::Words { .. } => unreachable!("a number in a column of names"),
        }
    }
    fn integer(&mut self, value: i64) {
        match self.next() {
            ColumnValues::Numbers(v) => v.push(value as f64),
            ColumnValues::Integers(v) => v.push(value),
            ColumnValues::Words { .. } => unreachable!("an integer in a column of names"),
        }
    }
    fn word(&mut self, value: &'static str) {
        match self.next() {
            ColumnValues::Words { codes, names } => {
                let code = match names.iter().position(|n| n == value) {
                    Some(code) => code,
                    None => {
                        names.push(value.to_string());
                        names.len() - 1
                    }
                };
                codes.push(code as u32);
            }
            _ => unreachable!("a name in a column of numbers"),
        }
    }
    fn missing(&mut self) {
        if let ColumnValues::Words { .. } = self.columns[self.cursor] {
            return self.word("");
        }
        match self.next() {
            ColumnValues::Numbers(v) => v.push(f64::NAN),
            ColumnValues::Integers(v) => v.push(0),
            ColumnValues::Words { .. } => unreachable!("names are handled above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::friction::Axles;
    use crate::model::{tension, Kinematics, Params};
    use crate::scenario::Scenario;

    /// The taut formulas on a row's string state, from a fresh load of its geometry: the
    /// reference for the G and FC columns.
    fn formulas_of(params: &Params, row: &Row) -> (f64, f64) {
        let state = row.string_state();
        let n = state.diabolo_count();
        let mut kinematics = Kinematics::new(n);
        if kinematics.load_cartesian(&state).is_err() {
            return (f64::NAN, f64::NAN);
        }
        let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
        let formulas = tension::formulas_on(
            params,
            &kinematics,
            &mut Axles::new(n),
            &spins,
            row.hand_forces,
        );
        (formulas.gear_ratio, formulas.centrifugal_term)
    }

    #[test]
    fn loose_rows_carry_no_taut_terms_and_the_csv_shows_the_taut_formulas_of_their_state() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let text = std::fs::read_to_string(dir.join("whip.json")).unwrap();
        let simulation = Scenario::parse(&text, &[]).unwrap().build(&dir).unwrap();
        let header = trajectory_header(simulation.initial.diabolo_count(), false);
        let g_column = header.iter().position(|c| c == "G").unwrap();
        let mut writer = TrajectoryWriter::new(Vec::new(), &simulation).unwrap();
        let mut loose = 0;
        simulation.run(&mut |row| {
            let taut = row.phase.map(|p| p.name()) == Some("taut");
            assert_eq!(row.gear_ratio.is_some(), taut, "t = {}", row.t);
            assert_eq!(row.centrifugal_term.is_some(), taut, "t = {}", row.t);
            let start = writer.get_mut().len();
            writer.write_row(row).unwrap();
            let line = std::str::from_utf8(&writer.get_mut()[start..]).unwrap();
            let cells: Vec<&str> = line.trim_end().split(',').collect();
            let (g, fc) = match (row.gear_ratio, row.centrifugal_term) {
                (Some(g), Some(fc)) => (g, fc),
                _ => {
                    loose += 1;
                    formulas_of(&simulation.params, row)
                }
            };
            assert_eq!(
                (row.formulas.gear_ratio, row.formulas.centrifugal_term),
                (g, fc),
                "t = {}",
                row.t
            );
            assert!(g.is_finite() && fc.is_finite(), "t = {}", row.t);
            assert_eq!(cells[g_column], format!("{g:?}"), "G at t = {}", row.t);
            assert_eq!(
                cells[g_column + 1],
                format!("{fc:?}"),
                "FC at t = {}",
                row.t
            );
        });
        assert!(loose > 10, "{loose} loose rows");
    }
}
