//! The transitions: what a fired guard does to the run. Each reset map takes the state at the
//! event, logs what happened in the ledger and enters the next mode: `tense` (the string at
//! full length: the tensing impulse, a rebound, or settling a bounce sequence), `enter_taut`
//! (with the Filippov decision at every axle whose slip is zero), `enter_loose`, and the
//! friction and knot changes that stay taut.

use std::f64::consts::PI;

use crate::model::{
    apply_impact, close_onto_string, filippov_mode, slip_at_capstan_bound,
    tensing_impulse_with_restitution, AxleMode, CartesianState, Constraint, ImpactBody, Kinematics,
    SlipDirection,
};
use crate::simulation::drive::{Drive, Path};

use super::errors::{dynamics_failure, impulse_failure, state_failure};
use super::guards::{LooseGuard, TautGuard};
use super::mode::{Fired, Hit};
use super::Hybrid;
use crate::simulation::phase::{path_margin, Phase, ACCUMULATORS};
use crate::simulation::report::{Event, EventKind, RunError};

/// Every tolerance of the transitions and the loop, in one place.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerances {
    /// A start whose slack is at most this fraction of L is at full length (taut start).
    pub taut_start: f64,
    /// A loose string reaches full length when its slack falls below minus this fraction of L:
    /// the slack's own round-off (a few ulps of L) is not an arrival. A string falling with
    /// everything on it (let go) keeps its slack at +-2e-16 m.
    pub slack_roundoff: f64,
    /// A loose step ending with the slack below minus this fraction of L has overstretched the
    /// string (the slack left zero on the wrong side).
    pub overstretch: f64,
    /// The bisection for the instant of full length stops at this relative width of
    /// (1 + |t|).
    pub overstretch_time: f64,
    /// Below this L' (m/s) per m/s of the fastest object, plus itself, the string is taut
    /// already: round-off, not an impact (far below the 1e-8 m/s a taut state may carry).
    pub impact_speed: f64,
    /// A slip speed within this (m/s) of zero is at zero: the Filippov rule decides the mode.
    pub slip_at_zero: f64,
    /// When both trial slip accelerations of the Filippov rule are within this (m/s^2) of zero,
    /// the axle grips: at a symmetric state both are round-off (1e-13, of one sign), and the
    /// slip they would pick is then driven the other way by its own friction, unseen by its
    /// guard (friction putting energy in).
    pub slip_rate_at_zero: f64,
    /// The reduced state is built from a string at full length to this tolerance (m).
    pub reduce: f64,
    /// After a rebound, the flight back to full length (2 |L'| / L'') is stepped in this many
    /// pieces at least...
    pub flight_pieces: f64,
    /// ... but never in steps shorter than this (s).
    pub shortest_flight_step: f64,
    /// A drive breakpoint closer than this ahead of t (s) counts as passed.
    pub breakpoint_passed: f64,
    /// The window of simulated time over which events and steps are counted, s.
    pub budget_window: f64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Self {
            taut_start: 1e-9,
            slack_roundoff: 1e-14,
            overstretch: 1e-9,
            overstretch_time: 1e-14,
            impact_speed: 1e-10,
            slip_at_zero: 1e-12,
            slip_rate_at_zero: 1e-9,
            reduce: 1e-8,
            flight_pieces: 8.0,
            shortest_flight_step: 1e-12,
            breakpoint_passed: 1e-9,
            budget_window: 0.1,
        }
    }
}

/// The object of an impact for the run's object number `o` (N = `count` diabolos).
pub fn impact_body(o: usize, count: usize) -> ImpactBody {
    match o {
        0 => ImpactBody::Left,
        o if o == count + 1 => ImpactBody::Right,
        k => ImpactBody::Diabolo(k),
    }
}

/// A diabolo on the string within this angle (rad) of the straight string is at its chord (a
/// landing's round-off), not in the flying regime.
pub const STRAIGHT: f64 = 1e-9;

/// How the string came to full length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// The run starts with the string at full length.
    Start,
    /// The slack reached zero in the loose phase.
    SlackReachedZero,
    /// A loose step overstretched the string: its free motion stretches it.
    Overstretched,
}

