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

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::{Complex, DMatrix, DVector};
use rayon::prelude::*;
use thiserror::Error;

use crate::display::{echoed, Compact};
use crate::model::state::close_onto_string;
use crate::model::CartesianState;
use crate::simulation::drive::{Drive, Path, Schedule};
use crate::simulation::{DiaboloMode, EventKind, Phase, Row, RunError, Settings, Simulation};

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
}

/// Instants per period at which [`Orbit::amplitudes`] are sampled.
pub const AMPLITUDE_SAMPLES: usize = 256;

/// The free coordinates of a simulation: which objects' which fields.
#[derive(Clone, Debug, PartialEq)]
struct Coordinates {
    diabolos: usize,
    /// The sticks no path prescribes (0 left, 1 right).
    sticks: Vec<usize>,
}

const DIABOLO_FIELDS: [&str; 5] = ["x", "y", "vx", "vy", "w"];
const STICK_FIELDS: [&str; 4] = ["x", "y", "vx", "vy"];
const SIDES: [&str; 2] = ["left", "right"];

impl Coordinates {
    fn of(sim: &Simulation) -> Self {
        Self {
            diabolos: sim.initial.diabolo_count(),
            sticks: (0..2)
                .filter(|&s| !matches!(sim.drives[s], Drive::Path(_)))
                .collect(),
        }
    }

    fn len(&self) -> usize {
        5 * self.diabolos + 4 * self.sticks.len()
    }

    fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for k in 1..=self.diabolos {
            names.extend(DIABOLO_FIELDS.iter().map(|f| format!("d{k}_{f}")));
        }
        for &s in &self.sticks {
            names.extend(STICK_FIELDS.iter().map(|f| format!("{}_{f}", SIDES[s])));
        }
        names
    }

    fn pack(&self, state: &CartesianState) -> DVector<f64> {
        let mut z = Vec::with_capacity(self.len());
        for d in &state.diabolos {
            z.extend([d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin]);
        }
        for &s in &self.sticks {
            let b = if s == 0 { &state.left } else { &state.right };
            z.extend([b.pos.x, b.pos.y, b.vel.x, b.vel.y]);
        }
        DVector::from_vec(z)
    }

    fn unpack(&self, z: &DVector<f64>, state: &mut CartesianState) {
        for (k, d) in state.diabolos.iter_mut().enumerate() {
            let v = &z.as_slice()[5 * k..5 * k + 5];
            d.pos = [v[0], v[1]].into();
            d.vel = [v[2], v[3]].into();
            d.spin = v[4];
        }
        for (i, &s) in self.sticks.iter().enumerate() {
            let v = &z.as_slice()[5 * self.diabolos + 4 * i..5 * self.diabolos + 4 * i + 4];
            let b = if s == 0 {
                &mut state.left
            } else {
                &mut state.right
            };
            b.pos = [v[0], v[1]].into();
            b.vel = [v[2], v[3]].into();
        }
    }
}

/// The period of a drive: `Ok(None)` for a constant one, `Ok(Some(T))` for a sine, an error
/// for a moving drive with no period.
fn drive_period(drive: &Drive, side: &'static str) -> Result<Option<f64>, OrbitError> {
    let constant_path = |path: &Path| {
        let knots = path.knots();
        let first = path.at(knots.first().copied().unwrap_or(0.0));
        knots.iter().all(|&t| {
            let p = path.at(t);
            p.pos == first.pos && p.vel == first.vel
        })
    };
    match drive {
        Drive::Released => Ok(None),
        Drive::Force(s) | Drive::Accel(s) => match s {
            Schedule::Constant(_) => Ok(None),
            Schedule::Keyframes(points) if points.iter().all(|p| p.1 == points[0].1) => Ok(None),
            Schedule::Keyframes(_) => Err(OrbitError::Aperiodic { side }),
        },
        Drive::Path(path) | Drive::Tracking(path, _) => match path {
            Path::Sine {
                amplitude,
                frequency,
                ..
            } if *amplitude != nalgebra::Vector2::zeros() => Ok(Some(1.0 / frequency)),
            Path::Sine { .. } => Ok(None),
            other if constant_path(other) => Ok(None),
            _ => Err(OrbitError::Aperiodic { side }),
        },
    }
}

/// The shortest period an orbit may have, s: the period of the fastest sine drive a scenario
/// accepts (100 Hz). A trick's stroke lasts 0.2 to 2 s; below this no hand repeats its motion,
/// and the Jacobian's difference step in the period ([`OrbitOptions::jacobian_step`], 1e-5 s)
/// would no longer be small against it.
pub const MIN_PERIOD: f64 = 0.01;

