//! The targets measured on a planned run (docs/plan.md, "Targets"): each a check with the value
//! the run reached, its bound and the margin (positive where met, in the value's unit), and for
//! the search a violation that also grades how far an unmet target is (a throw that does not
//! leave the string yet: how high it could have gone; a catch that does not happen: how near
//! the string came to the falling diabolo).

use serde::Serialize;

use super::task::Target;
use crate::simulation::report::Partner;
use crate::simulation::{DiaboloMode, EventKind, Row, Simulation};

/// One check of a target on a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// What is checked (`apex`, `catch`, `state.pos`, `state.vel`, `spin`, `stay_on`,
    /// `max_tension`; the run's own: `run`, `dropped`).
    pub what: String,
    /// The diabolo, if the check is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diabolo: Option<usize>,
    /// What the run reached (m, s, m/s or N as the check says; null where it did not happen).
    pub value: Option<f64>,
    /// Met by how much (negative: missed by as much), in the value's unit.
    pub margin: f64,
    /// The search's measure of the miss: 0 once the margin is a safe part of the tolerance in,
    /// growing with the miss, in tolerances.
    #[serde(skip)]
    pub violation: f64,
    /// When the search grades it.
    #[serde(skip)]
    pub stage: Stage,
}

/// When the search grades a check (docs/plan.md, "Staged"): a catch follows a throw, so the
/// throw is searched first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stage {
    /// Always: a target or a limit.
    #[default]
    Always,
    /// Only while the throw is searched, and never a requirement: a guide to a throw that can
    /// be caught in time (its apex early enough to fall back to the hands before the catch's
    /// deadline).
    Guide,
    /// Only once every other check is met: a catch after a throw, and the drop that missing it
    /// means.
    Deferred,
}

impl Check {
    /// Whether the check holds (a guide is never a requirement).
    pub fn met(&self) -> bool {
        self.stage == Stage::Guide || self.margin >= 0.0
    }
}

/// The part of a tolerance the search aims inside the bound, so that the written plan keeps a
/// margin.
const AIM: f64 = 0.3;

/// A check with its margin in units of `scale`: the violation is how far it lies short of
/// AIM scales inside.
pub(super) fn check(
    what: &str,
    diabolo: Option<usize>,
    value: Option<f64>,
    margin: f64,
    scale: f64,
) -> Check {
    Check {
        what: what.to_string(),
        diabolo,
        value,
        margin,
        violation: (AIM - margin / scale).max(0.0),
        stage: Stage::Always,
    }
}

/// What a run of the planned scenario did, as the targets need it.
struct Watch {
    /// Per diabolo: y + max(v_y, 0)^2 / (2 g) at its highest on the string (how high a throw
    /// from there would go), m.
    reach: Vec<f64>,
    /// Per diabolo: the least distance of the falling diabolo to the string's chord (vertical,
    /// where it is between the sticks; else to the nearer stick), m.
    nearest_chord: Vec<f64>,
    /// The largest tension of any segment at an output row, N.
    top_tension: f64,
    /// The sticks' least distance at an output row, m.
    sticks_apart: f64,
    /// The sticks' largest distance at an output row, m.
    widest: f64,
    /// Per diabolo: its highest output row in flight.
    apex: Vec<Option<Apex>>,
}

/// A flying diabolo's highest output row.
#[derive(Clone, Copy)]
struct Apex {
    /// When, s.
    t: f64,
    /// Its height, m.
    y: f64,
    /// The sticks' mean height then, m.
    hands_y: f64,
}

impl Watch {
    fn new(n: usize) -> Self {
        Self {
            reach: vec![f64::NEG_INFINITY; n],
            nearest_chord: vec![f64::INFINITY; n],
            top_tension: 0.0,
            sticks_apart: f64::INFINITY,
            widest: 0.0,
            apex: vec![None; n],
        }
    }

