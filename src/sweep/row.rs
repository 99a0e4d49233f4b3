//! The summary CSV of a sweep: its header and each point's metrics after the run.

use serde_json::Value;

use super::Sweep;
use crate::output::Summary;
use crate::simulation::{EventKind, RunReport};

impl Sweep {
    /// The header of the summary CSV.
    pub fn header(&self) -> Vec<String> {
        let mut h = vec!["index".to_string()];
        h.extend(self.axes.iter().map(|a| a.key().to_string()));
        for name in [
            "status",
            "error",
            "end_time",
            "steps",
            "rejected_steps",
            "derivative_evaluations",
            "rows",
        ] {
            h.push(name.into());
        }
        h.extend(
            EventKind::ALL
                .iter()
                .map(|k| format!("events_{}", k.name())),
        );
        for name in [
            "max_tension",
            "min_t0",
            "energy_initial",
            "energy_final",
            "energy_change",
            "grip_needed",
        ] {
            h.push(name.into());
        }
        for k in 1..=self.diabolos {
            for f in ["x", "y", "vx", "vy", "w"] {
                h.push(format!("d{k}_{f}_final"));
            }
        }
        h.push("contacts".into());
        for k in 1..=self.diabolos {
            for f in ["leaves", "landings", "airtime", "max_height", "dropped"] {
                h.push(format!("d{k}_{f}"));
            }
        }
        h
    }

    pub(super) fn metrics(&self, report: &RunReport, summary: &Summary, row: &mut Vec<String>) {
        let number = |v: f64| format!("{v:?}");
        row.push(number(report.end_time));
        for v in [
            report.stats.steps,
            report.stats.rejected_steps,
            report.stats.derivative_evaluations,
            report.stats.rows,
        ] {
            row.push(v.to_string());
        }
        for kind in EventKind::ALL {
            row.push(
                report
                    .events
                    .iter()
                    .filter(|e| e.kind == kind)
                    .count()
                    .to_string(),
            );
        }
        let (e0, e1) = report.energy;
        row.push(number(summary.max_tension));
        row.push(if summary.min_base_tension.is_finite() {
            number(summary.min_base_tension)
        } else {
            String::new()
        });
        row.push(number(e0));
        row.push(number(e1));
        row.push(number(e1 - e0));
        row.push(report.grip_needed.map(number).unwrap_or_default());
        let last = summary.final_diabolos.as_ref();
        for k in 0..self.diabolos {
            match last.and_then(|ds| ds.get(k)) {
                Some(d) => {
                    for v in [d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin] {
                        row.push(number(v));
                    }
                }
                None => row.extend(std::iter::repeat_n(String::new(), 5)),
            }
        }
        row.push(report.contacts.to_string());
        let heights = summary.max_heights(report);
        for k in 0..self.diabolos {
            match report.flights.get(k) {
                Some(f) => {
                    row.push(f.leaves.to_string());
                    row.push(f.landings.to_string());
                    row.push(number(f.airtime));
                    row.push(heights.get(k).map(|&h| number(h)).unwrap_or_default());
                    row.push(f.dropped.to_string());
                }
                None => row.extend(std::iter::repeat_n(String::new(), 5)),
            }
        }
    }
}

/// An axis value as its CSV field: a string as it is, a float in its shortest round-trip form.
pub(super) fn show_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => format!("{f:?}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}