impl Arrival {
    /// Whether the slack reached zero in a loose phase (not the taut start).
    fn arrived(self) -> bool {
        self != Self::Start
    }
}

/// The rule "stay taut while T0 < 0 and the free motion stretches the string": at full length
/// with L' (m/s) below minus the impact speed, the string goes slack, unless the free motion
/// was found stretching it (an overstretched loose step). Going loose would then be undone at
/// once: where T0 < 0 and the free motion stretches the string neither phase is consistent,
/// and the string stays taut until T0 recovers.
pub fn goes_slack_at_full_length(length_rate: f64, impact_speed: f64, arrival: Arrival) -> bool {
    length_rate < -impact_speed && arrival != Arrival::Overstretched
}

impl Hybrid<'_> {
    /// The first mode: taut if the string starts at full length, else loose.
    pub fn start(&mut self) -> Result<(), RunError> {
        let initial = self.roster.string_state(&self.sim.initial);
        let slack = self.sim.params.string_length - initial.string_used();
        let accounts = [0.0; ACCUMULATORS];
        let knots: Vec<i32> = initial.diabolos.iter().map(|d| d.knot).collect();
        self.modes.taut.system.knots = knots.clone();
        self.modes.loose.system.knots = knots;
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

    /// Applies the guards of `hit` (the state at the event in the modes' event buffer) in
    /// member order and restarts the integration there.
    pub fn apply(&mut self, hit: &Hit) -> Result<(), RunError> {
        let t = hit.t;
        let y = self.modes.y[..self.modes.dimension()].to_vec();
        let accounts = self.modes.accounts(&y);
        for fired in &hit.fired {
            match *fired {
                Fired::Taut(TautGuard::Loosen) => {
                    self.log(Event::new(t, EventKind::Loosen, None));
                    let state = self.taut_state(t, &y)?;
                    self.release_resting(t);
                    return self.enter_loose(state, &accounts, t);
                }
                Fired::Taut(TautGuard::Slip { k }) => self.redecide_axle(t, &y, k, true)?,
                Fired::Taut(TautGuard::GripBound { k, upper }) => {
                    self.redecide_axle(t, &y, k, upper)?
                }
                Fired::Taut(TautGuard::Knot { k, up }) => {
                    let knots = &mut self.modes.taut.system.knots;
                    knots[k - 1] += if up { 1 } else { -1 };
                    let knot = knots[k - 1];
                    self.log_knot(t, k, knot);
                }
                Fired::Taut(TautGuard::Leave { k }) => {
                    self.modes.evaluate_taut(t, &y)?;
                    let dynamics = &self.modes.taut.system.dynamics;
                    let theta = dynamics.kinematics().objects()[k].theta;
                    return self.leave(k, theta, t, &y, &accounts);
                }
                Fired::Taut(TautGuard::Separate { segment, .. }) => {
                    return self.separate(segment, t, &y);
                }
                Fired::Shared { guard, .. } => {
                    if self.shared_hit(guard, t, &y, &accounts)? {
                        return Ok(());
                    }
                }
                Fired::Taut(TautGuard::Shared(_))
                | Fired::Loose {
                    guard: LooseGuard::Shared(_),
                    ..
                } => unreachable!("shared guards fire as Fired::Shared"),
                Fired::Loose {
                    guard: LooseGuard::Tense,
                    ..
                } => {
                    let state = self.modes.loose.system.state(t, &y);
                    return self.tense(state, &accounts, t, Arrival::SlackReachedZero);
                }
                Fired::Overstretched => {
                    let state = self.modes.loose.system.state(t, &y);
                    return self.tense(state, &accounts, t, Arrival::Overstretched);
                }
                Fired::Loose {
                    guard: LooseGuard::Fold { k },
                    rising,
                } => {
                    let loose = &mut self.modes.loose.system;
                    let knot = loose.knots[k - 1];
                    if loose.folded(&y, k) {
                        // The turn at the diabolo passes +-pi: the string wraps (the cross
                        // product falls through zero) or unwraps.
                        loose.knots[k - 1] += if rising { -1 } else { 1 };
                        let knot = loose.knots[k - 1];
                        self.log_knot(t, k, knot);
                    } else if knot == 0 && !rising {
                        // The string runs straight at the diabolo, its angle falling through
                        // pi: it leaves the string.
                        return self.leave(k, PI, t, &y, &accounts);
                    } else if knot == -1 && rising {
                        return self.leave(k, -PI, t, &y, &accounts);
                    }
                }
            }
        }
        self.restart(t, &y)
    }

    /// A path stick's velocity jumps at `knot` (a keyframe of a linear path; the run is at t,
    /// within round-off of it): each such stick takes its path's velocity after the knot (its
    /// position stays, on the path up to the drift the path drive pulls back), and the hand does
    /// the work of the change, 1/2 M (v_after^2 - v_before^2).
    /// With the string taut, a jump that stretches it is caught as a tensing impulse (the
    /// stick, infinitely heavy, keeps its velocity; the diabolos take the impulse), one that
    /// shortens it slackens it; with the string loose only the sticks change.
    pub fn jerk(&mut self, t: f64, knot: f64) -> Result<(), RunError> {
        let d = self.modes.dimension();
        let y = self.modes.stepper().y()[..d].to_vec();
        let mut accounts = self.modes.accounts(&y);
        let mut state = match self.modes.phase {
            Phase::Taut => self.taut_state(t, &y)?,
            Phase::Loose => self.modes.state(t, &y),
        };
        let mut work = 0.0;
        for (stick, drive) in [&mut state.left, &mut state.right]
            .into_iter()
            .zip(&self.sim.drives)
        {
            if let Drive::Path(Path::Linear(polyline)) = drive {
                let (before, after) = polyline.velocity_jump(knot);
                work += 0.5
                    * self.sim.params.stick_mass
                    * (after.norm_squared() - before.norm_squared());
                stick.vel = after;
            }
        }
        accounts[0] += work;
        match self.modes.phase {
            Phase::Taut => self.tense(state, &accounts, t, Arrival::Start),
            Phase::Loose => self.enter_loose(state, &accounts, t),
        }
    }

    /// A hand's drive replaced at t (a session between steps), with the active mode's state y
    /// at t: the string is entered again in its phase from the state now, as at a velocity
    /// jump ([`Hybrid::jerk`]), and axles that grip go on gripping without a new event. The
    /// phases are built anew when the drive changes whether the stick's motion is prescribed
    /// (which components are imposed, which guards exist); otherwise the new drive is written
    /// into them.
    pub(crate) fn change_drive(
        &mut self,
        side: usize,
        drive: Drive,
        t: f64,
        y: &[f64],
    ) -> Result<(), RunError> {
        let accounts = self.modes.accounts(y);
        let phase = self.modes.phase;
        let state = match phase {
            Phase::Taut => self.taut_state(t, y)?,
            Phase::Loose => self.modes.state(t, y),
        };
        let kept = self.friction_modes();
        let rebuild = drive.prescribes_motion() != self.sim.drives[side].prescribes_motion();
        self.sim.to_mut().drives[side] = drive;
        if rebuild {
            self.reenter(phase, state, &accounts, t, kept)?;
        } else {
            self.modes.set_drives(&self.sim.drives);
            self.enter_again(phase, state, &accounts, t, kept)?;
        }
        self.settle_contacts()
    }

    /// After a step without an event: a taut string must still be solvable.
    pub fn after_step(&mut self) -> Result<(), RunError> {
        self.taut_holds(self.t)
    }

    /// The string at full length: apply the tensing impulse if it is stretching, then go taut
    /// (or stay loose on a rebound, settling a bounce sequence that accumulates).
    pub fn tense(
        &mut self,
        mut state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
        arrival: Arrival,
    ) -> Result<(), RunError> {
        let mut accounts = *accounts;
        let mut kin = Kinematics::new(self.n);
        kin.load_cartesian(&state)
            .map_err(|e| state_failure(e, t))?;
        for i in 1..=self.n {
            let theta = kin.objects()[i].theta;
            if theta.abs() <= PI && self.landed != Some(i) && theta.abs() < PI - STRAIGHT {
                return Err(RunError::CaughtFlying {
                    t,
                    diabolo: self.roster.diabolo_in(i),
                    theta,
                });
            }
        }
        if self.sim.params.string_stiffness.is_some() {
            return self.tense_compliant(state, &accounts, t, arrival);
        }
        let rate = kin.total_length_rate();
        let speed = (0..self.n + 2)
            .map(|k| state.velocity(k).norm())
            .fold(0.0, f64::max);
        let impact_speed = self.tolerances.impact_speed * (1.0 + speed);
        if rate <= impact_speed && arrival.arrived() {
            // A grazing arrival: taut without an impulse, logged as such.
            let mut event = Event::new(t, EventKind::Tense, None);
            event.impulse = Some(0.0);
            event.energy_lost = Some(0.0);
            event.length_rates = Some((rate, rate));
            self.log(event);
        }
        if rate > impact_speed {
            let restitution = self.sim.params.restitution;
            let settle = self.settles(rate);
            self.impact(
                &mut state,
                &mut accounts,
                t,
                if settle { 0.0 } else { restitution },
            )?;
            if settle {
                self.settle(t, rate);
            } else if restitution > 0.0 {
                return self.rebound(state, &accounts, t);
            }
        }
        self.ledger.bounces = 0;
        self.modes.flight_step = None;
        // After an impact of the string with contacts the string may be left shortening (its
        // constraint holds as an inequality): judge by the rate after it.
        let rate = if rate > impact_speed {
            state.length_rate()
        } else {
            rate
        };
        // Two sticks alone have no diabolo to take up the length: shortening, the string goes
        // slack whatever the arrival.
        let arrival = if self.n == 0 {
            Arrival::SlackReachedZero
        } else {
            arrival
        };
        if goes_slack_at_full_length(rate, impact_speed, arrival) {
            // At full length but shortening (a taut start with L' < 0): the string goes slack.
            return self.enter_loose(state, &accounts, t);
        }
        self.enter_taut(state, &accounts, t)
    }

    /// A compliant string starts pulling (docs/elastic.md): no impulse, the stretch takes over.
    /// Logged as a `tense` with impulse 0 when it arrives from slack; at a start or a re-entry
    /// (`Arrival::Start`) the string's pull margin decides the phase.
    fn tense_compliant(
        &mut self,
        state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
        arrival: Arrival,
    ) -> Result<(), RunError> {
        if arrival.arrived() {
            let rate = state.length_rate();
            let mut event = Event::new(t, EventKind::Tense, None);
            event.impulse = Some(0.0);
            event.energy_lost = Some(0.0);
            event.length_rates = Some((rate, rate));
            self.log(event);
        }
        self.ledger.bounces = 0;
        self.modes.flight_step = None;
        if arrival.arrived() || self.compliant_string_pulls(&state) {
            self.enter_taut(state, accounts, t)
        } else {
            self.enter_loose(state, accounts, t)
        }
    }

    /// Whether a compliant string pulls in `state`: its gap (L / EA times minus the pull
    /// margin, m) within the taut-start tolerance of zero.
    fn compliant_string_pulls(&self, state: &CartesianState) -> bool {
        let params = &self.sim.params;
        params.elastic().is_some_and(|string| {
            let stretch = state.string_used() - string.length;
            let gap = -string.pull_margin(stretch, state.length_rate()) * string.length
                / string.stiffness;
            gap <= self.tolerances.taut_start * string.length
        })
    }

    /// Whether an impact at L' = `rate` (m/s) ends a bounce sequence: its rebound would be
    /// slower than the settle speed, or it is one bounce too many.
    fn settles(&self, rate: f64) -> bool {
        let settings = &self.sim.settings;
        let restitution = self.sim.params.restitution;
        restitution > 0.0
            && (restitution * rate < settings.zeno_speed
                || self.ledger.bounces >= settings.zeno_bounces)
    }

    /// The tensing impulse with restitution `restitution`, on the state and the ledger. With
    /// no diabolo on the string, or with objects touching (at their contact distance), the
    /// impulse is one impact of the string and those contacts together.
    fn impact(
        &mut self,
        state: &mut CartesianState,
        accounts: &mut [f64; ACCUMULATORS],
        t: f64,
        restitution: f64,
    ) -> Result<(), RunError> {
        let heavy = self.sim.drives.each_ref().map(|d| d.prescribes_motion());
        let mut full = CartesianState::default();
        self.roster
            .fill_state(&self.sim.params, t, state, &mut full);
        let touching = self.touching_pairs(&full);
        if self.n == 0 || !touching.is_empty() {
            return self.joint_impact(state, full, accounts, (t, restitution), &touching);
        }
        let record = tensing_impulse_with_restitution(&self.sim.params, restitution, state, heavy)
            .map_err(|e| impulse_failure(e, t))?;
        accounts[0] += record.hand_work;
        self.ledger.impulse_loss += record.energy_lost;
        let mut event = Event::new(t, EventKind::Tense, None);
        event.impulse = Some(record.magnitude);
        event.energy_lost = Some(record.energy_lost);
        event.length_rates = Some((record.length_rate_before, record.length_rate_after));
        self.log(event);
        Ok(())
    }

    /// The tensing impulse solved as one impact with the contacts `touching` (the run's
    /// numbering; resting pairs plastic, the others with the contact restitution), frictionless
    /// contacts and the string's friction frozen at its pre-impact slip directions; `state` (the
    /// string's) and the diabolos off the string take the result. With no diabolo on the string
    /// it acts between the sticks alone; sticks that both follow paths cannot be stopped: the
    /// run ends as for paths holding them too far apart.
    fn joint_impact(
        &mut self,
        state: &mut CartesianState,
        mut full: CartesianState,
        accounts: &mut [f64; ACCUMULATORS],
        (t, restitution): (f64, f64),
        touching: &[[usize; 2]],
    ) -> Result<(), RunError> {
        let heavy = self.sim.drives.each_ref().map(|d| d.prescribes_motion());
        if self.n == 0 && heavy[0] && heavy[1] {
            return Err(self.sticks_too_far(t));
        }
        let params = self.sim.params;
        let count = self.roster.diabolos();
        let mut constraints = vec![Constraint::String { restitution }];
        constraints.extend(touching.iter().map(|&pair| Constraint::Pair {
            a: impact_body(pair[0], count),
            b: impact_body(pair[1], count),
            restitution: if self.roster.resting().contains(&pair) {
                0.0
            } else {
                params.contact_restitution
            },
        }));
        let rate_before = state.length_rate();
        let slots: Vec<usize> = (1..=self.n).map(|s| self.roster.diabolo_in(s)).collect();
        let outcome =
            apply_impact(&params, &mut full, &slots, heavy, &constraints).map_err(|e| {
                RunError::Impact {
                    t,
                    what: "the string".to_string(),
                    reason: e.to_string(),
                }
            })?;
        accounts[0] += outcome.hand_work;
        self.ledger.impulse_loss += outcome.energy_lost;
        *state = self.roster.string_state(&full);
        let flying: Vec<usize> = self.roster.flying().collect();
        let kicked = !flying.is_empty();
        for k in flying {
            self.roster.kick(&params, k, t, full.diabolos[k - 1]);
        }
        if kicked {
            // The guards watch the flights the impulse changed.
            self.refresh_flights();
        }
        let mut event = Event::new(t, EventKind::Tense, None);
        event.impulse = Some(outcome.impulses[0]);
        event.energy_lost = Some(outcome.energy_lost);
        event.length_rates = Some((rate_before, state.length_rate()));
        self.log(event);
        // The contacts the tensing pressed, after it.
        for (pair, impulse) in touching.iter().zip(&outcome.impulses[1..]) {
            if *impulse > 0.0 {
                let (object, other) = super::flight::contact_objects(*pair, count);
                let mut contact = Event::new(t, EventKind::Contact, Some(object));
                contact.other = Some(other);
                contact.impulse = Some(*impulse);
                contact.energy_lost = Some(0.0);
                contact.resting = Some(self.roster.resting().contains(pair));
                self.log(contact);
                self.ledger.contacts += 1;
            }
        }
        Ok(())
    }

    /// Ends a bounce sequence: the last impact was plastic, the string stays taut.
    fn settle(&mut self, t: f64, rate: f64) {
        let mut event = Event::new(t, EventKind::ZenoSettle, None);
        event.reason = Some(format!(
            "after {} bounces, L' before the impact {:.3e} m/s: settled taut",
            self.ledger.bounces, rate
        ));
        self.log(event);
    }

    /// A rebound at L' = -e L'_before: the string is slack again, and the flight back to full
    /// length (about 2 |L'| / L'') is stepped in pieces.
    fn rebound(
        &mut self,
        state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
    ) -> Result<(), RunError> {
        self.ledger.bounces += 1;
        self.enter_loose(state, accounts, t)?;
        let d = self.modes.dimension();
        let y = self.modes.loose.stepper.y()[..d].to_vec();
        let (rate, acceleration) = self
            .modes
            .loose
            .system
            .length_rates(t, &y)
            .map_err(|e| dynamics_failure(e, t))?;
        let tolerances = self.tolerances;
        self.modes.flight_step = (acceleration > 0.0).then(|| {
            (2.0 * rate.abs() / acceleration / tolerances.flight_pieces)
                .max(tolerances.shortest_flight_step)
        });
        Ok(())
    }

    /// The loose phase from `state` at t, positions and velocities kept.
    pub fn enter_loose(
        &mut self,
        state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
    ) -> Result<(), RunError> {
        self.modes.phase = Phase::Loose;
        let d = self.modes.dimension();
        let mut y = vec![0.0; d];
        self.modes.store_accounts(accounts, &mut y);
        let loose = &mut self.modes.loose.system;
        loose.layout.store(&state, &mut y);
        loose.knots = state.diabolos.iter().map(|d| d.knot).collect();
        self.restart(t, &y)
    }

    /// The taut phase from `state` at t (a string at full length), each axle's friction mode
    /// decided; a string that neither the hands nor the motion keep taut loosens at once.
    pub fn enter_taut(
        &mut self,
        mut state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
    ) -> Result<(), RunError> {
        // The reduced state rebuilds the right stick from the string: put the residual slack and
        // length rate (event tolerance, round-off) on the diabolos, so that a stick keeps
        // exactly the position and velocity its drive gave it.
        let length = self.sim.params.string_length;
        let compliant = self.sim.params.string_stiffness.is_some();
        if !compliant {
            close_onto_string(&mut state, length);
        }
        let layout = self.modes.taut.system.dynamics.layout();
        let reduced = layout
            .reduce(&state, length, self.tolerances.reduce)
            .map_err(|e| state_failure(e, t))?;
        self.modes.phase = Phase::Taut;
        let d = self.modes.dimension();
        let mut y = vec![0.0; d];
        y[..layout.len()].copy_from_slice(reduced.values());
        self.modes.store_accounts(accounts, &mut y);
        self.modes.taut.system.knots = state.diabolos.iter().map(|d| d.knot).collect();
        if let Some(slot) = self.landed {
            self.clamp_landed_theta(&mut y[layout.theta(slot)]);
        }
        self.decide_modes(t, &y)?;
        self.modes.evaluate_taut(t, &y)?;
        let dynamics = &self.modes.taut.system.dynamics;
        let state_now = dynamics.cartesian(&y[..layout.len()]);
        let slackens = if compliant {
            !self.compliant_string_pulls(&state_now)
        } else {
            dynamics.tension().base_tension < 0.0
        };
        if slackens {
            // Neither the hands nor the motion keep this string taut: it loosens at once.
            let state = state_now;
            self.log(Event::new(t, EventKind::Loosen, None));
            return self.enter_loose(state, accounts, t);
        }
        self.restart(t, &y)
    }

    /// Friction modes on entering the taut phase at (t, y): the way each axle slips; the
    /// Filippov rule where a slip is zero (a grip is logged).
    pub(crate) fn decide_modes(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let n = self.n;
        self.modes.taut.system.modes = vec![AxleMode::from_slip(0.0); n];
        self.modes.evaluate_taut(t, y)?;
        let contacts = self.modes.taut.system.dynamics.axles().contacts();
        let slips: Vec<f64> = contacts.iter().map(|c| c.slip_speed).collect();
        for (k, slip) in slips.iter().enumerate() {
            self.modes.taut.system.modes[k] = AxleMode::from_slip(*slip);
        }
        for (k, slip) in slips.iter().enumerate() {
            if slip.abs() <= self.tolerances.slip_at_zero {
                let mode = self.decide_axle(t, y, k + 1)?;
                self.modes.taut.system.modes[k] = mode;
                let k = self.roster.diabolo_in(k + 1);
                if mode == AxleMode::Stuck && !self.gripping_before.contains(&k) {
                    self.log(Event::new(t, EventKind::Stick, Some(k)));
                }
            }
        }
        Ok(())
    }

    /// The Filippov rule at axle k (1..N) with its slip at zero, from the slip accelerations
    /// of both trial directions.
    fn decide_axle(&mut self, t: f64, y: &[f64], k: usize) -> Result<AxleMode, RunError> {
        if !self.sim.params.has_switching_friction() {
            return Ok(AxleMode::from_slip(0.0));
        }
        let saved = self.modes.taut.system.modes[k - 1];
        let mut trend = |direction: SlipDirection| -> Result<f64, RunError> {
            self.modes.taut.system.modes[k - 1] = AxleMode::Slipping(direction);
            self.modes.evaluate_taut(t, y)?;
            self.ledger.extra_evaluations += 1;
            Ok(self.modes.taut.system.dynamics.slip_accelerations()[k - 1])
        };
        let up = trend(SlipDirection::Positive)?;
        let down = trend(SlipDirection::Negative)?;
        self.modes.taut.system.modes[k - 1] = saved;
        let at_zero = self.tolerances.slip_rate_at_zero;
        if up.abs() <= at_zero && down.abs() <= at_zero {
            // Neither way of slipping is driven: round-off would pick one whose own friction
            // then drives the slip the other way.
            return Ok(AxleMode::Stuck);
        }
        Ok(filippov_mode(up, down))
    }

    /// Axle k's slip reached zero, or its grip reached a capstan bound (`upper` for the upper
    /// one): decide its new mode and log what changed.
    fn redecide_axle(&mut self, t: f64, y: &[f64], k: usize, upper: bool) -> Result<(), RunError> {
        let before = self.modes.taut.system.modes[k - 1];
        let mut after = self.decide_axle(t, y, k)?;

        if before == AxleMode::Stuck && after == AxleMode::Stuck {
            after = slip_at_capstan_bound(upper);
        }
        if matches!(before, AxleMode::Slipping(_)) && after == before {
            // The slip came back to zero under this direction's own friction, yet the rule's
            // trends at this instant say slip on the same way: they are those of a tension
            // rising from zero (a landing on a stiff string), where friction is about to drive
            // the slip back whichever way it slips. Slipping on, the slip crosses zero against
            // the friction unseen (its guard restarts at zero and is read by its sign) and
            // friction makes energy (0.1 J in a stretchy catch); the axle grips instead.
            after = AxleMode::Stuck;
        }
        self.modes.taut.system.modes[k - 1] = after;
        self.modes.evaluate_taut(t, y)?;
        let kind = match (before, after) {
            (AxleMode::Stuck, AxleMode::Slipping(_)) => Some(EventKind::Unstick),
            (AxleMode::Slipping(_), AxleMode::Stuck) => Some(EventKind::Stick),
            (AxleMode::Slipping(a), AxleMode::Slipping(b)) if a != b => {
                Some(EventKind::SlipReversal)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            let k = self.roster.diabolo_in(k);
            self.log(Event::new(t, kind, Some(k)));
        }
        Ok(())
    }

    /// Restarts the active mode at (t, y); a taut one evaluated there must be solvable.
    pub(crate) fn restart(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        self.modes.reset(t, y)?;
        self.t = t;
        if self.modes.phase == Phase::Taut {
            self.modes.evaluate_taut(t, y)?;
            self.ledger.extra_evaluations += 1;
        }
        self.taut_holds(t)
    }

    /// In the taut phase, with the dynamics last evaluated at t: the stick matrix is regular
    /// (else the run ends), and the grip each gripping axle needs is recorded.
    fn taut_holds(&mut self, t: f64) -> Result<(), RunError> {
        if self.modes.phase != Phase::Taut {
            return Ok(());
        }
        let system = &self.modes.taut.system;
        if system.dynamics.tension().regularised {
            return Err(RunError::SingularStickMatrix { t });
        }
        let axles = system.dynamics.axles();
        for k in 0..axles.contacts().len() {
            if system.modes[k] == AxleMode::Stuck {
                let needed = axles.needed_friction(k).abs();
                let grip = &mut self.ledger.grip_needed;
                *grip = Some(grip.map_or(needed, |g: f64| g.max(needed)));
            }
        }
        Ok(())
    }

    /// The Cartesian state of the taut phase at (t, y).
    fn taut_state(&mut self, t: f64, y: &[f64]) -> Result<CartesianState, RunError> {
        self.modes.evaluate_taut(t, y)?;
        Ok(self.modes.state(t, y))
    }

    pub(crate) fn log(&mut self, event: Event) {
        self.ledger.events.push(event);
    }

    /// Logs the knot change of the diabolo in `slot`.
    fn log_knot(&mut self, t: f64, slot: usize, knot: i32) {
        let k = self.roster.diabolo_in(slot);
        let mut event = Event::new(t, EventKind::KnotChange, Some(k));
        event.knot = Some(knot);
        self.log(event);
    }

    /// Sticks on paths farther apart than the string is long, at t.
    pub(crate) fn sticks_too_far(&self, t: f64) -> RunError {
        let length = self.sim.params.string_length;
        RunError::SticksTooFarApart {
            t,
            distance: length - path_margin(&self.sim.drives, length, t),
            length,
        }
    }

    /// The objects at the ends of `segment` meet at t.
    pub(crate) fn collision(&self, t: f64, segment: usize) -> RunError {
        RunError::Collision {
            t,
            segment,
            what: self.segment_ends(segment),
            distance: self.sim.settings.meeting_distance,
        }
    }
}

#[cfg(test)]
mod tests {
    use approx::assert_abs_diff_eq;
    use nalgebra::Vector2;

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
        let y = hybrid.modes.stepper().y().to_vec();
        if hybrid.modes.phase == Phase::Taut {
            let dynamics = &hybrid.modes.taut.system.dynamics;
            dynamics.cartesian(&y[..dynamics.layout().len()])
        } else {
            hybrid.modes.state(hybrid.t, &y)
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
        assert_eq!(hybrid.modes.phase, Phase::Taut);
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
        assert_eq!(hybrid.modes.phase, Phase::Loose);
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
        assert_eq!(hybrid.modes.phase, Phase::Loose);
        assert_eq!(hybrid.ledger.bounces, 1);
        assert!(hybrid.modes.flight_step.is_some());
        let (before, after) = hybrid.ledger.events[0].length_rates.unwrap();
        assert_abs_diff_eq!(after, -0.5 * before, epsilon = 1e-9);

        let hybrid = impact_after(sim.settings.zeno_bounces);
        assert_eq!(hybrid.modes.phase, Phase::Taut);
        assert_eq!(hybrid.ledger.bounces, 0);
        assert_eq!(hybrid.modes.flight_step, None);
        let kinds: Vec<EventKind> = hybrid.ledger.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventKind::Tense, EventKind::ZenoSettle]);
        let (_, after) = hybrid.ledger.events[0].length_rates.unwrap();
        assert_abs_diff_eq!(after, 0.0, epsilon = 1e-12);
    }
}
