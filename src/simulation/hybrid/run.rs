//! The run loop: step the active mode, locate its guards on the dense output, emit the rows
//! before the event, apply the event; with the budgets that end a stalled or chattering run.
//!
//! A [`Session`] is the loop made resumable: [`Session::advance`] runs it up to a time and
//! pauses there, inside a step if the step reaches past it (the stretch stepped and located
//! but not yet committed stays pending, so that the steps and events are those of one
//! uninterrupted run), and [`Session::set_drive`] changes a hand's drive at the time reached.
//! [`run`] is a session advanced to the end at once.

use crate::clock::Stopwatch;
use std::borrow::Cow;

use super::rows::{fill_row, Rows};
use super::Hybrid;
use crate::simulation::drive::Drive;
use crate::simulation::ode::integrate::Method;
use crate::simulation::phase::{Hit, Phase};
use crate::simulation::report::{
    object_name, Event, EventKind, RunError, RunReport, RunStats, Settings,
};
use crate::simulation::row::Row;
use crate::simulation::setup::Simulation;

impl Simulation {
    /// Runs to the end (or to a failure), handing every output row to `on_row`.
    pub fn run(&self, on_row: &mut dyn FnMut(&Row)) -> RunReport {
        let mut session = Session::new(Cow::Borrowed(self));
        // A failure is in the report.
        let _ = session.advance(self.settings.duration, Some(on_row));
        session.report()
    }

    /// A session of this simulation at t = 0, to advance piece by piece and to change the
    /// hands' drives between pieces (it owns its copy of the simulation).
    pub fn session(&self) -> Session<'static> {
        Session::new(Cow::Owned(self.clone()))
    }
}

/// A run advanced piece by piece: to a time ([`Session::advance`]), with the state at the time
/// reached ([`Session::state`]) and the hands' drives changed between pieces
/// ([`Session::set_drive`]). Advanced in one piece it is [`Simulation::run`]; advanced in many without a
/// drive change it takes the same steps and finds the same events, so its rows and states are
/// the run's, bit for bit.
#[derive(Clone, Debug)]
pub struct Session<'a> {
    hybrid: Hybrid<'a>,
    rows: Rows,
    /// The drives' breakpoints (steps end there) and velocity jumps.
    schedule: Schedule,
    jumps: Schedule,
    budget: Budget,
    /// Whether the first mode has been entered.
    started: bool,
    /// The time reached by the caller, s: at least the committed time `hybrid.t`, at most the
    /// end of the pending stretch.
    now: f64,
    /// The stretch stepped and located past `now`, not yet committed.
    pending: Option<Stretch>,
    /// The failure that ended the run, explained, if any.
    failure: Option<RunError>,
    /// The state at `now`, filled on demand.
    state: Row,
    /// The state vector at `now`.
    y_now: Vec<f64>,
}

/// A step's stretch up to its end or its first event.
#[derive(Clone, Debug)]
struct Stretch {
    /// End of the stretch, s: the step's end or the event's time.
    end: f64,
    /// The event that ends it, if any (the state at it is in the modes' event buffer).
    hit: Option<Hit>,
    /// Whether the stretch ends the run.
    last: bool,
}

impl<'a> Session<'a> {
    /// A session of `sim` at t = 0, before its first mode is entered.
    pub fn new(sim: Cow<'a, Simulation>) -> Self {
        let hybrid = Hybrid::new(sim);
        let settings = &hybrid.sim.settings;
        let end = settings.duration;
        let passed = hybrid.tolerances.breakpoint_passed;
        let schedule = Schedule::new(&hybrid.sim.drives, Drive::breakpoints);
        let mut jumps = Schedule::new(&hybrid.sim.drives, Drive::velocity_jumps);
        jumps.limit(0.0, end, passed);
        let budget = Budget::new(settings, hybrid.tolerances.budget_window);
        Self {
            hybrid,
            rows: Rows::default(),
            schedule,
            jumps,
            budget,
            started: false,
            now: 0.0,
            pending: None,
            failure: None,
            state: Row::default(),
            y_now: Vec::new(),
        }
    }

    /// The simulation run (its drives as last set).
    pub fn simulation(&self) -> &Simulation {
        &self.hybrid.sim
    }

    /// The time reached, s.
    pub fn time(&self) -> f64 {
        self.now
    }

    /// The events logged so far, in order (a failure last).
    pub fn events(&self) -> &[Event] {
        &self.hybrid.ledger.events
    }

    /// The failure that ended the run, if any.
    pub fn failure(&self) -> Option<&RunError> {
        self.failure.as_ref()
    }

    /// Whether the run has reached its duration or failed.
    pub fn finished(&self) -> bool {
        self.failure.is_some() || self.now >= self.hybrid.sim.settings.duration
    }

