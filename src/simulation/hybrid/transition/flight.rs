//! The transitions of throws and catches (docs/flight.md): a diabolo leaves the string, lands on
//! it, drops on the floor, or touches another diabolo or a stick tip. Each changes who is on the
//! string, so the string's phases are built anew for the new objects and re-entered from the
//! state at the event; the positions, velocities and spins stay continuous except through an
//! impact.

use super::*;

impl Hybrid<'_> {
    /// Taut: the diabolo in `slot` reached the flying regime (|theta| = pi): it leaves the
    /// string.
    pub(super) fn leave_taut(&mut self, at: At, slot: usize) -> Result<Outcome, RunError> {
        self.phases.evaluate_taut(at.t, at.y)?;
        let theta = self.phases.taut.system.dynamics.kinematics().objects()[slot].theta;
        self.leave(slot, theta, at.t, at.y, at.accounts)?;
        Ok(Outcome::Entered)
    }

    /// Every diabolo's state at the event (t, y) of the active phase, and the string's own.
    pub(crate) fn states_at(
        &mut self,
        t: f64,
        y: &[f64],
    ) -> Result<(CartesianState, CartesianState), RunError> {
        let string = match self.phases.phase {
            Phase::Taut => {
                self.phases.evaluate_taut(t, y)?;
                self.phases.state(t, y)
            }
            Phase::Loose => self.phases.state(t, y),
        };
        let mut full = CartesianState::default();
        self.roster
            .fill_state(&self.sim.params, t, &string, &mut full);
        Ok((string, full))
    }

    /// Diabolo in `slot` reached theta = pi from above (`theta` its string angle now): it leaves
    /// the string and flies; the string keeps its phase. At theta = -pi (a recaptured state
    /// reaching the flying regime from below) the run ends.
    pub(crate) fn leave(
        &mut self,
        slot: usize,
        theta: f64,
        t: f64,
        y: &[f64],
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<(), RunError> {
        let k = self.roster.diabolo_in(slot);
        if theta < 0.0 {
            return Err(RunError::Recaptured {
                t,
                diabolo: k,
                theta,
            });
        }
        let (string, full) = self.states_at(t, y)?;
        let phase = self.phases.phase;
        let kept = self.friction_modes();
        // Its resting contacts end with it (the string no longer holds it pressed).
        let ending: Vec<[usize; 2]> = self
            .roster
            .resting()
            .iter()
            .copied()
            .filter(|p| p.contains(&k))
            .collect();
        for pair in ending {
            self.roster.release(pair);
            self.log_separate(t, pair);
        }
        self.roster.leave(k, t, full.diabolos[k - 1]);
        let mut event = Event::new(t, EventKind::Leave, Some(k));
        event.slot = Some(slot);
        self.log(event);
        let mut string = string;
        string.diabolos.remove(slot - 1);
        self.reenter(phase, string, accounts, t, kept)
    }

    /// Flying diabolo `free` crossed the line of the chord of `segment`: a landing if it came
    /// to the string's under side between the chord's ends, a failure if it came to the upper
    /// side there, nothing elsewhere on the line or across a vertical chord (which catches
    /// nothing). The sides are those of the string angle: a diabolo hanging on the string
    /// (theta above pi) is on the right of the chord directed from the left stick's end to the
    /// right stick's, which is below it while the sticks are not crossed; the guard measures
    /// along the chord's left normal, continuous where the chord turns past vertical.
    pub(super) fn chord_crossing(
        &mut self,
        free: usize,
        segment: usize,
        at: At,
    ) -> Result<Outcome, RunError> {
        let (t, y, accounts) = (at.t, at.y, at.accounts);
        let view = &self.flight_view();
        let (string, full) = self.states_at(t, y)?;
        let (k, motion) = view.flying[free];
        let (a, b) = (string.position(segment), string.position(segment + 1));
        let p = full.diabolos[k - 1].pos;
        let chord = b - a;
        let length = chord.norm();
        let along = (p - a).dot(&chord) / length;
        let n = view.on_string();
        // Strictly between: farther than the contact distance from each end along the chord.
        let margin = |o: usize| view.contact_distance(Object::OnString(o), Object::Flying(free));
        let between = along > margin(segment) && along < length - margin(segment + 1);
        if !between || chord.x.abs() <= VERTICAL * length {
            return Ok(Outcome::Stays);
        }
        // The chord's velocity at the crossing point, and the diabolo's speed toward the
        // string's under side (along the right normal).
        let s = along / length;
        let chord_velocity =
            string.velocity(segment) * (1.0 - s) + string.velocity(segment + 1) * s;
        let right = nalgebra::Vector2::new(chord.y, -chord.x) / length;
        let approach = right.dot(&(full.diabolos[k - 1].vel - chord_velocity));
        if approach < 0.0 {
            // Right after a leave the diabolo sits on the merged chord: round-off on the under
            // side is the upper side, not a crossing from below.
            let height_at_start = right.dot(&(motion.start.pos - a));
            if height_at_start.abs() <= ON_CHORD && t - motion.t0 <= JUST_LEFT {
                return Ok(Outcome::Stays);
            }
            return Err(RunError::FromBelow {
                t,
                diabolo: k,
                what: format!(
                    "{} and {}",
                    view.name(Object::OnString(segment)),
                    view.name(Object::OnString(segment + 1))
                ),
            });
        }
        if approach == 0.0 {
            return Ok(Outcome::Stays);
        }
        let heavy = self.sim.drives.each_ref().map(|d| d.prescribes_motion());
        let inextensible = self.sim.params.string_stiffness.is_none();
        if inextensible && n == 0 && self.phases.phase == Phase::Taut && heavy[0] && heavy[1] {
            return Err(RunError::LandsOnStraightString { t, diabolo: k });
        }
        let phase = self.phases.phase;
        let kept = self.friction_modes();
        let slot = segment + 1;
        self.roster.land(&self.sim.params, k, t, slot);
        let mut event = Event::new(t, EventKind::Land, Some(k));
        event.slot = Some(slot);
        event.speed = Some(approach);
        self.log(event);
        let mut string = string;
        let landed = DiaboloState {
            knot: 0,
            ..full.diabolos[k - 1]
        };
        string.diabolos.insert(slot - 1, landed);
        self.landed = Some(slot);
        self.reenter(phase, string, accounts, t, kept)?;
        Ok(Outcome::Entered)
    }

    /// Flying diabolo K reached the floor at (t, y): it rests there, its translational kinetic
    /// energy lost.
    pub(super) fn drop_diabolo(&mut self, at: At, free: usize) -> Result<Outcome, RunError> {
        let (t, y) = (at.t, at.y);
        // The guards' flying diabolos are the roster's, in its order (`flight_view`).
        let Some(k) = self.roster.flying().nth(free) else {
            return Ok(Outcome::Stays);
        };
        let params = self.sim.params;
        let state = self
            .roster
            .motion(k)
            .map(|m| m.at(&params, t))
            .unwrap_or_default();
        let lost = 0.5 * params.diabolo_mass * state.vel.norm_squared();
        let floor = self.sim.settings.floor.unwrap_or(0.0);
        // A diabolo that starts flying below the floor (its string hung below it) drops where
        // it is: lifting it would make energy.
        let rest_height = floor + params.diabolo_radius;
        let below = state.pos.y < rest_height - TOUCH_GAP;
        let height = if below { state.pos.y } else { rest_height };
        self.roster.drop(&params, k, t, height);
        self.ledger.impulse_loss += lost;
        let mut event = Event::new(t, EventKind::Drop, Some(k));
        event.energy_lost = Some(lost);
        self.log(event);
        self.rebuild_same_string(t, y)?;
        Ok(Outcome::Entered)
    }

    /// The string's phases built for the roster's objects and re-entered in `phase` from the
    /// string's state `string` at t; axles that gripped before (`kept`, by diabolo K) do not
    /// log a new grip.
    pub(crate) fn reenter(
        &mut self,
        phase: Phase,
        string: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
        kept: Vec<(usize, AxleMode)>,
    ) -> Result<(), RunError> {
        self.rebuild();
        self.enter_again(phase, string, accounts, t, kept)
    }

    /// The string entered again in `phase` from `string` at t, without a rebuild; axles that
    /// gripped before (`kept`, by diabolo K) do not log a new grip.
    pub(crate) fn enter_again(
        &mut self,
        phase: Phase,
        string: CartesianState,
        accounts: &[f64; ACCUMULATORS],
        t: f64,
        kept: Vec<(usize, AxleMode)>,
    ) -> Result<(), RunError> {
        let result = self.keeping_grip(&kept, |hybrid| match phase {
            Phase::Taut => hybrid.tense(string, accounts, t, Arrival::Start),
            Phase::Loose => hybrid.enter_loose(string, accounts, t),
        });
        self.landed = None;
        result
    }

    /// `enter` run with the axles that gripped before (`kept`, by diabolo K) remembered: they go
    /// on gripping without a new `stick` event.
    pub(crate) fn keeping_grip<R>(
        &mut self,
        kept: &[(usize, AxleMode)],
        enter: impl FnOnce(&mut Self) -> R,
    ) -> R {
        self.gripping_before = kept
            .iter()
            .filter(|(_, m)| *m == AxleMode::Stuck)
            .map(|(k, _)| *k)
            .collect();
        let result = enter(self);
        self.gripping_before.clear();
        result
    }

    /// The string's phases built anew around an unchanged string (a diabolo off it changed its
    /// motion): the same state, friction modes and knots, restarted at (t, y).
    pub(super) fn rebuild_same_string(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let taut_modes = self.phases.taut.system.axle_modes.clone();
        let taut_knots = self.phases.taut.system.knots.clone();
        let loose_knots = self.phases.loose.system.knots.clone();
        self.rebuild();
        self.phases.taut.system.axle_modes = taut_modes;
        self.phases.taut.system.knots = taut_knots;
        self.phases.loose.system.knots = loose_knots;
        self.restart(t, y)
    }

    /// The highest theta a freshly landed diabolo may have: pi (on the chord), so that its
    /// leave guard starts at zero from above.
    pub(crate) fn clamp_landed_theta(&self, theta: &mut f64) {
        if *theta < PI {
            *theta = PI;
        }
    }
}
