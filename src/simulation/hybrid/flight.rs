//! The transitions of throws and catches (docs/flight.md): a diabolo leaves the string, lands on
//! it, drops on the floor, or touches another diabolo or a stick tip. Each changes who is on the
//! string, so the string's phases are built anew for the new objects and re-entered from the
//! state at the event; the positions, velocities and spins stay continuous except through an
//! impact.

use std::f64::consts::PI;

use nalgebra::Vector2;

use crate::model::{apply_impact, AxleMode, CartesianState, Constraint, DiaboloState, ImpactBody};

use super::guards::{Body, FlightView, SharedGuard};
use super::transitions::Arrival;
use super::Hybrid;
use crate::simulation::phase::{Phase, ACCUMULATORS};
use crate::simulation::report::{object_name, Event, EventKind, Partner, RunError};

/// A diabolo within this distance of a chord (m) at the start of its flight is on the chord's
/// upper side: round-off right after a leave, not a crossing from below.
pub const ON_CHORD: f64 = 1e-8;

/// A chord whose horizontal extent is below this fraction of its length is vertical: it
/// catches nothing.
pub const VERTICAL: f64 = 1e-9;

/// A chord crossing from below this soon (s) after a flight started on that chord is the
/// round-off of the leave.
pub const JUST_LEFT: f64 = 1e-6;

/// An approach speed below this (m/s) is round-off, not an impact.
pub const TOUCH_SPEED: f64 = 1e-9;