    /// Advances to `until` (clamped to the duration), handing the output rows on the way to
    /// `on_row` (none when `None`). A failure ends the run: it is logged as the last event and
    /// returned, now and by every later call.
    pub fn advance(
        &mut self,
        until: f64,
        on_row: Option<&mut dyn FnMut(&Row)>,
    ) -> Result<(), RunError> {
        self.advance_steps(until, usize::MAX, on_row).map(|_| ())
    }

    /// [`Session::advance`] taking at most `max_steps` integration steps (at least one): it
    /// pauses at the end of the last step it took when `until` lies further, and returns the
    /// time reached, s. A caller that must answer in time (a page drawing 60 frames a second)
    /// advances in such pieces and checks its clock between them; pausing between steps
    /// changes nothing, so the steps, events and rows are those of one uninterrupted run.
    pub fn advance_steps(
        &mut self,
        until: f64,
        max_steps: usize,
        on_row: Option<&mut dyn FnMut(&Row)>,
    ) -> Result<f64, RunError> {
        if let Some(failure) = &self.failure {
            return Err(failure.clone());
        }
        let until = until.min(self.hybrid.sim.settings.duration).max(self.now);
        let result = self.advance_loop(until, max_steps.max(1), on_row);
        self.fail_on(result)?;
        Ok(self.now)
    }

    /// Replaces the drive of the left (`side` 0) or the right (1) hand from the time reached
    /// on: the string is entered again in its phase from the state now (a stretching path
    /// stick's jump is a tensing impulse, a string no longer held taut loosens, the friction
    /// modes are decided again; gripping axles go on gripping without a new event).
    pub fn set_drive(&mut self, side: usize, drive: Drive) -> Result<(), RunError> {
        let mut drives = [None, None];
        drives[side] = Some(drive);
        self.set_drives(drives)
    }

    /// [`Session::set_drive`] for both hands at once (`None` keeps a hand's drive): the string
    /// entered again once, from the state now, with both new drives (what two hands changing
    /// together do; one at a time, the string would be entered between the two changes too).
    pub fn set_drives(&mut self, drives: [Option<Drive>; 2]) -> Result<(), RunError> {
        if let Some(failure) = &self.failure {
            return Err(failure.clone());
        }
        let result = self.change_drives(drives);
        self.fail_on(result)
    }

    /// The state at the time reached: positions, velocities, spins, modes, phase, tensions
    /// (a row, as the trajectory would show it at this time).
    pub fn state(&mut self) -> Result<&Row, RunError> {
        if let Some(failure) = &self.failure {
            return Err(failure.clone());
        }
        let result = self.fill_state();
        self.fail_on(result)?;
        Ok(&self.state)
    }

    /// The report of the run so far: events, statistics, flights, and the failure if any.
    pub fn report(&self) -> RunReport {
        let hybrid = &self.hybrid;
        let stats = [
            hybrid.phases.taut.stepper.stats(),
            hybrid.phases.loose.stepper.stats(),
            hybrid.ledger.retired,
        ];
        RunReport {
            stats: RunStats {
                steps: stats.iter().map(|s| s.accepted_steps as usize).sum(),
                rejected_steps: stats.iter().map(|s| s.rejected_steps as usize).sum(),
                derivative_evaluations: stats
                    .iter()
                    .map(|s| s.rhs_evaluations as usize)
                    .sum::<usize>()
                    + hybrid.ledger.extra_evaluations,
                rows: self.rows.count,
            },
            events: hybrid.ledger.events.clone(),
            failure: self.failure.clone(),
            end_time: hybrid.t,
            grip_needed: hybrid.ledger.grip_needed,
            energy: (hybrid.initial_energy, self.rows.row.energy),
            flights: hybrid.roster.records(&hybrid.sim.params, hybrid.t),
            contacts: hybrid.ledger.contacts,
        }
    }

    /// Keeps a failure: explained, logged as the last event, returned from now on.
    fn fail_on(&mut self, result: Result<(), RunError>) -> Result<(), RunError> {
        let Err(failure) = result else {
            return Ok(());
        };
        let failure = self.hybrid.explain(failure);
        let mut event = Event::new(self.hybrid.t, EventKind::Failure, failure.object());
        event.reason = Some(failure.to_string());
        self.hybrid.ledger.events.push(event);
        self.pending = None;
        self.now = self.hybrid.t;
        self.failure = Some(failure.clone());
        Err(failure)
    }

    fn start(&mut self) -> Result<(), RunError> {
        if !self.started {
            self.started = true;
            self.hybrid.start()?;
        }
        Ok(())
    }

