//! The phases of a run: each phase's ODE system with its stepper and event locator, and the one
//! place that dispatches on the active phase.

use crate::model::{CartesianState, DynamicsError};
use crate::simulation::drive::Drive;
use crate::simulation::failures::{dynamics_failure, event_failure, integrate_failure, non_finite};
use crate::simulation::ode::events::{Crossing, EventError, EventLocator, EventOptions, EventSpec};
use crate::simulation::ode::integrate::Stepper;
use crate::simulation::report::{RunError, Settings};
use crate::simulation::tolerances::Tolerances;

use super::guards::{Fired, Guard, Hit};
use super::{accumulators, LooseSystem, Phase, PhaseSystem, Quantity, TautSystem, ACCUMULATORS};

/// A phase's ODE system with its stepper and event locator. Both phases keep theirs for the
/// whole run: a stepper remembers its step size across re-entries, and its counters.
#[derive(Clone, Debug)]
pub struct PhaseRun<S> {
    pub system: S,
    pub stepper: Stepper,
    pub locator: EventLocator,
}

impl<S: PhaseSystem> PhaseRun<S> {
    /// A run of `system` with `count` guards of the given filters; the components its paths
    /// impose do not count in the error norm.
    fn new(system: S, settings: &Settings, specs: &[EventSpec]) -> Self {
        let dimension = system.dimension();
        // Simulation::new validated the options.
        let mut stepper = Stepper::new(settings.method, settings.stepper_options(), dimension)
            .expect("validated options");
        stepper.measure_error(&system.error_groups());
        let mut locator = EventLocator::new(specs.len(), dimension, EventOptions::default())
            .expect("valid event options");
        locator
            .set_mut()
            .configure(specs)
            .expect("specs within capacity");
        Self {
            system,
            stepper,
            locator,
        }
    }

    /// One accepted step toward `limit` (s), its end put back on the paths: its end time.
    fn step(&mut self, limit: f64, phase: Phase) -> Result<f64, RunError> {
        let failure = |e| integrate_failure(e, phase.name());
        let t = self
            .stepper
            .step(&mut self.system, limit)
            .map_err(failure)?;
        self.stepper
            .impose(&mut self.system, |system, t, y| system.impose(t, y))
            .map_err(failure)?;
        Ok(t.t_new)
    }

    /// The guards that fire in the last step (members and whether each rose), with the event
    /// state in `y`.
    #[allow(clippy::type_complexity)]
    fn locate(
        &mut self,
        y: &mut [f64],
    ) -> Result<Option<(f64, Vec<(usize, bool)>)>, EventError<DynamicsError>> {
        let hit = self.locator.locate(&mut self.system, &self.stepper, y)?;
        Ok(hit.map(|hit| {
            let members = hit.members.iter().zip(hit.crossings);
            let fired = members.map(|(&m, c)| (m, *c == Crossing::Rising));
            (hit.t, fired.collect())
        }))
    }
}

/// Both phases' runs and which one is active, with the state at the last event.
#[derive(Clone, Debug)]
pub struct Phases {
    pub phase: Phase,
    pub taut: PhaseRun<TautSystem>,
    pub loose: PhaseRun<LooseSystem>,
    /// The state at the last event (interpolated), of the active phase's dimension.
    pub y: Vec<f64>,
    /// A buffer for interpolated states (rows, bisection).
    pub scratch: Vec<f64>,
    /// After a rebound, the longest loose step (s) until the string is taut again, so that a
    /// short flight is never stepped over.
    pub flight_step: Option<f64>,
}

impl Phases {
    /// Both phases of a run, loose active.
    pub fn new(taut: TautSystem, loose: LooseSystem, settings: &Settings) -> Self {
        let dimension = taut.dimension().max(loose.dimension());
        let taut_specs = taut.event_specs();
        let loose_specs = loose.event_specs();
        Self {
            phase: Phase::Loose,
            taut: PhaseRun::new(taut, settings, &taut_specs),
            loose: PhaseRun::new(loose, settings, &loose_specs),
            y: vec![0.0; dimension],
            scratch: vec![0.0; dimension],
            flight_step: None,
        }
    }