/// How far from a whole number the ratio of a forced period to a sine drive's own may be
/// (relative): the round-off of a period typed to ten digits.
const WHOLE_PERIODS: f64 = 1e-9;

/// The period the scenario sets: `sim.period` if given, else the drives' common period, if
/// any.
pub fn drives_period(sim: &Simulation) -> Result<Option<f64>, OrbitError> {
    if let Some(period) = sim.settings.period {
        return checked_period(sim, "sim.period", period).map(Some);
    }
    let periods: Vec<f64> = [("left", 0), ("right", 1)]
        .iter()
        .map(|&(side, s)| drive_period(&sim.drives[s], side))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    match periods.as_slice() {
        [] => Ok(None),
        [t] => Ok(Some(*t)),
        [a, b] if ((a - b) / a).abs() < 1e-12 => Ok(Some(*a)),
        [a, b] => Err(OrbitError::PeriodsDisagree {
            periods: format!("{} s and {} s", Compact(*a), Compact(*b)),
        }),
        _ => unreachable!("two hands"),
    }
}

/// The forced period of `sim`: `given` (`--period`) if any, else [`drives_period`].
pub fn forced_period(sim: &Simulation, given: Option<f64>) -> Result<Option<f64>, OrbitError> {
    match given {
        Some(period) => checked_period(sim, "--period", period).map(Some),
        None => drives_period(sim),
    }
}

/// `period` given by `origin` (`--period`, `sim.period`), checked: at least [`MIN_PERIOD`], and
/// a whole number of periods of every sine drive (drives with no period of their own, a stroke
/// of keyframes, are taken to repeat with it).
pub fn checked_period(
    sim: &Simulation,
    origin: &'static str,
    period: f64,
) -> Result<f64, OrbitError> {
    if !(period.is_finite() && period >= MIN_PERIOD) {
        return Err(OrbitError::BadPeriod {
            origin,
            value: period,
        });
    }
    for (side, drive) in SIDES.into_iter().zip(&sim.drives) {
        let Ok(Some(drive_period)) = drive_period(drive, side) else {
            continue;
        };
        let whole = period / drive_period;
        if (whole - whole.round()).abs() > WHOLE_PERIODS * whole || whole.round() < 1.0 {
            return Err(OrbitError::OutOfStep {
                origin,
                period,
                side,
                drive_period,
            });
        }
    }
    Ok(period)
}

/// Parses `KEY=VALUE[,up|down]` (KEY a free coordinate of `sim`, e.g. `d1_x`) into a section.
pub fn parse_section(spec: &str, sim: &Simulation) -> Result<Section, OrbitError> {
    let bad = |reason: String| OrbitError::BadSection {
        spec: echoed(spec),
        reason,
    };
    let (key, rest) = spec
        .split_once('=')
        .ok_or_else(|| bad("expected KEY=VALUE[,up|down], e.g. d1_x=0,up".into()))?;
    let (value, direction) = match rest.split_once(',') {
        Some((v, d)) => (v, d),
        None => (rest, "up"),
    };
    let value: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| bad(format!("VALUE {:?} is not a finite number", echoed(value))))?;
    let rising = match direction.trim() {
        "up" => true,
        "down" => false,
        other => {
            return Err(bad(format!(
                "direction {:?}: give up or down",
                echoed(other)
            )))
        }
    };
    let names = Coordinates::of(sim).names();
    let index = names.iter().position(|n| n == key.trim()).ok_or_else(|| {
        bad(format!(
            "KEY {:?} is not a free coordinate of this scenario; give one of {}",
            echoed(key.trim()),
            names.join(", ")
        ))
    })?;
    Ok(Section {
        index,
        value,
        rising,
    })
}

/// The search: the simulation as built, its coordinates and the orbit's settings.
struct Shooting<'a> {
    sim: &'a Simulation,
    coordinates: Coordinates,
    /// The state the free coordinates are written into (path sticks from their drives).
    base: CartesianState,
    /// Whether the orbit starts taut (the start is placed on the string).
    taut: bool,
    /// Per diabolo: whether its axle grips the string at the start (its spin is then set to
    /// the one that does not slip).
    grip: Vec<bool>,
    settings: Settings,
}

/// The end of one period from z: the free coordinates, the last row (its ledger) and the events.
struct Period {
    /// The diabolos (K) whose axles gripped at t = 0.
    gripped_at_start: Vec<usize>,
    end: DVector<f64>,
    row: Row,
    start_energy: f64,
    events: BTreeMap<&'static str, usize>,
}

