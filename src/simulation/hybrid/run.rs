//! The run loop: step the active mode, locate its guards on the dense output, emit the rows
//! before the event, apply the event; with the budgets that end a stalled or chattering run.

use std::time::Instant;

use super::Hybrid;
use crate::simulation::drive::Drive;
use crate::simulation::observe::{Row, Rows};
use crate::simulation::ode::integrate::Method;
use crate::simulation::report::{
    object_name, Event, EventKind, RunError, RunReport, RunStats, Settings,
};
use crate::simulation::setup::Simulation;

/// Runs `sim` to its end (or to a failure), handing every output row to `on_row`.
pub fn run(sim: &Simulation, on_row: &mut dyn FnMut(&Row)) -> RunReport {
    let mut hybrid = Hybrid::new(sim);
    let mut rows = Rows::default();
    let failure = run_loop(&mut hybrid, &mut rows, on_row)
        .err()
        .map(|f| hybrid.explain(f));
    if let Some(failure) = &failure {
        let mut event = Event::new(hybrid.t, EventKind::Failure, failure.object());
        event.reason = Some(failure.to_string());
        hybrid.ledger.events.push(event);
    }
    let stats = [
        hybrid.modes.taut.stepper.stats(),
        hybrid.modes.loose.stepper.stats(),
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
            rows: rows.count,
        },
        events: hybrid.ledger.events,
        failure,
        end_time: hybrid.t,
        grip_needed: hybrid.ledger.grip_needed,
        energy: (hybrid.initial_energy, rows.row.energy),
        flights: hybrid.roster.records(&sim.params, hybrid.t),
        contacts: hybrid.ledger.contacts,
    }
}

/// The loop: step, locate, rows up to the event or the step's end, apply.
fn run_loop(
    hybrid: &mut Hybrid,
    rows: &mut Rows,
    on_row: &mut dyn FnMut(&Row),
) -> Result<(), RunError> {
    let settings = &hybrid.sim.settings;
    let end = settings.duration;
    let mut schedule = Schedule::new(&hybrid.sim.drives, Drive::breakpoints);
    let mut jumps = Schedule::new(&hybrid.sim.drives, Drive::velocity_jumps);
    let passed = hybrid.tolerances.breakpoint_passed;
    jumps.limit(0.0, end, passed);
    let mut budget = Budget::new(settings, hybrid.tolerances.budget_window);
    hybrid.start()?;
    while hybrid.t < end {
        let limit = schedule.limit(hybrid.t, end, hybrid.tolerances.breakpoint_passed);
        let t1 = hybrid.modes.step(hybrid.t, limit)?;
        budget.check_steps(hybrid)?;
        let check = |t| budget.check_wall(t);
        match hybrid.modes.locate(&hybrid.tolerances)? {
            None => {
                rows.emit_until(hybrid, (t1, t1 >= end), &check, on_row)?;
                hybrid.t = t1;
                hybrid.after_step()?;
            }
            Some(hit) => {
                rows.emit_until(hybrid, (hit.t, false), &check, on_row)?;
                hybrid.t = hit.t;
                budget.count_event(hit.t, &hybrid.ledger.events, hybrid.n)?;
                hybrid.apply(&hit)?;
                hybrid.settle_contacts()?;
            }
        }
        if let Some(knot) = jumps.reached(hybrid.t, passed) {
            hybrid.jerk(hybrid.t, knot)?;
            hybrid.settle_contacts()?;
        }
    }
    Ok(())
}

/// Times of the drives (sorted: breakpoints, or velocity jumps), passed one by one.
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
    started: Instant,
}

impl Budget {
    fn new(settings: &Settings, window: f64) -> Self {
        Self {
            settings: settings.clone(),
            window,
            events: WindowCount::default(),
            steps: WindowCount::default(),
            steps_counted: 0,
            started: Instant::now(),
        }
    }

    /// The step and wall-clock budgets after a step from `hybrid.t` (allocation-free unless
    /// exceeded).
    fn check_steps(&mut self, hybrid: &Hybrid) -> Result<(), RunError> {
        let t = hybrid.t;
        self.check_wall(t)?;
        let stepper = hybrid.modes.stepper();
        let h = stepper.t() - stepper.t_old();
        let retired = hybrid.ledger.retired;
        let total = hybrid.modes.steps_taken() + retired.accepted_steps + retired.rejected_steps;
        let steps = self.steps.add(t, total - self.steps_counted, self.window);
        self.steps_counted = total;
        let budget = step_budget(&self.settings);
        if steps as f64 > budget * self.window {
            return Err(RunError::StepBudget {
                t,
                h,
                phase: hybrid.modes.phase.name(),
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
    use crate::simulation::phase::Quantity;
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
