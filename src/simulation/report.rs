//! What a run reports: its settings, the events it logs, why it stopped early, its counters and
//! its outcome.

use thiserror::Error;

use crate::display::Compact;

use super::roster::FlightRecord;

use super::ode::integrate::{Method, StepperOptions};
use crate::model::{LedgerBreach, Regularisation};

/// How a run is integrated and reported.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Simulated time, s.
    pub duration: f64,
    /// Output rows at every multiple of this, s.
    pub output_interval: f64,
    /// Relative tolerance of the adaptive methods (dimensionless).
    pub rtol: f64,
    /// Absolute tolerance of the adaptive methods, in the units of each state component.
    pub atol: f64,
    /// Largest integration step, s; `None` leaves the step unbounded.
    pub max_step: Option<f64>,
    /// The integration method.
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
    /// The floor's height, m: a flying diabolo whose lowest point (centre y - R) reaches it is
    /// dropped. `None`: no floor, a flying diabolo falls for as long as the run lasts.
    pub floor: Option<f64>,
    /// The trick's period, s, when its drives repeat with it (`diabolo orbit`'s default
    /// period); the run itself does not use it.
    pub period: Option<f64>,
}

impl Settings {
    /// The stepper options of the settings.
    pub fn stepper_options(&self) -> StepperOptions {
        StepperOptions {
            rtol: self.rtol,
            atol: self.atol,
            max_step: self.max_step.unwrap_or(f64::INFINITY),
            ..StepperOptions::default()
        }
    }
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
            floor: None,
            period: None,
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
    /// The string goes slack: the taut phase ends, the loose phase begins.
    Loosen,
    /// The string snaps taut: the loose phase ends, with a tensing impulse (or none, grazing).
    Tense,
    /// The string slipping over a diabolo's axle reverses its direction.
    SlipReversal,
    /// A diabolo's axle grips the string (w' = 0 held).
    Stick,
    /// A gripping axle lets the string slip again.
    Unstick,
    /// A diabolo's knot degree k changes.
    KnotChange,
    /// A bounce sequence settles into the taut phase (see [`Settings::zeno_speed`]).
    ZenoSettle,
    /// A diabolo leaves the string (its string angle reaches pi from above) and flies.
    Leave,
    /// A flying diabolo lands on the string (crosses a segment's chord downward).
    Land,
    /// Two diabolos, or a diabolo and a stick tip, touch: an impact.
    Contact,
    /// A resting contact ends: its contact force would pull.
    Separate,
    /// A flying diabolo reaches the floor and stays there.
    Drop,
    /// The run stops early (see [`RunError`]).
    Failure,
}

impl EventKind {
    /// Every kind, once, in the order of the sweep summary's `events_*` columns (the order the
    /// kinds came in: `failure` before the flight kinds). What lists the kinds derives from
    /// this; `ALL[k.index()] == k` for every kind.
    pub const ALL: [EventKind; 13] = [
        Self::Loosen,
        Self::Tense,
        Self::SlipReversal,
        Self::Stick,
        Self::Unstick,
        Self::KnotChange,
        Self::ZenoSettle,
        Self::Failure,
        Self::Leave,
        Self::Land,
        Self::Contact,
        Self::Separate,
        Self::Drop,
    ];

    /// The kind's place in [`EventKind::ALL`]. The match names every kind: a new kind does not
    /// compile until it has its place here, and the crate's tests fail until it is in `ALL`.
    pub const fn index(self) -> usize {
        match self {
            Self::Loosen => 0,
            Self::Tense => 1,
            Self::SlipReversal => 2,
            Self::Stick => 3,
            Self::Unstick => 4,
            Self::KnotChange => 5,
            Self::ZenoSettle => 6,
            Self::Failure => 7,
            Self::Leave => 8,
            Self::Land => 9,
            Self::Contact => 10,
            Self::Separate => 11,
            Self::Drop => 12,
        }
    }

    /// The kind of an event log's name ([`EventKind::name`]), if it is one.
    pub fn from_name(name: &str) -> Option<EventKind> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

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
            Self::Leave => "leave",
            Self::Land => "land",
            Self::Contact => "contact",
            Self::Separate => "separate",
            Self::Drop => "drop",
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
            Self::Leave => "leaving the string",
            Self::Land => "landing",
            Self::Contact => "contact",
            Self::Separate => "separation",
            Self::Drop => "drop",
            Self::Failure => "failure",
        }
    }
}

