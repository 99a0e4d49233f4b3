//! The hybrid loop in space: step the active phase, locate its guards, emit rows, apply the
//! transition of what fired.

use super::projection::project;
pub use super::report::{SpaceEvent, SpaceEventKind, SpaceReport, SpaceStatus, SpaceStop};
pub use super::rows::SpaceRow;
use super::system::{Body, Layout, SpaceGuard, SpacePhase, SpaceSystem};
use super::{SpaceHand, SpaceSimulation};
use crate::model::energy::LedgerWatch;
use crate::model::friction::AxleMode;
use crate::model::space::{space_energy, space_tensing_impulse, SpaceState};
use crate::simulation::ode::events::{Crossing, Direction, EventLocator, EventOptions, EventSpec};
use crate::simulation::ode::integrate::Stepper;
use crate::simulation::report::fastest;
use crate::simulation::tolerances::{STRAIGHT, TOUCH_GAP, TOUCH_SPEED};

/// A rebound slower than this (m/s) counts as none: the string stays taut.
pub(super) const ZENO_RATE: f64 = 1e-12;
/// The band (a fraction of L) within which the slack guard counts as zero at a phase's start.
const TENSE_START_BAND: f64 = 1e-12;
/// A string at its length stretching faster than this (m/s) at a phase's start takes a tensing
/// impulse first.
const STRETCHING: f64 = 1e-9;
/// A flying diabolo within this distance (m) of a chord's plane at a phase's start is on the
/// side it moves to.
const LAND_START_BAND: f64 = 1e-8;
/// The string counts as taut at the start within this slack, m.
const TAUT_START: f64 = 1e-9;

impl<H: SpaceHand + Clone> SpaceSimulation<H> {
    /// Runs the simulation, handing every row to `sink`.
    pub fn run(&self, mut sink: impl FnMut(&SpaceRow)) -> SpaceReport {
        let mut run = Run::new(self);
        let status = match run.go(&mut sink) {
            Ok(()) => SpaceStatus::Finished,
            Err((t, reason)) => SpaceStatus::Stopped { t, reason },
        };
        run.report(status)
    }
}

pub(super) type Stop = (f64, SpaceStop);

#[derive(Clone)]
pub(super) struct Run<H: SpaceHand> {
    pub(super) settings: super::SpaceSettings,
    pub(super) system: SpaceSystem<H>,
    pub(super) stepper: Stepper,
    pub(super) locator: EventLocator,
    pub(super) y: Vec<f64>,
    pub(super) row_y: Vec<f64>,
    pub(super) row_state: SpaceState,
    pub(super) row_tensions: Vec<f64>,
    /// Each diabolo's theta at the row (NaN off the string).
    pub(super) row_thetas: Vec<f64>,
    pub(super) events: Vec<SpaceEvent>,
    pub(super) impulse_loss: f64,
    /// A compliant string's stored energy V when its slack phase began, J (None while it pulls).
    pub(super) relaxing: Option<f64>,
    pub(super) watch: LedgerWatch,
    pub(super) initial_energy: f64,
    pub(super) worst_residual: f64,
    pub(super) next_row: u64,
    pub(super) breakpoints: Vec<f64>,
    pub(super) jumps: Vec<(f64, usize)>,
    pub(super) bounces: u32,
    /// The pair of the last contact and its impacts in a row.
    pub(super) pair_bounces: Option<([Body; 2], usize)>,
    /// The pairs resting in contact (sorted, [`super::resting`]).
    pub(super) resting: Vec<[Body; 2]>,
    /// Impacts nested at this instant (an impact entering a phase in which another pair
    /// touches approaching).
    pub(super) cascade: usize,
    /// The time reached, s.
    pub(super) t: f64,
    /// Transitions so far (counted against the event budget).
    pub(super) transitions: u64,
    /// When the run started, for `max_wall`.
    pub(super) started: crate::clock::Stopwatch,
}

pub(super) fn failed(t: f64, e: impl std::fmt::Display) -> Stop {
    (t, SpaceStop::Failed(format!("at t = {t:.6} s: {e}")))
}