    /// Writes the hands' drives into both phases (drives that prescribe the same sticks'
    /// motion as before: the layouts, the imposed components and the guards stay).
    pub fn set_drives(&mut self, drives: &[Drive; 2]) {
        self.taut.system.drives = drives.clone();
        self.taut.system.forget_evaluation();
        self.taut.system.flight.drives = drives.clone();
        self.loose.system.drives = drives.clone();
        self.loose.system.flight.drives = drives.clone();
    }

    /// Length of the active phase's state.
    pub fn dimension(&self) -> usize {
        match self.phase {
            Phase::Taut => self.taut.system.dimension(),
            Phase::Loose => self.loose.system.dimension(),
        }
    }

    /// Component `index` of the active phase's state.
    pub fn quantity(&self, index: usize) -> Quantity {
        match self.phase {
            Phase::Taut => self.taut.system.quantity(index),
            Phase::Loose => self.loose.system.layout.quantity(index),
        }
    }

    /// The active phase's stepper.
    pub fn stepper(&self) -> &Stepper {
        match self.phase {
            Phase::Taut => &self.taut.stepper,
            Phase::Loose => &self.loose.stepper,
        }
    }

    /// Steps of both phases so far, accepted and rejected.
    pub fn steps_taken(&self) -> u64 {
        [self.taut.stepper.stats(), self.loose.stepper.stats()]
            .iter()
            .map(|s| s.accepted_steps + s.rejected_steps)
            .sum()
    }

    /// One accepted step of the active phase from t toward `limit` (s): its end time. A loose
    /// flight after a rebound is stepped in pieces.
    pub fn step(&mut self, t: f64, limit: f64) -> Result<f64, RunError> {
        match (self.phase, self.flight_step) {
            (Phase::Taut, _) => self.taut.step(limit, Phase::Taut),
            (Phase::Loose, h) => {
                let limit = h.map_or(limit, |h| limit.min(t + h));
                self.loose.step(limit, Phase::Loose)
            }
        }
    }

    /// The guards that fire in the last step, typed, the event state in `self.y`.
    pub fn locate(&mut self, tolerances: &Tolerances) -> Result<Option<Hit>, RunError> {
        let d = self.dimension();
        let located = match self.phase {
            Phase::Taut => self.taut.locate(&mut self.y[..d]),
            Phase::Loose => self.loose.locate(&mut self.y[..d]),
        }
        .map_err(|e| event_failure(e, |member| self.guard_words(member)))?;
        let Some((t, members)) = located else {
            return Ok(match self.phase {
                Phase::Taut => None,
                Phase::Loose => self.overstretched(tolerances)?.map(|t| Hit {
                    t,
                    fired: vec![Fired {
                        guard: Guard::Overstretched,
                        rising: false,
                    }],
                }),
            });
        };
        // Only armed members fire, and an armed member has a guard.
        let fired = members
            .iter()
            .filter_map(|&(member, rising)| self.guard(member).map(|guard| Fired { guard, rising }))
            .collect();
        Ok(Some(Hit { t, fired }))
    }

    /// The guard of locator member `member` of the active phase (`None`: disarmed, or no such
    /// member).
    fn guard(&self, member: usize) -> Option<Guard> {
        match self.phase {
            Phase::Taut => {
                let system = &self.taut.system;
                (member < system.guards.len())
                    .then(|| system.guards.guard(member, &system.axle_modes))
                    .flatten()
            }
            Phase::Loose => {
                let guards = &self.loose.system.guards;
                (member < guards.len()).then(|| guards.guard(member))
            }
        }
    }

    /// Disarms the taut guards that are off in the current friction modes, arms the others.
    pub fn arm_taut(&mut self) {
        let PhaseRun {
            system, locator, ..
        } = &mut self.taut;
        for (member, armed) in system.guards.armed(&system.axle_modes).enumerate() {
            locator
                .set_mut()
                .set_armed(member, armed)
                .expect("member within the layout");
        }
    }