/// The other object of a contact: a diabolo or a stick tip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partner {
    /// Diabolo K (1..N).
    Diabolo(usize),
    /// The left stick's tip.
    Left,
    /// The right stick's tip.
    Right,
}

/// One logged event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Time, s.
    pub t: f64,
    /// What happened.
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
    /// The reason of a failure, or the account of a bounce settling.
    pub reason: Option<String>,
    /// The slot a diabolo left or took (1..n, counted from the left stick).
    pub slot: Option<usize>,
    /// The other object of a contact or a separation.
    pub other: Option<Partner>,
    /// The approach speed of a landing (normal to the chord) or a contact (along the line of
    /// centres), m/s, positive.
    pub speed: Option<f64>,
    /// Whether a contact settles into resting contact.
    pub resting: Option<bool>,
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
            slot: None,
            other: None,
            speed: None,
            resting: None,
        }
    }
}

/// Why a run stopped before its end. Every variant carries the time.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RunError {
    #[error("t = {t:.6} s: {what} meet (segment {segment} between them is shorter than the meeting distance, {distance} m)", distance = Compact(*distance))]
    /// Two neighbours on the string meet.
    Collision {
        /// Time, s.
        t: f64,
        /// The segment between them (segment i joins object i and i + 1).
        segment: usize,
        /// The two objects, in words.
        what: String,
        /// The meeting distance they came within, m (0 for a segment that collapsed).
        distance: f64,
    },
    #[error("t = {t:.6} s: diabolo {diabolo}'s string angle reaches -pi from below (theta = {theta:.4} rad): a diabolo on the string's other face (a recaptured state, theta < -pi) leaving the string is not modelled")]
    /// A diabolo in a recaptured state (theta < -pi) would leave the string.
    Recaptured {
        /// Time, s.
        t: f64,
        /// The diabolo, 1..N.
        diabolo: usize,
        /// theta: string angle at the diabolo, rad.
        theta: f64,
    },
    #[error("t = {t:.6} s: diabolo {diabolo} lands on a straight taut string between path-driven sticks: an inextensible string would need infinite tension; bring the sticks closer or give the string a stiffness")]
    /// A flying diabolo lands on a taut string with nothing on it between path-driven sticks.
    LandsOnStraightString {
        /// Time, s.
        t: f64,
        /// The diabolo, 1..N.
        diabolo: usize,
    },
    #[error("t = {t:.6} s: diabolo {diabolo} reaches the string from below (between {what}); a diabolo meeting the string from below is not modelled")]
    /// A flying diabolo crosses a segment's chord upward, between its ends.
    FromBelow {
        /// Time, s.
        t: f64,
        /// The diabolo, 1..N.
        diabolo: usize,
        /// The segment's end objects, in words.
        what: String,
    },
    #[error("t = {t:.6} s: {what} press into each other at rest (they touch with no speed to rebound and the motion pushes them together); a resting contact is modelled only between neighbours on a taut string (docs/flight.md)")]
    /// Two bodies touch without approach speed and are pushed into each other, where no
    /// resting contact holds them (a flying diabolo settling on one on the string).
    Pressed {
        /// Time, s.
        t: f64,
        /// The diabolo concerned, 1..N.
        diabolo: usize,
        /// The two bodies, in words.
        what: String,
    },
    #[error("t = {t:.6} s: the impact of {what} cannot be solved: {reason}")]
    /// An impact between objects has no solution.
    Impact {
        /// Time, s.
        t: f64,
        /// The objects, in words.
        what: String,
        /// Why, in words.
        reason: String,
    },
    #[error("t = {t:.6} s: the paths hold the sticks {distance:.4} m apart, farther than the string length {length:.4} m")]
    /// The drive paths hold the sticks farther apart than the string is long.
    SticksTooFarApart {
        /// Time, s.
        t: f64,
        /// Distance between the sticks, m.
        distance: f64,
        /// L: string length, m.
        length: f64,
    },
    #[error("t = {t:.6} s: the hands pull the string straight (the sticks {span:.4} m apart, string length {length:.4} m{motion}): {PULLED_STRAIGHT_FIX}", motion = fastest_words(fastest))]
    /// Both hands impose their acceleration and pull the inextensible string straight
    /// ([`crate::simulation::tolerances::PULLED_STRAIGHT`]).
    PulledStraight {
        /// Time, s.
        t: f64,
        /// Distance between the sticks, m.
        span: f64,
        /// L: string length, m.
        length: f64,
        /// The fastest diabolo on the string (1..N) and its speed, m/s; `None` with no diabolo
        /// on the string.
        fastest: Option<(usize, f64)>,
    },
    #[error("t = {t:.6} s: the stick matrix is singular (the string is straight) and both sticks are acceleration-driven: the hand force needed exceeds the regularisation")]
    /// The stick matrix is singular (a straight string) with both sticks acceleration-driven.
    SingularStickMatrix {
        /// Time, s.
        t: f64,
    },
    #[error("t = {t:.6} s: the tension with gripping axles has no unique solution (a straight string between driven sticks)")]
    /// The tension with gripping axles has no unique solution.
    SingularGrip {
        /// Time, s.
        t: f64,
    },
    #[error("t = {t:.6} s ({phase} phase): the step size collapsed to {h} s; the motion is too violent for the tolerance; {cause}", h = Compact(rounded(*h)))]
    /// The integration step collapsed below its floor.
    StepSizeCollapse {
        /// Time, s.
        t: f64,
        /// The collapsed step, s.
        h: f64,
        /// The phase integrated ("taut" or "loose").
        phase: &'static str,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s: {count} events within 0.1 s of simulated time (the last one logged: {last} {place}): the run chatters or accumulates events")]
    /// Too many events within one window of simulated time (see
    /// [`Settings::max_events_per_second`]).
    EventFlood {
        /// Time, s.
        t: f64,
        /// Events within the window.
        count: usize,
        /// The last event logged, in words.
        last: &'static str,
        /// The object of the last event logged, if any (0 / N + 1 a stick, 1..N a diabolo).
        object: Option<usize>,
        /// Where: "of the string", "at diabolo 2", "at the right stick".
        place: String,
    },
    #[error("t = {t:.6} s ({phase} phase): {what} became non-finite; {cause}")]
    /// A quantity of the state or its derivative became NaN or infinite.
    NonFinite {
        /// The last finite time reached, s.
        t: f64,
        /// The phase integrated ("taut" or "loose").
        phase: &'static str,
        /// The quantity, in words ("diabolo 1's spin acceleration").
        what: String,
        /// The object concerned, if known (0 / N + 1 a stick, 1..N a diabolo).
        object: Option<usize>,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s ({phase} phase): {steps} integration steps within {window} s of simulated time, beyond the budget of {budget} steps per simulated second; the steps are down to {h} s; {cause}", window = Compact(*window), budget = Compact(*budget), h = Compact(rounded(*h)))]
    /// Too many integration steps within one window of simulated time: the run has stalled
    /// (see [`Settings::max_steps_per_second`]).
    StepBudget {
        /// Time, s.
        t: f64,
        /// The last step, s.
        h: f64,
        /// The phase integrated ("taut" or "loose").
        phase: &'static str,
        /// Steps (accepted and rejected) within the window.
        steps: u64,
        /// The window of simulated time, s.
        window: f64,
        /// Steps per simulated second allowed.
        budget: f64,
        /// The likely cause, from the parameters and the state.
        cause: String,
    },
    #[error("t = {t:.6} s: the run took longer than sim.max_wall = {limit} s of wall-clock time, having simulated {t:.6} s of {duration} s", limit = Compact(*limit), duration = Compact(*duration))]
    /// The run took longer than its wall-clock budget [`Settings::max_wall`].
    WallClock {
        /// Simulated time reached, s.
        t: f64,
        /// The wall-clock budget, s.
        limit: f64,
        /// The simulated time asked for, s.
        duration: f64,
    },
    #[error("t = {t:.6} s: the energy ledger opens: {breach}, beyond its tolerance {tolerance} J (100 (atol + rtol S) + 1e-7 S, S the energy turned over); the integration or an event let energy appear or vanish: tighten sim.rtol and sim.atol, and report the scenario if that does not close it", tolerance = Compact(rounded(*tolerance)))]
    /// The energy ledger opened beyond its tolerance (docs/model.md, "Energy ledger"): a loss
    /// account fell, or E - E(0) left W - losses.
    LedgerOpen {
        /// Time of the first row that shows it, s.
        t: f64,
        /// Which account, and by how much.
        breach: LedgerBreach,
        /// The ledger's tolerance there, J.
        tolerance: f64,
    },
    #[error("t = {t:.6} s: the string snaps taut with diabolo {diabolo} on it in the flying regime (theta = {theta:.4} rad): it should have left the string before")]
    /// The string snaps taut with a diabolo in the flying regime.
    CaughtFlying {
        /// Time, s.
        t: f64,
        /// The diabolo, 1..N.
        diabolo: usize,
        /// theta: string angle at the diabolo, rad.
        theta: f64,
    },
}

/// Counters of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Accepted integration steps, both phases.
    pub steps: usize,
    /// Rejected integration steps, both phases.
    pub rejected_steps: usize,
    /// Right-hand side evaluations: the steppers' and those outside them (rows, restarts, the
    /// Filippov rule).
    pub derivative_evaluations: usize,
    /// Output rows written.
    pub rows: usize,
}

