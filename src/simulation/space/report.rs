//! What a run in space reports: its events, why it stopped, its status.

use crate::model::energy::LedgerBreach;
use crate::model::space::SpaceImpulseError;
use crate::simulation::report::{fastest_words, PULLED_STRAIGHT_FIX};

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
    /// The string wrapped diabolo K once more or once less: its knot degree is now `knot`.
    Knot {
        /// K.
        diabolo: usize,
        /// The new knot degree.
        knot: i32,
    },
    /// Diabolo K left the string from `slot`.
    Leave {
        /// K.
        diabolo: usize,
        /// The slot it left.
        slot: usize,
        /// A compliant string's stored energy released as it leaves, J (0 for an inextensible
        /// string): where its strands slope differently along the axle, the string straight
        /// between their ends is shorter than through the centre.
        energy_lost: f64,
    },
    /// Diabolo K landed on the string in `slot`, approaching the chord's plane at `speed`.
    Land {
        /// K.
        diabolo: usize,
        /// The slot it took.
        slot: usize,
        /// Its approach speed along the plane's normal, m/s (positive).
        speed: f64,
        /// s: how far from its centre along the axle the string passes, m.
        offset: f64,
    },
    /// Two bodies collided: the impact (solved with the other bodies touching and the taut
    /// string) pushed them apart, or left them touching at rest (`resting`).
    Contact {
        /// The first body (a diabolo).
        body: super::system::Body,
        /// The body it touched.
        other: super::system::Body,
        /// The contact's impulse, N s.
        impulse: f64,
        /// The approach speed along the contact normal, m/s.
        speed: f64,
        /// The energy the impact dissipated (and, for the fast top, the transverse energy it
        /// does not carry), J.
        energy_lost: f64,
        /// The impact was plastic (a rebound slower than `sim.zeno_speed`, or the pair's
        /// `sim.zeno_bounces`-th bounce in a row).
        resting: bool,
    },
    /// Two bodies resting in contact separate: the contact's force fell through zero, an impact
    /// or the string's loosening left them parting, they are no longer neighbours on the string,
    /// or their axles turned the hulls apart.
    Separate {
        /// The first body (a diabolo).
        body: super::system::Body,
        /// The body it rested against.
        other: super::system::Body,
    },
    /// Flying diabolo K reached the floor and stays there, losing its kinetic energy.
    Drop {
        /// K.
        diabolo: usize,
        /// The kinetic energy of its centre (and of a rigid axle's transverse rotation), J.
        energy_lost: f64,
    },
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
            Self::Knot { .. } => "knot_change",
            Self::Leave { .. } => "leave",
            Self::Land { .. } => "land",
            Self::Contact { .. } => "contact",
            Self::Separate { .. } => "separate",
            Self::Drop { .. } => "drop",
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
    /// A strand at diabolo K reached the cup angle: the string climbs a cup, which the model
    /// does not follow.
    Cup(usize),
    /// The string folded back through diabolo K from its other face (a knot degree below zero,
    /// which the model leaves out as the plane does).
    OtherFace(usize),
    /// Two bodies touch at rest and are pressed into each other, and nothing holds them apart:
    /// a resting contact is held only between neighbours on a taut string.
    Resting(super::system::Body, super::system::Body),
    /// Two bodies resting in contact, held at their centres' distance, had their axles turn the
    /// hulls `depth` (m) into each other.
    RestingTurn {
        /// One body.
        a: super::system::Body,
        /// The other.
        b: super::system::Body,
        /// m.
        depth: f64,
    },
    /// Two bodies were found inside each other by `depth` (m) after an event.
    Inside {
        /// One body.
        a: super::system::Body,
        /// The other.
        b: super::system::Body,
        /// m.
        depth: f64,
    },
    /// An impact turns fast-top diabolo K's axle by `degrees` at once (to its angular momentum):
    /// more than the fast-top limit follows (its nutation would be as large).
    FastTopImpact {
        /// K.
        diabolo: usize,
        /// The turn, degrees.
        degrees: f64,
    },
    /// The impact of two bodies has no solution.
    Impact {
        /// One body.
        a: super::system::Body,
        /// The other.
        b: super::system::Body,
        /// Why, in words.
        reason: String,
    },
    /// Diabolo K would land with the string passing `offset` (m) from its centre along the
    /// axle, where the string through its centre is longer than L by `stretch` (m): the string
    /// has no slack to take it (the model runs the string through the centre).
    LandingStretch {
        /// K.
        diabolo: usize,
        /// s, m.
        offset: f64,
        /// m.
        stretch: f64,
    },
    /// The string reaches flying diabolo K from below (its chord's plane passes up through the
    /// centre between the cups), which the model leaves out, as the plane does.
    FromBelow(usize),
    /// Diabolo K lands on a straight taut string between two path-driven sticks: an
    /// inextensible string would need infinite tension.
    StraightLanding(usize),
    /// Longer than `sim.max_wall` seconds of wall-clock time.
    WallClock {
        /// The limit, s.
        limit: f64,
        /// The run's duration, s.
        duration: f64,
    },
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
    /// Diabolo K spins too slowly for the fast-top limit (its precession is no longer slow
    /// against its nutation): run it with the rigid axle.
    SlowSpin(usize),
    /// Both hands impose their acceleration and pull the inextensible string straight
    /// (docs/model.md, "Pulled straight"): the sticks `span` (m) apart, and the fastest
    /// diabolo on the string K with its speed (m/s), if any.
    PulledStraight {
        /// m.
        span: f64,
        /// K and m/s.
        fastest: Option<(usize, f64)>,
    },
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
            Self::Cup(_) => "string_on_cup",
            Self::OtherFace(_) => "other_face",
            Self::Resting(..) | Self::RestingTurn { .. } | Self::Inside { .. } => "contact",
            Self::Impact { .. } => "impact",
            Self::LandingStretch { .. } => "landing_stretch",
            Self::StraightLanding(_) | Self::FromBelow(_) => "failed",
            Self::SlowSpin(_) | Self::FastTopImpact { .. } => "slow_spin",
            Self::PulledStraight { .. } => "failed",
            Self::Overstretched(_) => "overstretched",
            Self::Budget { .. } | Self::WallClock { .. } => "budget",
            Self::LedgerOpen { .. } => "ledger_open",
            Self::Impulse(_) => "impulse",
            Self::Failed(_) => "failed",
        }
    }
}