impl Shooting<'_> {
    /// The start built from z (on the string when taut).
    fn start(&self, z: &DVector<f64>) -> CartesianState {
        let mut state = self.base.clone();
        self.coordinates.unpack(z, &mut state);
        if self.taut {
            close_onto_string(&mut state, self.sim.params.string_length);
            if self.grip.iter().any(|&g| g) {
                let slips = |s: &CartesianState| slip_speeds(&self.sim.params, s);
                let (Some(at), Some(next)) = (slips(&state), {
                    let mut faster = state.clone();
                    faster.diabolos.iter_mut().for_each(|d| d.spin += 1.0);
                    slips(&faster)
                }) else {
                    return state;
                };
                for (k, d) in state.diabolos.iter_mut().enumerate() {
                    let per_spin = next[k] - at[k];
                    if self.grip[k] && per_spin != 0.0 {
                        d.spin -= at[k] / per_spin;
                    }
                }
            }
        }
        state
    }

    fn simulation(&self, z: &DVector<f64>, duration: f64) -> Result<Simulation, OrbitError> {
        let settings = Settings {
            duration,
            output_interval: duration,
            ..self.settings.clone()
        };
        let modes = vec![DiaboloMode::String; self.base.diabolo_count()];
        Simulation::with_modes(
            self.sim.params,
            self.sim.drives.clone(),
            self.start(z),
            modes,
            settings,
        )
        .map_err(|e| OrbitError::Setup(e.to_string()))
    }

    /// phi_T(z).
    fn flow(&self, z: &DVector<f64>, period: f64) -> Result<Period, OrbitError> {
        let failed = |error| OrbitError::Run {
            stage: "orbit's start",
            error,
        };
        let sim = self.simulation(z, period)?;
        let mut session = sim.session();
        let start_energy = session.state().map_err(failed)?.energy;
        session.advance(period, None).map_err(failed)?;
        let row = session.state().map_err(failed)?.clone();
        let mut events = BTreeMap::new();
        let gripped_at_start = session
            .events()
            .iter()
            .filter(|e| e.kind == EventKind::Stick && e.t == 0.0)
            .filter_map(|e| e.object)
            .collect();
        for e in session.events() {
            if e.kind != EventKind::Failure {
                *events.entry(e.kind.name()).or_default() += 1;
            }
        }
        Ok(Period {
            gripped_at_start,
            end: self.coordinates.pack(&row.state),
            row,
            start_energy,
            events,
        })
    }

    /// Half the range of each coordinate over one period from z.
    fn amplitudes(&self, z: &DVector<f64>, period: f64) -> Result<Vec<f64>, OrbitError> {
        let failed = |error| OrbitError::Run {
            stage: "orbit's start",
            error,
        };
        let sim = self.simulation(z, period)?;
        let mut session = sim.session();
        let m = z.len();
        let (mut low, mut high) = (vec![f64::INFINITY; m], vec![f64::NEG_INFINITY; m]);
        for k in 0..=AMPLITUDE_SAMPLES {
            session
                .advance(period * k as f64 / AMPLITUDE_SAMPLES as f64, None)
                .map_err(failed)?;
            let at = self
                .coordinates
                .pack(&session.state().map_err(failed)?.state);
            for (i, v) in at.iter().enumerate() {
                low[i] = low[i].min(*v);
                high[i] = high[i].max(*v);
            }
        }
        Ok(low.iter().zip(&high).map(|(a, b)| 0.5 * (b - a)).collect())
    }

    /// d phi_T / dz by central differences with step h, columns in parallel, and (autonomous)
    /// d phi_T / dT.
    fn jacobian(
        &self,
        z: &DVector<f64>,
        period: f64,
        h: f64,
        autonomous: bool,
        pool: &rayon::ThreadPool,
    ) -> Result<(DMatrix<f64>, Option<DVector<f64>>), OrbitError> {
        let m = z.len();
        let columns: Vec<Result<DVector<f64>, OrbitError>> = pool.install(|| {
            (0..m + usize::from(autonomous))
                .into_par_iter()
                .map(|j| {
                    if j == m {
                        let plus = self.flow(z, period + h)?.end;
                        let minus = self.flow(z, period - h)?.end;
                        return Ok((plus - minus) / (2.0 * h));
                    }
                    let mut zp = z.clone();
                    zp[j] += h;
                    let mut zm = z.clone();
                    zm[j] -= h;
                    let plus = self.flow(&zp, period)?.end;
                    let minus = self.flow(&zm, period)?.end;
                    Ok((plus - minus) / (2.0 * h))
                })
                .collect()
        });
        let mut jacobian = DMatrix::zeros(m, m);
        let mut rate = None;
        for (j, column) in columns.into_iter().enumerate() {
            let column = column?;
            if j == m {
                rate = Some(column);
            } else {
                jacobian.set_column(j, &column);
            }
        }
        Ok((jacobian, rate))
    }
}