mod friction;

impl<H: SpaceHand + Clone> Run<H> {
    pub(super) fn new(sim: &SpaceSimulation<H>) -> Self {
        let n = sim.initial.diabolos.len();
        let layout = Layout::new(n, sim.params.planar.elastic().is_some());
        let dimension = layout.dimension();
        let system = SpaceSystem::new(
            sim.params,
            sim.hands.clone(),
            &sim.initial,
            &sim.modes,
            sim.settings.floor,
        );
        let stepper = Stepper::new(sim.settings.method, sim.settings.stepper, dimension)
            .expect("the scenario checks the stepper's options");
        let locator = EventLocator::new(
            SpaceSystem::<H>::most_guards(n),
            dimension,
            EventOptions::default(),
        )
        .expect("the default event options are valid");
        let mut y = vec![0.0; dimension];
        let every: Vec<usize> = (1..=n).collect();
        layout.pack(&sim.initial, &every, &mut y);
        let initial_energy =
            space_energy(&sim.params, &sim.initial) + system.stored_energy_of(&sim.initial);
        let rtol = sim.settings.stepper.rtol;
        let atol = sim.settings.stepper.atol;
        let mut run = Self {
            settings: sim.settings,
            system,
            stepper,
            locator,
            row_y: y.clone(),
            y,
            row_state: sim.initial.clone(),
            row_tensions: vec![0.0; n + 1],
            row_thetas: vec![f64::NAN; n],
            events: Vec::new(),
            impulse_loss: 0.0,
            relaxing: None,
            watch: LedgerWatch::new(initial_energy, rtol, atol),
            initial_energy,
            worst_residual: 0.0,
            next_row: 0,
            breakpoints: Vec::new(),
            jumps: Vec::new(),
            bounces: 0,
            pair_bounces: None,
            resting: Vec::new(),
            cascade: 0,
            t: 0.0,
            transitions: 0,
            started: crate::clock::Stopwatch::start(),
        };
        run.plan_breakpoints();
        run
    }

    fn go(&mut self, sink: &mut impl FnMut(&SpaceRow)) -> Result<(), Stop> {
        let duration = self.settings.duration;
        self.start(sink)?;
        self.advance(duration, sink)?;
        // The last row at the duration itself, when the interval does not divide it.
        self.emit_rows(duration, sink, true)
    }

    /// Enters the phase of the initial state and emits the first row.
    pub(super) fn start(&mut self, sink: &mut impl FnMut(&SpaceRow)) -> Result<(), Stop> {
        self.t = 0.0;
        self.started = crate::clock::Stopwatch::start();
        self.start_phase(0.0)?;
        self.emit_rows(0.0, sink, true)
    }