impl Hybrid<'_> {
    /// Every diabolo's state at the event (t, y) of the active phase, and the string's own.
    pub(crate) fn states_at(
        &mut self,
        t: f64,
        y: &[f64],
    ) -> Result<(CartesianState, CartesianState), RunError> {
        let string = match self.modes.phase {
            Phase::Taut => {
                self.modes.evaluate_taut(t, y)?;
                self.modes.state(t, y)
            }
            Phase::Loose => self.modes.state(t, y),
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
        let phase = self.modes.phase;
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

    /// A shared guard fired at (t, y). Returns whether
    /// it changed the run (then the phase was re-entered and the other guards of this instant
    /// are found again from there).
    pub(crate) fn shared_hit(
        &mut self,
        guard: SharedGuard,
        t: f64,
        y: &[f64],
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<bool, RunError> {
        let view = self.flight_view();
        match guard {
            SharedGuard::Land { free, segment } => {
                self.chord_crossing(&view, free, segment, (t, y), accounts)
            }
            SharedGuard::Drop { free } => {
                self.drop_diabolo(view.flying[free].0, t, y)?;
                Ok(true)
            }
            SharedGuard::Touch { a, b, .. } => self.touch(&view, a, b, t, y, accounts),
            SharedGuard::Meet => Err(self.collision(t, 0)),
            SharedGuard::SticksApart => Err(self.sticks_too_far(t)),
        }
    }

    /// Flying diabolo `free` crossed the line of the chord of `segment`: a landing if it came
    /// to the string's under side between the chord's ends, a failure if it came to the upper
    /// side there, nothing elsewhere on the line or across a vertical chord (which catches
    /// nothing). The sides are those of the string angle: a diabolo hanging on the string
    /// (theta above pi) is on the right of the chord directed from the left stick's end to the
    /// right stick's, which is below it while the sticks are not crossed; the guard measures
    /// along the chord's left normal, continuous where the chord turns past vertical.
    fn chord_crossing(
        &mut self,
        view: &FlightView,
        free: usize,
        segment: usize,
        (t, y): (f64, &[f64]),
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<bool, RunError> {
        let (string, full) = self.states_at(t, y)?;
        let (k, motion) = view.flying[free];
        let (a, b) = (string.position(segment), string.position(segment + 1));
        let p = full.diabolos[k - 1].pos;
        let chord = b - a;
        let length = chord.norm();
        let along = (p - a).dot(&chord) / length;
        let n = view.on_string();
        // Strictly between: farther than the contact distance from each end along the chord.
        let margin = |o: usize| view.contact_distance(Body::String(o), Body::Free(free));
        let between = along > margin(segment) && along < length - margin(segment + 1);
        if !between || chord.x.abs() <= VERTICAL * length {
            return Ok(false);
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
                return Ok(false);
            }
            return Err(RunError::FromBelow {
                t,
                diabolo: k,
                what: format!(
                    "{} and {}",
                    view.name(Body::String(segment)),
                    view.name(Body::String(segment + 1))
                ),
            });
        }
        if approach == 0.0 {
            return Ok(false);
        }
        let heavy = self.sim.drives.each_ref().map(|d| d.prescribes_motion());
        let inextensible = self.sim.params.string_stiffness.is_none();
        if inextensible && n == 0 && self.modes.phase == Phase::Taut && heavy[0] && heavy[1] {
            return Err(RunError::LandsOnStraightString { t, diabolo: k });
        }
        let phase = self.modes.phase;
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
        Ok(true)
    }

    /// Flying diabolo K reached the floor at (t, y): it rests there, its translational kinetic
    /// energy lost.
    fn drop_diabolo(&mut self, k: usize, t: f64, y: &[f64]) -> Result<(), RunError> {
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
        self.rebuild_same_string(t, y)
    }

    /// Two bodies touch at (t, y): an impact if they approach.
    fn touch(
        &mut self,
        view: &FlightView,
        a: Body,
        b: Body,
        t: f64,
        y: &[f64],
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<bool, RunError> {
        let (string, full) = self.states_at(t, y)?;
        let body = |x: Body| -> (Vector2<f64>, Vector2<f64>) {
            match x {
                Body::String(o) => (string.position(o), string.velocity(o)),
                Body::Free(j) => {
                    let d = full.diabolos[view.flying[j].0 - 1];
                    (d.pos, d.vel)
                }
            }
        };
        let ((pa, va), (pb, vb)) = (body(a), body(b));
        let line = (pb - pa) / (pb - pa).norm();
        let approach = -line.dot(&(vb - va));
        let pair = [view.object(a), view.object(b)];
        // The locator fires a gap at the very start of its step only where it closes further
        // than round-off from touching (see EventSpec::gap): the pair is pressed together.
        let pressed = t == self.modes.stepper().t_old();
        // Neighbours on a taut string pressed together come to rest (settle_contacts, after
        // the event); a touch within round-off is no impact (two diabolos drifting together
        // in free fall).
        let held = self.modes.phase == Phase::Taut && self.roster.segment_between(pair).is_some();
        if approach < TOUCH_SPEED && (!pressed || held) {
            return Ok(false);
        }
        if approach < TOUCH_SPEED {
            // Nothing holds the pair apart.
            let diabolo = if view.is_stick(b) { pair[0] } else { pair[1] };
            return Err(RunError::Pressed {
                t,
                diabolo,
                what: format!("{} and {}", view.name(a), view.name(b)),
            });
        }
        self.contact_impact(view, pair, approach, (t, full), accounts)?;
        Ok(true)
    }

    /// The friction modes of the taut axles by diabolo K, to keep across a rebuild.
    pub(crate) fn friction_modes(&self) -> Vec<(usize, AxleMode)> {
        if self.modes.phase != Phase::Taut {
            return Vec::new();
        }
        self.modes
            .taut
            .system
            .modes
            .iter()
            .enumerate()
            .map(|(i, m)| (self.roster.diabolo_in(i + 1), *m))
            .collect()
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
        self.gripping_before = kept
            .into_iter()
            .filter(|(_, m)| *m == AxleMode::Stuck)
            .map(|(k, _)| k)
            .collect();
        let result = match phase {
            Phase::Taut => self.tense(string, accounts, t, Arrival::Start),
            Phase::Loose => self.enter_loose(string, accounts, t),
        };
        self.gripping_before.clear();
        self.landed = None;
        result
    }

    /// The string's phases built anew around an unchanged string (a diabolo off it changed its
    /// motion): the same state, friction modes and knots, restarted at (t, y).
    fn rebuild_same_string(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let taut_modes = self.modes.taut.system.modes.clone();
        let taut_knots = self.modes.taut.system.knots.clone();
        let loose_knots = self.modes.loose.system.knots.clone();
        self.rebuild();
        self.modes.taut.system.modes = taut_modes;
        self.modes.taut.system.knots = taut_knots;
        self.modes.loose.system.knots = loose_knots;
        self.restart(t, y)
    }

    /// The highest theta a freshly landed diabolo may have: pi (on the chord), so that its
    /// leave guard starts at zero from above.
    pub(crate) fn clamp_landed_theta(&self, theta: &mut f64) {
        if *theta < PI {
            *theta = PI;
        }
    }

    /// The contact resting across `segment` would pull at (t, y): the pair separates, the
    /// string's phase goes on from the same state without it.
    pub(crate) fn separate(&mut self, segment: usize, t: f64, y: &[f64]) -> Result<(), RunError> {
        let pair = [
            self.roster.object_of(segment),
            self.roster.object_of(segment + 1),
        ];
        self.roster.release(pair);
        self.log_separate(t, pair);
        self.rebuild_same_string(t, y)
    }

    /// After an event: bodies left touching (their contact distance apart) must not pass into
    /// each other unseen, since a guard that restarts at zero is resolved by its sign just after
    /// without firing. A touching pair approaching faster than [`TOUCH_SPEED`] takes its impact
    /// now; touching neighbours on a taut string that the string presses together come to rest
    /// in contact. Repeated while impacts cascade, at most [`MAX_CASCADE`] times.
    pub(crate) fn settle_contacts(&mut self) -> Result<(), RunError> {
        for _ in 0..MAX_CASCADE {
            let t = self.t;
            let d = self.modes.dimension();
            let y = self.modes.stepper().y()[..d].to_vec();
            let (_, full) = self.states_at(t, &y)?;
            let resting = self.roster.resting().to_vec();
            let touching: Vec<[usize; 2]> = self
                .touching_pairs(&full)
                .into_iter()
                .filter(|p| !resting.contains(p))
                .collect();
            if touching.is_empty() {
                return Ok(());
            }
            let count = self.roster.diabolos();
            let velocity = |o: usize| match o {
                0 => full.left.vel,
                o if o == count + 1 => full.right.vel,
                k => full.diabolos[k - 1].vel,
            };
            let position = |o: usize| match o {
                0 => full.left.pos,
                o if o == count + 1 => full.right.pos,
                k => full.diabolos[k - 1].pos,
            };
            let approach = |[a, b]: [usize; 2]| {
                let line = (position(b) - position(a)).normalize();
                -line.dot(&(velocity(b) - velocity(a)))
            };
            let approaching = touching
                .iter()
                .map(|&pair| (pair, approach(pair)))
                .find(|&(_, speed)| speed >= TOUCH_SPEED);
            if let Some((pair, approach)) = approaching {
                let view = self.flight_view();
                let accounts = self.modes.accounts(&y);
                self.contact_impact(&view, pair, approach, (t, full), &accounts)?;
                continue;
            }
            // Touching at rest relative to each other: neighbours the taut string presses
            // together rest in contact; the others drift.
            if self.modes.phase == Phase::Taut {
                // (A pair moving apart just goes.)
                let neighbours: Vec<[usize; 2]> = touching
                    .into_iter()
                    .filter(|&p| {
                        self.roster.segment_between(p).is_some() && approach(p).abs() < TOUCH_SPEED
                    })
                    .collect();
                if !neighbours.is_empty() {
                    for &pair in &neighbours {
                        self.roster.rest(pair);
                    }
                    self.rebuild_same_string(t, &y)?;
                    let loose: Vec<[usize; 2]> = neighbours
                        .into_iter()
                        .filter(|&p| !self.pressed(p))
                        .collect();
                    for pair in loose {
                        self.roster.release(pair);
                    }
                    // The axles' friction modes are decided afresh with the contacts held.
                    self.rebuild_same_string(t, &y)?;
                    self.decide_modes(t, &y)?;
                    self.restart(t, &y)?;
                }
            }
            return Ok(());
        }
        Ok(())
    }

    /// The pairs of bodies (the run's numbering, sorted) touching in `full` (every diabolo):
    /// their gap within [`TOUCH_GAP`]; dropped diabolos touch nothing, two sticks are not
    /// discs.
    pub(crate) fn touching_pairs(&self, full: &CartesianState) -> Vec<[usize; 2]> {
        let count = self.roster.diabolos();
        let radius = self.sim.params.diabolo_radius;
        let live = |o: usize| {
            o == 0
                || o == count + 1
                || self.roster.mode(o) != crate::simulation::DiaboloMode::Dropped
        };
        let position = |o: usize| match o {
            0 => full.left.pos,
            o if o == count + 1 => full.right.pos,
            k => full.diabolos[k - 1].pos,
        };
        let stick = |o: usize| o == 0 || o == count + 1;
        let mut pairs = Vec::new();
        for a in 0..=count + 1 {
            for b in a + 1..=count + 1 {
                if (stick(a) && stick(b)) || !live(a) || !live(b) {
                    continue;
                }
                let discs = [a, b].iter().filter(|&&o| !stick(o)).count() as f64;
                let gap = (position(b) - position(a)).norm() - discs * radius;
                if gap.abs() <= TOUCH_GAP {
                    pairs.push([a, b]);
                }
            }
        }
        pairs
    }

    /// Logs the separation of `pair` (the run's numbering) at t.
    fn log_separate(&mut self, t: f64, pair: [usize; 2]) {
        let (object, other) = contact_objects(pair, self.roster.diabolos());
        let mut event = Event::new(t, EventKind::Separate, Some(object));
        event.other = Some(other);
        self.log(event);
    }

    /// The string goes slack at t: every resting contact ends with it (no force presses the
    /// pairs together any more), each logged as a separation. The caller rebuilds the phases.
    pub(crate) fn release_resting(&mut self, t: f64) {
        let pairs = self.roster.resting().to_vec();
        for pair in pairs {
            self.roster.release(pair);
            self.log_separate(t, pair);
        }
        if self.roster.resting().is_empty() && !self.modes.taut.system.dynamics.resting().is_empty()
        {
            self.rebuild();
        }
    }
}

/// The event's object and partner of a contact `pair` (the run's numbering, N diabolos): the
/// lower diabolo, and the other diabolo or the stick.
pub fn contact_objects(pair: [usize; 2], count: usize) -> (usize, Partner) {
    let stick = |o: usize| o == 0 || o == count + 1;
    let (object, other) = match (stick(pair[0]), stick(pair[1])) {
        (true, false) => (pair[1], pair[0]),
        (false, true) => (pair[0], pair[1]),
        _ => (pair[0].min(pair[1]), pair[0].max(pair[1])),
    };
    let partner = match other {
        0 => Partner::Left,
        o if o == count + 1 => Partner::Right,
        k => Partner::Diabolo(k),
    };
    (object, partner)
}

impl Hybrid<'_> {
    /// The impact of `pair` (the run's numbering: 0 the left stick, 1..N a diabolo, N + 1 the
    /// right stick) approaching at `approach` (m/s), solved together with the taut string and
    /// the contacts resting now; every object's velocity and spin after it restart the run.
    /// The pair comes to rest in contact (a plastic impact) when its rebound would be slower
    /// than `sim.zeno_speed`, after `sim.zeno_bounces` impacts of the pair in a row, or with a
    /// contact restitution of 0; it stays resting where the string holds it pressed.
    fn contact_impact(
        &mut self,
        view: &FlightView,
        pair: [usize; 2],
        approach: f64,
        (t, mut full): (f64, CartesianState),
        accounts: &[f64; ACCUMULATORS],
    ) -> Result<(), RunError> {
        let params = self.sim.params;
        let settings = &self.sim.settings;
        let count = view.diabolos;
        let mut sorted = pair;
        sorted.sort_unstable();
        let bounces = match self.ledger.pair_bounces {
            Some((p, n)) if p == sorted => n,
            _ => 0,
        };
        let e = params.contact_restitution;
        let resting = e * approach < settings.zeno_speed || bounces >= settings.zeno_bounces;
        let body = |o: usize| match o {
            0 => ImpactBody::Left,
            o if o == count + 1 => ImpactBody::Right,
            k => ImpactBody::Diabolo(k),
        };
        let phase = self.modes.phase;
        let mut constraints = vec![Constraint::Pair {
            a: body(pair[0]),
            b: body(pair[1]),
            restitution: if resting { 0.0 } else { e },
        }];
        // Every other pair touching now takes part: plastic if resting, else bouncy.
        let others: Vec<[usize; 2]> = self
            .touching_pairs(&full)
            .into_iter()
            .filter(|p| *p != sorted)
            .collect();
        constraints.extend(others.iter().map(|p| Constraint::Pair {
            a: body(p[0]),
            b: body(p[1]),
            restitution: if self.roster.resting().contains(p) {
                0.0
            } else {
                e
            },
        }));
        // The inextensible string is a constraint of the impact; a compliant one only a force.
        let string_constraint = phase == Phase::Taut && params.string_stiffness.is_none();
        if string_constraint {
            constraints.push(Constraint::String {
                restitution: params.restitution,
            });
        }
        let heavy = self.sim.drives.each_ref().map(|d| d.prescribes_motion());
        let outcome =
            apply_impact(&params, &mut full, &view.slots, heavy, &constraints).map_err(|e| {
                RunError::Impact {
                    t,
                    what: format!(
                        "{} and {}",
                        object_name(pair[0], count),
                        object_name(pair[1], count)
                    ),
                    reason: e.to_string(),
                }
            })?;
        let mut accounts = *accounts;
        accounts[0] += outcome.hand_work;
        self.ledger.impulse_loss += outcome.energy_lost;
        self.ledger.contacts += 1;
        self.ledger.pair_bounces = Some((sorted, bounces + 1));
        let speed = self.tolerances.impact_speed * (1.0 + approach);
        self.release_separating(t, &others, &outcome.rates_after[1..], speed);
        // The pair rests where the string holds it: neighbours on a taut string.
        let held = resting && phase == Phase::Taut && self.roster.segment_between(pair).is_some();
        let (object, other) = contact_objects(pair, count);
        let mut event = Event::new(t, EventKind::Contact, Some(object));
        event.other = Some(other);
        event.impulse = Some(outcome.impulses[0]);
        event.energy_lost = Some(outcome.energy_lost);
        event.speed = Some(approach);
        event.resting = Some(held);
        self.log(event);
        let logged = self.ledger.events.len() - 1;
        // The flying diabolos go on from their new velocities.
        for &(k, _) in &view.flying {
            self.roster.kick(&params, k, t, full.diabolos[k - 1]);
        }
        if held {
            self.roster.rest(pair);
            self.ledger.pair_bounces = None;
        }
        let string = self.roster.string_state(&full);
        let kept = self.friction_modes();
        if string_constraint {
            let slack_rate = outcome.rates_after.last().copied().unwrap_or(0.0);
            if -slack_rate < -self.tolerances.impact_speed * (1.0 + approach) {
                // The impact pulled the string slack: a loosen, after the contact.
                self.log(Event::new(t, EventKind::Loosen, None));
                self.release_resting(t);
                self.rebuild();
                return self.enter_loose(string, &accounts, t);
            }
        }
        self.reenter(phase, string, &accounts, t, kept)?;
        if held && !self.pressed(pair) {
            // Nothing presses the pair together: it drifts with zero normal rate instead.
            self.roster.release(pair);
            self.ledger.events[logged].resting = Some(false);
            let y = self.modes.stepper().y()[..self.modes.dimension()].to_vec();
            self.rebuild_same_string(t, &y)?;
        }
        Ok(())
    }

    /// Ends the resting contact of each pair of `pairs` that is resting and that an impact left
    /// separating (its gap's rate in `rates`, same order, above `speed`, m/s), logging the
    /// separation. A resting contact holds its pair's distance with l'' = 0: held across a pair
    /// separating at l' > 0 its force would go on doing work lambda l' that no account holds
    /// (the ledger opened by 0.066 J after a flying diabolo struck one of a resting pair).
    fn release_separating(&mut self, t: f64, pairs: &[[usize; 2]], rates: &[f64], speed: f64) {
        for (&pair, &rate) in pairs.iter().zip(rates) {
            if rate > speed && self.roster.resting().contains(&pair) {
                self.roster.release(pair);
                self.log_separate(t, pair);
            }
        }
    }

    /// Whether the contact resting between `pair` is pressed (its force above 1e-9 N) in the
    /// taut state just entered.
    fn pressed(&self, pair: [usize; 2]) -> bool {
        if self.modes.phase != Phase::Taut {
            return false;
        }
        let segments = self.roster.resting_segments();
        let dynamics = &self.modes.taut.system.dynamics;
        self.roster
            .segment_between(pair)
            .and_then(|s| segments.iter().position(|&x| x == s))
            .and_then(|index| dynamics.contact_forces().get(index).copied())
            .is_some_and(|force| force > RESTING_FORCE)
    }
}

/// The most impacts one instant may cascade into after an event before the run goes on (a
/// longer cascade is left to the event location of the next step).
pub const MAX_CASCADE: usize = 16;

/// Two bodies whose gap (centre distance minus contact distance) is within this (m) touch: an
/// impact at that instant includes their contact.
pub const TOUCH_GAP: f64 = 1e-9;

/// A resting contact's force must exceed this (N) for the pair to stay resting after a plastic
/// impact; below it they just drift with zero normal rate.
pub const RESTING_FORCE: f64 = 1e-9;