/// The slip speed of each diabolo's axle on the taut string of `state` (m/s), if its
/// geometry has string angles.
fn slip_speeds(params: &crate::model::Params, state: &CartesianState) -> Option<Vec<f64>> {
    let n = state.diabolo_count();
    let mut kinematics = crate::model::Kinematics::new(n);
    kinematics.load_cartesian(state).ok()?;
    let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
    let mut axles = crate::model::friction::Axles::new(n);
    axles.update_free(params, &kinematics, &spins);
    Some(axles.contacts().iter().map(|c| c.slip_speed).collect())
}

/// The residual of (z, T): phi_T(z) - z, and (autonomous) z_i - c.
fn residual(period_end: &DVector<f64>, z: &DVector<f64>, section: Option<Section>) -> DVector<f64> {
    let m = z.len();
    let mut r = DVector::zeros(m + usize::from(section.is_some()));
    r.rows_mut(0, m).copy_from(&(period_end - z));
    if let Some(s) = section {
        r[m] = z[s.index] - s.value;
    }
    r
}

fn norm(r: &DVector<f64>) -> f64 {
    r.amax()
}

/// Periods of the map one search runs at most: the first map; per Newton iteration two runs
/// per column of the Jacobian (one column more, the period's, when autonomous) and up to 11
/// trial steps; then the monodromy and its check (two runs per column each) and the
/// amplitudes' run.
pub fn most_periods(coordinates: usize, autonomous: bool, max_iterations: usize) -> usize {
    let columns = coordinates + usize::from(autonomous);
    1 + max_iterations * (2 * columns + TRIAL_STEPS) + 2 * 2 * coordinates + 1
}

/// Trial steps per Newton iteration at most (the full step and ten halvings).
const TRIAL_STEPS: usize = 11;

/// The time simulated before the guess is taken, at most, s: a forced orbit's whole periods
/// of the guess time; an autonomous one's guess time and then the window searched for two
/// crossings of the section (as long again, at least `sim.duration`).
fn transient(sim: &Simulation, timing: Timing, options: &OrbitOptions) -> f64 {
    match timing {
        Timing::Forced { period } => (options.guess_time / period).floor() * period,
        Timing::Autonomous(_) => options.guess_time + guess_window(sim, options),
    }
}

/// The time an autonomous guess searches for two crossings of its section, s.
fn guess_window(sim: &Simulation, options: &OrbitOptions) -> f64 {
    sim.settings.duration.max(options.guess_time)
}

/// What can be checked before anything runs: a forced period of at least [`MIN_PERIOD`], and a
/// search that cannot simulate more than `options.max_duration` (the guess's transient; for a
/// forced orbit, every period Newton may run as well).
pub fn check_search(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
) -> Result<(), OrbitError> {
    if let Timing::Forced { period } = timing {
        if !(period.is_finite() && period >= MIN_PERIOD) {
            return Err(OrbitError::BadPeriod {
                origin: "--period",
                value: period,
            });
        }
    }
    let limit = options.max_duration;
    let guess = transient(sim, timing, options);
    if !(options.guess_time <= limit && guess <= limit) {
        return Err(OrbitError::GuessTooLong {
            value: options.guess_time,
            simulated: guess,
            limit,
        });
    }
    if let Timing::Forced { period } = timing {
        periods_within(sim, timing, options, "the period", period)?;
    }
    Ok(())
}

/// The longest period the search may run with `options.max_duration` (after the guess's
/// transient), s; an error naming `what` when `period` is longer.
fn periods_within(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
    what: &'static str,
    period: f64,
) -> Result<f64, OrbitError> {
    let autonomous = matches!(timing, Timing::Autonomous(_));
    let periods = most_periods(
        Coordinates::of(sim).len(),
        autonomous,
        options.max_iterations,
    );
    let guess = transient(sim, timing, options);
    let longest = (options.max_duration - guess) / periods as f64;
    if period > longest {
        return Err(OrbitError::SearchTooLong {
            what,
            period,
            guess,
            periods,
            total: guess + periods as f64 * period,
            limit: options.max_duration,
        });
    }
    Ok(longest)
}

