//! Periodic orbits of a scenario (`diabolo orbit`): the fixed point of its Poincare map by
//! Newton shooting, the monodromy matrix, its Floquet multipliers and the orbit's energy budget.
//!
//! # The map
//!
//! The free coordinates z are the diabolos' positions, velocities and spins (x, y, vx, vy, w per
//! diabolo) and the position and velocity of each stick that no path prescribes; path sticks
//! follow their drives. A state z is made a start of the run by placing it on the string when
//! the orbit is taut there (the diabolos moved along the string length's gradient until the
//! string is at full length and not stretching, [`close_onto_string`]): the directions off the
//! string are mapped to zero, which shows as two zero multipliers ("constraint").
//!
//! - **Forced** (periodic drives, or a period given): P(z) = the state after one period T of the
//!   drives. A fixed point solves P(z) - z = 0.
//! - **Autonomous** (still or released sticks): a section z_i = c fixes the phase; the period T
//!   is an unknown: phi_T(z) - z = 0 and z_i - c = 0, n + 1 equations in (z, T). The monodromy
//!   matrix (the flow's Jacobian over T) has the unit multiplier along the flow ("flow").
//!
//! # Newton
//!
//! The Jacobian is by central differences of the whole hybrid run (events included), its
//! columns in parallel. Each step is the least-squares, minimum-norm solution (an SVD with a
//! relative cutoff), so that families of orbits (a conservative swing of any amplitude, a spin
//! that nothing damps) do not make it singular: Newton goes to the nearest member. A step that
//! does not reduce the residual is halved, up to ten times.
//!
//! # Checks
//!
//! The Jacobian is computed a second time with a step four times larger; the largest difference
//! between the two is reported (`jacobian_agreement`). The energy budget over one period (hand
//! work in, friction, drag, impulse and string losses out) must close on a periodic orbit: the
//! energy at the end equals the energy at the start.

mod continuation;
mod coordinates;
mod guess;
mod lqr;
mod period;
mod search;
mod shooting;
mod stabilize;

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::{Complex, DMatrix};
use thiserror::Error;

use crate::display::Compact;
use crate::model::CartesianState;
use crate::simulation::RunError;

pub use continuation::{continue_orbit, ContinuationPoint, Crossing};
pub use lqr::{eigenvalues, reach, regulator, Regulator};
pub use period::{checked_period, drives_period, forced_period, parse_section, MIN_PERIOD};
pub use search::{check_search, find_orbit, most_periods};
pub use stabilize::{
    check_keys, late_rate, stabilization_json, stabilization_periods, stabilize, summary,
    ControlledRun, Corrected, Stabilization, StabilizeError, StabilizeOptions,
};

/// A state function for a Poincare section: one free coordinate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Section {
    /// Index of the coordinate in z.
    pub index: usize,
    /// The value it crosses.
    pub value: f64,
    /// Crossing upward (true) or downward.
    pub rising: bool,
}

/// How the orbit's period is found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Timing {
    /// The drives' period T, s.
    Forced {
        /// T, s.
        period: f64,
    },
    /// A section crossed once per period; the period is solved for.
    Autonomous(Section),
}

/// Options of the orbit search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitOptions {
    /// Newton stops when the largest residual entry is below this (m, m/s, s).
    pub tolerance: f64,
    /// Newton iterations at most.
    pub max_iterations: usize,
    /// Transients run before the guess is taken, s (forced: rounded down to whole periods).
    pub guess_time: f64,
    /// The finite-difference step of the Jacobian (in the coordinates' units).
    pub jacobian_step: f64,
    /// Threads for the Jacobian's columns.
    pub jobs: usize,
    /// A multiplier is inside the unit circle "by a margin" when its modulus is below
    /// 1 - margin.
    pub stability_margin: f64,
    /// The most simulated time one search may take, s (`--max-duration`): the transient and
    /// every period Newton may run ([`most_periods`]).
    pub max_duration: f64,
}

impl Default for OrbitOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 30,
            guess_time: 0.0,
            jacobian_step: 1e-5,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            stability_margin: 1e-6,
            max_duration: crate::scenario::Limits::DEFAULT_MAX_DURATION,
        }
    }
}

