//! What a run reports: its settings, the events it logs, why it stopped early, its counters and
//! its outcome.

use thiserror::Error;

use crate::display::Compact;

use super::ode::integrate::Method;
use crate::model::Regularisation;

/// How a run is integrated and reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Simulated time, s.
    pub duration: f64,
    /// Output rows at every multiple of this, s.
    pub output_interval: f64,
    pub rtol: f64,
    pub atol: f64,
    pub max_step: Option<f64>,
    pub method: Method,
    /// A bounce sequence settles into the taut phase once the rebound speed e L' of an impact
    /// would be below this, m/s.
    pub zeno_speed: f64,
    /// ... or after this many bounces in a row.
    pub zeno_bounces: usize,
    /// More events than this per second of simulated time (over any 0.1 s) ends the run.
    pub max_events_per_second: f64,
    /// More integration steps (accepted and rejected) than this per second of simulated time
    /// (over any 0.1 s), on top of the steps that `max_step` or the `rk4` step ask for, ends
    /// the run: it has stalled.
    pub max_steps_per_second: f64,
    /// Wall-clock budget of the run, s: the run ends when it takes longer.
    pub max_wall: Option<f64>,
    /// The stick-force solve near the straight string.
    pub regularisation: Regularisation,
    /// Two neighbours on the string (diabolos, or a diabolo and a stick) closer than this have
    /// met and the run ends, m. Point masses have no size: this stands for it, and keeps the
    /// segment directions defined.
    pub meeting_distance: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            duration: 1.0,
            output_interval: 0.001,
            rtol: 1e-9,
            atol: 1e-12,
            max_step: None,
            method: Method::Dopri5,
            zeno_speed: 1e-4,
            zeno_bounces: 64,
            max_events_per_second: 1e4,
            max_steps_per_second: DEFAULT_MAX_STEPS_PER_SECOND,
            max_wall: None,
            regularisation: Regularisation::default(),
            meeting_distance: 1e-3,
        }
    }
}

/// The default step budget, steps per simulated second (see [`Settings::max_steps_per_second`]):
/// 45 times what the busiest test run uses (220 steps in 0.1 s; the shipped scenarios 131, the
/// replay of the recordings 185), low enough that a stalled run fails within seconds.
pub const DEFAULT_MAX_STEPS_PER_SECOND: f64 = 1e5;

/// Object k of a run with n diabolos, in words: 0 the left stick, 1..n the diabolos, n + 1 the
/// right stick. Every message names objects so.
pub fn object_name(k: usize, n: usize) -> String {
    match k {
        0 => "the left stick".to_string(),
        k if k == n + 1 => "the right stick".to_string(),
        k => format!("diabolo {k}"),
    }
}

/// What happened at an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventKind {
    Loosen,
    Tense,
    SlipReversal,
    Stick,
    Unstick,
    KnotChange,
    ZenoSettle,
    Failure,
}

impl EventKind {
    /// The name used in the event log.
    pub fn name(self) -> &'static str {
        match self {
            Self::Loosen => "loosen",
            Self::Tense => "tense",
            Self::SlipReversal => "slip_reversal",
            Self::Stick => "stick",
            Self::Unstick => "unstick",
            Self::KnotChange => "knot_change",
            Self::ZenoSettle => "zeno_settle",
            Self::Failure => "failure",
        }
    }

    /// The event in words, for messages.
    pub fn words(self) -> &'static str {
        match self {
            Self::Loosen => "loosening",
            Self::Tense => "tensing",
            Self::SlipReversal => "slip reversal",
            Self::Stick => "stick (grip)",
            Self::Unstick => "unstick",
            Self::KnotChange => "knot change",
            Self::ZenoSettle => "bounce settling",
            Self::Failure => "failure",
        }
    }
}

/// One logged event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Time, s.
    pub t: f64,
    pub kind: EventKind,
    /// The object concerned (1..N for a diabolo, 0 / N+1 for a stick), if any.
    pub object: Option<usize>,
    /// J_0 of a tensing impulse, N s.
    pub impulse: Option<f64>,
    /// Energy dissipated by a tensing impulse, J.
    pub energy_lost: Option<f64>,
    /// The new knot degree of a knot change.
    pub knot: Option<i32>,
    /// L' before and after a tensing impulse, m/s.
    pub length_rates: Option<(f64, f64)>,
    /// The reason of a failure.
    pub reason: Option<String>,
}

