//! The hybrid simulation: integrates the taut and loose phases in turn, locates events on the
//! dense output, applies them (loosening, tensing impulses, friction mode changes, knot
//! changes, failures) and streams output rows at exact multiples of the output interval.
//!
//! Each accepted step goes through the same phases in a fixed order: step -> event location
//! on the interpolant -> output rows before the event -> event handling -> restart.

use std::time::Instant;

use nalgebra::Vector2;
use thiserror::Error;

use crate::display::Compact;

use crate::model::{
    energy::mechanical_energy, tensing_impulse, AxleMode, CartesianState, DynamicsError,
    FrictionLaw, Kinematics, ParamValues, Params, Regularisation, SlipDirection, StateError,
    StickInput,
};

use super::drive::{Drive, Tracking};
use super::events::{EventError, EventLocator, EventOptions};
use super::integrate::{IntegrateError, Method, OptionsError, Stepper, StepperOptions};
use super::phase::{
    hand_inputs, path_margin, taut_formulas_on, LooseSystem, Phase, Quantity, TautSystem,
    ACCUMULATORS,
};

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

/// The window of simulated time over which events and steps are counted, s.
const BUDGET_WINDOW: f64 = 0.1;

/// A time scale shorter than this (s) names a parameter or the state as the likely cause of a
/// stall or an overflow.
const FAST_TIME_SCALE: f64 = 1e-3;

/// The cause of a stall when none is recognised.
const STALL_UNRECOGNISED: &str = "no cause recognised in the parameters or the state: perhaps a \
    near-straight string between driven sticks, a near collision, or tolerances (sim.rtol, \
    sim.atol) too tight for the scales of the scenario";

/// A diabolo-to-stick mass ratio beyond this (or below its inverse) is named as a likely cause.
const EXTREME_MASS_RATIO: f64 = 1e4;

/// Object k of a run with n diabolos, in words: 0 the left stick, 1..n the diabolos, n + 1 the
/// right stick. Every message names objects so.
pub fn object_name(k: usize, n: usize) -> String {
    match k {
        0 => "the left stick".to_string(),
        k if k == n + 1 => "the right stick".to_string(),
        k => format!("diabolo {k}"),
    }
}

/// A state quantity in words: "diabolo 1's spin", "the string's tension".
fn quantity_name(quantity: Quantity, n: usize) -> String {
    match quantity.object {
        Some(k) => format!("{}'s {}", object_name(k, n), quantity.name),
        None if quantity.name == "tension" => "the string's tension".to_string(),
        None => format!("the {}", quantity.name),
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
    fn new(t: f64, kind: EventKind, object: Option<usize>) -> Self {
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

/// One output row (interface.md, "Trajectory CSV").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    pub t: f64,
    pub phase: Option<Phase>,
    pub state: CartesianState,
    /// theta_i of each diabolo, rad.
    pub thetas: Vec<f64>,
    /// T_0..T_N, N (0 while loose).
    pub tensions: Vec<f64>,
    pub gear_ratio: f64,
    /// F^_C, m/s^2.
    pub centrifugal_term: f64,
    pub hand_forces: [Vector2<f64>; 2],
    /// Mechanical energy, J.
    pub energy: f64,
    /// L - sum l, m.
    pub slack: f64,
    /// Work done by the hands since the start, J.
    pub hand_work: f64,
    /// Energy lost to friction at the axles, to spin drag, and in impacts since the start, J.
    pub friction_loss: f64,
    pub drag_loss: f64,
    pub impulse_loss: f64,
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

/// A scenario ready to run: parameters, drives, initial state, settings.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub params: Params,
    pub drives: [Drive; 2],
    pub initial: CartesianState,
    pub settings: Settings,
}

/// A problem with the simulation setup itself.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SetupError {
    #[error("initial state: {0}")]
    State(#[from] StateError),
    #[error("initial state: the string is {excess:.6} m too short for the positions (sum l > L)")]
    StringTooShort { excess: f64 },
    #[error("sim.{field}: {reason}")]
    Settings { field: &'static str, reason: String },
}

impl Simulation {
    /// Checks the setup: a string long enough for the positions, and valid settings.
    /// A stick whose drive is a path starts where its path is at t = 0, with its velocity.
    pub fn new(
        params: Params,
        drives: [Drive; 2],
        mut initial: CartesianState,
        settings: Settings,
    ) -> Result<Self, SetupError> {
        for (drive, stick) in drives.iter().zip([&mut initial.left, &mut initial.right]) {
            if let Drive::Path(path) = drive {
                let start = path.at(0.0);
                stick.pos = start.pos;
                stick.vel = start.vel;
            }
        }
        if initial.diabolo_count() == 0 {
            return Err(StateError::NoDiabolo.into());
        }
        let excess = initial.string_used() - params.string_length;
        if excess > 1e-9 * params.string_length {
            return Err(SetupError::StringTooShort { excess });
        }
        let positive = |field: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(SetupError::Settings {
                    field,
                    reason: format!("{} must be a finite number greater than 0", Compact(v)),
                })
            }
        };
        positive("duration", settings.duration)?;
        positive("output_interval", settings.output_interval)?;
        positive("zeno_speed", settings.zeno_speed)?;
        positive("meeting_distance", settings.meeting_distance)?;
        positive("max_events_per_second", settings.max_events_per_second)?;
        positive("max_steps_per_second", settings.max_steps_per_second)?;
        if let Some(limit) = settings.max_wall {
            positive("max_wall", limit)?;
        }
        stepper_options(&settings).validate().map_err(|e| {
            let field = match e {
                OptionsError::Rtol(_) => "rtol",
                OptionsError::Atol(_) => "atol",
                OptionsError::FixedStep(_) => "step",
                _ => "max_step",
            };
            SetupError::Settings {
                field,
                reason: e.to_string(),
            }
        })?;
        if let Method::Rk4 { step } = settings.method {
            positive("step", step)?;
        }
        Ok(Self {
            params,
            drives,
            initial,
            settings,
        })
    }

    /// Runs to the end (or to a failure), handing every output row to `on_row`.
    pub fn run(&self, on_row: &mut dyn FnMut(&Row)) -> RunReport {
        let mut runner = Runner::new(self);
        let failure = runner.run(on_row).err().map(|f| runner.explain(f));
        if let Some(failure) = &failure {
            let mut event = Event::new(runner.t, EventKind::Failure, failure_object(failure));
            event.reason = Some(failure.to_string());
            runner.events.push(event);
        }
        let stats = [runner.taut_stepper.stats(), runner.loose_stepper.stats()];
        RunReport {
            events: runner.events,
            stats: RunStats {
                steps: stats.iter().map(|s| s.accepted_steps as usize).sum(),
                rejected_steps: stats.iter().map(|s| s.rejected_steps as usize).sum(),
                derivative_evaluations: stats
                    .iter()
                    .map(|s| s.rhs_evaluations as usize)
                    .sum::<usize>()
                    + runner.extra_evaluations,
                rows: runner.rows,
            },
            failure,
            end_time: runner.t,
            grip_needed: runner.grip_needed,
            energy: (runner.initial_energy, runner.row.energy),
        }
    }
}

fn stepper_options(settings: &Settings) -> StepperOptions {
    StepperOptions {
        rtol: settings.rtol,
        atol: settings.atol,
        max_step: settings.max_step.unwrap_or(f64::INFINITY),
        ..StepperOptions::default()
    }
}

fn failure_object(failure: &RunError) -> Option<usize> {
    match failure {
        RunError::Collision { segment, .. } => Some(*segment),
        RunError::LeftString { diabolo, .. } | RunError::CaughtFlying { diabolo, .. } => {
            Some(*diabolo)
        }
        RunError::EventFlood { object, .. } | RunError::NonFinite { object, .. } => *object,
        _ => None,
    }
}

/// What a located event asks for, copied out of the locator.
struct Hit {
    t: f64,
    members: Vec<usize>,
    /// The members' values just before the step (for the direction of a fold).
    rising: Vec<bool>,
}

/// The running state of a simulation.
struct Runner<'a> {
    sim: &'a Simulation,
    n: usize,
    phase: Phase,
    t: f64,
    taut: TautSystem,
    loose: LooseSystem,
    taut_stepper: Stepper,
    loose_stepper: Stepper,
    taut_locator: EventLocator,
    loose_locator: EventLocator,
    /// State buffer of the current phase (event state, interpolated rows).
    y: Vec<f64>,
    /// State buffer of the output rows.
    row_y: Vec<f64>,
    events: Vec<Event>,
    next_row: u64,
    rows: usize,
    row: Row,
    bounces: usize,
    impulse_loss: f64,
    extra_evaluations: usize,
    /// Events in the current window of simulated time.
    event_window: WindowCount,
    /// Steps (accepted and rejected) in the current window of simulated time.
    step_window: WindowCount,
    /// Steps (accepted and rejected) of both phases counted so far.
    steps_counted: u64,
    /// When the run started (for `max_wall`).
    started: Instant,
    grip_needed: Option<f64>,
    initial_energy: f64,
    /// After a rebound, the longest step (s) until the string is taut again: an eighth of the
    /// predicted flight, so that a short flight is never stepped over.
    flight_step: Option<f64>,
    /// The drives' breakpoints (sorted): steps end there.
    breakpoints: Vec<f64>,
    /// Index of the first breakpoint not yet passed.
    next_breakpoint: usize,
}