/// Finds the periodic orbit of `sim` (its drives and parameters; its initial state, run for
/// `options.guess_time`, is the guess).
pub fn find_orbit(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
) -> Result<Orbit, OrbitError> {
    check_search(sim, timing, options)?;
    let coordinates = Coordinates::of(sim);
    let mut settings = sim.settings.clone();
    settings.rtol = settings.rtol.min(1e-12);
    settings.atol = settings.atol.min(1e-14);
    settings.max_wall = None;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| OrbitError::Setup(format!("cannot start threads: {e}")))?;
    // The guess: the state after the transients (whole periods of a forced orbit).
    let Guess {
        state: guess,
        period,
        phase,
    } = guess(sim, timing, options, &settings)?;
    // Newton may not lengthen the period past what the limit allows.
    let longest = periods_within(
        sim,
        timing,
        options,
        "the section's period (its guess)",
        period,
    )?;
    let mut shooting = Shooting {
        sim,
        coordinates: coordinates.clone(),
        base: guess.clone(),
        taut: phase == Phase::Taut,
        grip: vec![false; coordinates.diabolos],
        settings,
    };
    let section = match timing {
        Timing::Autonomous(s) => Some(s),
        Timing::Forced { .. } => None,
    };
    let autonomous = section.is_some();
    let mut z = coordinates.pack(&shooting.start(&coordinates.pack(&guess)));
    let mut period = period;
    let mut current = shooting.flow(&z, period)?;
    let mut r = residual(&current.end, &z, section);
    let mut history = vec![norm(&r)];
    let m = z.len();
    let h = options.jacobian_step;
    let mut iterations = 0;
    while norm(&r) > options.tolerance {
        if iterations == options.max_iterations {
            return Err(diverged(iterations, &history, "no orbit near the guess"));
        }
        iterations += 1;
        let (jacobian, rate) = shooting.jacobian(&z, period, h, autonomous, &pool)?;
        let mut a = DMatrix::zeros(r.len(), r.len());
        a.view_mut((0, 0), (m, m))
            .copy_from(&(jacobian - DMatrix::identity(m, m)));
        if let (Some(s), Some(rate)) = (section, rate) {
            a.view_mut((0, m), (m, 1)).copy_from(&rate);
            a[(m, s.index)] = 1.0;
        }
        let svd = a.svd(true, true);
        let cutoff = 1e-10 * svd.singular_values.max();
        let step = svd
            .solve(&(-&r), cutoff)
            .map_err(|_| diverged(iterations, &history, "a singular Jacobian"))?;
        // Damped: halve a step that does not reduce the residual.
        let mut scale = 1.0;
        let mut accepted = None;
        for _ in 0..TRIAL_STEPS {
            let trial_z = &z + step.rows(0, m) * scale;
            let trial_period = if autonomous {
                period + step[m] * scale
            } else {
                period
            };
            if trial_period >= MIN_PERIOD && trial_period <= longest {
                if let Ok(trial) = shooting.flow(&trial_z, trial_period) {
                    let trial_r = residual(&trial.end, &trial_z, section);
                    if norm(&trial_r) < norm(&r) {
                        accepted = Some((trial_z, trial_period, trial, trial_r));
                        break;
                    }
                }
            }
            scale *= 0.5;
        }
        let Some((next_z, next_period, next, next_r)) = accepted else {
            history.push(norm(&r));
            return Err(diverged(
                iterations,
                &history,
                "no orbit near the guess, a bifurcation (a multiplier at +1), or an event grazing there",
            ));
        };
        z = next_z;
        period = next_period;
        current = next;
        r = next_r;
        history.push(norm(&r));
    }
    // An axle that grips at the start (a rolling orbit) has no spin of its own there: its spin
    // follows the motion, and a spin perturbed off it would slip for a moment (a kink in the
    // map that first-order errors in the differences show). The monodromy takes the spin of
    // such an axle from the motion (a zero multiplier, "grip").
    shooting.grip = gripping_at_start(&current, &coordinates);
    let (monodromy, _) = shooting.jacobian(&z, period, h, false, &pool)?;
    let (check, _) = shooting.jacobian(&z, period, 4.0 * h, false, &pool)?;
    let jacobian_agreement = (&monodromy - &check).amax();
    let multipliers = classify(&monodromy, &shooting, autonomous);
    let stable = multipliers
        .iter()
        .filter(|m| m.trivial.is_none())
        .all(|m| m.modulus() < 1.0 - options.stability_margin);
    let amplitudes = shooting.amplitudes(&z, period)?;
    let row = &current.row;
    let budget = EnergyBudget {
        hand_work: row.hand_work,
        friction_loss: row.friction_loss,
        drag_loss: row.drag_loss,
        impulse_loss: row.impulse_loss,
        string_loss: row.string_loss.unwrap_or(0.0),
        energy_change: row.energy - current.start_energy,
    };
    Ok(Orbit {
        names: coordinates.names(),
        point: z.iter().copied().collect(),
        state: shooting.start(&z),
        period,
        autonomous,
        residual: norm(&r),
        history,
        monodromy,
        multipliers,
        stable,
        jacobian_agreement,
        events: current.events,
        budget,
        amplitudes,
    })
}