impl Event {
    /// An event with no figures.
    pub(crate) fn new(t: f64, kind: EventKind, object: Option<usize>) -> Self {
        Self {
            t,
            kind,
            object,
            impulse: None,
            energy_lost: None,
            knot: None,
            length_rates: None,
            reason: None,
        }
    }
}

/// Why a run stopped before its end. Every variant carries the time.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RunError {
    #[error("t = {t:.6} s: {what} meet (segment {segment} between them is shorter than the meeting distance, {distance} m); contact between objects is not modelled yet", distance = Compact(*distance))]
    Collision {
        t: f64,
        segment: usize,
        what: String,
        distance: f64,
    },
    #[error("t = {t:.6} s: diabolo {diabolo} leaves the string (theta = {theta:.4} rad, the flying regime); leaving and re-catching is not modelled yet")]
    LeftString { t: f64, diabolo: usize, theta: f64 },
    #[error("t = {t:.6} s: the paths hold the sticks {distance:.4} m apart, farther than the string length {length:.4} m")]
    SticksTooFarApart { t: f64, distance: f64, length: f64 },
    #[error("t = {t:.6} s: the stick matrix is singular (the string is straight) and both sticks are acceleration-driven: the hand force needed exceeds the regularisation")]
    SingularStickMatrix { t: f64 },
    #[error("t = {t:.6} s: the tension with gripping axles has no unique solution (a straight string between driven sticks)")]
    SingularGrip { t: f64 },
    #[error("t = {t:.6} s ({phase} phase): the step size collapsed to {h} s; the motion is too violent for the tolerance; {cause}", h = Compact(rounded(*h)))]
    StepSizeCollapse {
        t: f64,
        h: f64,
        phase: &'static str,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s: {count} events within 0.1 s of simulated time (the last one logged: {last} {place}): the run chatters or accumulates events")]
    EventFlood {
        t: f64,
        count: usize,
        /// The last event logged, in words.
        last: &'static str,
        object: Option<usize>,
        /// Where: "of the string", "at diabolo 2", "at the right stick".
        place: String,
    },
    #[error("t = {t:.6} s ({phase} phase): {what} became non-finite; {cause}")]
    NonFinite {
        /// The last finite time reached, s.
        t: f64,
        phase: &'static str,
        /// The quantity, in words ("diabolo 1's spin acceleration").
        what: String,
        object: Option<usize>,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s ({phase} phase): {steps} integration steps within {window} s of simulated time, beyond the budget of {budget} steps per simulated second; the steps are down to {h} s; {cause}", window = Compact(*window), budget = Compact(*budget), h = Compact(rounded(*h)))]
    StepBudget {
        t: f64,
        /// The last step, s.
        h: f64,
        phase: &'static str,
        steps: u64,
        window: f64,
        /// Steps per simulated second allowed.
        budget: f64,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s: the run took longer than sim.max_wall = {limit} s of wall-clock time, having simulated {t:.6} s of {duration} s", limit = Compact(*limit), duration = Compact(*duration))]
    WallClock { t: f64, limit: f64, duration: f64 },
    #[error("t = {t:.6} s: the string snaps taut with diabolo {diabolo} in the flying regime (theta = {theta:.4} rad); re-catching is not modelled yet")]
    CaughtFlying { t: f64, diabolo: usize, theta: f64 },
}

/// Counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunStats {
    pub steps: usize,
    pub rejected_steps: usize,
    pub derivative_evaluations: usize,
    pub rows: usize,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    pub events: Vec<Event>,
    pub stats: RunStats,
    /// Why the run stopped early, if it did (the rows and events up to then are valid).
    pub failure: Option<RunError>,
    /// The time reached, s.
    pub end_time: f64,
    /// The largest friction coefficient a gripping axle needed, if any gripped.
    pub grip_needed: Option<f64>,
    /// Mechanical energy at the start and at the end, J.
    pub energy: (f64, f64),
}

impl RunError {
    /// The object a failure concerns, if any (0 / N + 1 a stick, 1..N a diabolo; a segment for
    /// a collision).
    pub fn object(&self) -> Option<usize> {
        match self {
            Self::Collision { segment, .. } => Some(*segment),
            Self::LeftString { diabolo, .. } | Self::CaughtFlying { diabolo, .. } => Some(*diabolo),
            Self::EventFlood { object, .. } | Self::NonFinite { object, .. } => *object,
            _ => None,
        }
    }
}

/// `x` to 3 significant digits, for messages.
pub(crate) fn rounded(x: f64) -> f64 {
    format!("{x:.2e}").parse().unwrap_or(x)
}
