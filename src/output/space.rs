//! What a run in space writes (docs/interface.md, "Scenarios in space"): the trajectory CSV with
//! three components per vector and each diabolo's axle, the event log and the summary line.
//! Numbers are shortest-round-trip, as in the plane.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::table::CsvLine;
use super::trajectory::RowFields;
use crate::model::axle_angles::{tilt, turn};
use crate::model::space::SpaceDiabolo;
use crate::simulation::space::{
    Body, SpaceEvent, SpaceEventKind, SpaceReport, SpaceRow, SpaceStatus, SpaceStop,
};

/// The per-diabolo fields of the trajectory in space, after `dK_`.
const DIABOLO_FIELDS: [&str; 14] = [
    "x", "y", "z", "vx", "vy", "vz", "w", "theta", "knot", "ax", "ay", "az", "tilt", "turn",
];

/// The header of an N-diabolo trajectory in space (`string_loss` after `impulse_loss` with a
/// `compliant` string).
pub fn space_trajectory_header(n: usize, compliant: bool) -> Vec<String> {
    let mut columns = vec!["t".to_string(), "phase".to_string()];
    for side in ["left", "right"] {
        for field in ["x", "y", "z", "vx", "vy", "vz"] {
            columns.push(format!("{side}_{field}"));
        }
    }
    for k in 1..=n {
        for field in DIABOLO_FIELDS {
            columns.push(format!("d{k}_{field}"));
        }
    }
    columns.extend((0..=n).map(|j| format!("T{j}")));
    for name in [
        "G",
        "FC",
        "left_fx",
        "left_fy",
        "left_fz",
        "right_fx",
        "right_fy",
        "right_fz",
        "energy",
        "slack",
        "hand_work",
        "friction_loss",
        "drag_loss",
        "impulse_loss",
        "string_loss",
        "axle_work",
    ] {
        if name != "string_loss" || compliant {
            columns.push(name.to_string());
        }
    }
    for k in 1..=n {
        columns.push(format!("d{k}_mode"));
        columns.push(format!("d{k}_slot"));
    }
    columns
}

/// Writes the rows of a run in space to any `io::Write` through one reused [`CsvLine`].
pub struct SpaceTrajectoryWriter<W: Write> {
    out: W,
    line: CsvLine,
}

impl<W: Write> SpaceTrajectoryWriter<W> {
    /// Writes the header for `n` diabolos (`compliant`: with the string's damping loss).
    pub fn new(mut out: W, n: usize, compliant: bool) -> io::Result<Self> {
        let columns = space_trajectory_header(n, compliant);
        let mut line = CsvLine::with_capacity(24 * columns.len());
        line.texts(columns);
        line.end(&mut out)?;
        Ok(Self { out, line })
    }

    /// Writes one row ([`space_row_fields`]).
    pub fn write_row(&mut self, row: &SpaceRow) -> io::Result<()> {
        space_row_fields(row, &mut self.line);
        self.line.end(&mut self.out)
    }

