//! The trajectory CSV of interface.md: fixed leading columns, then per diabolo, then the
//! tensions, then G, F_C, hand forces, energy and slack; then the energy ledger (added columns).
//! Numbers are written shortest-round-trip (Rust's `{:?}` for f64).

use std::fmt::Write as _;
use std::io::{self, Write};

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

/// Writes rows to any `io::Write`, one reused line buffer.
pub struct TrajectoryWriter<W: Write> {
    out: W,
    line: String,
}

impl<W: Write> TrajectoryWriter<W> {
    /// Writes the header for `n` diabolos.
    pub fn new(mut out: W, n: usize) -> io::Result<Self> {
        writeln!(out, "{}", trajectory_header(n).join(","))?;
        Ok(Self {
            out,
            line: String::with_capacity(64 * (n + 4)),
        })
    }

    pub fn write_row(&mut self, row: &Row) -> io::Result<()> {
        let line = &mut self.line;
        line.clear();
        let phase = row.phase.map_or("", |p| p.name());
        let _ = write!(line, "{:?},{phase}", row.t);
        let number = |line: &mut String, v: f64| {
            let _ = write!(line, ",{v:?}");
        };
        for stick in [&row.state.left, &row.state.right] {
            number(line, stick.pos.x);
            number(line, stick.pos.y);
            number(line, stick.vel.x);
            number(line, stick.vel.y);
        }
        for (k, d) in row.state.diabolos.iter().enumerate() {
            number(line, d.pos.x);
            number(line, d.pos.y);
            number(line, d.vel.x);
            number(line, d.vel.y);
            number(line, d.spin);
            number(line, row.thetas.get(k).copied().unwrap_or(f64::NAN));
            let _ = write!(line, ",{}", d.knot);
        }
        for &t in &row.tensions {
            number(line, t);
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
            number(line, v);
        }
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }
}