    /// The loop: step, locate, rows up to the event or the step's end, apply; paused at
    /// `until` with the stretch reaching past it pending, or at the end of the `max_steps`-th
    /// step.
    fn advance_loop(
        &mut self,
        until: f64,
        max_steps: usize,
        mut on_row: Option<&mut dyn FnMut(&Row)>,
    ) -> Result<(), RunError> {
        self.start()?;
        let end = self.hybrid.sim.settings.duration;
        let passed = self.hybrid.tolerances.breakpoint_passed;
        let mut steps = 0;
        loop {
            let hybrid = &mut self.hybrid;
            if self.pending.is_none() {
                if hybrid.t >= until || steps == max_steps {
                    break;
                }
                steps += 1;
                // A velocity jump is taken at its own keyframe: a step after an event just
                // before it still ends there, however short (entered anew before it, a path
                // stick would be put back to its velocity from before).
                let limit = self
                    .schedule
                    .limit(hybrid.t, end, passed)
                    .min(self.jumps.ahead(hybrid.t).unwrap_or(end));
                let t1 = hybrid.phases.step(hybrid.t, limit)?;
                self.budget.check_steps(hybrid)?;
                let hit = hybrid.phases.locate(&hybrid.tolerances)?;
                self.pending = Some(Stretch {
                    end: hit.as_ref().map_or(t1, |h| h.t),
                    last: hit.is_none() && t1 >= end,
                    hit,
                });
            }
            let stretch = self.pending.as_ref().expect("a stretch is pending");
            let budget = &self.budget;
            let check = |t| budget.check_wall(t);
            if stretch.end > until {
                // The time asked for lies inside the stretch: the rows before it, the rest
                // stays pending.
                if let Some(on_row) = on_row.as_deref_mut() {
                    self.rows
                        .emit_until(hybrid, (until, false), &check, on_row)?;
                }
                self.now = until;
                return Ok(());
            }
            let stretch = self.pending.take().expect("a stretch is pending");
            if let Some(on_row) = on_row.as_deref_mut() {
                self.rows
                    .emit_until(hybrid, (stretch.end, stretch.last), &check, on_row)?;
            }
            hybrid.t = stretch.end;
            match stretch.hit {
                None => hybrid.after_step()?,
                Some(hit) => {
                    self.budget
                        .count_event(hit.t, &hybrid.ledger.events, hybrid.n)?;
                    hybrid.apply(&hit)?;
                    hybrid.settle_contacts()?;
                }
            }
            if let Some(knot) = self.jumps.reached(hybrid.t, 0.0) {
                hybrid.jump_velocities(hybrid.t, knot)?;
                hybrid.settle_contacts()?;
            }
        }
        self.now = self.hybrid.t;
        Ok(())
    }

    /// The active mode's state vector at `now` into `y_now`: interpolated inside a pending
    /// stretch, else the state the mode was restarted or stepped to.
    fn load_now(&mut self) -> Result<(), RunError> {
        self.start()?;
        let modes = &self.hybrid.phases;
        let d = modes.dimension();
        self.y_now.resize(d, 0.0);
        if self.pending.is_some() {
            modes.interpolate_into(self.now, &mut self.y_now)
        } else {
            self.y_now.copy_from_slice(&modes.stepper().y()[..d]);
            Ok(())
        }
    }

    fn fill_state(&mut self) -> Result<(), RunError> {
        self.load_now()?;
        fill_row(&mut self.state, &mut self.hybrid, self.now, &self.y_now)
    }

    fn change_drives(&mut self, drives: [Option<Drive>; 2]) -> Result<(), RunError> {
        self.load_now()?;
        let (t, y) = (self.now, std::mem::take(&mut self.y_now));
        self.pending = None;
        self.hybrid.t = t;
        let changed = self.hybrid.change_drives(drives, t, &y);
        self.y_now = y;
        changed?;
        let drives = &self.hybrid.sim.drives;
        let (end, passed) = (
            self.hybrid.sim.settings.duration,
            self.hybrid.tolerances.breakpoint_passed,
        );
        self.schedule = Schedule::new(drives, Drive::breakpoints);
        self.schedule.limit(t, end, passed);
        self.jumps = Schedule::new(drives, Drive::velocity_jumps);
        self.jumps.limit(t, end, passed);
        Ok(())
    }
}

impl Session<'_> {
    /// The phase of the string at the time reached.
    pub fn phase(&self) -> Phase {
        self.hybrid.phases.phase
    }
}

/// Times of the drives (sorted: breakpoints, or velocity jumps), passed one by one.
#[derive(Clone, Debug)]
struct Schedule {
    breakpoints: Vec<f64>,
    /// Index of the first breakpoint not yet passed.
    next: usize,
}

impl Schedule {
    fn new(drives: &[Drive; 2], times: fn(&Drive) -> Vec<f64>) -> Self {
        let mut breakpoints: Vec<f64> = drives.iter().flat_map(times).collect();
        breakpoints.sort_by(f64::total_cmp);
        breakpoints.dedup();
        Self {
            breakpoints,
            next: 0,
        }
    }

