//! The trajectory CSV of docs/interface.md: fixed leading columns, then per diabolo, then the
//! tensions, then G, F_C, hand forces, energy and slack; then the energy ledger (added columns).
//! Numbers are written shortest-round-trip (Rust's `{:?}` for f64).

use std::io::{self, Write};

use super::table::CsvLine;
use crate::model::friction::{Axles, SlipReference};
use crate::model::CartesianState;
use crate::model::{tension, Kinematics, Params, StickInput};
use crate::simulation::run::{Row, Simulation};

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

/// What a loose row shows in the G and FC columns: the taut formulas evaluated on the loose
/// state, with the hands' forces as their inputs: the gear ratio G (dimensionless) and the
/// centrifugal term F^_C (m/s^2), both NaN where the formulas are undefined (a configuration
/// without string angles). The string is slack, so neither acts on the motion; they show how
/// close the state is to what the taut string would do.
pub fn loose_taut_terms(params: &Params, row: &Row) -> (f64, f64) {
    LooseTerms::default().of(params, row)
}

/// The workspace of [`loose_taut_terms`], reused from row to row (rebuilt when the number of
/// diabolos on the string changes).
#[derive(Default)]
struct LooseTerms {
    kinematics: Option<(Kinematics, Axles)>,
    spins: Vec<f64>,
    state: CartesianState,
}

impl LooseTerms {
    fn of(&mut self, params: &Params, row: &Row) -> (f64, f64) {
        row.string_state_into(&mut self.state);
        let n = self.state.diabolo_count();
        let (kinematics, axles) = match &mut self.kinematics {
            Some((k, a)) if k.diabolos() == n => (k, a),
            slot => {
                let (k, a) = slot.insert((Kinematics::new(n), Axles::new(n)));
                (k, a)
            }
        };
        if kinematics.load_cartesian(&self.state).is_err() {
            return (f64::NAN, f64::NAN);
        }
        self.spins.clear();
        self.spins
            .extend(self.state.diabolos.iter().map(|d| d.spin));
        axles.update(
            params.friction_law,
            params.friction,
            kinematics,
            &self.spins,
            None,
            SlipReference::LeftSide,
        );
        let inputs = row.hand_forces.map(StickInput::Force);
        let formulas = tension::solve(params, kinematics, axles, &inputs, Default::default());
        (formulas.gear_ratio, formulas.centrifugal_term)
    }
}

/// Writes the rows of one simulation to any `io::Write` through one reused [`CsvLine`].
pub struct TrajectoryWriter<W: Write> {
    out: W,
    line: CsvLine,
    /// The simulation's parameters, for the G and FC columns of loose rows.
    params: Params,
    loose: LooseTerms,
}

impl<W: Write> TrajectoryWriter<W> {
    /// Writes the header for the diabolos of `simulation`.
    pub fn new(mut out: W, simulation: &Simulation) -> io::Result<Self> {
        let n = simulation.initial.diabolo_count();
        let mut line = CsvLine::with_capacity(64 * (n + 4));
        let elastic = simulation.params.string_stiffness.is_some();
        line.texts(trajectory_header(n, elastic)).end(&mut out)?;
        Ok(Self {
            out,
            line,
            params: simulation.params,
            loose: LooseTerms::default(),
        })
    }

    /// Writes one row; a loose row's G and FC are [`loose_taut_terms`].
    pub fn write_row(&mut self, row: &Row) -> io::Result<()> {
        let (gear_ratio, centrifugal_term) = match (row.gear_ratio, row.centrifugal_term) {
            (Some(g), Some(fc)) => (g, fc),
            _ => self.loose.of(&self.params, row),
        };
        let line = &mut self.line;
        line.number(row.t).word(row.phase.map_or("", |p| p.name()));
        for stick in [&row.state.left, &row.state.right] {
            line.number(stick.pos.x)
                .number(stick.pos.y)
                .number(stick.vel.x)
                .number(stick.vel.y);
        }
        for (k, d) in row.state.diabolos.iter().enumerate() {
            line.number(d.pos.x)
                .number(d.pos.y)
                .number(d.vel.x)
                .number(d.vel.y)
                .number(d.spin);
            // theta and the knot degree exist on the string only.
            match row.thetas.get(k).copied().flatten() {
                Some(theta) => line.number(theta).integer(i64::from(d.knot)),
                None => line.word("").word(""),
            };
        }
        for j in 0..=row.state.diabolo_count() {
            match row.tensions.get(j) {
                Some(&t) => line.number(t),
                None => line.word(""),
            };
        }
        for v in [
            gear_ratio,
            centrifugal_term,
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
            line.number(v);
        }
        if let Some(loss) = row.string_loss {
            line.number(loss);
        }
        for (mode, slot) in row.modes.iter().zip(&row.slots) {
            line.word(mode.name()).integer(*slot as i64);
        }
        line.end(&mut self.out)
    }

    /// The sink, the writer done.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The sink, to flush or inspect between rows.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

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
                    loose_taut_terms(&simulation.params, row)
                }
            };
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