    /// The sink, the writer done.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// The fields of one row of a run in space, in the columns' order, into a CSV line or columns.
/// `dK_theta` is pi + the string's contact angle about the axle (the planar theta); it and
/// `dK_knot` are empty while the diabolo is off the string, as are the tensions `Tj` beyond the
/// n + 1 segments of the string.
pub fn space_row_fields(row: &SpaceRow, line: &mut impl RowFields) {
    let state = row.state;
    line.number(row.t);
    line.word(row.phase.name());
    for stick in [&state.left, &state.right] {
        for v in stick.pos.iter().chain(stick.vel.iter()) {
            line.number(*v);
        }
    }
    for (k, d) in state.diabolos.iter().enumerate() {
        let on_string = row.slots[k] > 0;
        diabolo_fields(line, d, on_string.then_some(row.thetas[k]));
    }
    for j in 0..=state.diabolos.len() {
        match row.tensions.get(j) {
            Some(&t) => line.number(t),
            None => line.missing(),
        }
    }
    line.number(row.gear_ratio);
    line.number(row.centrifugal_term);
    for force in &row.hand_forces {
        for v in force.iter() {
            line.number(*v);
        }
    }
    for v in [
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
    line.number(row.axle_work);
    for (mode, slot) in row.diabolo_modes.iter().zip(row.slots) {
        line.word(mode.name());
        line.integer(*slot as i64);
    }
}

/// A diabolo's fields; `theta` `None` off the string (theta and knot empty).
fn diabolo_fields(line: &mut impl RowFields, d: &SpaceDiabolo, theta: Option<f64>) {
    for v in d.pos.iter().chain(d.vel.iter()) {
        line.number(*v);
    }
    line.number(d.spin);
    match theta {
        Some(theta) if theta.is_finite() => line.number(theta),
        _ => line.missing(),
    };
    match theta {
        Some(_) => line.integer(i64::from(d.knot)),
        None => line.missing(),
    };
    for v in d.axle.iter() {
        line.number(*v);
    }
    line.number(tilt(&d.axle));
    line.number(turn(&d.axle));
}

/// The object an event of the run in space concerns (1..N a diabolo, 0 and N + 1 the sticks),
/// or none.
fn event_object(kind: &SpaceEventKind, n: usize) -> Option<usize> {
    match *kind {
        SpaceEventKind::Stick(k) | SpaceEventKind::Unstick(k) => Some(k),
        SpaceEventKind::VelocityJump(side) => Some(if side == 0 { 0 } else { n + 1 }),
        SpaceEventKind::Knot { diabolo, .. }
        | SpaceEventKind::Leave { diabolo, .. }
        | SpaceEventKind::Land { diabolo, .. }
        | SpaceEventKind::Drop { diabolo, .. } => Some(diabolo),
        SpaceEventKind::Contact { body, .. } | SpaceEventKind::Separate { body, .. } => {
            Some(body_number(body, n))
        }
        _ => None,
    }
}

/// A body's number in the event log: 1..N a diabolo, 0 and N + 1 the sticks.
fn body_number(body: Body, n: usize) -> usize {
    match body {
        Body::Stick(0) => 0,
        Body::Stick(_) => n + 1,
        Body::Diabolo(k) => k,
    }
}

/// A contact's partner as the planar event log names it: `left`, `right` or the diabolo's K.
fn partner_name(body: Body) -> Value {
    match body {
        Body::Stick(0) => json!("left"),
        Body::Stick(_) => json!("right"),
        Body::Diabolo(k) => json!(k),
    }
}

/// The object a stop concerns, if any.
fn stop_object(stop: &SpaceStop) -> Option<usize> {
    match *stop {
        SpaceStop::Cup(k)
        | SpaceStop::OtherFace(k)
        | SpaceStop::SlowSpin(k)
        | SpaceStop::FastTopImpact { diabolo: k, .. }
        | SpaceStop::FromBelow(k)
        | SpaceStop::StraightLanding(k)
        | SpaceStop::LandingStretch { diabolo: k, .. } => Some(k),
        SpaceStop::Resting(a, b)
        | SpaceStop::RestingTurn { a, b, .. }
        | SpaceStop::Inside { a, b, .. }
        | SpaceStop::Impact { a, b, .. } => [a, b].into_iter().find_map(|body| match body {
            Body::Diabolo(k) => Some(k),
            Body::Stick(_) => None,
        }),
        _ => None,
    }
}

/// One event of a run in space as a JSON object: `t`, `kind`, `object`, and the kind's fields
/// as in the plane: `impulse` and `energy_lost` for a tensing, `knot` for a knot change, `slot`
/// for a leave or a landing, `speed` and `offset` (m, where the string passes along the axle)
/// for a landing, `energy_lost` for a drop.
pub fn space_event_json(event: &SpaceEvent, n: usize) -> Value {
    let mut object = Map::new();
    object.insert("t".into(), json!(event.t));
    object.insert("kind".into(), json!(event.kind.name()));
    object.insert("object".into(), json!(event_object(&event.kind, n)));
    let mut put = |key: &str, value: Value| {
        object.insert(key.into(), value);
    };
    match event.kind {
        SpaceEventKind::Tense {
            impulse,
            energy_lost,
        } => {
            put("impulse", json!(impulse));
            put("energy_lost", json!(energy_lost));
        }
        SpaceEventKind::Knot { knot, .. } => put("knot", json!(knot)),
        SpaceEventKind::Leave {
            slot, energy_lost, ..
        } => {
            put("slot", json!(slot));
            put("energy_lost", json!(energy_lost));
        }
        SpaceEventKind::Land {
            slot,
            speed,
            offset,
            ..
        } => {
            put("slot", json!(slot));
            put("speed", json!(speed));
            put("offset", json!(offset));
        }
        SpaceEventKind::Drop { energy_lost, .. } => put("energy_lost", json!(energy_lost)),
        SpaceEventKind::Contact {
            other,
            impulse,
            speed,
            energy_lost,
            resting,
            ..
        } => {
            put("other", json!(partner_name(other)));
            put("impulse", json!(impulse));
            put("energy_lost", json!(energy_lost));
            put("speed", json!(speed));
            put("resting", json!(resting));
        }
        SpaceEventKind::Separate { other, .. } => put("other", json!(partner_name(other))),
        _ => {}
    }
    Value::Object(object)
}

/// Writes the events of a run in space as JSON lines, then its stop (kind `failure`, with the
/// `status` word and the `reason`) if it stopped.
pub fn write_space_events(out: &mut dyn Write, report: &SpaceReport, n: usize) -> io::Result<()> {
    for event in &report.events {
        serde_json::to_writer(&mut *out, &space_event_json(event, n))?;
        out.write_all(b"\n")?;
    }
    if let SpaceStatus::Stopped { t, reason } = &report.status {
        let line = json!({
            "t": t,
            "kind": "failure",
            "object": stop_object(reason),
            "status": reason.status(),
            "reason": reason.to_string(),
        });
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The message of a stopped run in space: the time and what stopped it.
pub fn space_stop_message(t: f64, reason: &SpaceStop) -> String {
    format!("at t = {t:.6} s: {reason}")
}

/// Extremes gathered row by row while a run in space streams out.
#[derive(Clone, Debug)]
pub struct SpaceSummary {
    /// Largest segment tension seen, N.
    pub max_tension: f64,
    /// Smallest T_0 over taut rows, N.
    pub min_base_tension: f64,
    /// Rows seen.
    pub rows: u64,
    /// The time of the last row, s.
    pub end_time: f64,
    /// The energy of the first and the last row, J.
    pub energy: Option<(f64, f64)>,
    /// The diabolos of the last row.
    pub final_diabolos: Vec<SpaceDiabolo>,
    /// The highest centre of each diabolo over the rows, m.
    pub max_heights: Vec<f64>,
}

impl Default for SpaceSummary {
    fn default() -> Self {
        Self {
            max_tension: 0.0,
            min_base_tension: f64::INFINITY,
            rows: 0,
            end_time: 0.0,
            energy: None,
            final_diabolos: Vec::new(),
            max_heights: Vec::new(),
        }
    }
}

impl SpaceSummary {
    /// Takes one row into the extremes.
    pub fn observe(&mut self, row: &SpaceRow) {
        for &t in row.tensions {
            self.max_tension = self.max_tension.max(t);
        }
        if row.phase == crate::simulation::space::SpacePhase::Taut {
            if let Some(&t0) = row.tensions.first() {
                self.min_base_tension = self.min_base_tension.min(t0);
            }
        }
        self.rows += 1;
        self.end_time = row.t;
        self.energy = Some((self.energy.map_or(row.energy, |e| e.0), row.energy));
        self.final_diabolos.clear();
        self.final_diabolos.extend_from_slice(&row.state.diabolos);
        let heights = &mut self.max_heights;
        heights.resize(row.state.diabolos.len(), f64::NEG_INFINITY);
        for (h, d) in heights.iter_mut().zip(&row.state.diabolos) {
            *h = h.max(d.pos.y);
        }
    }

    /// The summary object: `scenario`, `space` (true), `status` (`ok`, or the stop's word),
    /// `failure` (the stop's message with its time), `end_time`, `steps`, `rows`, `events` by
    /// kind, `max_tension`, `min_t0`, `final_spin`, `final_positions` [x, y, z],
    /// `final_axles` [ax, ay, az], `final_tilt`, `final_turn` (degrees), `energy_initial`,
    /// `energy_final`, `energy_change`, `ledger_residual`, per diabolo `leaves`, `landings`,
    /// `airtime` (s), `max_height` (m, the highest centre over the run) and `dropped`, and
    /// `wall_time`.
    pub fn to_json(&self, name: Option<&str>, report: &SpaceReport, wall: Duration) -> Value {
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &report.events {
            *kinds.entry(e.kind.name()).or_default() += 1;
        }
        let (status, failure, end_time) = match &report.status {
            SpaceStatus::Finished => ("ok", None, self.end_time),
            SpaceStatus::Stopped { t, reason } => {
                *kinds.entry("failure").or_default() += 1;
                (reason.status(), Some(space_stop_message(*t, reason)), *t)
            }
        };
        let finite = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
        let ds = &self.final_diabolos;
        let (e0, e1) = self.energy.unwrap_or((f64::NAN, f64::NAN));
        json!({
            "scenario": name,
            "space": true,
            "status": status,
            "failure": failure,
            "end_time": end_time,
            "steps": report.steps,
            "rows": self.rows,
            "events": kinds,
            "max_tension": finite(self.max_tension),
            "min_t0": finite(self.min_base_tension),
            "final_spin": ds.iter().map(|d| d.spin).collect::<Vec<_>>(),
            "final_positions": ds.iter().map(|d| [d.pos.x, d.pos.y, d.pos.z]).collect::<Vec<_>>(),
            "final_axles": ds.iter().map(|d| [d.axle.x, d.axle.y, d.axle.z]).collect::<Vec<_>>(),
            "final_tilt": ds.iter().map(|d| tilt(&d.axle)).collect::<Vec<_>>(),
            "final_turn": ds.iter().map(|d| turn(&d.axle)).collect::<Vec<_>>(),
            "energy_initial": finite(e0),
            "energy_final": finite(e1),
            "energy_change": finite(e1 - e0),
            "ledger_residual": finite(report.ledger_residual),
            "leaves": report.flights.iter().map(|f| f.leaves).collect::<Vec<_>>(),
            "landings": report.flights.iter().map(|f| f.landings).collect::<Vec<_>>(),
            "airtime": report.flights.iter().map(|f| f.airtime).collect::<Vec<_>>(),
            "max_height": self.max_heights.iter().zip(&report.flights)
                .map(|(&h, f)| finite(h.max(f.highest_flight))).collect::<Vec<_>>(),
            "dropped": report.flights.iter().map(|f| f.dropped).collect::<Vec<_>>(),
            "wall_time": wall.as_secs_f64(),
        })
    }
}