impl<'a> Runner<'a> {
    fn new(sim: &'a Simulation) -> Self {
        let n = sim.initial.diabolo_count();
        let s = &sim.settings;
        let mut taut = TautSystem::new(&sim.params, n, sim.drives.clone());
        taut.meeting_distance = sim.settings.meeting_distance;
        taut.dynamics = taut.dynamics.clone().with_regularisation(s.regularisation);
        let mut loose = LooseSystem::new(&sim.params, n, sim.drives.clone());
        loose.meeting_distance = sim.settings.meeting_distance;
        let options = stepper_options(s);
        // Simulation::new validated the options.
        let stepper = |d| Stepper::new(s.method, options, d).expect("validated options");
        let locator = |count, d, specs: Vec<_>| {
            let mut l =
                EventLocator::new(count, d, EventOptions::default()).expect("valid event options");
            l.set_mut()
                .configure(&specs)
                .expect("specs within capacity");
            l
        };
        let (taut_dim, loose_dim) = (taut.dimension(), loose.dimension());
        Self {
            sim,
            n,
            phase: Phase::Loose,
            t: 0.0,
            taut_stepper: stepper(taut_dim),
            loose_stepper: stepper(loose_dim),
            taut_locator: locator(taut.event_count(), taut_dim, taut.event_specs()),
            loose_locator: locator(loose.event_count(), loose_dim, loose.event_specs()),
            taut,
            loose,
            y: vec![0.0; taut_dim.max(loose_dim)],
            row_y: vec![0.0; taut_dim.max(loose_dim)],
            events: Vec::new(),
            next_row: 0,
            rows: 0,
            row: Row::default(),
            bounces: 0,
            impulse_loss: 0.0,
            extra_evaluations: 0,
            event_window: WindowCount::default(),
            step_window: WindowCount::default(),
            steps_counted: 0,
            started: Instant::now(),
            grip_needed: None,
            initial_energy: mechanical_energy(&sim.params, &sim.initial),
            flight_step: None,
            breakpoints: {
                let mut b: Vec<f64> = sim.drives.iter().flat_map(Drive::breakpoints).collect();
                b.sort_by(f64::total_cmp);
                b.dedup();
                b
            },
            next_breakpoint: 0,
        }
    }

    /// The end of the next step: the duration, or the first drive breakpoint ahead of t (one
    /// closer than 1e-9 s counts as passed).
    fn step_limit(&mut self, duration: f64) -> f64 {
        let ahead = self.t + 1e-9;
        while self
            .breakpoints
            .get(self.next_breakpoint)
            .is_some_and(|b| *b <= ahead)
        {
            self.next_breakpoint += 1;
        }
        self.breakpoints
            .get(self.next_breakpoint)
            .map_or(duration, |b| b.min(duration))
    }

    fn dimension(&self) -> usize {
        match self.phase {
            Phase::Taut => self.taut.dimension(),
            Phase::Loose => self.loose.dimension(),
        }
    }

    fn run(&mut self, on_row: &mut dyn FnMut(&Row)) -> Result<(), RunError> {
        let initial = self.sim.initial.clone();
        let slack = self.sim.params.string_length - initial.string_used();
        let accumulated = [0.0; ACCUMULATORS];
        self.taut.knots = initial.diabolos.iter().map(|d| d.knot).collect();
        self.loose.knots = self.taut.knots.clone();
        if slack <= 1e-9 * self.sim.params.string_length {
            self.tense(initial, &accumulated, 0.0, false, false)?;
        } else {
            self.enter_loose(initial, &accumulated, 0.0)?;
        }
        let duration = self.sim.settings.duration;
        while self.t < duration {
            let limit = self.step_limit(duration);
            let t1 = self.step(limit)?;
            let hit = self.locate()?;
            match hit {
                Some(hit) => {
                    self.emit_rows(hit.t, false, on_row)?;
                    self.t = hit.t;
                    self.handle(&hit)?;
                }
                None => {
                    if let Some(t_taut) = self.overstretched()? {
                        // The slack went negative from a zero start (a loosening the free motion
                        // does not follow): the string is taut again from there.
                        self.emit_rows(t_taut, false, on_row)?;
                        self.t = t_taut;
                        let d = self.dimension();
                        let y = self.y[..d].to_vec();
                        let state = self.loose.state(t_taut, &y);
                        self.count_event(t_taut)?;
                        self.tense(state, &y[d - ACCUMULATORS..d], t_taut, true, true)?;
                        continue;
                    }
                    self.emit_rows(t1, t1 >= duration, on_row)?;
                    self.t = t1;
                    self.after_step()?;
                }
            }
        }
        Ok(())
    }