/// Per diabolo: whether its axle gripped from the orbit's start (a `stick` at t = 0).
fn gripping_at_start(period: &Period, coordinates: &Coordinates) -> Vec<bool> {
    (1..=coordinates.diabolos)
        .map(|k| period.gripped_at_start.contains(&k))
        .collect()
}

fn diverged(iterations: usize, history: &[f64], reason: &'static str) -> OrbitError {
    OrbitError::Diverged {
        iterations,
        history: history
            .iter()
            .map(|r| format!("{r:.3e}"))
            .collect::<Vec<_>>()
            .join(", "),
        reason,
    }
}

/// Newton's first guess.
struct Guess {
    /// The state after the transients.
    state: CartesianState,
    /// The drives' period, or the time between two crossings of the section, s.
    period: f64,
    /// The string's phase there.
    phase: Phase,
}

/// The guess taken from `session` where it stands, if every diabolo is on the string there.
fn guess_at(
    session: &mut crate::simulation::Session,
    period: f64,
    failed: impl Fn(RunError) -> OrbitError,
) -> Result<Guess, OrbitError> {
    let at = session.time();
    let phase = session.phase();
    let row = session.state().map_err(failed)?;
    if let Some(k) = row.modes.iter().position(|m| *m != DiaboloMode::String) {
        return Err(OrbitError::OffTheString {
            diabolo: k + 1,
            mode: row.modes[k].name(),
            at,
        });
    }
    Ok(Guess {
        state: row.state.clone(),
        period,
        phase,
    })
}

/// The guess: the state after the transients, the period (the drives' or the time between two
/// crossings of the section) and the phase there.
fn guess(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
    settings: &Settings,
) -> Result<Guess, OrbitError> {
    let failed = |error| OrbitError::Run {
        stage: "guess",
        error,
    };
    let mut long = sim.clone();
    long.settings = settings.clone();
    match timing {
        Timing::Forced { period } => {
            let whole = transient(sim, timing, options);
            long.settings.duration = whole.max(period);
            let mut session = long.session();
            session.advance(whole, None).map_err(failed)?;
            guess_at(&mut session, period, failed)
        }
        Timing::Autonomous(section) => {
            let duration = guess_window(sim, options);
            long.settings.duration = options.guess_time + duration;
            let coordinates = Coordinates::of(sim);
            let mut session = long.session();
            session.advance(options.guess_time, None).map_err(failed)?;
            // Crossings on a fine grid, refined by bisection on copies of the session.
            let value = |s: &mut crate::simulation::Session| -> Result<f64, OrbitError> {
                let row = s.state().map_err(failed)?;
                Ok(coordinates.pack(&row.state)[section.index] - section.value)
            };
            let dt = (duration / 20_000.0).max(1e-4);
            let mut crossings: Vec<(f64, crate::simulation::Session)> = Vec::new();
            let mut before = session.clone();
            let mut g0 = value(&mut before)?;
            while crossings.len() < 2 && !session.finished() {
                let t = session.time() + dt;
                if session.advance(t, None).is_err() {
                    break;
                }
                let g1 = value(&mut session)?;
                let crossed = if section.rising {
                    g0 < 0.0 && g1 >= 0.0
                } else {
                    g0 > 0.0 && g1 <= 0.0
                };
                if crossed {
                    let (mut lo, mut hi) = (before.time(), session.time());
                    let mut at = before.clone();
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        let mut probe = before.clone();
                        probe.advance(mid, None).map_err(failed)?;
                        let g = value(&mut probe)?;
                        if (g < 0.0) == section.rising {
                            lo = mid;
                        } else {
                            hi = mid;
                            at = probe;
                        }
                        if hi - lo < 1e-13 {
                            break;
                        }
                    }
                    crossings.push((at.time(), at));
                }
                before = session.clone();
                g0 = g1;
            }
            if crossings.len() < 2 {
                return Err(OrbitError::NeverCrossed {
                    section: section_words(section, &coordinates),
                    crossings: crossings.len(),
                    duration,
                });
            }
            let period = crossings[1].0 - crossings[0].0;
            let (_, mut first) = crossings.swap_remove(0);
            guess_at(&mut first, period, failed)
        }
    }
}

