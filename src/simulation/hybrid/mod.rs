//! The hybrid run: the phases driven through their events.
//!
//! # Design
//!
//! - A **phase** ([`crate::simulation::phase`]) is a continuous regime with its own ODE system,
//!   stepper and event locator: `taut` (the reduced rotating-frame state) and `loose`
//!   (Cartesian free motion). Both phases' runs live for the whole run, since a stepper carries
//!   its step size and its counters across re-entries; [`Phases`] is the one place that
//!   dispatches on the active one.
//! - A **guard** ([`crate::simulation::phase::guards`]) is a typed condition of a phase whose
//!   value crossing zero ends the continuous stretch. One type runs end to end: the phases'
//!   layouts hold [`crate::simulation::phase::Guard`]s (`Taut`: `Loosen`, `Slip`, `GripBound`,
//!   `Knot`, `Leave`, `Separate`; `Loose`: `Tense`, `Fold`; `Shared`: `Touch`, `Land`, `Drop`,
//!   `Meet`, `SticksApart`; and `Overstretched`), and a located event is a
//!   [`crate::simulation::phase::Hit`] of the guards that fired. Each phase's layout ties
//!   locator members to guards, once per run; a guard that is off in the current friction mode
//!   is disarmed in the locator.
//! - A **transition** ([`transition`]) is the reset map of a fired guard, grouped by event
//!   family (tense, friction, knot, flight, contact, hands): [`Hybrid::apply`] is the one
//!   `match` from a guard to its handler, and a handler says whether the phase goes on or a
//!   phase was entered ([`transition::Outcome`]). Every tolerance is a field of
//!   [`Tolerances`] or a named constant beside it ([`crate::simulation::tolerances`]).
//! - The loop ([`run`]) only steps, locates, emits rows ([`rows`]) and applies: it does not
//!   know which phases or guards exist.
//!
//! # Flight: who is on the string
//!
//! Flight is per diabolo (docs/flight.md): each diabolo is `string`, `flying` or `dropped`
//! ([`crate::simulation::roster`]). The string's phases run over the diabolos on it only; a
//! diabolo off it follows its closed-form free motion, so nothing is stepped for it. When the
//! string's objects change (a leave, a landing, a drop, a contact that changes a flight) the
//! phases are built anew for the new objects ([`Hybrid::rebuild`]) and re-entered from the state
//! at the event.
//! - `TautGuard::Leave` and the loose `Fold` guard (straight, falling) fire `leave`.
//! - The shared guards ([`crate::simulation::phase::SharedGuard`], carried by both phases):
//!   `Touch` for every pair of bodies that can touch (the string's neighbours, its other pairs,
//!   each flying diabolo with everything), `Land` for each flying diabolo and chord, `Drop` at
//!   the floor, `Meet` for two sticks with no diabolo, `SticksApart`. They exist only for what
//!   is there: with nothing flying there are no landing or floor guards.
//! - `TautGuard::Separate` watches each resting contact's force.
//! - Impacts of several constraints are [`crate::model::contact::apply_impact`].

pub mod diagnose;
pub mod rows;
pub mod run;
pub mod transition;

use std::borrow::Cow;

use crate::model::energy::{mechanical_energy, string_energy};
use crate::simulation::ode::integrate::StepStats;
use crate::simulation::phase::{FlightView, LooseSystem, Phases, TautSystem};
use crate::simulation::report::Event;
use crate::simulation::roster::Roster;
use crate::simulation::setup::Simulation;
use crate::simulation::tolerances::Tolerances;
use rows::RowScratch;

/// What the run has logged and accumulated besides the integrated state.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub events: Vec<Event>,
    /// Energy lost in impulses (tensing, contact) and drops since the start, J.
    pub impulse_loss: f64,
    /// Rebounds in a row (a bounce sequence).
    pub bounces: usize,
    /// The largest friction coefficient a gripping axle needed, if any gripped.
    pub grip_needed: Option<f64>,
    /// Derivative evaluations outside the steppers (rows, restarts, the Filippov rule).
    pub extra_evaluations: usize,
    /// The counters of the steppers retired when the string's objects changed.
    pub retired: StepStats,
    /// Impacts between diabolos, or a diabolo and a stick.
    pub contacts: usize,
    /// The last pair to collide (sorted, the run's numbering) and its impacts in a row.
    pub pair_bounces: Option<([usize; 2], usize)>,
}