    /// The guard of a failing member of the active phase, in words, with its object.
    pub fn guard_words(&self, member: usize) -> Option<(String, Option<usize>)> {
        let view = match self.phase {
            Phase::Taut => &self.taut.system.flight,
            Phase::Loose => &self.loose.system.flight,
        };
        self.guard(member).map(|guard| guard.words(view))
    }

    /// In the loose phase: if the string ended the last step longer than L (slack below
    /// the overstretch tolerance), the time it reached full length, with the state there in
    /// `self.y`.
    fn overstretched(&mut self, tolerances: &Tolerances) -> Result<Option<f64>, RunError> {
        let d = self.dimension();
        let length = self.loose.system.params.string_length;
        // The locator evaluated the slack (member 0) at the step's end already.
        match self.loose.locator.end_values() {
            Some((_, values)) if values[0] < -tolerances.overstretch * length => {}
            _ => return Ok(None),
        }
        let slack_at = |this: &mut Self, t: f64| -> Result<f64, RunError> {
            let mut y = std::mem::take(&mut this.scratch);
            let interpolated = this.interpolate_into(t, &mut y[..d]);
            let slack = this.loose.system.slack(t, &y[..d]);
            this.scratch = y;
            interpolated.map(|()| slack)
        };
        let (mut lo, mut hi) = (self.loose.stepper.t_old(), self.loose.stepper.t());
        if slack_at(self, lo)? < 0.0 {
            hi = lo;
        }
        while hi - lo > tolerances.overstretch_time * (1.0 + hi.abs()) {
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

    /// The dense output of the active phase's last step at t, into `y` (of its dimension).
    pub fn interpolate_into(&self, t: f64, y: &mut [f64]) -> Result<(), RunError> {
        self.stepper()
            .interpolate(t, y)
            .map_err(|e| non_finite(t, e.to_string()))
    }

    /// Evaluates the taut dynamics at (t, y) with the current friction modes.
    pub fn evaluate_taut(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        self.taut
            .system
            .evaluate(t, y)
            .map_err(|e| dynamics_failure(e, t))
    }

    /// The Cartesian state of the active phase at (t, y); a taut state was last evaluated
    /// there (the event's own evaluation).
    pub fn state(&self, t: f64, y: &[f64]) -> CartesianState {
        match self.phase {
            Phase::Taut => {
                let dynamics = &self.taut.system.dynamics;
                dynamics.cartesian(&y[..dynamics.layout().len()])
            }
            Phase::Loose => self.loose.system.state(t, y),
        }
    }

    /// How many energy accounts the phase states end with (3, or 4 with a compliant string).
    pub fn account_count(&self) -> usize {
        accumulators(self.taut.system.dynamics.params())
    }

    /// The energy accounts at the end of the active phase's state `y` (those the run does not
    /// keep are 0).
    pub fn accounts(&self, y: &[f64]) -> [f64; ACCUMULATORS] {
        let (d, count) = (self.dimension(), self.account_count());
        let mut accounts = [0.0; ACCUMULATORS];
        accounts[..count].copy_from_slice(&y[d - count..d]);
        accounts
    }

    /// Writes `accounts` at the end of a state `y` of the active phase.
    pub fn store_accounts(&self, accounts: &[f64; ACCUMULATORS], y: &mut [f64]) {
        let (d, count) = (self.dimension(), self.account_count());
        y[d - count..d].copy_from_slice(&accounts[..count]);
    }

    /// Restarts the active phase's stepper at (t, y) with a fresh derivative. The event locator
    /// resolves members at zero there by their sign just after, and never refires the member
    /// that fired.
    pub fn reset(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let phase = self.phase.name();
        let result = match self.phase {
            Phase::Taut => {
                self.arm_taut();
                self.taut.stepper.reset(&mut self.taut.system, t, y)
            }
            Phase::Loose => self.loose.stepper.reset(&mut self.loose.system, t, y),
        };
        result.map_err(|e| integrate_failure(e, phase))
    }
}
