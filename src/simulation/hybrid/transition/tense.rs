//! The tense family: the string reaching full length (the tensing impulse, a rebound, a bounce
//! sequence settling, a compliant string starting to pull), and the phases it enters: taut, or
//! loose again.

use super::*;

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
    pub(super) fn arrived(self) -> bool {
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
    /// The taut string's tension reached zero: it loosens, and its resting contacts end with it.
    pub(super) fn loosen(&mut self, at: At) -> Result<Outcome, RunError> {
        self.log(Event::new(at.t, EventKind::Loosen, None));
        let state = self.taut_state(at.t, at.y)?;
        self.release_resting(at.t);
        self.enter_loose(state, at.accounts, at.t)?;
        Ok(Outcome::Entered)
    }

    /// The loose string reached full length (`arrival`): it tenses.
    pub(super) fn arrive(&mut self, at: At, arrival: Arrival) -> Result<Outcome, RunError> {
        let state = self.phases.loose.system.state(at.t, at.y);
        self.tense(state, at.accounts, at.t, arrival)?;
        Ok(Outcome::Entered)
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
        self.phases.flight_step = None;
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
    pub(super) fn tense_compliant(
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
        self.phases.flight_step = None;
        if arrival.arrived() || self.compliant_string_pulls(&state) {
            self.enter_taut(state, accounts, t)
        } else {
            self.enter_loose(state, accounts, t)
        }
    }

    /// Whether a compliant string pulls in `state`: its gap (L / EA times minus the pull
    /// margin, m) within the taut-start tolerance of zero.
    pub(super) fn compliant_string_pulls(&self, state: &CartesianState) -> bool {
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
    pub(super) fn settles(&self, rate: f64) -> bool {
        let settings = &self.sim.settings;
        let restitution = self.sim.params.restitution;
        restitution > 0.0
            && (restitution * rate < settings.zeno_speed
                || self.ledger.bounces >= settings.zeno_bounces)
    }

    /// The tensing impulse with restitution `restitution`, on the state and the ledger. With
    /// no diabolo on the string, or with objects touching (at their contact distance), the
    /// impulse is one impact of the string and those contacts together.
    pub(super) fn impact(
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
    pub(super) fn joint_impact(
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
                let (object, other) = contact_objects(*pair, count);
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
    pub(super) fn settle(&mut self, t: f64, rate: f64) {
        let mut event = Event::new(t, EventKind::ZenoSettle, None);
        event.reason = Some(format!(
            "after {} bounces, L' before the impact {:.3e} m/s: settled taut",
            self.ledger.bounces, rate
        ));
        self.log(event);
    }

    /// A rebound at L' = -e L'_before: the string is slack again, and the flight back to full
    /// length (about 2 |L'| / L'') is stepped in pieces.
    pub(super) fn rebound(
        &mut self,
        state: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
    ) -> Result<(), RunError> {
        self.ledger.bounces += 1;
        self.enter_loose(state, accounts, t)?;
        let d = self.phases.dimension();
        let y = self.phases.loose.stepper.y()[..d].to_vec();
        let (rate, acceleration) = self
            .phases
            .loose
            .system
            .length_rates(t, &y)
            .map_err(|e| dynamics_failure(e, t))?;
        let tolerances = self.tolerances;
        self.phases.flight_step = (acceleration > 0.0).then(|| {
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
        // A slack string presses no pair together: resting contacts end (a hand's velocity
        // jump or a rebound slackens it without a loosen).
        self.release_resting(t);
        self.phases.phase = Phase::Loose;
        let d = self.phases.dimension();
        let mut y = vec![0.0; d];
        self.phases.store_accounts(accounts, &mut y);
        let loose = &mut self.phases.loose.system;
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
        let layout = self.phases.taut.system.dynamics.layout();
        let reduced = layout
            .reduce(&state, length, self.tolerances.reduce)
            .map_err(|e| state_failure(e, t))?;
        self.phases.phase = Phase::Taut;
        let d = self.phases.dimension();
        let mut y = vec![0.0; d];
        y[..layout.len()].copy_from_slice(reduced.values());
        self.phases.store_accounts(accounts, &mut y);
        self.phases.taut.system.knots = state.diabolos.iter().map(|d| d.knot).collect();
        if let Some(slot) = self.landed {
            self.clamp_landed_theta(&mut y[layout.theta(slot)]);
        }
        self.hold_taut(t, &y, accounts)
    }

    /// The taut phase's state y at t (its accounts `accounts`): the axles' friction modes
    /// decided, then taut from there, or loose at once if neither the hands nor the motion keep
    /// the string taut.
    pub(crate) fn hold_taut(
        &mut self,
        t: f64,
        y: &[f64],
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<(), RunError> {
        let compliant = self.sim.params.string_stiffness.is_some();
        self.decide_modes(t, y)?;
        self.phases.evaluate_taut(t, y)?;
        let dynamics = &self.phases.taut.system.dynamics;
        let state_now = dynamics.cartesian(&y[..dynamics.layout().len()]);
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
        self.restart(t, y)
    }
}