/// The hybrid state of a run: the time, the phases, who is on the string, the ledger.
#[derive(Clone, Debug)]
pub struct Hybrid<'a> {
    /// The simulation run: borrowed by a run, owned by a [`super::run::Session`] that may
    /// change its drives between steps.
    pub sim: Cow<'a, Simulation>,
    /// Number of diabolos on the string, n.
    pub n: usize,
    /// The time reached, s.
    pub t: f64,
    pub phases: Phases,
    /// Who is on the string, and the motion of those off it.
    pub(crate) roster: Roster,
    pub ledger: Ledger,
    pub tolerances: Tolerances,
    /// Energy at the start (mechanical, and a compliant string's elastic energy), J.
    pub initial_energy: f64,
    /// The diabolos (K) whose axles gripped before the string was rebuilt: entering the taut
    /// phase again does not log a new grip for them.
    pub(crate) gripping_before: Vec<usize>,
    /// The slot of a diabolo landing now: it enters at theta = pi.
    pub(crate) landed: Option<usize>,
    /// Storage the rows are filled through.
    pub(crate) row_scratch: RowScratch,
}

impl<'a> Hybrid<'a> {
    /// The run of `sim` before its first mode is entered ([`Hybrid::start`]).
    pub fn new(sim: Cow<'a, Simulation>) -> Self {
        let roster = Roster::start(&sim.modes, &sim.initial);
        let initial_energy = mechanical_energy(&sim.params, &sim.initial)
            + string_energy(&sim.params, &roster.string_state(&sim.initial));
        let phases = build_phases(&sim, &roster, &Tolerances::default());
        Self {
            sim,
            n: roster.on_string(),
            t: 0.0,
            phases,
            roster,
            ledger: Ledger::default(),
            tolerances: Tolerances::default(),
            initial_energy,
            gripping_before: Vec::new(),
            landed: None,
            row_scratch: RowScratch::default(),
        }
    }

    /// The string's phases built anew for the roster's objects (after a leave, a landing or a
    /// drop); the retired steppers' counters are kept in the ledger.
    pub(crate) fn rebuild(&mut self) {
        for stats in [
            self.phases.taut.stepper.stats(),
            self.phases.loose.stepper.stats(),
        ] {
            let retired = &mut self.ledger.retired;
            retired.rhs_evaluations += stats.rhs_evaluations;
            retired.accepted_steps += stats.accepted_steps;
            retired.rejected_steps += stats.rejected_steps;
        }
        let phase = self.phases.phase;
        self.phases = build_phases(&self.sim, &self.roster, &self.tolerances);
        self.phases.phase = phase;
        self.n = self.roster.on_string();
    }

    /// The flights of both phases' guards taken again from the roster (after an impulse that
    /// changed a flying diabolo's velocity without changing who is on the string): a guard
    /// watching a flight as it was would see bodies where they are not.
    pub(crate) fn refresh_flights(&mut self) {
        let flying = self.flight_view().flying;
        self.phases.taut.system.flight.flying = flying.clone();
        self.phases.loose.system.flight.flying = flying;
    }

    /// The view of the diabolos off the string the guards watch.
    pub(crate) fn flight_view(&self) -> FlightView {
        flight_view(&self.sim, &self.roster)
    }
}

/// What the shared guards of `sim` watch with `roster`.
fn flight_view(sim: &Simulation, roster: &Roster) -> FlightView {
    FlightView {
        params: sim.params,
        drives: sim.drives.clone(),
        floor: sim.settings.floor,
        slots: (1..=roster.on_string())
            .map(|s| roster.diabolo_in(s))
            .collect(),
        diabolos: roster.diabolos(),
        flying: roster
            .flying()
            .map(|k| (k, *roster.motion(k).expect("a flying diabolo has a motion")))
            .collect(),
        meeting_distance: sim.settings.meeting_distance,
        resting: roster.resting_segments(),
    }
}

/// Both string phases of `sim` for the objects of `roster`, loose active.
fn build_phases(sim: &Simulation, roster: &Roster, tolerances: &Tolerances) -> Phases {
    let view = flight_view(sim, roster);
    let mut taut = TautSystem::watching(&sim.params, view.clone());
    taut.dynamics = taut
        .dynamics
        .clone()
        .with_regularisation(sim.settings.regularisation);
    let slack_band = tolerances.slack_roundoff * sim.params.string_length;
    let loose = LooseSystem::watching(&sim.params, view, slack_band);
    Phases::new(taut, loose, &sim.settings)
}