/// Why no orbit was found, or none can be looked for.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum OrbitError {
    /// Nothing sets a period.
    #[error("no periodic drive and no section: give --period T or sim.period (a forced orbit), or --section KEY=VALUE[,up|down] (an autonomous one)")]
    NoPeriod,
    /// The drives have different periods.
    #[error(
        "the drives have different periods ({periods}); give the orbit's period with --period T"
    )]
    PeriodsDisagree {
        /// The periods, s, in words.
        periods: String,
    },
    /// A drive that no period describes (keyframes that move, a recording).
    #[error("the {side} hand's drive is not periodic (moving keyframes or a recording); give its period with --period T or sim.period if it repeats")]
    Aperiodic {
        /// "left" or "right".
        side: &'static str,
    },
    /// A period that is not a number of seconds of at least [`MIN_PERIOD`].
    #[error("{origin} {}: an orbit's period is a finite number of seconds of at least {MIN_PERIOD} (the period of the fastest sine drive accepted, 100 Hz); give the time after which the hands repeat their motion", Compact(*value))]
    BadPeriod {
        /// Where it was given: `--period` or `sim.period`.
        origin: &'static str,
        /// The value given, s.
        value: f64,
    },
    /// A period that is not a whole number of a sine drive's own period.
    #[error("{origin} {} s is not a whole number of periods of the {side} hand's sine ({} s, {} Hz): the drives would not repeat with it; give a multiple of {} s", Compact(*period), Compact(*drive_period), Compact(1.0 / drive_period), Compact(*drive_period))]
    OutOfStep {
        /// Where the period was given: `--period` or `sim.period`.
        origin: &'static str,
        /// The period given, s.
        period: f64,
        /// "left" or "right".
        side: &'static str,
        /// The sine's own period 1 / frequency, s.
        drive_period: f64,
    },
    /// A guess time that alone simulates more than `--max-duration` allows.
    #[error("--guess-time {} s: the guess takes {} s of simulated time (with --section, the guess time and then as long again, at least sim.duration, to find two crossings), more than the limit of {} s (--max-duration); give a shorter --guess-time, or raise the limit with --max-duration SECONDS", Compact(*value), Compact(*simulated), Compact(*limit))]
    GuessTooLong {
        /// `--guess-time`, s.
        value: f64,
        /// Simulated before the guess is taken, s.
        simulated: f64,
        /// `--max-duration`, s.
        limit: f64,
    },
    /// A search that could simulate more time than `--max-duration` allows.
    #[error("{what} {} s: the search could simulate {} s ({} s before the guess, then up to {periods} periods: the first map, per Newton iteration two runs per column of the Jacobian and 11 trial steps, the monodromy and its check), more than the limit of {} s (--max-duration); give a shorter period or --guess-time, or raise the limit with --max-duration SECONDS", Compact(*period), Compact(*total), Compact(*guess), Compact(*limit))]
    SearchTooLong {
        /// What sets the period: `the period` or `the section's period (its guess)`.
        what: &'static str,
        /// T, s.
        period: f64,
        /// Simulated before the guess is taken, s.
        guess: f64,
        /// Periods the search may run at most ([`most_periods`]).
        periods: usize,
        /// The simulated time the search may take, s.
        total: f64,
        /// `--max-duration`, s.
        limit: f64,
    },
    /// A diabolo off the string where the orbit starts.
    #[error("diabolo {diabolo} is {mode} at the orbit's start (t = {} s): the shooting keeps every diabolo on the string (a flight would change the state's coordinates), so an orbit through a flight is not looked for; start where every diabolo is on the string (a later --guess-time, or initial.diabolos on the string)", Compact(*at))]
    OffTheString {
        /// K, from 1.
        diabolo: usize,
        /// "flying" or "dropped".
        mode: &'static str,
        /// The orbit's start in the scenario's time (the guess time), s.
        at: f64,
    },
    /// A section that cannot be used.
    #[error("--section {spec}: {reason}")]
    BadSection {
        /// The section as given.
        spec: String,
        /// What is wrong, with the fix.
        reason: String,
    },
    /// The section is not crossed twice from the guess.
    #[error("the section {section} is crossed {crossings} time(s) in {} s from the guess: no orbit returns to it (choose another section, or lengthen sim.duration)", Compact(*duration))]
    NeverCrossed {
        /// The section, in words.
        section: String,
        /// Crossings found.
        crossings: usize,
        /// Time searched, s.
        duration: f64,
    },
    /// A transient or a map evaluation failed.
    #[error("the run from the {stage} failed: {error}")]
    Run {
        /// Which run, in words.
        stage: &'static str,
        /// The failure.
        error: RunError,
    },
    /// The orbit's start cannot be built.
    #[error("the orbit's start cannot be used: {0}")]
    Setup(String),
    /// Newton did not converge.
    #[error("Newton shooting did not converge in {iterations} iterations (residual history: {history}); likely {reason}")]
    Diverged {
        /// Iterations done.
        iterations: usize,
        /// The residual after each iteration, in words.
        history: String,
        /// The likely reason, in words.
        reason: &'static str,
    },
}

impl OrbitError {
    /// 2 for what the input decides (nothing to look for), 1 for a search that failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Run { .. } | Self::Diverged { .. } => 1,
            _ => 2,
        }
    }
}

/// One Floquet multiplier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multiplier {
    /// The eigenvalue of the monodromy matrix.
    pub value: Complex<f64>,
    /// What a trivial multiplier is: "constraint" (off the string), "flow" (along the orbit),
    /// "spin" (a spin that the string does not feel), "grip" (the spin of an axle gripping at
    /// the start, which the motion sets); `None` for the orbit's own.
    pub trivial: Option<&'static str>,
}

