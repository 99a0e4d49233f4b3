//! The trajectory CSV of interface.md: fixed leading columns, then per diabolo, then the
//! tensions, then G, F_C, hand forces, energy and slack; then the energy ledger (added columns).
//! Numbers are written shortest-round-trip (Rust's `{:?}` for f64).

use std::io::{self, Write};

use super::table::CsvLine;
use crate::model::friction::{Axles, SlipReference};
use crate::model::{tension, Kinematics, Params, StickInput};
use crate::simulation::run::Row;

/// The header of an N-diabolo trajectory.
pub fn trajectory_header(n: usize) -> Vec<String> {
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
    columns
}

/// What a loose row shows in the G and FC columns: the taut formulas evaluated on the loose
/// state, with the hands' forces as their inputs: the gear ratio G (dimensionless) and the
/// centrifugal term F^_C (m/s^2), both NaN where the formulas are undefined (a configuration
/// without string angles). The string is slack, so neither acts on the motion; they show how
/// close the state is to what the taut string would do.
pub fn loose_taut_terms(params: &Params, row: &Row) -> (f64, f64) {
    let state = &row.state;
    let n = state.diabolo_count();
    let mut kinematics = Kinematics::new(n);
    if kinematics.load_cartesian(state).is_err() {
        return (f64::NAN, f64::NAN);
    }
    let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
    let mut axles = Axles::new(n);
    axles.update(
        params.friction_law,
        params.friction,
        &kinematics,
        &spins,
        None,
        SlipReference::LeftSide,
    );
    let inputs = row.hand_forces.map(StickInput::Force);
    let formulas = tension::solve(params, &kinematics, &axles, &inputs, Default::default());
    (formulas.gear_ratio, formulas.centrifugal_term)
}

/// Writes rows to any `io::Write` through one reused [`CsvLine`].
pub struct TrajectoryWriter<W: Write> {
    out: W,
    line: CsvLine,
}

impl<W: Write> TrajectoryWriter<W> {
    /// Writes the header for `n` diabolos.
    pub fn new(mut out: W, n: usize) -> io::Result<Self> {
        let mut line = CsvLine::with_capacity(64 * (n + 4));
        line.texts(trajectory_header(n)).end(&mut out)?;
        Ok(Self { out, line })
    }

    pub fn write_row(&mut self, row: &Row) -> io::Result<()> {
        let line = &mut self.line;
        line.number(row.t).plain(row.phase.map_or("", |p| p.name()));
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
                .number(d.spin)
                .number(row.thetas.get(k).copied().unwrap_or(f64::NAN))
                .plain(d.knot);
        }
        for &t in &row.tensions {
            line.number(t);
        }
        for v in [
            row.gear_ratio,
            row.centrifugal_term,
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
        line.end(&mut self.out)
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn loose_rows_show_the_taut_formulas_of_their_state() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let text = std::fs::read_to_string(dir.join("whip.json")).unwrap();
        let simulation = Scenario::parse(&text, &[]).unwrap().build(&dir).unwrap();
        let mut loose = 0;
        simulation.run(&mut |row| {
            if row.phase.map(|p| p.name()) == Some("loose") {
                loose += 1;
                let (g, fc) = loose_taut_terms(&simulation.params, row);
                assert_eq!(g.to_bits(), row.gear_ratio.to_bits(), "G at t = {}", row.t);
                assert_eq!(
                    fc.to_bits(),
                    row.centrifugal_term.to_bits(),
                    "FC at {}",
                    row.t
                );
            }
        });
        assert!(loose > 10, "{loose} loose rows");
    }
}
