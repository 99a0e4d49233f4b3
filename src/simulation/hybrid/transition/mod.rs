//! The transitions: what a fired guard does to the run, grouped by event family.
//!
//! [`Hybrid::apply`] is the one `match` from a fired [`Guard`] to its handler. Each handler is
//! the reset map of its guard: it takes the state at the event, logs what happened in the
//! ledger, and either leaves the phase going on ([`Outcome::Stays`]: the next guard of the same
//! instant is applied, then the phase restarts at the event) or enters a phase from the event
//! ([`Outcome::Entered`]: the other guards of the instant are found again from there). The
//! families:
//! - [`tense`]: the string at full length (the tensing impulse, a rebound, settling a bounce
//!   sequence), loosening, and entering the taut and the loose phase;
//! - [`friction`]: the axles' friction modes (slip reversal, stick, unstick);
//! - [`knot`]: the string wrapping round an axle once more or once less;
//! - [`flight`]: a diabolo leaving the string, landing on it, dropping on the floor;
//! - [`contact`]: impacts between bodies, resting contacts and their separation;
//! - [`hands`]: a path stick's velocity jump, a drive replaced in a session.
//!
//! Every tolerance they use is a field of [`crate::simulation::tolerances::Tolerances`] or a
//! named constant beside it.

mod contact;
mod flight;
mod friction;
mod hands;
mod knot;
mod tense;

use std::f64::consts::PI;

use nalgebra::Vector2;

use crate::model::{
    apply_impact, close_onto_string, filippov_mode, slip_at_capstan_bound,
    tensing_impulse_with_restitution, AxleMode, CartesianState, Constraint, DiaboloState,
    ImpactBody, Kinematics, SlipDirection,
};
use crate::simulation::drive::{path_margin, Drive, Path};
use crate::simulation::failures::{dynamics_failure, impulse_failure, state_failure};
use crate::simulation::phase::{
    FlightView, Guard, Hit, LooseGuard, Object, Phase, SharedGuard, TautGuard, ACCUMULATORS,
};
use crate::simulation::report::{fastest, object_name, Event, EventKind, Partner, RunError};
use crate::simulation::tolerances::{
    JUST_LEFT, MAX_CASCADE, ON_CHORD, RESTING_FORCE, STRAIGHT, TOUCH_GAP, TOUCH_SPEED, VERTICAL,
};

use super::Hybrid;
pub use contact::contact_objects;
pub use tense::Arrival;

/// What a transition did to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The phase goes on from the event: the next guard of the instant is applied, then the
    /// phase restarts there.
    Stays,
    /// A phase was entered from the event (or built anew): the other guards of the instant
    /// are found again from there.
    Entered,
}

/// The state at an event: the time, the active phase's state vector and its energy accounts.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// Time, s.
    pub t: f64,
    /// The active phase's state at t.
    pub y: &'a [f64],
    /// The energy accounts at the end of `y`.
    pub accounts: &'a [f64; ACCUMULATORS],
}

/// The object of an impact for the run's object number `o` (N = `count` diabolos).
pub fn impact_body(o: usize, count: usize) -> ImpactBody {
    match o {
        0 => ImpactBody::Left,
        o if o == count + 1 => ImpactBody::Right,
        k => ImpactBody::Diabolo(k),
    }
}