fn section_words(section: Section, coordinates: &Coordinates) -> String {
    format!(
        "{} = {} {}",
        coordinates.names()[section.index],
        Compact(section.value),
        if section.rising { "upward" } else { "downward" }
    )
}

/// The multipliers of the monodromy matrix, the trivial ones named: two zeros per taut string
/// (the start is placed on it), the one nearest 1 of an autonomous orbit (the flow), and the
/// spin's own where a spin's row and column of the matrix are decoupled from the rest.
fn classify(monodromy: &DMatrix<f64>, shooting: &Shooting, autonomous: bool) -> Vec<Multiplier> {
    let values: Vec<Complex<f64>> = monodromy
        .clone()
        .complex_eigenvalues()
        .iter()
        .copied()
        .collect();
    let mut multipliers: Vec<Multiplier> = values
        .into_iter()
        .map(|value| Multiplier {
            value,
            trivial: None,
        })
        .collect();
    multipliers.sort_by(|a, b| b.modulus().total_cmp(&a.modulus()));
    let mut name = |target: Complex<f64>, label: &'static str| {
        if let Some(m) = multipliers
            .iter_mut()
            .filter(|m| m.trivial.is_none())
            .min_by(|a, b| {
                (a.value - target)
                    .norm()
                    .total_cmp(&(b.value - target).norm())
            })
        {
            m.trivial = Some(label);
        }
    };
    if shooting.taut {
        name(Complex::new(0.0, 0.0), "constraint");
        name(Complex::new(0.0, 0.0), "constraint");
    }
    for _ in shooting.grip.iter().filter(|&&g| g) {
        name(Complex::new(0.0, 0.0), "grip");
    }
    let m = monodromy.nrows();
    for k in 0..shooting.coordinates.diabolos {
        let s = 5 * k + 4;
        let scale = monodromy.amax().max(1.0);
        let coupled = (0..m).filter(|&j| j != s).any(|j| {
            monodromy[(s, j)].abs() > 1e-7 * scale || monodromy[(j, s)].abs() > 1e-7 * scale
        });
        if !coupled {
            name(Complex::new(monodromy[(s, s)], 0.0), "spin");
        }
    }
    if autonomous {
        name(Complex::new(1.0, 0.0), "flow");
    }
    multipliers
}

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

/// One point of a continuation: the parameter's value, the orbit (or why none was found), and
/// where a non-trivial multiplier crossed the unit circle since the previous point.
#[derive(Clone, Debug)]
pub struct ContinuationPoint {
    /// The parameter's value.
    pub value: f64,
    /// The orbit there.
    pub orbit: Result<Orbit, OrbitError>,
    /// Newton searches run for this value (halved steps and the crossing's bisection included).
    pub attempts: usize,
    /// The crossing since the previous point, located by bisection, if a multiplier crossed.
    pub crossing: Option<Crossing>,
    /// The non-trivial multiplier nearest the unit circle at this point.
    pub nearest: Option<Complex<f64>>,
}

/// A multiplier crossing the unit circle between two points of a branch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// "fold" (a real multiplier through +1), "period_doubling" (through -1) or
    /// "neimark_sacker" (a complex pair).
    pub kind: &'static str,
    /// The parameter where it crosses (the bisection's last bracket's middle).
    pub at: f64,
    /// The multiplier there (the one nearest the circle at the bracket's ends).
    pub multiplier: Complex<f64>,
}

/// How a crossing multiplier is named from where it meets the circle: within 0.1 rad of the
/// real axis it is a fold (+1) or a period doubling (-1), otherwise a Neimark-Sacker pair.
fn crossing_kind(mu: Complex<f64>) -> &'static str {
    let angle = mu.arg().abs();
    if angle < 0.1 {
        "fold"
    } else if angle > std::f64::consts::PI - 0.1 {
        "period_doubling"
    } else {
        "neimark_sacker"
    }
}