impl std::fmt::Display for SpaceStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cup(k) => write!(f, "the string reached a cup of diabolo {k} (its strand passed the cup angle): the axle tilted too far"),
            Self::OtherFace(k) => write!(f, "the string folded back through diabolo {k} from its other face (a knot degree below zero), which the model leaves out"),
            Self::Resting(a, b) => write!(f, "{a} and {b} press into each other at rest (they touch with no speed to rebound and the motion pushes them together); a resting contact is modelled only between neighbours on a taut string (docs/flight.md)"),
            Self::RestingTurn { a, b, depth } => write!(f, "{a} and {b} rest in contact, held at their centres' distance, and their axles turned the hulls {depth:.3e} m into each other: the model holds a resting pair along the line of its centres and does not push a turning axle aside (docs/space.md, \"Resting contact\")"),
            Self::Inside { a, b, depth } => write!(f, "{a} and {b} are {depth:.3e} m inside each other (their hulls, the cylinders the cup rims span)"),
            Self::FastTopImpact { diabolo, degrees } => write!(f, "an impact turns diabolo {diabolo}'s axle by {degrees:.1} degrees at once, more than the fast-top limit follows; set sim.axle to \"rigid\""),
            Self::Impact { a, b, reason } => write!(f, "the impact of {a} and {b} cannot be solved: {reason}"),
            Self::LandingStretch { diabolo, offset, stretch } => write!(f, "diabolo {diabolo} lands with the string {:.1} mm from its centre along the axle: the string through its centre would be {stretch:.3e} m longer than its length, and the model runs the string through the centre; catch it closer to the hands' plane or with more slack", offset * 1e3),
            Self::FromBelow(k) => write!(f, "the string reaches flying diabolo {k} from below, which the model leaves out"),
            Self::StraightLanding(k) => write!(f, "diabolo {k} lands on a straight taut string between path-driven sticks: an inextensible string would need infinite tension; bring the sticks closer"),
            Self::Overstretched(by) => write!(f, "the slack string passed its length by {by:.3e} m without its tensing being found"),
            Self::WallClock { limit, duration } => write!(f, "the run took longer than sim.max_wall = {limit} s of wall-clock time (of {duration} s simulated); raise sim.max_wall or shorten the run"),
            Self::Budget { what, count } => write!(f, "{count} {what}: more than the run's budget (sim.max_{what}_per_second); the motion is stuck at an instant or far too fast for the tolerances"),
            Self::SlowSpin(k) => write!(f, "diabolo {k} spins too slowly for the fast-top limit; set sim.axle to \"rigid\""),
            Self::PulledStraight { span, fastest } => write!(f, "the hands pull the string straight (the sticks {span:.4} m apart{}): {PULLED_STRAIGHT_FIX}", fastest_words(fastest)),
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
    /// What each diabolo did off the string (index K - 1).
    pub flights: Vec<crate::simulation::roster::FlightRecord>,
}