impl Hybrid<'_> {
    /// The first mode: taut if the string starts at full length, else loose.
    pub fn start(&mut self) -> Result<(), RunError> {
        let initial = self.roster.string_state(&self.sim.initial);
        let slack = self.sim.params.string_length - initial.string_used();
        let accounts = [0.0; ACCUMULATORS];
        let knots: Vec<i32> = initial.diabolos.iter().map(|d| d.knot).collect();
        self.phases.taut.system.knots = knots.clone();
        self.phases.loose.system.knots = knots;
        if self.sim.params.string_stiffness.is_some() {
            self.tense(initial, &accounts, 0.0, Arrival::Start)?;
            return self.settle_contacts();
        }
        if slack > self.tolerances.taut_start * self.sim.params.string_length {
            return self.enter_loose(initial, &accounts, 0.0);
        }
        self.tense(initial, &accounts, 0.0, Arrival::Start)?;
        self.settle_contacts()
    }

    /// Applies the guards of `hit` (the state at the event in the phases' event buffer) in
    /// member order and restarts the integration there: the one dispatch from a guard to its
    /// family's handler.
    pub fn apply(&mut self, hit: &Hit) -> Result<(), RunError> {
        let t = hit.t;
        let y = self.phases.y[..self.phases.dimension()].to_vec();
        let accounts = self.phases.accounts(&y);
        let at = At {
            t,
            y: &y,
            accounts: &accounts,
        };
        for fired in &hit.fired {
            let outcome = match fired.guard {
                Guard::Taut(TautGuard::Loosen) => self.loosen(at)?,
                Guard::Taut(TautGuard::Straighten) => return Err(self.pulled_straight(t, &y)),
                Guard::Loose(LooseGuard::Tense) => self.arrive(at, Arrival::SlackReachedZero)?,
                Guard::Overstretched => self.arrive(at, Arrival::Overstretched)?,
                Guard::Taut(TautGuard::Slip { k }) => self.redecide_axle(at, k, true)?,
                Guard::Taut(TautGuard::GripBound { k, upper }) => {
                    self.redecide_axle(at, k, upper)?
                }
                Guard::Taut(TautGuard::Knot { k, up }) => self.wind(at, k, up),
                Guard::Loose(LooseGuard::Fold { k }) => self.fold(at, k, fired.rising)?,
                Guard::Taut(TautGuard::Leave { k }) => self.leave_taut(at, k)?,
                Guard::Taut(TautGuard::Separate { segment, .. }) => self.separate(at, segment)?,
                Guard::Shared(SharedGuard::Land { free, segment }) => {
                    self.chord_crossing(free, segment, at)?
                }
                Guard::Shared(SharedGuard::Drop { free }) => self.drop_diabolo(at, free)?,
                Guard::Shared(SharedGuard::Touch { a, b, .. }) => self.touch(a, b, at)?,
                Guard::Shared(SharedGuard::Meet) => return Err(self.collision(t, 0)),
                Guard::Shared(SharedGuard::SticksApart) => return Err(self.sticks_too_far(t)),
            };
            if outcome == Outcome::Entered {
                return Ok(());
            }
        }
        self.restart(t, &y)
    }

    /// After a step without an event: a taut string must still be solvable.
    pub fn after_step(&mut self) -> Result<(), RunError> {
        self.taut_holds(self.t)
    }

    /// Restarts the active mode at (t, y); a taut one evaluated there must be solvable.
    pub(crate) fn restart(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        self.phases.reset(t, y)?;
        self.t = t;
        if self.phases.phase == Phase::Taut {
            self.phases.evaluate_taut(t, y)?;
            self.ledger.extra_evaluations += 1;
        }
        self.taut_holds(t)
    }

    /// In the taut phase, with the dynamics last evaluated at t: the hands have not pulled the
    /// string straight and the stick matrix is regular (else the run ends), and the grip each
    /// gripping axle needs is recorded.
    fn taut_holds(&mut self, t: f64) -> Result<(), RunError> {
        if self.phases.phase != Phase::Taut {
            return Ok(());
        }
        if self.phases.taut.system.straightness() < 0.0 {
            let y = self.phases.stepper().y()[..self.phases.dimension()].to_vec();
            return Err(self.pulled_straight(t, &y));
        }
        let system = &self.phases.taut.system;
        if system.dynamics.tension().regularised {
            return Err(RunError::SingularStickMatrix { t });
        }
        let axles = system.dynamics.axles();
        for k in 0..axles.contacts().len() {
            if system.axle_modes[k] == AxleMode::Stuck {
                let needed = axles.needed_friction(k).abs();
                let grip = &mut self.ledger.grip_needed;
                *grip = Some(grip.map_or(needed, |g: f64| g.max(needed)));
            }
        }
        Ok(())
    }

    /// The Cartesian state of the taut phase at (t, y).
    fn taut_state(&mut self, t: f64, y: &[f64]) -> Result<CartesianState, RunError> {
        self.phases.evaluate_taut(t, y)?;
        Ok(self.phases.state(t, y))
    }

    pub(crate) fn log(&mut self, event: Event) {
        self.ledger.events.push(event);
    }
}