/// The outcome of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunReport {
    /// The event log, in time order.
    pub events: Vec<Event>,
    /// The run's counters.
    pub stats: RunStats,
    /// Why the run stopped early, if it did (the rows and events up to then are valid).
    pub failure: Option<RunError>,
    /// The time reached, s.
    pub end_time: f64,
    /// The largest friction coefficient a gripping axle needed, if any gripped.
    pub grip_needed: Option<f64>,
    /// Mechanical energy at the start and at the end, J.
    pub energy: (f64, f64),
    /// What each diabolo did off the string (index order).
    pub flights: Vec<FlightRecord>,
    /// Impacts between diabolos, or a diabolo and a stick tip.
    pub contacts: usize,
}

impl RunError {
    /// The run's status in the summary and a sweep's rows: `ledger_open` when the energy ledger
    /// opened, `failed` for every other early stop.
    pub fn status(&self) -> &'static str {
        match self {
            Self::LedgerOpen { .. } => "ledger_open",
            _ => "failed",
        }
    }

    /// The object a failure concerns, if any (0 / N + 1 a stick, 1..N a diabolo; a segment for
    /// a collision).
    pub fn object(&self) -> Option<usize> {
        match self {
            Self::Collision { segment, .. } => Some(*segment),
            Self::Recaptured { diabolo, .. }
            | Self::LandsOnStraightString { diabolo, .. }
            | Self::FromBelow { diabolo, .. }
            | Self::Pressed { diabolo, .. }
            | Self::CaughtFlying { diabolo, .. } => Some(*diabolo),
            Self::EventFlood { object, .. } | Self::NonFinite { object, .. } => *object,
            _ => None,
        }
    }
}

/// Why a string pulled straight stops the run, and the fix (the plane's and the space's
/// message).
pub(crate) const PULLED_STRAIGHT_FIX: &str = "both hands impose their stick's acceleration (accel or path drives, no force limit) and the force to go on diverges; give a hand a force limit (a force drive, or a path with tracking and max_force) or keep the hands closer";

/// The fastest of the diabolos on a string, from (K, speed m/s) pairs: (K, speed), or `None`
/// with none on it.
pub(crate) fn fastest(speeds: impl Iterator<Item = (usize, f64)>) -> Option<(usize, f64)> {
    speeds.max_by(|a, b| a.1.total_cmp(&b.1))
}

/// "; diabolo K at V m/s" for the fastest diabolo on a string pulled straight, or "; no
/// diabolo on it".
pub(crate) fn fastest_words(fastest: &Option<(usize, f64)>) -> String {
    match fastest {
        Some((diabolo, speed)) => format!("; diabolo {diabolo} at {speed:.3} m/s"),
        None => "; no diabolo on it".to_string(),
    }
}

/// `x` to 3 significant digits, for messages.
pub(crate) fn rounded(x: f64) -> f64 {
    format!("{x:.2e}").parse().unwrap_or(x)
}