impl Multiplier {
    /// |mu|.
    pub fn modulus(&self) -> f64 {
        self.value.norm()
    }
    /// arg mu, rad.
    pub fn argument(&self) -> f64 {
        self.value.arg()
    }
}

/// The energy budget of one period, J.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EnergyBudget {
    /// Work done by the hands.
    pub hand_work: f64,
    /// Lost to friction at the axles.
    pub friction_loss: f64,
    /// Lost to spin drag.
    pub drag_loss: f64,
    /// Lost in impulses.
    pub impulse_loss: f64,
    /// Lost in a compliant string's damping.
    pub string_loss: f64,
    /// Energy at the end minus energy at the start.
    pub energy_change: f64,
}

impl EnergyBudget {
    /// Work in minus losses out: zero on a periodic orbit.
    pub fn net(&self) -> f64 {
        self.hand_work - self.friction_loss - self.drag_loss - self.impulse_loss - self.string_loss
    }
    /// The ledger's own closure: energy change minus (work - losses).
    pub fn imbalance(&self) -> f64 {
        self.energy_change - self.net()
    }
}

/// A periodic orbit.
#[derive(Clone, Debug, PartialEq)]
pub struct Orbit {
    /// The free coordinates' names (`d1_x`, ..., `left_vx`...).
    pub names: Vec<String>,
    /// The fixed point z.
    pub point: Vec<f64>,
    /// The state at the section (t = 0 of the orbit).
    pub state: CartesianState,
    /// T, s.
    pub period: f64,
    /// Whether the period was solved for (autonomous).
    pub autonomous: bool,
    /// The largest residual entry at the end.
    pub residual: f64,
    /// The residual after each Newton iteration (the first: at the guess).
    pub history: Vec<f64>,
    /// The monodromy matrix, row-major by `names`.
    pub monodromy: DMatrix<f64>,
    /// The multipliers, largest modulus first.
    pub multipliers: Vec<Multiplier>,
    /// Every non-trivial multiplier inside the unit circle by the margin.
    pub stable: bool,
    /// The largest difference between the Jacobians at two difference steps.
    pub jacobian_agreement: f64,
    /// Events per period by kind.
    pub events: BTreeMap<&'static str, usize>,
    /// The energy budget of one period.
    pub budget: EnergyBudget,
    /// Half the range each coordinate spans over one period (the swing's amplitude in d1_x),
    /// sampled at [`AMPLITUDE_SAMPLES`] instants.
    pub amplitudes: Vec<f64>,
    /// Whether the orbit's start lies on a taut string (a start built from z is placed on it).
    pub taut: bool,
    /// Per diabolo: whether its axle grips the string at the orbit's start (its spin is then
    /// the one that does not slip, set by the motion).
    pub grip: Vec<bool>,
}

/// Instants per period at which [`Orbit::amplitudes`] are sampled.
pub const AMPLITUDE_SAMPLES: usize = 256;

impl fmt::Display for Multiplier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} at {:.6} rad", self.modulus(), self.argument())?;
        if let Some(t) = self.trivial {
            write!(f, " ({t})")?;
        }
        Ok(())
    }
}

/// The orbit as the JSON document `diabolo orbit -o` writes.
pub fn orbit_json(orbit: &Orbit) -> serde_json::Value {
    let point: serde_json::Map<String, serde_json::Value> = orbit
        .names
        .iter()
        .zip(&orbit.point)
        .map(|(n, v)| (n.clone(), serde_json::json!(v)))
        .collect();
    let multipliers: Vec<serde_json::Value> = orbit
        .multipliers
        .iter()
        .map(|m| {
            serde_json::json!({
                "re": m.value.re, "im": m.value.im,
                "modulus": m.modulus(), "argument": m.argument(),
                "trivial": m.trivial,
            })
        })
        .collect();
    let b = &orbit.budget;
    serde_json::json!({
        "period": orbit.period,
        "autonomous": orbit.autonomous,
        "point": point,
        "residual": orbit.residual,
        "residual_history": orbit.history,
        "multipliers": multipliers,
        "stable": orbit.stable,
        "jacobian_agreement": orbit.jacobian_agreement,
        "events_per_period": orbit.events,
        "amplitudes": orbit.names.iter().cloned().zip(orbit.amplitudes.iter().map(|a| serde_json::json!(a))).collect::<serde_json::Map<String, serde_json::Value>>(),
        "energy_budget": {
            "hand_work": b.hand_work,
            "friction_loss": b.friction_loss,
            "drag_loss": b.drag_loss,
            "impulse_loss": b.impulse_loss,
            "string_loss": b.string_loss,
            "energy_change": b.energy_change,
            "net": b.net(),
            "imbalance": b.imbalance(),
        },
        "monodromy": orbit.monodromy.row_iter().map(|r| r.iter().copied().collect::<Vec<f64>>()).collect::<Vec<_>>(),
    })
}