    /// Integrates from the current time to `until` (s, at most the duration), emitting the rows
    /// on the way and applying the events.
    pub(super) fn advance(
        &mut self,
        until: f64,
        sink: &mut impl FnMut(&SpaceRow),
    ) -> Result<(), Stop> {
        let until = until.min(self.settings.duration);
        let duration = self.settings.duration;
        let settings = self.settings;
        let event_budget = (settings.max_events_per_second * duration) as u64 + 1000;
        let requested = match settings.method {
            crate::simulation::ode::integrate::Method::Rk4 { step } => duration / step,
            _ => duration / settings.stepper.max_step,
        };
        let step_budget = (settings.max_steps_per_second * duration + requested) as u64 + 1000;
        while self.t < until {
            let t = self.t;
            if let Some(limit) = settings.max_wall {
                if self.started.elapsed().as_secs_f64() > limit {
                    return Err((t, SpaceStop::WallClock { limit, duration }));
                }
            }
            if self.transitions > event_budget {
                let count = self.transitions;
                return Err((
                    t,
                    SpaceStop::Budget {
                        what: "events",
                        count,
                    },
                ));
            }
            let steps = self.stepper.stats().accepted_steps;
            if steps > step_budget {
                return Err((
                    t,
                    SpaceStop::Budget {
                        what: "steps",
                        count: steps,
                    },
                ));
            }
            let limit = self
                .breakpoints
                .iter()
                .copied()
                .find(|b| *b > t)
                .unwrap_or(until)
                .min(until);
            // A step that lands on a breakpoint reads the hands there from before it; the
            // derivative is read anew from after it once the step is located.
            let breakpoint = self.breakpoints.contains(&limit);
            self.system.landing_on = breakpoint.then_some(limit);
            let step = self
                .stepper
                .step(&mut self.system, limit)
                .map_err(|e| failed(e.time(), e))?;
            if self.system.phase == SpacePhase::Taut && self.system.elastic.is_none() {
                let layout = self.system.layout;
                let prescribed = self.prescribed();
                self.stepper
                    .impose(&mut self.system, |sys, _, y| {
                        project(sys, layout, prescribed, y)
                    })
                    .map_err(|e| failed(e.time(), e))?;
            }
            let hit = self
                .locator
                .locate(&mut self.system, &self.stepper, &mut self.y)
                .map_err(|e| failed(e.time(), e))?
                .map(|hit| {
                    let fired: Vec<(SpaceGuard, Crossing)> = hit
                        .members
                        .iter()
                        .zip(hit.crossings)
                        .map(|(&m, &crossing)| (self.system.guards[m], crossing))
                        .collect();
                    (hit.t, fired)
                });
            self.system.landing_on = None;
            match hit {
                Some((t_hit, fired)) => {
                    self.emit_rows_until(t_hit, sink)?;
                    self.t = t_hit;
                    self.transition(t_hit, &fired)?;
                }
                None => {
                    let t = self.stepper.t();
                    if self.system.phase == SpacePhase::Loose && self.system.elastic.is_none() {
                        if let Some(t_tense) = self.passed_length()? {
                            self.emit_rows_until(t_tense, sink)?;
                            self.t = t_tense;
                            self.transition(t_tense, &[(SpaceGuard::Tense, Crossing::Falling)])?;
                            continue;
                        }
                    }
                    self.t = t;
                    self.emit_rows_until(t, sink)?;
                    if breakpoint && step.t_new == limit {
                        // The next step starts on the piece after the breakpoint (the locator
                        // keeps the values from before: a guard that jumps there fires at once).
                        self.stepper
                            .impose(&mut self.system, |_, _, _| true)
                            .map_err(|e| failed(t, e))?;
                    }
                    self.y.copy_from_slice(self.stepper.y());
                    if let Some(&(_, side)) = self.jumps.iter().find(|j| j.0 == t) {
                        self.velocity_jump(t, side)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A slack string that ends a step past its length although its guard did not fire (it
    /// left full length by less than round-off at a loosening and came back within the step):
    /// the first time in the step it reaches its length, by bisection on the step's dense
    /// output, with the state there in `y`; `None` when the step ends slack.
    fn passed_length(&mut self) -> Result<Option<f64>, Stop> {
        let length = self.system.params.planar.values().string_length;
        let threshold = TENSE_START_BAND * length;
        let (t0, t1) = (self.stepper.t_old(), self.stepper.t());
        let over = |this: &mut Self, t: f64| -> Result<f64, Stop> {
            this.stepper
                .interpolate(t, &mut this.row_y)
                .map_err(|e| failed(t, e))?;
            this.system.read(&this.row_y);
            Ok(this.system.state.string_used() - length)
        };
        if over(self, t1)? <= threshold {
            return Ok(None);
        }
        let (mut lo, mut hi) = (t0, t1);
        if over(self, lo)? < threshold {
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                if over(self, mid)? >= threshold {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
        } else {
            hi = lo;
        }
        self.stepper
            .interpolate(hi, &mut self.y)
            .map_err(|e| failed(hi, e))?;
        Ok(Some(hi))
    }

    /// The time reached, s.
    pub(super) fn time(&self) -> f64 {
        self.t
    }

    /// The string's phase now.
    pub(super) fn phase(&self) -> SpacePhase {
        self.system.phase
    }

    /// The events so far.
    pub(super) fn events(&self) -> &[SpaceEvent] {
        &self.events
    }

    /// The run's duration, s.
    pub(super) fn duration(&self) -> f64 {
        self.settings.duration
    }

    /// Replaces a hand before the run starts.
    pub(super) fn replace_hand(&mut self, side: usize, hand: H) {
        self.system.hands[side] = hand;
        self.plan_breakpoints();
    }

    /// The state at the time reached: every diabolo in index order (axle rates of the fast top
    /// filled in).
    pub(super) fn state(&mut self) -> SpaceState {
        let t = self.t;
        let _ = self.system.load(t, &self.y);
        self.row_y.copy_from_slice(&self.y);
        self.fill_row_state();
        self.row_state.clone()
    }

    /// Replaces a hand (0 left, 1 right) from the time reached on: the phase is entered again
    /// there with the new hand (the stick keeps its position and velocity).
    pub(super) fn set_hand(&mut self, side: usize, hand: H) -> Result<(), Stop> {
        self.system.hands[side] = hand;
        self.plan_breakpoints();
        let t = self.t;
        self.start_phase(t)
    }

    /// The report so far.
    pub(super) fn report(&self, status: SpaceStatus) -> SpaceReport {
        SpaceReport {
            status,
            events: self.events.clone(),
            steps: self.stepper.stats().accepted_steps,
            ledger_residual: self.worst_residual,
            flights: self.system.roster.records(self.t),
        }
    }

    /// The hands' breakpoints and velocity jumps within the run.
    fn plan_breakpoints(&mut self) {
        let duration = self.settings.duration;
        self.jumps.clear();
        for (side, hand) in self.system.hands.iter().enumerate() {
            self.jumps
                .extend(hand.velocity_jumps().into_iter().map(|t| (t, side)));
        }
        self.breakpoints = self
            .system
            .hands
            .iter()
            .flat_map(|h| h.breakpoints())
            .collect();
        self.breakpoints.extend(self.jumps.iter().map(|j| j.0));
        self.breakpoints.retain(|t| *t > 0.0 && *t < duration);
        self.breakpoints.sort_by(f64::total_cmp);
        self.breakpoints.dedup();
        self.jumps.sort_by(|a, b| a.0.total_cmp(&b.0));
    }

    pub(super) fn prescribed(&self) -> [bool; 2] {
        [
            self.system.hands[0].prescribes_motion(),
            self.system.hands[1].prescribes_motion(),
        ]
    }

    /// Enters the phase the state at t is in (taut with T_0 >= 0, else slack; a compliant
    /// string: taut while it pulls) and restarts.
    pub(super) fn start_phase(&mut self, t: f64) -> Result<(), Stop> {
        self.hold_resting(t, SpacePhase::Taut);
        let length = self.system.params.planar.values().string_length;
        self.system.read(&self.y);
        let slack = length - self.system.state.string_used();
        if self.system.elastic.is_some() {
            self.system
                .string
                .update(&self.system.state)
                .map_err(|e| failed(t, e))?;
            let gap = self.system.compliant_gap().unwrap_or(0.0);
            let phase = if gap <= TAUT_START * length {
                self.decide_modes(t)?;
                SpacePhase::Taut
            } else {
                SpacePhase::Loose
            };
            return self.enter(t, phase);
        }
        let phase = if slack > TAUT_START {
            SpacePhase::Loose
        } else {
            self.system
                .string
                .update(&self.system.state)
                .map_err(|e| failed(t, e))?;
            let rate = self.system.string.total_length_rate();
            if rate > STRETCHING {
                // A string at its length that the velocities stretch snaps taut first: the
                // projection onto L' = 0 would otherwise take that energy unaccounted. (After
                // the impulse L' <= 0 to round-off: this does not come back here.)
                return self.tense(t);
            }
            if rate < -STRETCHING {
                // ... and one that they slacken goes slack.
                SpacePhase::Loose
            } else {
                self.decide_modes(t)?;
                self.system.phase = SpacePhase::Taut;
                self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
                if self.system.tension.tensions()[0] >= 0.0 {
                    SpacePhase::Taut
                } else {
                    SpacePhase::Loose
                }
            }
        };
        self.enter(t, phase)
    }

    pub(super) fn enter(&mut self, t: f64, phase: SpacePhase) -> Result<(), Stop> {
        self.book_relaxation(t, phase)?;
        self.hold_resting(t, phase);
        self.system.enter(phase);
        let specs: Vec<EventSpec> = self
            .system
            .guards
            .iter()
            .map(|g| {
                match g {
                    // Entered again from a tensing, the slack sits a root solve's residual past
                    // its zero: its sign there is taken from just after (the rebound), so that
                    // a rebound shorter than a step is still seen coming back.
                    // A string that grazes its length between two samples (hands that pull
                    // and give back within one step) is found at the dip's bottom.
                    SpaceGuard::Tense => EventSpec::new(Direction::Falling)
                        .with_start_band(
                            TENSE_START_BAND * self.system.params.planar.values().string_length,
                        )
                        .with_dips(),
                    SpaceGuard::SlipZero(_) => EventSpec::new(Direction::Either),
                    // Right after a landing or a knot change the string's turn at the axle sits
                    // within round-off of its zero: its side is taken from just after.
                    SpaceGuard::Fold(_) => {
                        EventSpec::new(Direction::Either).with_start_band(STRAIGHT)
                    }
                    // Right after a leave the merged chord passes through the diabolo that
                    // left: within 1e-8 m of it, its side is taken from just after.
                    SpaceGuard::Land { .. } => {
                        EventSpec::new(Direction::Either).with_start_band(LAND_START_BAND)
                    }
                    // Distances between bodies and to the floor: found even when they close
                    // and reopen between two samples of a long step.
                    // A contact's gap within TOUCH_GAP when the phase is entered again counts as
                    // touching, its sign taken from just after (as in the plane).
                    SpaceGuard::Touch(_) | SpaceGuard::Meet { .. } => {
                        EventSpec::new(Direction::Falling)
                            .with_start_band(TOUCH_GAP)
                            .as_gap()
                    }
                    SpaceGuard::Floor(_) => EventSpec::new(Direction::Falling).as_gap(),
                    _ => EventSpec::new(Direction::Falling),
                }
            })
            .collect();
        self.locator
            .set_mut()
            .configure(&specs)
            .map_err(|e| failed(t, e))?;
        self.stepper
            .reset(&mut self.system, t, &self.y)
            .map_err(|e| failed(t, e))?;
        // A guard already past its zero at the start stops the run now; bodies left touching
        // and approaching (an impact's neighbours) take their impact now, and bodies found
        // inside each other stop it.
        let mut values = vec![0.0; self.system.guards.len()];
        use crate::simulation::ode::events::EventSystem;
        self.system
            .events(t, &self.y, &mut values)
            .map_err(|e| failed(t, e))?;
        for (i, value) in values.iter().enumerate() {
            let guard = self.system.guards[i];
            if let Some([a, b]) = self.contact_bodies(guard) {
                if *value < -TOUCH_GAP {
                    return Err((
                        t,
                        SpaceStop::Inside {
                            a,
                            b,
                            depth: -value,
                        },
                    ));
                }
                if *value <= TOUCH_GAP && -self.system.gap_motion[i][0] >= TOUCH_SPEED {
                    return self.touch(t, a, b);
                }
            } else if *value < 0.0 {
                if let Some(stop) = self.terminal(guard) {
                    return Err((t, stop));
                }
            }
        }
        Ok(())
    }

    /// The two bodies of a contact guard.
    fn contact_bodies(&self, guard: SpaceGuard) -> Option<[Body; 2]> {
        match guard {
            SpaceGuard::Touch(j) => {
                Some([self.system.string_body(j), self.system.string_body(j + 1)])
            }
            SpaceGuard::Meet { diabolo, other } => Some([Body::Diabolo(diabolo), other]),
            _ => None,
        }
    }

    /// A compliant string's stretch relaxing while slack: the stored energy it gave up since the
    /// slack phase began (V then less V now) goes into the damping account when the phase is
    /// left or entered anew, and the phase entered at t remembers V.
    fn book_relaxation(&mut self, t: f64, next: SpacePhase) -> Result<(), Stop> {
        if self.system.elastic.is_none() {
            return Ok(());
        }
        self.system.read(&self.y);
        self.system
            .string
            .update(&self.system.state)
            .map_err(|e| failed(t, e))?;
        let stored = self.system.stored_energy();
        if let (Some(at_start), Some(account)) =
            (self.relaxing.take(), self.system.layout.string_loss())
        {
            self.y[account] += at_start - stored;
        }
        if next == SpacePhase::Loose {
            self.relaxing = Some(stored);
        }
        Ok(())
    }

    /// Applies what fired at t. A diabolo that leaves, lands or drops renumbers the string's
    /// slots: the phase is entered anew from there, and any other guard of the same instant
    /// that still holds fires again at once.
    fn transition(&mut self, t: f64, fired: &[(SpaceGuard, Crossing)]) -> Result<(), Stop> {
        self.transitions += 1;
        if let Some(stop) = fired.iter().find_map(|(g, _)| self.terminal(*g)) {
            return Err((t, stop));
        }
        let mut phase = self.system.phase;
        let mut friction = Vec::new();
        for &(guard, crossing) in fired {
            if let SpaceGuard::SlipZero(k) | SpaceGuard::GripLimit(k) = guard {
                friction.push(k);
            }
            match guard {
                SpaceGuard::Loosen => {
                    self.event(t, SpaceEventKind::Loosen);
                    phase = SpacePhase::Loose;
                }
                SpaceGuard::Tense => return self.tense(t),
                SpaceGuard::SlipZero(k) => {
                    self.system.read(&self.y);
                    self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
                    let mode = self.system.decide_mode(k).map_err(|e| failed(t, e))?;
                    self.system.modes[k - 1] = mode;
                    if mode == AxleMode::Stuck {
                        let diabolo = self.system.roster.diabolo_in(k);
                        self.event(t, SpaceEventKind::Stick(diabolo));
                    }
                }
                SpaceGuard::GripLimit(k) => {
                    self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
                    let direction = self.system.tension.breaking_direction(k);
                    self.system.modes[k - 1] = AxleMode::Slipping(direction);
                    let diabolo = self.system.roster.diabolo_in(k);
                    self.event(t, SpaceEventKind::Unstick(diabolo));
                }
                SpaceGuard::Fold(slot) => {
                    let left = self.fold(t, slot, crossing)?;
                    if left {
                        return Ok(());
                    }
                }
                SpaceGuard::Land { diabolo, segment } => {
                    let landed = self.land(t, diabolo, segment, crossing)?;
                    if landed {
                        return Ok(());
                    }
                }
                SpaceGuard::Floor(k) => return self.drop_to_floor(t, k),
                SpaceGuard::Touch(_) | SpaceGuard::Meet { .. } => {
                    if let Some([a, b]) = self.contact_bodies(guard) {
                        return self.touch(t, a, b);
                    }
                }
                SpaceGuard::Separate(s) => return self.separate(t, s),
                SpaceGuard::Seat(s) => return self.seat(t, s),
                _ => {}
            }
        }
        self.settle_friction(t, &friction)?;
        self.enter(t, phase)
    }

    /// The stop a guard means, if it ends the run (objects named by their diabolo K).
    fn terminal(&self, guard: SpaceGuard) -> Option<SpaceStop> {
        let diabolo = |slot: usize| self.system.roster.diabolo_in(slot);
        match guard {
            SpaceGuard::Cup(k) => Some(SpaceStop::Cup(diabolo(k))),
            SpaceGuard::SlowSpin(k) => Some(SpaceStop::SlowSpin(diabolo(k))),
            SpaceGuard::Straighten => {
                let state = &self.system.state;
                let speeds = state.diabolos.iter().enumerate();
                let fastest = fastest(speeds.map(|(i, d)| (diabolo(i + 1), d.vel.norm())));
                let span = (state.right.pos - state.left.pos).norm();
                Some(SpaceStop::PulledStraight { span, fastest })
            }
            _ => None,
        }
    }

    /// The slack string reaches its length: the tensing impulse, then taut (or slack again
    /// after a bounce).
    fn tense(&mut self, t: f64) -> Result<(), Stop> {
        if self.system.elastic.is_some() {
            // A compliant string starts pulling: no impulse, its stretch takes over.
            self.event(
                t,
                SpaceEventKind::Tense {
                    impulse: 0.0,
                    energy_lost: 0.0,
                },
            );
            self.bounces = 0;
            self.decide_modes(t)?;
            return self.enter(t, SpacePhase::Taut);
        }
        self.system.read(&self.y);
        self.system
            .string
            .update(&self.system.state)
            .map_err(|e| failed(t, e))?;
        let restitution = self.system.params.planar.values().restitution;
        let settings = &self.settings;
        let settle = restitution > 0.0
            && (restitution * self.system.string.total_length_rate() < settings.zeno_speed
                || self.bounces as usize >= settings.zeno_bounces);
        if settle {
            self.event(t, SpaceEventKind::ZenoSettle);
        }
        let full = self.state();
        let pairs = self.pairs_taking_part(&full, None);
        if !pairs.is_empty() {
            let restitution = if settle { 0.0 } else { restitution };
            return self.joint_tense(t, restitution, full, &pairs);
        }
        let prescribed = self.prescribed();
        let system = &mut self.system;
        let impulse = space_tensing_impulse(
            &system.params,
            if settle { 0.0 } else { restitution },
            &mut system.state,
            &mut system.string,
            &mut system.tension,
            prescribed,
        )
        .map_err(|e| (t, SpaceStop::Impulse(e)))?;
        self.impulse_loss += impulse.energy_lost;
        let accounts = self.system.layout.accounts();
        self.y[accounts] += impulse.hand_work;
        self.system.write(&mut self.y);
        self.event(
            t,
            SpaceEventKind::Tense {
                impulse: impulse.impulse,
                energy_lost: impulse.energy_lost,
            },
        );
        if impulse.rate_after < -ZENO_RATE {
            self.bounces += 1;
            return self.enter(t, SpacePhase::Loose);
        }
        self.bounces = 0;
        self.start_phase(t)
    }

    /// A prescribed stick's velocity jumps at a keyframe, the hand doing the work of the change:
    /// a taut string that the jump stretches takes a tensing impulse, one it slackens goes slack.
    fn velocity_jump(&mut self, t: f64, side: usize) -> Result<(), Stop> {
        let Some(velocity) = self.system.hands[side].velocity_after(t) else {
            return Ok(());
        };
        self.system.read(&self.y);
        let stick = if side == 0 {
            &mut self.system.state.left
        } else {
            &mut self.system.state.right
        };
        // The hand does the work of the change, 1/2 M (v_after^2 - v_before^2).
        let mass = self.system.params.planar.values().stick_mass;
        let work = 0.5 * mass * (velocity.norm_squared() - stick.vel.norm_squared());
        stick.vel = velocity;
        self.system.write(&mut self.y);
        let accounts = self.system.layout.accounts();
        self.y[accounts] += work;
        self.event(t, SpaceEventKind::VelocityJump(side));
        if self.system.phase == SpacePhase::Taut && self.system.elastic.is_none() {
            self.system
                .string
                .update(&self.system.state)
                .map_err(|e| failed(t, e))?;
            if self.system.string.total_length_rate() > 0.0 {
                return self.tense(t);
            }
        }
        self.start_phase(t)
    }

    pub(super) fn event(&mut self, t: f64, kind: SpaceEventKind) {
        self.events.push(SpaceEvent { t, kind });
    }
}
