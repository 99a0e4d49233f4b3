//! What a run in space reports: its events, why it stopped, its status.

use crate::model::energy::LedgerBreach;
use crate::model::space::SpaceImpulseError;

/// What happened at an event of the run in space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpaceEventKind {
    /// The string went slack (T_0 reached zero).
    Loosen,
    /// The slack string snapped taut: the impulse Lambda (N s) and the energy it dissipated (J).
    Tense {
        /// Lambda, N s.
        impulse: f64,
        /// J.
        energy_lost: f64,
    },
    /// A bouncing string settled taut.
    ZenoSettle,
    /// Axle K grips the string.
    Stick(usize),
    /// Axle K slips again.
    Unstick(usize),
    /// A stick's path changed its velocity at a keyframe (side 0 left, 1 right).
    VelocityJump(usize),
}

impl SpaceEventKind {
    /// The event's name in the event log.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Loosen => "loosen",
            Self::Tense { .. } => "tense",
            Self::ZenoSettle => "zeno_settle",
            Self::Stick(_) => "stick",
            Self::Unstick(_) => "unstick",
            Self::VelocityJump(_) => "velocity_jump",
        }
    }
}

/// An event of the run in space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceEvent {
    /// Time, s.
    pub t: f64,
    /// What happened.
    pub kind: SpaceEventKind,
}

/// Why a run in space stopped before its end.
#[derive(Clone, Debug, PartialEq)]
pub enum SpaceStop {
    /// Diabolo K left the string (the string's turn about its axle reached zero): flight is not
    /// modelled in space yet.
    Left(usize),
    /// A strand at diabolo K reached the cup angle: the string climbs a cup, which the model
    /// does not follow.
    Cup(usize),
    /// The string doubled back at diabolo K (a wrap begins): knots are not followed in space
    /// yet.
    Wrap(usize),
    /// More events or steps than the run's budget.
    Budget {
        /// "events" or "steps".
        what: &'static str,
        /// How many there were.
        count: u64,
    },
    /// The slack string was found longer than its length by this much (m) at a row: its
    /// tensing passed unseen.
    Overstretched(f64),
    /// Objects j and j + 1 on the string touch: contacts are not followed in space yet.
    Touch(usize),
    /// Diabolo K spins too slowly for the fast-top limit (its precession is no longer slow
    /// against its nutation): run it with the rigid axle.
    SlowSpin(usize),
    /// The energy ledger opened beyond the run's tolerance.
    LedgerOpen {
        /// What opened.
        breach: LedgerBreach,
        /// The tolerance it passed, J.
        tolerance: f64,
    },
    /// A tensing impulse the model in space cannot apply.
    Impulse(SpaceImpulseError),
    /// The integration failed (the message says what, where and when).
    Failed(String),
}

impl SpaceStop {
    /// The status word of the summary.
    pub fn status(&self) -> &'static str {
        match self {
            Self::Left(_) => "left_string",
            Self::Cup(_) => "string_on_cup",
            Self::Wrap(_) => "wrap",
            Self::SlowSpin(_) => "slow_spin",
            Self::Touch(_) => "contact",
            Self::Overstretched(_) => "overstretched",
            Self::Budget { .. } => "budget",
            Self::LedgerOpen { .. } => "ledger_open",
            Self::Impulse(_) => "impulse",
            Self::Failed(_) => "failed",
        }
    }
}

impl std::fmt::Display for SpaceStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Left(k) => write!(f, "diabolo {k} left the string; flight is not modelled in space yet"),
            Self::Cup(k) => write!(f, "the string reached a cup of diabolo {k} (its strand passed the cup angle): the axle tilted too far"),
            Self::Wrap(k) => write!(f, "the string doubled back at diabolo {k}; wraps are not followed in space yet"),
            Self::Overstretched(by) => write!(f, "the slack string passed its length by {by:.3e} m without its tensing being found"),
            Self::Budget { what, count } => write!(f, "{count} {what}: more than the run's budget (sim.max_{what}_per_second); the motion is stuck at an instant or far too fast for the tolerances"),
            Self::Touch(j) => write!(f, "objects {j} and {} touch (0 the left stick, N + 1 the right); contacts are not followed in space yet", j + 1),
            Self::SlowSpin(k) => write!(f, "diabolo {k} spins too slowly for the fast-top limit; set sim.axle to \"rigid\""),
            Self::LedgerOpen { breach, tolerance } => write!(f, "the energy ledger opened: {breach} (tolerance {tolerance:.3e} J)"),
            Self::Impulse(e) => write!(f, "{e}"),
            Self::Failed(message) => write!(f, "{message}"),
        }
    }
}

/// How a run in space ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SpaceStatus {
    /// It reached its duration.
    Finished,
    /// It stopped at time t.
    Stopped {
        /// s.
        t: f64,
        /// Why.
        reason: SpaceStop,
    },
}

/// What a run in space reports.
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceReport {
    /// How it ended.
    pub status: SpaceStatus,
    /// Its events in time order.
    pub events: Vec<SpaceEvent>,
    /// Accepted steps.
    pub steps: u64,
    /// The energy ledger's largest |residual| over the rows, J.
    pub ledger_residual: f64,
}