#[cfg(test)]
mod tests {
    use approx::assert_abs_diff_eq;
    use nalgebra::Vector2;

    use super::tense::goes_slack_at_full_length;
    use super::*;
    use crate::model::{
        energy::mechanical_energy, taut_point_below, Body, DiaboloState, ParamValues, Params,
    };
    use crate::simulation::drive::Drive;
    use crate::simulation::report::Settings;
    use crate::simulation::setup::Simulation;

    /// One diabolo on a string at full length between released sticks at rest, moving with
    /// `velocity` (m/s); restitution `restitution`.
    fn at_full_length(velocity: Vector2<f64>, restitution: f64) -> Simulation {
        let params = Params::new(ParamValues {
            restitution,
            ..ParamValues::default()
        })
        .unwrap();
        let (a, b) = (Vector2::new(-0.4, 1.0), Vector2::new(0.4, 1.0));
        let p = taut_point_below(a, b, 0.0, params.string_length).unwrap();
        let stick = |pos| Body {
            pos,
            vel: Vector2::zeros(),
        };
        let initial = CartesianState {
            left: stick(a),
            right: stick(b),
            diabolos: vec![DiaboloState {
                pos: p,
                vel: velocity,
                spin: 20.0,
                knot: 0,
            }],
        };
        let drives = [Drive::Released, Drive::Released];
        Simulation::new(params, drives, initial, Settings::default()).unwrap()
    }

    /// The Cartesian state the active mode restarted from.
    fn restarted(hybrid: &Hybrid) -> CartesianState {
        let y = hybrid.phases.stepper().y().to_vec();
        if hybrid.phases.phase == Phase::Taut {
            let dynamics = &hybrid.phases.taut.system.dynamics;
            dynamics.cartesian(&y[..dynamics.layout().len()])
        } else {
            hybrid.phases.state(hybrid.t, &y)
        }
    }

    // A plastic tensing impulse on a diabolo falling onto its string: the string is taut at
    // length L and no longer stretching, one tense event carries the impulse, and the energy
    // lost matches the ledger and the drop in mechanical energy (released sticks: no hand work).
    #[test]
    fn tense_stops_the_stretching_and_books_the_energy_lost() {
        let sim = at_full_length(Vector2::new(0.0, -1.0), 0.0);
        let mut hybrid = Hybrid::new(std::borrow::Cow::Borrowed(&sim));
        let before = mechanical_energy(&sim.params, &sim.initial);
        let accounts = [0.0; ACCUMULATORS];
        hybrid
            .tense(
                sim.initial.clone(),
                &accounts,
                0.0,
                Arrival::SlackReachedZero,
            )
            .unwrap();
        assert_eq!(hybrid.phases.phase, Phase::Taut);
        let after = restarted(&hybrid);
        assert_abs_diff_eq!(
            after.string_used(),
            sim.params.string_length,
            epsilon = 1e-12
        );
        let events = &hybrid.ledger.events;
        assert_eq!(events.len(), 1, "{events:?}");
        let tense = &events[0];
        assert_eq!(
            (tense.kind, tense.object, tense.t),
            (EventKind::Tense, None, 0.0)
        );
        assert!(tense.impulse.unwrap() > 0.0);
        let (rate_before, rate_after) = tense.length_rates.unwrap();
        assert!(rate_before > 0.0);
        assert_abs_diff_eq!(rate_after, 0.0, epsilon = 1e-12);
        let lost = tense.energy_lost.unwrap();
        assert!(lost > 0.0);
        assert_eq!(hybrid.ledger.impulse_loss, lost);
        let drop = before - mechanical_energy(&sim.params, &after);
        assert_abs_diff_eq!(drop, lost, epsilon = 1e-9);
    }

