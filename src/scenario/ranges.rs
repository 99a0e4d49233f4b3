//! The accepted range of every number of a scenario outside `params` (those are in
//! [`crate::model::ranges`]): wide around real props, narrow enough that the arithmetic keeps its
//! meaning (no overflow in the geometry, no step the integrator cannot take). The schema
//! (`diabolo schema`) and docs/cli.md ("Accepted ranges") state the same ranges.

use crate::model::Range;

pub use super::limits::{max_forced_steps, step_cost, MAX_FORCED_SECONDS};

/// A coordinate of a position (sticks, diabolos, keyframes, sine centres), m: far beyond any
/// string (at most 100 m), while squares of distances stay exact enough.
pub const COORDINATE: Range = Range {
    min: -1000.0,
    max: 1000.0,
    unit: "m",
    why: "positions within 1 km of the origin; the string is at most 100 m",
};
/// A velocity component, m/s: real hands and diabolos move at up to 10 to 20 m/s.
pub const VELOCITY: Range = Range {
    min: -1000.0,
    max: 1000.0,
    unit: "m/s",
    why: "real hands and diabolos move at up to 20 m/s; faster starts make no visible progress",
};
/// w, the axle surface speed, m/s: a diabolo at 3000 rpm with a 1 cm axle has about 3 m/s.
pub const SPIN: Range = Range {
    min: -1000.0,
    max: 1000.0,
    unit: "m/s",
    why: "a fast diabolo's axle surface moves at a few m/s",
};
/// k, the knot degree (turns of the string around the axle): each turn adds 2 pi to the
/// capstan angle, so e^(c theta) stays finite with c <= 5 (see `params.friction`).
pub const KNOT: Range = Range {
    min: -5.0,
    max: 5.0,
    unit: "turns",
    why: "each turn multiplies the capstan ratio by exp(2 pi c); real knots have 1 or 2 turns",
};
/// A keyframe time, s.
pub const KEYFRAME_TIME: Range = Range {
    min: -1e6,
    max: 1e6,
    unit: "s",
    why: "keyframes within about 11 days of the start",
};
/// A hand force component, N: a hand pulls with a few N.
pub const FORCE: Range = Range {
    min: -1e4,
    max: 1e4,
    unit: "N",
    why: "a hand pulls with a few N",
};
/// A stick acceleration component, m/s^2: a hand reaches about 100 m/s^2.
pub const ACCELERATION: Range = Range {
    min: -1e4,
    max: 1e4,
    unit: "m/s^2",
    why: "a hand accelerates a stick by up to about 100 m/s^2",
};
/// A sine amplitude, m.
pub const AMPLITUDE: Range = Range {
    min: -100.0,
    max: 100.0,
    unit: "m",
    why: "a hand moves by at most a metre; the string is at most 100 m",
};
/// A sine frequency, Hz: hands move at 0.5 to 5 Hz.
pub const FREQUENCY: Range = Range {
    min: 1e-6,
    max: 100.0,
    unit: "Hz",
    why: "hands move at 0.5 to 5 Hz; for a still hand use a single keyframe",
};
/// A sine phase, rad.
pub const PHASE: Range = Range {
    min: -1000.0,
    max: 1000.0,
    unit: "rad",
    why: "a phase is an angle; larger values only lose digits",
};
/// The half-width of the smoothing window of CSV samples, s.
pub const SMOOTHING: Range = Range {
    min: 1e-4,
    max: 10.0,
    unit: "s",
    why: "a window of a few frames; recordings are sampled every 1 to 20 ms",
};
/// The tracking hand's stiffness, N/m: past 1e6 N/m the hand is stiffer than the integrator
/// can follow (1e12 makes no visible progress).
pub const STIFFNESS: Range = Range {
    min: 1e-6,
    max: 1e6,
    unit: "N/m",
    why: "a stiffer hand makes the run too stiff to make progress; for an exact hand leave out tracking",
};
/// The tracking hand's damping, N s/m.
pub const DAMPING: Range = Range {
    min: 0.0,
    max: 1e4,
    unit: "N s/m",
    why: "a hand damps with a few N s/m",
};
/// The tracking hand's force limit, N.
pub const MAX_FORCE: Range = Range {
    min: 1e-6,
    max: 1e4,
    unit: "N",
    why: "a hand pulls with a few N",
};
/// Simulated time, s (the upper bound is `--max-duration`).
pub const DURATION_MIN: f64 = 1e-6;
/// Time between output rows, s (the row count is bounded by `--max-rows` as well).
pub const OUTPUT_INTERVAL: Range = Range {
    min: 1e-9,
    max: 1e6,
    unit: "s",
    why: "at most a row every nanosecond",
};
/// Relative tolerance of the adaptive methods.
pub const RTOL: Range = Range {
    min: 1e-14,
    max: 1e-3,
    unit: "",
    why: "below 1e-14 the tolerance is under the double precision of the state; above 1e-3 the step control lets the energy ledger open by tens of percent (rtol 0.1, atol 1: 27,000 J in a random scenario)",
};
/// Absolute tolerance of the adaptive methods.
pub const ATOL: Range = Range {
    min: 1e-16,
    max: 1e-3,
    unit: "",
    why: "below 1e-16 the tolerance is under the double precision of the state; above 1e-3 (1 mm, 1 mJ) the step control lets the energy ledger open by tens of percent",
};
/// Longest step, s.
pub const MAX_STEP: Range = Range {
    min: 1e-9,
    max: 1e6,
    unit: "s",
    why: "shorter steps make no visible progress",
};
/// Fixed step of rk4, s.
pub const STEP: Range = Range {
    min: 1e-7,
    max: 1.0,
    unit: "s",
    why: "shorter steps make no visible progress; longer ones miss the dynamics",
};
/// Rebound speed below which bounces settle, m/s.
pub const ZENO_SPEED: Range = Range {
    min: 1e-9,
    max: 10.0,
    unit: "m/s",
    why: "a settling threshold between 1 nm/s and 10 m/s",
};
/// Bounces in a row before settling.
pub const ZENO_BOUNCES: Range = Range {
    min: 1.0,
    max: 1e6,
    unit: "",
    why: "at least one bounce; more than 10^6 is an endless bounce sequence",
};
/// Events per simulated second that end the run.
pub const MAX_EVENTS_PER_SECOND: Range = Range {
    min: 1.0,
    max: 1e7,
    unit: "1/s",
    why: "the guard against event floods must stay finite",
};
/// Distance at which neighbours on the string have met, m.
pub const MEETING_DISTANCE: Range = Range {
    min: 1e-6,
    max: 0.1,
    unit: "m",
    why: "point masses meet within a diabolo's size",
};
/// In space: r, the axle's radius where the string wraps it, m (a diabolo's is a few mm).
pub const AXLE_RADIUS: Range = Range {
    min: 1e-4,
    max: 0.05,
    unit: "m",
    why: "a diabolo's axle is a few mm across",
};
/// In space: I_t, the transverse moment of inertia, kg m^2 (a 0.2 kg diabolo: about 2e-4).
pub const TRANSVERSE_INERTIA: Range = Range {
    min: 1e-9,
    max: 100.0,
    unit: "kg m^2",
    why: "a real diabolo's is about 2e-4 kg m^2; at least half the polar moment J m r^2",
};
/// In space: h, half the distance between the cups' contact planes, m.
pub const HALF_LENGTH: Range = Range {
    min: 1e-3,
    max: 1.0,
    unit: "m",
    why: "a diabolo's cups are 5 to 15 cm apart",
};
/// In space: lambda, the string's offset along a tilted axle per unit sine of tilt, m.
pub const STRING_OFFSET: Range = Range {
    min: -0.05,
    max: 0.05,
    unit: "m",
    why: "the string sits between the cups, a few mm from the axle's centre",
};

/// In space: the cup angle, degrees (in the file; radians in the model).
pub const CUP_ANGLE: Range = Range {
    min: 1.0,
    max: 89.0,
    unit: "degrees",
    why: "the cups' cones open between 0 and 90 degrees from the axle's perpendicular plane",
};
