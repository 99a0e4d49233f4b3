//! Every tolerance of the hybrid run, in one place: the [`Tolerances`] of the transitions and
//! the loop, and the fixed round-off bands of flight and contact.

/// Every tolerance of the transitions and the loop, in one place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// A start whose slack is at most this fraction of L is at full length (taut start).
    pub taut_start: f64,
    /// A loose string reaches full length when its slack falls below minus this fraction of L:
    /// the slack's own round-off (a few ulps of L) is not an arrival. A string falling with
    /// everything on it (let go) keeps its slack at +-2e-16 m.
    pub slack_roundoff: f64,
    /// A loose step ending with the slack below minus this fraction of L has overstretched the
    /// string (the slack left zero on the wrong side).
    pub overstretch: f64,
    /// The bisection for the instant of full length stops at this relative width of
    /// (1 + |t|).
    pub overstretch_time: f64,
    /// Below this L' (m/s) per m/s of the fastest object, plus itself, the string is taut
    /// already: round-off, not an impact (far below the 1e-8 m/s a taut state may carry).
    pub impact_speed: f64,
    /// A slip speed within this (m/s) of zero is at zero: the Filippov rule decides the mode.
    pub slip_at_zero: f64,
    /// When both trial slip accelerations of the Filippov rule are within this (m/s^2) of zero,
    /// the axle grips: at a symmetric state both are round-off (1e-13, of one sign), and the
    /// slip they would pick is then driven the other way by its own friction, unseen by its
    /// guard (friction putting energy in).
    pub slip_rate_at_zero: f64,
    /// The reduced state is built from a string at full length to this tolerance (m).
    pub reduce: f64,
    /// After a rebound, the flight back to full length (2 |L'| / L'') is stepped in this many
    /// pieces at least...
    pub flight_pieces: f64,
    /// ... but never in steps shorter than this (s).
    pub shortest_flight_step: f64,
    /// A drive breakpoint closer than this ahead of t (s) counts as passed.
    pub breakpoint_passed: f64,
    /// The window of simulated time over which events and steps are counted, s.
    pub budget_window: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Self {
            taut_start: 1e-9,
            slack_roundoff: 1e-14,
            overstretch: 1e-9,
            overstretch_time: 1e-14,
            impact_speed: 1e-10,
            slip_at_zero: 1e-12,
            slip_rate_at_zero: SLIP_RATE_AT_ZERO,
            reduce: 1e-8,
            flight_pieces: 8.0,
            shortest_flight_step: 1e-12,
            breakpoint_passed: 1e-9,
            budget_window: 0.1,
        }
    }
}

/// The string's bend sum_i sin^2 psi_i (dimensionless) below which a taut inextensible string
/// between two hands that both impose their acceleration counts as pulled straight, and the run
/// stops: the hand force to go on grows as 1 / (2 det B), which vanishes with the bend, and the
/// diabolos' speed with it (1e-4: one diabolo 7.3 mm off the line of a 1.46 m string, its
/// hands within 73 um of pulling it straight; docs/model.md, "Pulled straight").
pub const PULLED_STRAIGHT: f64 = 1e-4;

/// A diabolo on the string within this angle (rad) of the straight string is at its chord (a
/// landing's round-off), not in the flying regime.
pub const STRAIGHT: f64 = 1e-9;

/// A diabolo within this distance of a chord (m) at the start of its flight is on the chord's
/// upper side: round-off right after a leave, not a crossing from below.
pub const ON_CHORD: f64 = 1e-8;

/// A chord whose horizontal extent is below this fraction of its length is vertical: it
/// catches nothing.
pub const VERTICAL: f64 = 1e-9;

/// A chord crossing from below this soon (s) after a flight started on that chord is the
/// round-off of the leave.
pub const JUST_LEFT: f64 = 1e-6;

/// A pair resting in contact in space is held at its centres' distance; where its axles turn,
/// its hulls' gap drifts. Beyond this band (m) either way it no longer touches (it separates)
/// or its hulls would pass into each other (the run stops): docs/space.md, "Resting contact".
pub const RESTING_DRIFT: f64 = 1e-6;

/// An approach speed below this (m/s) is round-off, not an impact.
pub const TOUCH_SPEED: f64 = 1e-9;

/// A slip acceleration within this of zero (m/s^2) drives neither way: the default of
/// `Tolerances::slip_rate_at_zero`, and the band within which a joint decision of several axles
/// leaves an axle's mode as it is.
pub const SLIP_RATE_AT_ZERO: f64 = 1e-9;

/// The most passes of the Filippov rule over the axles at zero slip when the taut phase is
/// entered: each pass decides every such axle once, given the others' modes, until a pass
/// changes none.
pub const MODE_PASSES: usize = 8;

/// The most impacts one instant may cascade into after an event before the run goes on (a
/// longer cascade is left to the event location of the next step).
pub const MAX_CASCADE: usize = 16;

/// Two bodies whose gap (centre distance minus contact distance) is within this (m) touch: an
/// impact at that instant includes their contact.
pub const TOUCH_GAP: f64 = 1e-9;

/// A resting contact's force must exceed this (N) for the pair to stay resting after a plastic
/// impact; below it they just drift with zero normal rate.
pub const RESTING_FORCE: f64 = 1e-9;