    // A diabolo moving inward at full length: the string goes slack, positions and velocities
    // kept, no event logged.
    #[test]
    fn enter_loose_keeps_positions_and_velocities() {
        let sim = at_full_length(Vector2::new(0.0, 0.5), 0.0);
        let mut hybrid = Hybrid::new(std::borrow::Cow::Borrowed(&sim));
        hybrid
            .tense(
                sim.initial.clone(),
                &[0.0; ACCUMULATORS],
                0.0,
                Arrival::Start,
            )
            .unwrap();
        assert_eq!(hybrid.phases.phase, Phase::Loose);
        assert!(hybrid.ledger.events.is_empty());
        let after = restarted(&hybrid);
        assert_eq!(after.diabolos[0].pos, sim.initial.diabolos[0].pos);
        assert_eq!(after.diabolos[0].vel, sim.initial.diabolos[0].vel);
        assert_eq!(after.diabolos[0].spin, sim.initial.diabolos[0].spin);
    }

    // The named rule: at full length and shortening the string goes slack, unless the free
    // motion was found stretching it.
    #[test]
    fn an_overstretched_string_stays_taut_while_shortening() {
        assert!(goes_slack_at_full_length(-1e-3, 1e-10, Arrival::Start));
        assert!(goes_slack_at_full_length(
            -1e-3,
            1e-10,
            Arrival::SlackReachedZero
        ));
        assert!(!goes_slack_at_full_length(
            -1e-3,
            1e-10,
            Arrival::Overstretched
        ));
        assert!(!goes_slack_at_full_length(-1e-11, 1e-10, Arrival::Start));
    }

    // A bouncy impact rebounds (loose again, at -e L'), and once the bounce count reaches the
    // limit the next impact settles: a plastic impulse, a zeno_settle event, taut.
    #[test]
    fn settle_ends_the_bounce_sequence() {
        let sim = at_full_length(Vector2::new(0.0, -1.0), 0.5);
        // An impact at full length after `bounces` rebounds in a row.
        let impact_after = |bounces: usize| {
            let mut hybrid = Hybrid::new(std::borrow::Cow::Borrowed(&sim));
            hybrid.ledger.bounces = bounces;
            let arrival = Arrival::SlackReachedZero;
            hybrid
                .tense(sim.initial.clone(), &[0.0; ACCUMULATORS], 0.0, arrival)
                .unwrap();
            hybrid
        };
        let hybrid = impact_after(0);
        assert_eq!(hybrid.phases.phase, Phase::Loose);
        assert_eq!(hybrid.ledger.bounces, 1);
        assert!(hybrid.phases.flight_step.is_some());
        let (before, after) = hybrid.ledger.events[0].length_rates.unwrap();
        assert_abs_diff_eq!(after, -0.5 * before, epsilon = 1e-9);

        let hybrid = impact_after(sim.settings.zeno_bounces);
        assert_eq!(hybrid.phases.phase, Phase::Taut);
        assert_eq!(hybrid.ledger.bounces, 0);
        assert_eq!(hybrid.phases.flight_step, None);
        let kinds: Vec<EventKind> = hybrid.ledger.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventKind::Tense, EventKind::ZenoSettle]);
        let (_, after) = hybrid.ledger.events[0].length_rates.unwrap();
        assert_abs_diff_eq!(after, 0.0, epsilon = 1e-12);
    }
}