    fn row(&mut self, row: &Row, gravity: f64) {
        let s = &row.state;
        let (left, right) = (s.left.pos, s.right.pos);
        let apart = (right - left).norm();
        self.sticks_apart = self.sticks_apart.min(apart);
        self.widest = self.widest.max(apart);
        self.top_tension = row.tensions.iter().fold(self.top_tension, |m, &t| m.max(t));
        for (k, d) in s.diabolos.iter().enumerate() {
            match row.modes[k] {
                DiaboloMode::String => {
                    let rise = d.vel.y.max(0.0);
                    self.reach[k] = self.reach[k].max(d.pos.y + rise * rise / (2.0 * gravity));
                }
                DiaboloMode::Flying => {
                    if self.apex[k].is_none_or(|a| d.pos.y > a.y) {
                        self.apex[k] = Some(Apex {
                            t: row.t,
                            y: d.pos.y,
                            hands_y: 0.5 * (left.y + right.y),
                        });
                    }
                    let (lo, hi) = if left.x <= right.x {
                        (left, right)
                    } else {
                        (right, left)
                    };
                    if d.vel.y >= 0.0 {
                        // Rising (just off the string, say): not yet to be caught.
                        continue;
                    }
                    let gap = if d.pos.x > lo.x && d.pos.x < hi.x {
                        let chord = lo.y + (hi.y - lo.y) * (d.pos.x - lo.x) / (hi.x - lo.x);
                        (d.pos.y - chord).abs()
                    } else {
                        (d.pos - lo).norm().min((d.pos - hi).norm())
                    };
                    self.nearest_chord[k] = self.nearest_chord[k].min(gap);
                }
                DiaboloMode::Dropped => {}
            }
        }
    }
}

