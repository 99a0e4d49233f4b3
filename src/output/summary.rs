//! The one-line JSON summary of a run: work done, events by kind, extremes of the tension, the
//! final spins and positions, the energy change, the grip the motion needed, the wall time.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::model::DiaboloState;
use crate::simulation::{Row, RunReport};

/// Extremes gathered row by row while a run streams out.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Largest segment tension seen, N.
    pub max_tension: f64,
    /// Smallest T_0 over taut rows, N.
    pub min_base_tension: f64,
    /// The diabolos of the last row (None before the first row).
    pub final_diabolos: Option<Vec<DiaboloState>>,
    /// The highest centre of each diabolo over the rows, m.
    pub max_heights: Vec<f64>,
}

impl Default for Summary {
    fn default() -> Self {
        Self {
            max_tension: 0.0,
            min_base_tension: f64::INFINITY,
            final_diabolos: None,
            max_heights: Vec::new(),
        }
    }
}

impl Summary {
    /// Takes one output row into the extremes and keeps its diabolos as the final ones.
    pub fn observe(&mut self, row: &Row) {
        for &t in &row.tensions {
            self.max_tension = self.max_tension.max(t);
        }
        if row.phase == Some(crate::simulation::phase::Phase::Taut) {
            if let Some(&t0) = row.tensions.first() {
                self.min_base_tension = self.min_base_tension.min(t0);
            }
        }
        let heights = &mut self.max_heights;
        heights.resize(row.state.diabolo_count(), f64::NEG_INFINITY);
        for (h, d) in heights.iter_mut().zip(&row.state.diabolos) {
            *h = h.max(d.pos.y);
        }
        // Reuses the buffer: no allocation per row.
        let last = self.final_diabolos.get_or_insert_with(Vec::new);
        last.clear();
        last.extend_from_slice(&row.state.diabolos);
    }

    /// The highest centre of each diabolo over the run, m: over the rows, and the apex of
    /// every flight (which may fall between rows).
    pub fn max_heights(&self, report: &RunReport) -> Vec<f64> {
        let count = self.max_heights.len().max(report.flights.len());
        (0..count)
            .map(|k| {
                let rows = self
                    .max_heights
                    .get(k)
                    .copied()
                    .unwrap_or(f64::NEG_INFINITY);
                let flight = report
                    .flights
                    .get(k)
                    .map_or(f64::NEG_INFINITY, |f| f.highest_flight);
                rows.max(flight)
            })
            .collect()
    }

    /// The summary object.
    pub fn to_json(&self, name: Option<&str>, report: &RunReport, wall: Duration) -> Value {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &report.events {
            *kinds.entry(e.kind.name()).or_default() += 1;
        }
        let finite = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
        let (e0, e1) = report.energy;
        let last = self.final_diabolos.as_ref();
        json!({
            "scenario": name,
            "status": report.failure.as_ref().map_or("ok", |f| f.status()),
            "failure": report.failure.as_ref().map(|f| f.to_string()),
            "end_time": report.end_time,
            "steps": report.stats.steps,
            "rejected_steps": report.stats.rejected_steps,
            "derivative_evaluations": report.stats.derivative_evaluations,
            "rows": report.stats.rows,
            "events": kinds,
            "max_tension": finite(self.max_tension),
            "min_t0": finite(self.min_base_tension),
            "final_spin": last.map(|ds| ds.iter().map(|d| d.spin).collect::<Vec<_>>()),
            "final_positions": last.map(|ds| ds.iter().map(|d| [d.pos.x, d.pos.y]).collect::<Vec<_>>()),
            "energy_initial": e0,
            "energy_final": e1,
            "energy_change": e1 - e0,
            "grip_needed": report.grip_needed,
            "leaves": report.flights.iter().map(|f| f.leaves).collect::<Vec<_>>(),
            "landings": report.flights.iter().map(|f| f.landings).collect::<Vec<_>>(),
            "airtime": report.flights.iter().map(|f| f.airtime).collect::<Vec<_>>(),
            "max_height": self.max_heights(report).iter().map(|&h| finite(h)).collect::<Vec<_>>(),
            "dropped": report.flights.iter().map(|f| f.dropped).collect::<Vec<_>>(),
            "contacts": report.contacts,
            "wall_time": wall.as_secs_f64(),
        })
    }
}