    /// In the loose phase: if the string ended the last step longer than L (slack below
    /// -1e-9 L, missed because it left zero on the wrong side), the time it reached full
    /// length, with the state there in `self.y`.
    fn overstretched(&mut self) -> Result<Option<f64>, RunError> {
        if self.phase != Phase::Loose {
            return Ok(None);
        }
        let d = self.dimension();
        let length = self.sim.params.string_length;
        // The locator evaluated the slack (member 0) at the step's end already.
        match self.loose_locator.end_values() {
            Some((_, values)) if values[0] < -1e-9 * length => {}
            _ => return Ok(None),
        }
        let slack_at = |this: &mut Self, t: f64| -> Result<f64, RunError> {
            let mut y = std::mem::take(&mut this.row_y);
            y.resize(d, 0.0);
            let interpolated = this.interpolate_into(t, &mut y);
            let slack = this.loose.slack(t, &y[..d]);
            this.row_y = y;
            interpolated.map(|()| slack)
        };
        let (mut lo, mut hi) = (self.loose_stepper.t_old(), self.loose_stepper.t());
        if slack_at(self, lo)? < 0.0 {
            hi = lo;
        }
        while hi - lo > 1e-14 * (1.0 + hi.abs()) {
            let mid = 0.5 * (lo + hi);
            if slack_at(self, mid)? < 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let mut y = std::mem::take(&mut self.y);
        let interpolated = self.interpolate_into(hi, &mut y[..d]);
        self.y = y;
        interpolated?;
        Ok(Some(hi))
    }

    /// One accepted step of the current phase: its end time.
    fn step(&mut self, limit: f64) -> Result<f64, RunError> {
        let phase = self.phase.name();
        let limit = match (self.phase, self.flight_step) {
            (Phase::Loose, Some(h)) => limit.min(self.t + h),
            _ => limit,
        };
        let result = match self.phase {
            Phase::Taut => self.taut_stepper.step(&mut self.taut, limit),
            Phase::Loose => self.loose_stepper.step(&mut self.loose, limit),
        };
        let t_new = result
            .map(|o| o.t_new)
            .map_err(|e| integrate_failure(e, phase))?;
        self.check_budget()?;
        Ok(t_new)
    }

    /// The step and wall-clock budgets, after a step (allocation-free unless exceeded).
    fn check_budget(&mut self) -> Result<(), RunError> {
        self.check_wall()?;
        let stepper = self.stepper();
        let h = stepper.t() - stepper.t_old();
        let stats = [self.taut_stepper.stats(), self.loose_stepper.stats()];
        let total: u64 = stats
            .iter()
            .map(|s| s.accepted_steps + s.rejected_steps)
            .sum();
        let steps = self
            .step_window
            .add(self.t, total - self.steps_counted, BUDGET_WINDOW);
        self.steps_counted = total;
        let budget = step_budget(&self.sim.settings);
        if steps as f64 > budget * BUDGET_WINDOW {
            return Err(RunError::StepBudget {
                t: self.t,
                h,
                phase: self.phase.name(),
                steps,
                window: BUDGET_WINDOW,
                budget,
                cause: self.likely_cause(STALL_UNRECOGNISED),
            });
        }
        Ok(())
    }

    /// The wall-clock budget `max_wall`, if any.
    fn check_wall(&self) -> Result<(), RunError> {
        let settings = &self.sim.settings;
        match settings.max_wall {
            Some(limit) if self.started.elapsed().as_secs_f64() > limit => {
                Err(RunError::WallClock {
                    t: self.t,
                    limit,
                    duration: settings.duration,
                })
            }
            _ => Ok(()),
        }
    }

    /// The stepper of the current phase.
    fn stepper(&self) -> &Stepper {
        match self.phase {
            Phase::Taut => &self.taut_stepper,
            Phase::Loose => &self.loose_stepper,
        }
    }

    /// Events in the last step, on the interpolant; the event state goes into `self.y`.
    fn locate(&mut self) -> Result<Option<Hit>, RunError> {
        let d = self.dimension();
        let (hit, start) = match self.phase {
            Phase::Taut => (
                self.taut_locator
                    .locate(&mut self.taut, &self.taut_stepper, &mut self.y[..d]),
                self.taut_stepper.t_old(),
            ),
            Phase::Loose => (
                self.loose_locator
                    .locate(&mut self.loose, &self.loose_stepper, &mut self.y[..d]),
                self.loose_stepper.t_old(),
            ),
        };
        let _ = start;
        match hit {
            Ok(Some(hit)) => Ok(Some(Hit {
                t: hit.t,
                members: hit.members.to_vec(),
                rising: hit
                    .crossings
                    .iter()
                    .map(|c| *c == super::events::Crossing::Rising)
                    .collect(),
            })),
            Ok(None) => Ok(None),
            Err(e) => Err(event_failure(e)),
        }
    }

    /// The dense output of the last step at t, into `y` (of the phase's dimension).
    fn interpolate_into(&self, t: f64, y: &mut [f64]) -> Result<(), RunError> {
        let result = match self.phase {
            Phase::Taut => self.taut_stepper.interpolate(t, y),
            Phase::Loose => self.loose_stepper.interpolate(t, y),
        };
        result.map_err(|e| non_finite(t, e.to_string()))
    }

    /// Rows at the grid times before `until` (and at `until` itself when it ends the run).
    fn emit_rows(
        &mut self,
        until: f64,
        last: bool,
        on_row: &mut dyn FnMut(&Row),
    ) -> Result<(), RunError> {
        let dt = self.sim.settings.output_interval;
        let duration = self.sim.settings.duration;
        loop {
            let grid = self.next_row as f64 * dt;
            // The final row lands exactly on the duration, even off the grid.
            let t = if grid > duration && grid - duration < 0.5 * dt && self.next_row > 0 {
                duration
            } else {
                grid
            };
            if t > duration || !(t < until || (last && t <= until)) {
                return Ok(());
            }
            // Keep the event state (in self.y) intact: rows use their own buffer.
            let mut y = std::mem::take(&mut self.row_y);
            let d = self.dimension();
            y.resize(d, 0.0);
            let filled = self
                .interpolate_into(t, &mut y)
                .and_then(|()| self.fill_row(t, &y));
            self.row_y = y;
            filled?;
            self.check_wall()?;
            on_row(&self.row);
            self.rows += 1;
            self.next_row += 1;
            if t >= duration {
                self.next_row = u64::MAX / 4;
                return Ok(());
            }
        }
    }

    /// The row for state y at time t.
    fn fill_row(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let params = self.sim.params;
        let n = self.n;
        let d = self.dimension();
        let accumulated = &y[d - ACCUMULATORS..d];
        let (hand_work, friction_loss, drag_loss) =
            (accumulated[0], accumulated[1], accumulated[2]);
        self.extra_evaluations += 1;
        let row = &mut self.row;
        row.t = t;
        row.phase = Some(self.phase);
        match self.phase {
            Phase::Taut => {
                self.taut
                    .evaluate(t, y)
                    .map_err(|e| dynamics_failure(e, t))?;
                let dynamics = &self.taut.dynamics;
                row.state = dynamics.cartesian(&y[..dynamics.layout().len()]);
                row.thetas.clear();
                row.thetas
                    .extend((1..=n).map(|i| dynamics.kinematics().objects()[i].theta));
                row.tensions.clear();
                row.tensions
                    .extend((0..=n).map(|j| dynamics.segment_tension(j)));
                let tension = dynamics.tension();
                row.gear_ratio = tension.gear_ratio;
                row.centrifugal_term = tension.centrifugal_term;
                row.hand_forces = tension.hand_forces;
            }
            Phase::Loose => {
                row.state = self.loose.state(t, y);
                let inputs = hand_inputs(&self.sim.drives, t, &[row.state.left, row.state.right]);
                let motion = crate::model::loose_accelerations(&params, &inputs);
                row.hand_forces = [motion[0].1, motion[1].1];
                let mut kin = Kinematics::new(n);
                row.thetas = match kin.load_cartesian(&row.state) {
                    Ok(()) => (1..=n).map(|i| kin.objects()[i].theta).collect(),
                    Err(_) => vec![f64::NAN; n],
                };
                row.tensions = vec![0.0; n + 1];
                let formulas =
                    taut_formulas_on(&params, &row.state, &row.hand_forces.map(StickInput::Force));
                row.gear_ratio = formulas.map_or(f64::NAN, |f| f.gear_ratio);
                row.centrifugal_term = formulas.map_or(f64::NAN, |f| f.centrifugal_term);
            }
        }
        row.energy = mechanical_energy(&params, &row.state);
        row.slack = params.string_length - row.state.string_used();
        row.hand_work = hand_work;
        row.friction_loss = friction_loss;
        row.drag_loss = drag_loss;
        row.impulse_loss = self.impulse_loss;
        Ok(())
    }

    /// After a step without an event: check the stick matrix, record the grip needed.
    fn after_step(&mut self) -> Result<(), RunError> {
        if self.phase == Phase::Taut {
            // The locator evaluated the system at the step's end last.
            if self.taut.dynamics.tension().regularised {
                return Err(RunError::SingularStickMatrix { t: self.t });
            }
            self.record_grip();
        }
        Ok(())
    }

    fn record_grip(&mut self) {
        for (k, contact) in self.taut.dynamics.axles().contacts().iter().enumerate() {
            if self.taut.modes[k] == AxleMode::Stuck {
                let needed = contact.effective_friction.abs();
                self.grip_needed = Some(self.grip_needed.map_or(needed, |g: f64| g.max(needed)));
            }
        }
    }

    /// Applies the event of `hit` (state in `self.y`) and restarts the integration there.
    fn handle(&mut self, hit: &Hit) -> Result<(), RunError> {
        let te = hit.t;
        let d = self.dimension();
        let y = self.y[..d].to_vec();
        self.count_event(te)?;
        let n = self.n;
        match self.phase {
            Phase::Taut => {
                for &i in &hit.members {
                    match i {
                        0 => {
                            self.events.push(Event::new(te, EventKind::Loosen, None));
                            let state = self.taut_state(te, &y)?;
                            return self.enter_loose(state, &y[d - ACCUMULATORS..d], te);
                        }
                        i if i <= 2 * n => self.redecide_axle(te, &y, (i - 1) / 2 + 1, i)?,
                        i if i <= 4 * n => {
                            let k = (i - 2 * n - 1) / 2 + 1;
                            let up = (i - 2 * n - 1) % 2 == 1;
                            self.taut.knots[k - 1] += if up { 1 } else { -1 };
                            self.knot_event(te, k, self.taut.knots[k - 1]);
                        }
                        i if i <= 5 * n => {
                            let k = i - 4 * n;
                            self.taut
                                .evaluate(te, &y)
                                .map_err(|e| dynamics_failure(e, te))?;
                            let theta = self.taut.dynamics.kinematics().objects()[k].theta;
                            return Err(RunError::LeftString {
                                t: te,
                                diabolo: k,
                                theta,
                            });
                        }
                        i if i <= 6 * n + 1 => return Err(self.collision(te, i - 5 * n - 1)),
                        _ => return Err(self.sticks_too_far(te)),
                    }
                }
                self.restart(te, &y)
            }
            Phase::Loose => {
                for (&i, &rising) in hit.members.iter().zip(&hit.rising) {
                    match i {
                        0 => {
                            let state = self.loose.state(te, &y);
                            return self.tense(state, &y[d - ACCUMULATORS..d], te, true, false);
                        }
                        i if i <= n => {
                            if self.loose.folded(&y, i) {
                                // The turn at the diabolo passes +-pi: the string wraps (the
                                // cross product falls through zero) or unwraps.
                                self.loose.knots[i - 1] += if rising { -1 } else { 1 };
                                self.knot_event(te, i, self.loose.knots[i - 1]);
                            }
                        }
                        i if i <= 2 * n + 1 => return Err(self.collision(te, i - n - 1)),
                        _ => return Err(self.sticks_too_far(te)),
                    }
                }
                self.restart(te, &y)
            }
        }
    }

    fn knot_event(&mut self, t: f64, k: usize, knot: i32) {
        let mut event = Event::new(t, EventKind::KnotChange, Some(k));
        event.knot = Some(knot);
        self.events.push(event);
    }

    fn count_event(&mut self, t: f64) -> Result<(), RunError> {
        let count = self.event_window.add(t, 1, BUDGET_WINDOW);
        let cap = (self.sim.settings.max_events_per_second * BUDGET_WINDOW).max(1.0) as u64;
        if count > cap {
            let last = self.events.last();
            let object = last.and_then(|e| e.object);
            return Err(RunError::EventFlood {
                t,
                count: count as usize,
                last: last.map_or("event", |e| e.kind.words()),
                object,
                place: object.map_or("of the string".to_string(), |k| {
                    format!("at {}", object_name(k, self.n))
                }),
            });
        }
        Ok(())
    }

    fn sticks_too_far(&self, t: f64) -> RunError {
        let length = self.sim.params.string_length;
        RunError::SticksTooFarApart {
            t,
            distance: length - path_margin(&self.sim.drives, length, t),
            length,
        }
    }

    /// The two objects at the ends of segment `segment`, in words.
    fn segment_ends(&self, segment: usize) -> String {
        format!(
            "{} and {}",
            object_name(segment, self.n),
            object_name(segment + 1, self.n)
        )
    }

    /// A failure as the user reads it: objects in words, a non-finite quantity named with its
    /// likely cause, at the last finite time reached.
    fn explain(&self, failure: RunError) -> RunError {
        match failure {
            RunError::NonFinite { what, .. } => {
                let quantity = self.non_finite_quantity();
                RunError::NonFinite {
                    // The last time reached (an error inside a trial step carries the time
                    // of a stage ahead of it, or none).
                    t: self.t,
                    phase: self.phase.name(),
                    what: quantity
                        .map_or(format!("the state ({what})"), |q| quantity_name(q, self.n)),
                    object: quantity.and_then(|q| q.object),
                    cause: self.likely_cause(
                        "the parameters or the state are beyond what the model can compute",
                    ),
                }
            }
            RunError::StepSizeCollapse { t, h, phase, .. } => RunError::StepSizeCollapse {
                t,
                h,
                phase,
                cause: self.likely_cause(
                    "perhaps a near-straight string with driven sticks, or a near collision",
                ),
            },
            RunError::Collision { t, segment, .. } => RunError::Collision {
                t,
                segment,
                what: self.segment_ends(segment),
                distance: self.sim.settings.meeting_distance,
            },
            other => other,
        }
    }

    /// The quantity that was not finite at the failure: an output of the last evaluation, or
    /// the component the stepper found.
    fn non_finite_quantity(&self) -> Option<Quantity> {
        let from_system = match self.phase {
            Phase::Taut => self.taut.non_finite_output(),
            Phase::Loose => self
                .loose
                .non_finite_rate
                .map(|i| self.loose.layout.quantity(i).rate()),
        };
        from_system.or_else(|| {
            self.stepper().non_finite_component().map(|c| {
                let quantity = self.phase_quantity(c.index);
                if c.derivative {
                    quantity.rate()
                } else {
                    quantity
                }
            })
        })
    }

    /// Component `index` of the current phase's state.
    fn phase_quantity(&self, index: usize) -> Quantity {
        match self.phase {
            Phase::Taut => self.taut.quantity(index),
            Phase::Loose => self.loose.layout.quantity(index),
        }
    }

    /// The likely cause of a stall or an overflow: the time scales of the parameters and the
    /// state shorter than [`FAST_TIME_SCALE`] (fastest first) and an extreme mass ratio;
    /// `otherwise` when there is none.
    fn likely_cause(&self, otherwise: &str) -> String {
        let mut scales: Vec<TimeScale> = self
            .time_scales()
            .into_iter()
            .filter(|s| s.seconds < FAST_TIME_SCALE)
            .collect();
        scales.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let mut causes: Vec<String> = scales
            .iter()
            .map(|s| {
                let seconds = Compact(rounded(s.seconds));
                format!("{} (a time scale of {seconds} s)", s.what)
            })
            .collect();
        let p = self.sim.params.values();
        if let Some(cause) = self.capstan_overflow() {
            causes.push(cause);
        }
        let ratio = p.diabolo_mass / p.stick_mass;
        if !(1.0 / EXTREME_MASS_RATIO..=EXTREME_MASS_RATIO).contains(&ratio) {
            causes.push(format!(
                "the huge mass ratio (diabolo_mass {} kg against stick_mass {} kg: the forces dwarf the tolerances of the lighter bodies)",
                Compact(p.diabolo_mass),
                Compact(p.stick_mass)
            ));
        }
        if causes.is_empty() {
            otherwise.to_string()
        } else {
            format!("likely cause: {}", causes.join("; "))
        }
    }

    /// In the taut phase, a capstan ratio exp(c theta') beyond the largest number: the friction
    /// over the string's wrap at the axles, in words.
    fn capstan_overflow(&self) -> Option<String> {
        let friction = self.sim.params.values().friction;
        let wrap: f64 = (self.phase == Phase::Taut).then(|| {
            self.taut
                .dynamics
                .axles()
                .contacts()
                .iter()
                .map(|c| c.contact_angle.abs())
                .sum()
        })?;
        let exponent = friction * wrap;
        (exponent > f64::MAX.ln()).then(|| {
            format!(
                "the capstan ratio exp(c theta') overflows: friction {} over {} rad of string wrapped on the axles gives exp({}), beyond the largest number exp({})",
                Compact(friction),
                Compact(rounded(wrap)),
                Compact(rounded(exponent)),
                Compact(rounded(f64::MAX.ln()))
            )
        })
    }

    /// The time scales the parameters and the current state set, s.
    fn time_scales(&self) -> Vec<TimeScale> {
        let p = self.sim.params.values();
        let mut scales = Vec::new();
        for (k, drive) in [(0, &self.sim.drives[0]), (self.n + 1, &self.sim.drives[1])] {
            if let Drive::Tracking(_, hand) = drive {
                scales.push(TimeScale {
                    seconds: tracking_time_scale(hand, p.stick_mass),
                    what: format!(
                        "the stiff hand tracking {} (stiffness {} N/m, damping {} N s/m on a {} kg stick)",
                        object_name(k, self.n),
                        Compact(hand.stiffness),
                        Compact(hand.damping),
                        Compact(p.stick_mass)
                    ),
                });
            }
        }
        if let FrictionLaw::Tanh { width } = p.friction_law {
            if p.friction > 0.0 {
                scales.push(TimeScale {
                    seconds: width / (p.friction * p.gravity.max(1.0)),
                    what: format!(
                        "the narrow tanh friction law (friction_width {} m/s with friction {})",
                        Compact(width),
                        Compact(p.friction)
                    ),
                });
            }
        }
        // Gravity swings the string in sqrt(L / g); a light axle spins up J times faster than
        // the string swings under the Earth's gravity.
        scales.push(TimeScale {
            seconds: (p.string_length / p.gravity).sqrt(),
            what: format!("the strong gravity (gravity {} m/s^2)", Compact(p.gravity)),
        });
        scales.push(TimeScale {
            seconds: p.spin_inertia * (p.string_length / 9.81).sqrt(),
            what: format!(
                "the light spin inertia (spin_inertia {})",
                Compact(p.spin_inertia)
            ),
        });
        if p.spin_drag > 0.0 {
            scales.push(TimeScale {
                seconds: 1.0 / p.spin_drag,
                what: format!(
                    "the strong spin drag (spin_drag {} 1/s)",
                    Compact(p.spin_drag)
                ),
            });
        }
        if let Some((quantity, speed)) = self.fastest() {
            let whose = match quantity.object {
                Some(k) if quantity.name == "velocity" => object_name(k, self.n),
                _ => quantity_name(quantity, self.n),
            };
            scales.push(TimeScale {
                seconds: p.string_length / speed,
                what: format!(
                    "the huge speed of {whose} ({} m/s against a {} m string)",
                    Compact(rounded(speed)),
                    Compact(p.string_length)
                ),
            });
        }
        scales
    }

    /// The fastest speed (m/s) of the current state: an object's velocity or a spin.
    fn fastest(&self) -> Option<(Quantity, f64)> {
        let y = self.stepper().y();
        let mut squares = vec![0.0; self.n + 2];
        let mut fastest: Option<(Quantity, f64)> = None;
        let mut consider = |quantity: Quantity, speed: f64| {
            if fastest.is_none_or(|(_, s)| speed > s) {
                fastest = Some((quantity, speed));
            }
        };
        for (index, value) in y.iter().enumerate() {
            let quantity = self.phase_quantity(index);
            match (quantity.name, quantity.object) {
                ("velocity", Some(k)) => squares[k] += value * value,
                ("spin", Some(_)) => consider(quantity, value.abs()),
                _ => {}
            }
        }
        for (k, square) in squares.iter().enumerate() {
            consider(
                Quantity {
                    object: Some(k),
                    name: "velocity",
                },
                square.sqrt(),
            );
        }
        fastest.filter(|(_, speed)| *speed > 0.0)
    }

    fn collision(&self, t: f64, segment: usize) -> RunError {
        RunError::Collision {
            t,
            segment,
            what: self.segment_ends(segment),
            distance: self.sim.settings.meeting_distance,
        }
    }

    fn taut_state(&mut self, t: f64, y: &[f64]) -> Result<CartesianState, RunError> {
        self.taut
            .evaluate(t, y)
            .map_err(|e| dynamics_failure(e, t))?;
        Ok(self
            .taut
            .dynamics
            .cartesian(&y[..self.taut.dynamics.layout().len()]))
    }

    /// Restarts the current phase at (t, y) with a fresh derivative. The event locator resolves
    /// members at zero there by their sign just after, and never refires the member that fired.
    fn restart(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let phase = self.phase.name();
        let result = match self.phase {
            Phase::Taut => self.taut_stepper.reset(&mut self.taut, t, y),
            Phase::Loose => self.loose_stepper.reset(&mut self.loose, t, y),
        };
        result.map_err(|e| integrate_failure(e, phase))?;
        self.t = t;
        if self.phase == Phase::Taut {
            self.taut
                .evaluate(t, y)
                .map_err(|e| dynamics_failure(e, t))?;
            self.extra_evaluations += 1;
        }
        if self.phase == Phase::Taut {
            if self.taut.dynamics.tension().regularised {
                return Err(RunError::SingularStickMatrix { t });
            }
            self.record_grip();
        }
        Ok(())
    }

    fn enter_loose(
        &mut self,
        state: CartesianState,
        accumulated: &[f64],
        t: f64,
    ) -> Result<(), RunError> {
        self.phase = Phase::Loose;
        let d = self.dimension();
        let mut y = vec![0.0; d];
        self.loose.layout.store(&state, &mut y);
        y[d - ACCUMULATORS..].copy_from_slice(accumulated);
        self.loose.knots = state.diabolos.iter().map(|d| d.knot).collect();
        self.restart(t, &y)
    }

    /// The string at full length: apply the tensing impulse if it is stretching, then go taut
    /// (or stay loose on a rebound, settling a bounce sequence that accumulates).
    /// `arrived`: the slack reached zero in a loose phase (not the taut start). `stretching`:
    /// the free motion was found stretching the string (an over-length loose step): then the
    /// string stays taut even if L' is slightly negative, since going loose would be undone at
    /// once (where T0 < 0 and the free motion stretches the string, neither phase is consistent;
    /// the string stays taut until T0 recovers).
    fn tense(
        &mut self,
        mut state: CartesianState,
        accumulated: &[f64],
        t: f64,
        arrived: bool,
        stretching: bool,
    ) -> Result<(), RunError> {
        let params = self.sim.params;
        let mut accumulated = accumulated.to_vec();
        let heavy = [
            self.sim.drives[0].prescribes_motion(),
            self.sim.drives[1].prescribes_motion(),
        ];
        let mut kin = Kinematics::new(self.n);
        kin.load_cartesian(&state)
            .map_err(|e| state_failure(e, t))?;
        for i in 1..=self.n {
            let theta = kin.objects()[i].theta;
            if theta.abs() <= std::f64::consts::PI {
                return Err(RunError::CaughtFlying {
                    t,
                    diabolo: i,
                    theta,
                });
            }
        }
        let rate = kin.total_length_rate();
        // Below this L' the string is taut already: round-off, not an impact (relative to the
        // speeds of the objects, and far below the 1e-8 m/s a taut state may carry).
        let speed = (0..self.n + 2)
            .map(|k| state.velocity(k).norm())
            .fold(0.0, f64::max);
        let impact_speed = 1e-10 * (1.0 + speed);
        if rate <= impact_speed && arrived {
            // A grazing arrival: taut without an impulse, logged as such.
            let mut event = Event::new(t, EventKind::Tense, None);
            event.impulse = Some(0.0);
            event.energy_lost = Some(0.0);
            event.length_rates = Some((rate, rate));
            self.events.push(event);
        }
        if rate > impact_speed {
            let bouncy = params.restitution > 0.0;
            // A rebound slower than the settle speed (or one bounce too many) ends the sequence.
            let settle = bouncy
                && (params.restitution * rate < self.sim.settings.zeno_speed
                    || self.bounces >= self.sim.settings.zeno_bounces);
            let impact_params = if settle {
                Params::new(ParamValues {
                    restitution: 0.0,
                    ..*params.values()
                })
                .expect("valid parameters stay valid")
            } else {
                params
            };
            let record = tensing_impulse(&impact_params, &mut state, heavy)
                .map_err(|e| state_failure(e, t))?;
            accumulated[0] += record.hand_work;
            self.impulse_loss += record.energy_lost;
            let mut event = Event::new(t, EventKind::Tense, None);
            event.impulse = Some(record.magnitude);
            event.energy_lost = Some(record.energy_lost);
            event.length_rates = Some((record.length_rate_before, record.length_rate_after));
            self.events.push(event);
            if settle {
                let mut event = Event::new(t, EventKind::ZenoSettle, None);
                event.reason = Some(format!(
                    "after {} bounces, L' before the impact {:.3e} m/s: settled taut",
                    self.bounces, rate
                ));
                self.events.push(event);
            } else if bouncy {
                // A rebound at L' = -e L'_before: the string is slack again.
                self.bounces += 1;
                self.enter_loose(state, &accumulated, t)?;
                // The flight back to full length takes about 2 |L'| / L''.
                let d = self.dimension();
                let y = self.loose_stepper.y()[..d].to_vec();
                let (rate, acceleration) = self
                    .loose
                    .length_rates(t, &y)
                    .map_err(|e| dynamics_failure(e, t))?;
                self.flight_step = (acceleration > 0.0)
                    .then(|| (2.0 * rate.abs() / acceleration / 8.0).max(1e-12));
                return Ok(());
            }
        }
        self.bounces = 0;
        self.flight_step = None;
        if rate < -impact_speed && !stretching {
            // At full length but shortening (a taut start with L' < 0): the string goes slack.
            return self.enter_loose(state, &accumulated, t);
        }
        self.enter_taut(state, &accumulated, t)
    }

    fn enter_taut(
        &mut self,
        mut state: CartesianState,
        accumulated: &[f64],
        t: f64,
    ) -> Result<(), RunError> {
        // The reduced state rebuilds the right stick from the string: put the residual slack and
        // length rate (event tolerance, round-off) on the diabolos, so that a stick keeps
        // exactly the position and velocity its drive gave it.
        close_onto_string(&mut state, self.sim.params.string_length);
        let layout = self.taut.dynamics.layout();
        let reduced = layout
            .reduce(&state, self.sim.params.string_length, 1e-8)
            .map_err(|e| state_failure(e, t))?;
        self.phase = Phase::Taut;
        let d = self.dimension();
        let mut y = vec![0.0; d];
        y[..layout.len()].copy_from_slice(reduced.values());
        y[d - ACCUMULATORS..].copy_from_slice(accumulated);
        self.taut.knots = state.diabolos.iter().map(|d| d.knot).collect();
        // Friction modes: the way each axle slips; the Filippov rule where a slip is zero.
        self.taut.modes = vec![AxleMode::from_slip(0.0); self.n];
        self.taut
            .evaluate(t, &y)
            .map_err(|e| dynamics_failure(e, t))?;
        let slips: Vec<f64> = self
            .taut
            .dynamics
            .axles()
            .contacts()
            .iter()
            .map(|c| c.slip_speed)
            .collect();
        for (k, slip) in slips.iter().enumerate() {
            self.taut.modes[k] = AxleMode::from_slip(*slip);
        }
        for (k, slip) in slips.iter().enumerate() {
            if slip.abs() <= 1e-12 {
                self.taut.modes[k] = self.decide_axle(t, &y, k + 1)?;
                if self.taut.modes[k] == AxleMode::Stuck {
                    self.events
                        .push(Event::new(t, EventKind::Stick, Some(k + 1)));
                }
            }
        }
        self.taut
            .evaluate(t, &y)
            .map_err(|e| dynamics_failure(e, t))?;
        if self.taut.dynamics.tension().base_tension < 0.0 {
            // Neither the hands nor the motion keep this string taut: it loosens at once.
            self.events.push(Event::new(t, EventKind::Loosen, None));
            let state = self.taut.dynamics.cartesian(&y[..layout.len()]);
            return self.enter_loose(state, accumulated, t);
        }
        self.restart(t, &y)
    }

    /// The Filippov rule at axle k (1..N) with its slip at zero: slip on in a direction whose
    /// slip acceleration carries the slip away from zero, else grip.
    fn decide_axle(&mut self, t: f64, y: &[f64], k: usize) -> Result<AxleMode, RunError> {
        if !self.sim.params.has_switching_friction() {
            return Ok(AxleMode::from_slip(0.0));
        }
        let saved = self.taut.modes[k - 1];
        let trend = |direction: SlipDirection, this: &mut Self| -> Result<f64, RunError> {
            this.taut.modes[k - 1] = AxleMode::Slipping(direction);
            this.taut
                .evaluate(t, y)
                .map_err(|e| dynamics_failure(e, t))?;
            this.extra_evaluations += 1;
            Ok(this.taut.dynamics.slip_accelerations()[k - 1])
        };
        let up = trend(SlipDirection::Positive, self)?;
        let down = trend(SlipDirection::Negative, self)?;
        self.taut.modes[k - 1] = saved;
        Ok(if up > 0.0 {
            AxleMode::Slipping(SlipDirection::Positive)
        } else if down < 0.0 {
            AxleMode::Slipping(SlipDirection::Negative)
        } else {
            AxleMode::Stuck
        })
    }

    /// Axle k's slip reached zero, or its grip reached a capstan bound (member `member`):
    /// decide its new mode and log what changed.
    fn redecide_axle(
        &mut self,
        t: f64,
        y: &[f64],
        k: usize,
        member: usize,
    ) -> Result<(), RunError> {
        let before = self.taut.modes[k - 1];
        let mut after = self.decide_axle(t, y, k)?;
        if before == AxleMode::Stuck && after == AxleMode::Stuck {
            // The needed ratio reached a bound: the string slips the way that bound points
            // (upper bound: T_k > T_{k-1}, positive slip).
            let upper = member == 1 + 2 * (k - 1);
            after = AxleMode::Slipping(if upper {
                SlipDirection::Positive
            } else {
                SlipDirection::Negative
            });
        }
        self.taut.modes[k - 1] = after;
        self.taut
            .evaluate(t, y)
            .map_err(|e| dynamics_failure(e, t))?;
        let kind = match (before, after) {
            (AxleMode::Stuck, AxleMode::Slipping(_)) => Some(EventKind::Unstick),
            (AxleMode::Slipping(_), AxleMode::Stuck) => Some(EventKind::Stick),
            (AxleMode::Slipping(a), AxleMode::Slipping(b)) if a != b => {
                Some(EventKind::SlipReversal)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            self.events.push(Event::new(t, kind, Some(k)));
        }
        Ok(())
    }
}

fn dynamics_failure(e: DynamicsError, t: f64) -> RunError {
    match e {
        DynamicsError::SegmentCollapsed { segment, .. } => RunError::Collision {
            t,
            segment,
            what: format!("the objects at the ends of segment {segment}"),
            distance: 0.0,
        },
        DynamicsError::SingularGrip => RunError::SingularGrip { t },
        other => non_finite(t, other.to_string()),
    }
}

fn state_failure(e: StateError, t: f64) -> RunError {
    match e {
        StateError::SegmentCollapsed { segment } => RunError::Collision {
            t,
            segment,
            what: format!("the objects at the ends of segment {segment}"),
            distance: 0.0,
        },
        other => non_finite(t, other.to_string()),
    }
}

fn integrate_failure(e: IntegrateError<DynamicsError>, phase: &'static str) -> RunError {
    match e {
        IntegrateError::StepSizeCollapse { t, h } => RunError::StepSizeCollapse {
            t,
            h,
            phase,
            cause: String::new(),
        },
        IntegrateError::Rhs { t, source } => dynamics_failure(source, t),
        other => non_finite(other.time(), other.to_string()),
    }
}

fn event_failure(e: EventError<DynamicsError>) -> RunError {
    match e {
        EventError::Events { t, source } => dynamics_failure(source, t),
        EventError::Integrate(e) => integrate_failure(e, "event location"),
        EventError::NonFiniteEvent { t, member } => {
            non_finite(t, format!("event function {member}"))
        }
        other => non_finite(other.time(), other.to_string()),
    }
}

/// `x` to 3 significant digits, for messages.
fn rounded(x: f64) -> f64 {
    format!("{x:.2e}").parse().unwrap_or(x)
}

/// A non-finite failure at t (s) of `what`, to be explained by [`Runner::explain`].
fn non_finite(t: f64, what: String) -> RunError {
    RunError::NonFinite {
        t,
        phase: "",
        what,
        object: None,
        cause: String::new(),
    }
}

/// Steps per simulated second a run may take: the budget on top of the steps that the step
/// bounds ask for (one per `max_step`, one per `rk4` step).
fn step_budget(settings: &Settings) -> f64 {
    let requested = match settings.method {
        Method::Rk4 { step } => 1.0 / step,
        _ => settings.max_step.map_or(0.0, |h| 1.0 / h),
    };
    settings.max_steps_per_second + requested
}

/// A count over consecutive windows of simulated time: a window starts at the first count
/// after the previous one has passed.
#[derive(Clone, Copy, Debug, Default)]
struct WindowCount {
    start: f64,
    count: u64,
}

impl WindowCount {
    /// Adds `n` at time `t` (s); the count within the current window of length `window` (s).
    fn add(&mut self, t: f64, n: u64, window: f64) -> u64 {
        if t - self.start > window {
            *self = Self { start: t, count: 0 };
        }
        self.count += n;
        self.count
    }
}

/// The response time of a tracking hand on a stick of `mass` (kg): sqrt(M / k) for its
/// stiffness, M / b for its damping, the shorter, s.
fn tracking_time_scale(hand: &Tracking, mass: f64) -> f64 {
    let stiffness = (hand.stiffness > 0.0).then(|| (mass / hand.stiffness).sqrt());
    let damping = (hand.damping > 0.0).then(|| mass / hand.damping);
    stiffness
        .into_iter()
        .chain(damping)
        .fold(f64::INFINITY, f64::min)
}

/// A time scale (s) of the run and what sets it, in words.
struct TimeScale {
    seconds: f64,
    what: String,
}

/// Moves the diabolos (only) so that sum l = L and L' = 0 exactly, along the gradient of the
/// string length with respect to their positions: g_i = e_{i-1} - e_i (unit segment directions).
fn close_onto_string(state: &mut CartesianState, length: f64) {
    let n = state.diabolo_count();
    let direction = |s: &CartesianState, j: usize| {
        let d = s.position(j + 1) - s.position(j);
        let norm = d.norm();
        (norm > 0.0).then(|| d / norm)
    };
    let gradient = |s: &CartesianState| -> Option<Vec<nalgebra::Vector2<f64>>> {
        (1..=n)
            .map(|i| Some(direction(s, i - 1)? - direction(s, i)?))
            .collect()
    };
    for _ in 0..3 {
        let Some(g) = gradient(state) else { return };
        let norm2: f64 = g.iter().map(|v| v.norm_squared()).sum();
        if norm2 < 1e-12 {
            return;
        }
        let excess = state.string_used() - length;
        for (d, gi) in state.diabolos.iter_mut().zip(&g) {
            d.pos -= gi * (excess / norm2);
        }
    }
    let Some(g) = gradient(state) else { return };
    let norm2: f64 = g.iter().map(|v| v.norm_squared()).sum();
    if norm2 < 1e-12 {
        return;
    }
    let rate: f64 = (0..=n)
        .map(|j| {
            direction(state, j).map_or(0.0, |e| e.dot(&(state.velocity(j + 1) - state.velocity(j))))
        })
        .sum();
    for (d, gi) in state.diabolos.iter_mut().zip(&g) {
        d.vel -= gi * (rate / norm2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Consecutive windows: the count restarts at the first count after a window has passed.
    #[test]
    fn window_count_restarts_after_each_window() {
        let mut window = WindowCount::default();
        assert_eq!(window.add(0.0, 3, 0.1), 3);
        assert_eq!(window.add(0.1, 2, 0.1), 5);
        assert_eq!(window.add(0.15, 1, 0.1), 1);
        assert_eq!(window.add(0.2, 4, 0.1), 5);
    }

    // The steps a fixed step or max_step ask for come on top of the budget.
    #[test]
    fn the_step_budget_adds_the_steps_the_settings_ask_for() {
        let settings = Settings::default();
        assert_eq!(step_budget(&settings), DEFAULT_MAX_STEPS_PER_SECOND);
        let rk4 = Settings {
            method: Method::Rk4 { step: 1e-6 },
            ..Settings::default()
        };
        assert_eq!(step_budget(&rk4), DEFAULT_MAX_STEPS_PER_SECOND + 1e6);
        let bounded = Settings {
            max_step: Some(1e-3),
            ..Settings::default()
        };
        assert_eq!(step_budget(&bounded), DEFAULT_MAX_STEPS_PER_SECOND + 1e3);
    }

    #[test]
    fn quantities_are_named_with_their_object_in_words() {
        let spin = Quantity {
            object: Some(2),
            name: "spin",
        };
        assert_eq!(quantity_name(spin, 2), "diabolo 2's spin");
        let hand = Quantity {
            object: Some(3),
            name: "velocity",
        };
        assert_eq!(quantity_name(hand, 2), "the right stick's velocity");
        let tension = Quantity {
            object: None,
            name: "tension",
        };
        assert_eq!(quantity_name(tension, 1), "the string's tension");
        assert_eq!(rounded(9.764739638097944e-8), 9.76e-8);
    }
}