/// Runs `sim` and checks `targets` on it: every target's checks, then the run's own (it ends
/// `ok`, drops no diabolo, the sticks never meet, and they are never more than `span` apart,
/// m; `None`: the string's length), each at the run's output rows where it is not an event.
pub fn evaluate(sim: &Simulation, targets: &[Target], span: Option<f64>) -> Vec<Check> {
    let n = sim.initial.diabolos.len();
    let gravity = sim.params.gravity;
    let mut watch = Watch::new(n);
    let mut session = sim.session();
    // The states at the targets' times, read exactly on the way.
    let mut times: Vec<f64> = targets
        .iter()
        .filter_map(|t| match *t {
            Target::State { time, .. } | Target::Spin { time, .. } => Some(time),
            _ => None,
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut states = Vec::with_capacity(times.len());
    for &time in &times {
        let _ = session.advance(time, Some(&mut |row: &Row| watch.row(row, gravity)));
        states.push((time, session.state().ok().cloned()));
    }
    let _ = session.advance(
        sim.settings.duration,
        Some(&mut |row: &Row| watch.row(row, gravity)),
    );
    let report = session.report();
    let at = |time: f64| {
        states
            .iter()
            .find(|(t, _)| *t == time)
            .and_then(|(_, s)| s.as_ref())
    };
    let end_modes = session.state().ok().map(|row| row.modes.clone());
    // A catch follows a throw: while the throw is searched, the catch and the drop are not
    // graded yet (and a guide, below, asks for a throw early enough to be caught).
    let after_throw = if targets.iter().any(|t| matches!(t, Target::Apex { .. })) {
        Stage::Deferred
    } else {
        Stage::Always
    };
    let mut checks = Vec::new();
    for target in targets {
        match *target {
            Target::Apex {
                diabolo,
                height,
                tolerance,
            } => {
                let flight = &report.flights[diabolo - 1];
                let (value, margin) = if flight.leaves > 0 {
                    let apex = flight.highest_flight;
                    (Some(apex), tolerance - (apex - height).abs())
                } else {
                    let short = (height - watch.reach[diabolo - 1]).max(0.0);
                    (None, -(tolerance + short))
                };
                checks.push(check("apex", Some(diabolo), value, margin, tolerance));
            }
            Target::Catch { diabolo, before } => {
                let landed = report
                    .events
                    .iter()
                    .find(|e| e.kind == EventKind::Land && e.object == Some(diabolo))
                    .map(|e| e.t);
                let on_at_end = end_modes
                    .as_ref()
                    .is_some_and(|m| m[diabolo - 1] == DiaboloMode::String);
                let (value, margin) = match landed {
                    Some(t) if on_at_end => (Some(t), before - t),
                    Some(t) => (Some(t), -0.1),
                    None => {
                        let near = watch.nearest_chord[diabolo - 1];
                        (None, -(0.1 + near.min(10.0)))
                    }
                };
                checks.push(Check {
                    stage: after_throw,
                    ..check("catch", Some(diabolo), value, margin, 0.1)
                });
            }
            Target::State {
                diabolo,
                time,
                pos,
                pos_tolerance,
                vel,
                vel_tolerance,
            } => {
                let state = at(time).map(|row| row.state.diabolos[diabolo - 1]);
                let miss = |got: Option<f64>, tolerance: f64| match got {
                    Some(e) => (Some(e), tolerance - e),
                    None => (None, -10.0 * tolerance),
                };
                let error = state.map(|d| (d.pos - nalgebra::Vector2::from(pos)).norm());
                let (value, margin) = miss(error, pos_tolerance);
                checks.push(check(
                    "state.pos",
                    Some(diabolo),
                    value,
                    margin,
                    pos_tolerance,
                ));
                if let (Some(v), Some(tolerance)) = (vel, vel_tolerance) {
                    let error = state.map(|d| (d.vel - nalgebra::Vector2::from(v)).norm());
                    let (value, margin) = miss(error, tolerance);
                    checks.push(check("state.vel", Some(diabolo), value, margin, tolerance));
                }
            }
            Target::Spin {
                diabolo,
                time,
                at_least,
            } => {
                let spin = at(time).map(|row| row.state.diabolos[diabolo - 1].spin.abs());
                let margin = spin.map_or(-at_least, |w| w - at_least);
                checks.push(check("spin", Some(diabolo), spin, margin, at_least));
            }
            Target::StayOn { diabolo } => {
                let airtime = report.flights[diabolo - 1].airtime;
                let left = report.flights[diabolo - 1].leaves > 0;
                let margin = if left { -(0.01 + airtime) } else { 1.0 };
                checks.push(check("stay_on", Some(diabolo), Some(airtime), margin, 0.01));
            }
            Target::MaxTension(force) => {
                let impulses = report
                    .events
                    .iter()
                    .filter(|e| e.kind == EventKind::Tense)
                    .filter_map(|e| e.impulse)
                    .fold(0.0f64, f64::max);
                let top = watch.top_tension.max(impulses / 0.01);
                checks.push(check("max_tension", None, Some(top), force - top, force));
            }
        }
    }
    let ok = report.failure.is_none();
    checks.push(Check {
        what: "run".into(),
        diabolo: None,
        value: None,
        margin: if ok { 1.0 } else { -1.0 },
        violation: if ok { 0.0 } else { 10.0 },
        stage: Stage::Always,
    });
    let dropped = report.flights.iter().filter(|f| f.dropped).count();
    checks.push(Check {
        what: "dropped".into(),
        diabolo: None,
        value: Some(dropped as f64),
        margin: -(dropped as f64),
        violation: 10.0 * dropped as f64,
        stage: after_throw,
    });
    checks.push(check(
        "sticks_apart",
        None,
        Some(watch.sticks_apart),
        watch.sticks_apart - 0.01,
        0.05,
    ));
    // A stick striking a diabolo (in flight, or through its axle) is no way to move it: the
    // impulses of every such contact, N s.
    let struck: f64 = report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Contact)
        .filter(|e| matches!(e.other, Some(Partner::Left | Partner::Right)))
        .map(|e| e.impulse.unwrap_or(0.0))
        .sum();
    let margin = if struck > 0.0 { -struck } else { 0.1 };
    checks.push(check("struck", None, Some(struck), margin, 0.1));
    let span = span.unwrap_or(sim.params.string_length);
    checks.push(check(
        "span",
        None,
        Some(watch.widest),
        span - watch.widest,
        0.1 * span,
    ));
    // The guide to a throw that can be caught in time.
    if after_throw == Stage::Deferred {
        for target in targets {
            if let Target::Catch { diabolo, before } = *target {
                checks.push(in_time_guide(&watch, diabolo, before, gravity));
            }
        }
    }
    checks
}

/// The guide to a throw of `diabolo` that can be caught before `before`: its apex (the highest
/// output row in flight) early enough to fall back to the sticks' height there in time.
fn in_time_guide(watch: &Watch, diabolo: usize, before: f64, gravity: f64) -> Check {
    let margin = match watch.apex[diabolo - 1] {
        Some(Apex { t, y, hands_y }) => {
            let fall = (2.0 * (y - hands_y).max(0.0) / gravity).sqrt();
            before - (t + fall)
        }
        None => 0.1,
    };
    Check {
        stage: Stage::Guide,
        ..check("catch.in_time", Some(diabolo), None, margin, 0.1)
    }
}
