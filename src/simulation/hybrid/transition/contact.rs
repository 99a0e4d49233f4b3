//! The contact family: impacts between diabolos and stick tips, resting contacts and their
//! separation, and the collisions that end a run.

use super::*;

impl Hybrid<'_> {
    /// Two bodies touch at (t, y): an impact if they approach.
    pub(super) fn touch(&mut self, a: Object, b: Object, at: At) -> Result<Outcome, RunError> {
        let (t, y, accounts) = (at.t, at.y, at.accounts);
        let view = &self.flight_view();
        let (string, full) = self.states_at(t, y)?;
        let body = |x: Object| -> (Vector2<f64>, Vector2<f64>) {
            match x {
                Object::OnString(o) => (string.position(o), string.velocity(o)),
                Object::Flying(j) => {
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
        let pressed = t == self.phases.stepper().t_old();
        // Neighbours on a taut string pressed together come to rest (settle_contacts, after
        // the event); a touch within round-off is no impact (two diabolos drifting together
        // in free fall).
        let held = self.phases.phase == Phase::Taut && self.roster.segment_between(pair).is_some();
        if approach < TOUCH_SPEED && (!pressed || held) {
            return Ok(Outcome::Stays);
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
        Ok(Outcome::Entered)
    }

    /// The contact resting across `segment` would pull at (t, y): the pair separates, the
    /// string's phase goes on from the same state without it.
    pub(super) fn separate(&mut self, at: At, segment: usize) -> Result<Outcome, RunError> {
        let (t, y) = (at.t, at.y);
        let pair = [
            self.roster.object_of(segment),
            self.roster.object_of(segment + 1),
        ];
        self.roster.release(pair);
        self.log_separate(t, pair);
        self.rebuild_same_string(t, y)?;
        Ok(Outcome::Entered)
    }

    /// After an event: bodies left touching (their contact distance apart) must not pass into
    /// each other unseen, since a guard that restarts at zero is resolved by its sign just after
    /// without firing. A touching pair approaching faster than [`TOUCH_SPEED`] takes its impact
    /// now; touching neighbours on a taut string that the string presses together come to rest
    /// in contact. Repeated while impacts cascade, at most [`MAX_CASCADE`] times.
    pub(crate) fn settle_contacts(&mut self) -> Result<(), RunError> {
        for _ in 0..MAX_CASCADE {
            let t = self.t;
            let d = self.phases.dimension();
            let y = self.phases.stepper().y()[..d].to_vec();
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
                let accounts = self.phases.accounts(&y);
                self.contact_impact(&view, pair, approach, (t, full), &accounts)?;
                continue;
            }
            // Touching at rest relative to each other: neighbours the taut string presses
            // together rest in contact; the others drift.
            if self.phases.phase == Phase::Taut {
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
    pub(super) fn log_separate(&mut self, t: f64, pair: [usize; 2]) {
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
        if self.roster.resting().is_empty()
            && !self.phases.taut.system.dynamics.resting().is_empty()
        {
            self.rebuild();
        }
    }

    /// The impact of `pair` (the run's numbering: 0 the left stick, 1..N a diabolo, N + 1 the
    /// right stick) approaching at `approach` (m/s), solved together with the taut string and
    /// the contacts resting now; every object's velocity and spin after it restart the run.
    /// The pair comes to rest in contact (a plastic impact) when its rebound would be slower
    /// than `sim.zeno_speed`, after `sim.zeno_bounces` impacts of the pair in a row, or with a
    /// contact restitution of 0; it stays resting where the string holds it pressed.
    pub(super) fn contact_impact(
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
        let phase = self.phases.phase;
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
            let y = self.phases.stepper().y()[..self.phases.dimension()].to_vec();
            self.rebuild_same_string(t, &y)?;
        }
        Ok(())
    }

    /// Ends the resting contact of each pair of `pairs` that is resting and that an impact left
    /// separating (its gap's rate in `rates`, same order, above `speed`, m/s), logging the
    /// separation. A resting contact holds its pair's distance with l'' = 0: held across a pair
    /// separating at l' > 0 its force would go on doing work lambda l' that no account holds
    /// (the ledger opened by 0.066 J after a flying diabolo struck one of a resting pair).
    pub(super) fn release_separating(
        &mut self,
        t: f64,
        pairs: &[[usize; 2]],
        rates: &[f64],
        speed: f64,
    ) {
        for (&pair, &rate) in pairs.iter().zip(rates) {
            if rate > speed && self.roster.resting().contains(&pair) {
                self.roster.release(pair);
                self.log_separate(t, pair);
            }
        }
    }

    /// Whether the contact resting between `pair` is pressed (its force above 1e-9 N) in the
    /// taut state just entered.
    pub(super) fn pressed(&self, pair: [usize; 2]) -> bool {
        if self.phases.phase != Phase::Taut {
            return false;
        }
        let segments = self.roster.resting_segments();
        let dynamics = &self.phases.taut.system.dynamics;
        self.roster
            .segment_between(pair)
            .and_then(|s| segments.iter().position(|&x| x == s))
            .and_then(|index| dynamics.contact_forces().get(index).copied())
            .is_some_and(|force| force > RESTING_FORCE)
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

    /// Both hands imposing their acceleration pull the taut string straight at t (the state y
    /// there): the sticks' distance and the fastest diabolo on the string.
    pub(crate) fn pulled_straight(&mut self, t: f64, y: &[f64]) -> RunError {
        let state = self.phases.state(t, y);
        let speeds = state.diabolos.iter().enumerate();
        let fastest = fastest(speeds.map(|(i, d)| (self.roster.diabolo_in(i + 1), d.vel.norm())));
        RunError::PulledStraight {
            t,
            span: (state.right.pos - state.left.pos).norm(),
            length: self.sim.params.string_length,
            fastest,
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