/// Follows an orbit through the parameter values `values` (natural-parameter continuation):
/// `simulation(v)` builds the scenario at value v and `timing` says how its period is found;
/// each orbit starts from the previous one, and a value whose orbit is not found is approached
/// in halved steps (down to 1/16 of the step) before it is given up. Where the number of
/// non-trivial multipliers outside the unit circle changes between two points, the crossing is
/// located by bisection of the parameter (20 halvings at most, to 1e-9 of the step).
pub fn continue_orbit(
    simulation: &dyn Fn(f64) -> Result<Simulation, OrbitError>,
    timing: &dyn Fn(&Simulation) -> Result<Timing, OrbitError>,
    values: &[f64],
    options: &OrbitOptions,
) -> Vec<ContinuationPoint> {
    let branch = Branch {
        simulation,
        timing,
        options,
    };
    let mut points: Vec<ContinuationPoint> = Vec::with_capacity(values.len());
    let mut last: Option<(f64, Orbit)> = None;
    for &value in values {
        let mut attempts = 0;
        let orbit = match &last {
            None => simulation(value).and_then(|sim| {
                attempts += 1;
                find_orbit(&sim, timing(&sim)?, options)
            }),
            Some((from, orbit)) => branch.approach((*from, orbit), value, 4, &mut attempts),
        };
        let previous = points
            .last()
            .and_then(|p| p.orbit.as_ref().ok().map(|o| (p.value, o)));
        let crossing = match (&orbit, previous) {
            (Ok(now), Some((before_value, before))) if outside(before) != outside(now) => {
                Some(branch.locate((before_value, before), (value, now), &mut attempts))
            }
            _ => None,
        };
        let nearest = orbit.as_ref().ok().and_then(nearest_to_circle);
        if let Ok(found) = &orbit {
            last = Some((value, found.clone()));
        }
        points.push(ContinuationPoint {
            value,
            orbit,
            attempts,
            crossing,
            nearest,
        });
    }
    points
}

/// What a continuation solves with.
struct Branch<'a> {
    simulation: &'a dyn Fn(f64) -> Result<Simulation, OrbitError>,
    timing: &'a dyn Fn(&Simulation) -> Result<Timing, OrbitError>,
    options: &'a OrbitOptions,
}

impl Branch<'_> {
    /// The orbit at `at` from the one `guess`.
    fn solve(&self, at: f64, guess: &Orbit, attempts: &mut usize) -> Result<Orbit, OrbitError> {
        let mut sim = (self.simulation)(at)?;
        sim.initial = guess.state.clone();
        *attempts += 1;
        let start = OrbitOptions {
            guess_time: 0.0,
            ..*self.options
        };
        find_orbit(&sim, (self.timing)(&sim)?, &start)
    }

    /// The orbit at `target` from the one at `from`, halving the step on failure `depth` times.
    fn approach(
        &self,
        from: (f64, &Orbit),
        target: f64,
        depth: usize,
        attempts: &mut usize,
    ) -> Result<Orbit, OrbitError> {
        match self.solve(target, from.1, attempts) {
            Ok(orbit) => Ok(orbit),
            Err(error) if depth == 0 => Err(error),
            Err(_) => {
                let mid = 0.5 * (from.0 + target);
                let halfway = self.approach(from, mid, depth - 1, attempts)?;
                self.approach((mid, &halfway), target, depth - 1, attempts)
            }
        }
    }

    /// The crossing between two orbits whose multipliers outside the circle differ in number,
    /// by bisection of the parameter.
    fn locate(&self, low: (f64, &Orbit), high: (f64, &Orbit), attempts: &mut usize) -> Crossing {
        let (mut a, mut b) = ((low.0, low.1.clone()), (high.0, high.1.clone()));
        let step = (high.0 - low.0).abs();
        for _ in 0..20 {
            if (b.0 - a.0).abs() <= 1e-9 * step {
                break;
            }
            let mid = 0.5 * (a.0 + b.0);
            match self.solve(mid, &a.1, attempts) {
                Ok(orbit) if outside(&orbit) == outside(&a.1) => a = (mid, orbit),
                Ok(orbit) => b = (mid, orbit),
                Err(_) => break,
            }
        }
        let multiplier = own(&a.1)
            .chain(own(&b.1))
            .min_by(|x, y| {
                (x.modulus() - 1.0)
                    .abs()
                    .total_cmp(&(y.modulus() - 1.0).abs())
            })
            .map_or(Complex::new(f64::NAN, 0.0), |m| m.value);
        Crossing {
            kind: crossing_kind(multiplier),
            at: 0.5 * (a.0 + b.0),
            multiplier,
        }
    }
}

/// The non-trivial multipliers.
fn own(orbit: &Orbit) -> impl Iterator<Item = &Multiplier> {
    orbit.multipliers.iter().filter(|m| m.trivial.is_none())
}

/// How many non-trivial multipliers lie outside the unit circle.
fn outside(orbit: &Orbit) -> usize {
    own(orbit).filter(|m| m.modulus() > 1.0).count()
}

fn nearest_to_circle(orbit: &Orbit) -> Option<Complex<f64>> {
    own(orbit)
        .min_by(|a, b| {
            (a.modulus() - 1.0)
                .abs()
                .total_cmp(&(b.modulus() - 1.0).abs())
        })
        .map(|m| m.value)
}