    /// The end of the next step from t: `end`, or the first drive breakpoint ahead of t (one
    /// closer than `passed`, s, counts as passed).
    fn limit(&mut self, t: f64, end: f64, passed: f64) -> f64 {
        let ahead = t + passed;
        while self.breakpoints.get(self.next).is_some_and(|b| *b <= ahead) {
            self.next += 1;
        }
        self.breakpoints.get(self.next).map_or(end, |b| b.min(end))
    }

    /// The next time not yet passed, if it lies ahead of t.
    fn ahead(&self, t: f64) -> Option<f64> {
        self.breakpoints
            .get(self.next)
            .copied()
            .filter(|&due| due > t)
    }

    /// The next time, if the run has reached it at t (within `passed`, s); it then counts as
    /// passed.
    fn reached(&mut self, t: f64, passed: f64) -> Option<f64> {
        let due = *self.breakpoints.get(self.next)?;
        ((due - t).abs() <= passed).then(|| {
            self.next += 1;
            due
        })
    }
}

/// The budgets of a run: events and steps per window of simulated time, and wall-clock time.
#[derive(Clone, Debug)]
struct Budget {
    settings: Settings,
    window: f64,
    /// Events in the current window of simulated time.
    events: WindowCount,
    /// Steps (accepted and rejected) in the current window of simulated time.
    steps: WindowCount,
    /// Steps (accepted and rejected) of both phases counted so far.
    steps_counted: u64,
    /// When the run started (for `max_wall`).
    started: Stopwatch,
}

impl Budget {
    fn new(settings: &Settings, window: f64) -> Self {
        Self {
            settings: settings.clone(),
            window,
            events: WindowCount::default(),
            steps: WindowCount::default(),
            steps_counted: 0,
            started: Stopwatch::start(),
        }
    }

    /// The step and wall-clock budgets after a step from `hybrid.t` (allocation-free unless
    /// exceeded).
    fn check_steps(&mut self, hybrid: &Hybrid) -> Result<(), RunError> {
        let t = hybrid.t;
        self.check_wall(t)?;
        let stepper = hybrid.phases.stepper();
        let h = stepper.t() - stepper.t_old();
        let retired = hybrid.ledger.retired;
        let total = hybrid.phases.steps_taken() + retired.accepted_steps + retired.rejected_steps;
        let steps = self.steps.add(t, total - self.steps_counted, self.window);
        self.steps_counted = total;
        let budget = step_budget(&self.settings);
        if steps as f64 > budget * self.window {
            return Err(RunError::StepBudget {
                t,
                h,
                phase: hybrid.phases.phase.name(),
                steps,
                window: self.window,
                budget,
                cause: hybrid.likely_cause(super::diagnose::STALL_UNRECOGNISED),
            });
        }
        Ok(())
    }

    /// The wall-clock budget `max_wall`, if any, at simulated time t (s).
    fn check_wall(&self, t: f64) -> Result<(), RunError> {
        match self.settings.max_wall {
            Some(limit) if self.started.elapsed().as_secs_f64() > limit => {
                Err(RunError::WallClock {
                    t,
                    limit,
                    duration: self.settings.duration,
                })
            }
            _ => Ok(()),
        }
    }

    /// Counts an event at t (s); too many in the window end the run, naming the last one
    /// logged before it.
    fn count_event(&mut self, t: f64, events: &[Event], n: usize) -> Result<(), RunError> {
        let count = self.events.add(t, 1, self.window);
        let cap = (self.settings.max_events_per_second * self.window).max(1.0) as u64;
        if count > cap {
            let last = events.last();
            let object = last.and_then(|e| e.object);
            return Err(RunError::EventFlood {
                t,
                count: count as usize,
                last: last.map_or("event", |e| e.kind.words()),
                object,
                place: object.map_or("of the string".to_string(), |k| {
                    format!("at {}", object_name(k, n))
                }),
            });
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::hybrid::diagnose::quantity_name;
    use crate::simulation::phase::{Measure, Quantity};
    use crate::simulation::report::{rounded, DEFAULT_MAX_STEPS_PER_SECOND};

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
        let spin = Quantity::of(2, Measure::Spin);
        assert_eq!(quantity_name(spin, 2), "diabolo 2's spin");
        let hand = Quantity::of(3, Measure::Velocity);
        assert_eq!(quantity_name(hand, 2), "the right stick's velocity");
        let tension = Quantity::of_string(Measure::Tension);
        assert_eq!(quantity_name(tension, 1), "the string's tension");
        assert_eq!(rounded(9.764739638097944e-8), 9.76e-8);
    }
}
