//! Contacts of the run in space measured on the diabolos' hulls (docs/space.md, "Contacts in
//! space"): the signed gap between two bodies (a stick tip, a diabolo on the string or off it)
//! and its motion for the event locator (the gap's rate and the relative velocity of the
//! nearest points, each moving with its body's centre and its axle's turn a x a'), and what a
//! contact does: the impact ([`crate::model::space::impact`]).

use nalgebra::Vector3;

use super::report::{SpaceEventKind, SpaceStop};
use super::resting::{diabolo_first, sorted};
use super::run::{failed, Run, Stop, ZENO_RATE};
use super::system::{Body, SpacePhase, SpaceSystem};
use super::SpaceHand;
use crate::model::contact::{Constraint, ImpactBody, ImpactOutcome};
use crate::model::space::{apply_space_impact, body_gap, solid_gap, AxleModel, Solid, SpaceState};
use crate::simulation::ode::events::GapMotion;
use crate::simulation::tolerances::{MAX_CASCADE, TOUCH_GAP, TOUCH_SPEED};
use crate::simulation::DiaboloMode;

/// A body as a contact sees it: its solid and the motion of its material points.
struct Shape {
    solid: Solid,
    /// The centre's (or the tip's) velocity, m/s.
    velocity: Vector3<f64>,
    /// The axle's angular velocity a x a' (zero for a tip), rad/s.
    turning: Vector3<f64>,
}

impl Shape {
    /// The velocity of the body's material point at `p`.
    fn velocity_at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        match &self.solid {
            Solid::Tip(_) => self.velocity,
            Solid::Hull(hull) => self.velocity + self.turning.cross(&(p - hull.centre)),
        }
    }
}

impl<H: SpaceHand> SpaceSystem<H> {
    /// The body as a contact sees it, from the loaded string state and the state vector `y`.
    fn shape(&self, y: &[f64], body: Body) -> Shape {
        let tip = |stick: &crate::model::space::SpaceBody| Shape {
            solid: Solid::Tip(stick.pos),
            velocity: stick.vel,
            turning: Vector3::zeros(),
        };
        match body {
            Body::Stick(0) => tip(&self.state.left),
            Body::Stick(_) => tip(&self.state.right),
            Body::Diabolo(k) => {
                let slot = self.roster.slot_numbers()[k - 1];
                let (d, rate) = if slot > 0 {
                    let d = self.state.diabolos[slot - 1];
                    (d, self.axle_rate(slot))
                } else {
                    let d = self.free_diabolo(y, k);
                    let rate = match self.params.model {
                        AxleModel::FastTop => Vector3::zeros(),
                        AxleModel::Rigid => d.axle_rate,
                    };
                    (d, rate)
                };
                Shape {
                    solid: Solid::Hull(self.params.hull(&d)),
                    velocity: d.vel,
                    turning: d.axle.cross(&rate),
                }
            }
        }
    }

    /// The signed gap between bodies `a` and `b` (their hulls; a stick tip is a point) and its
    /// motion: the gap's rate and the relative velocity of the nearest points.
    pub(super) fn contact_gap(&self, y: &[f64], a: Body, b: Body) -> (f64, GapMotion) {
        let (first, second) = (self.shape(y, a), self.shape(y, b));
        let gap = solid_gap(&first.solid, &second.solid);
        let relative = second.velocity_at(&gap.on_second) - first.velocity_at(&gap.on_first);
        (
            gap.gap,
            [
                gap.normal.dot(&relative),
                relative.x,
                relative.y,
                relative.z,
            ],
        )
    }
}

/// The most an impact may turn a fast top's axle at once, rad: its nutation about the new
/// direction is about as large, and the fast-top limit that averages it out no longer holds.
const FAST_TOP_IMPACT_TURN: f64 = 0.05;

/// A body as an impact names it.
fn impact_body(body: Body) -> ImpactBody {
    match body {
        Body::Stick(0) => ImpactBody::Left,
        Body::Stick(_) => ImpactBody::Right,
        Body::Diabolo(k) => ImpactBody::Diabolo(k),
    }
}

impl<H: SpaceHand + Clone> Run<H> {
    /// Writes every body of `full` back: the string's through the loaded state, the others
    /// straight into the state vector.
    fn put_full_state(&mut self, full: &SpaceState) {
        let slots = self.system.roster.slot_numbers().to_vec();
        self.system.state.left = full.left;
        self.system.state.right = full.right;
        for (k, d) in full.diabolos.iter().enumerate() {
            match slots[k] {
                0 => self.system.layout.pack_diabolo(d, k + 1, &mut self.y),
                slot => self.system.state.diabolos[slot - 1] = *d,
            }
        }
        self.system.write(&mut self.y);
    }

    /// The pairs of bodies touching (their gap within [`TOUCH_GAP`]) in `full`: a stick tip and
    /// a diabolo, or two diabolos; a dropped diabolo touches nothing.
    fn touching(&self, full: &SpaceState) -> Vec<[Body; 2]> {
        let modes = self.system.roster.modes();
        let live: Vec<Body> = (0..2)
            .map(Body::Stick)
            .chain(
                (1..=modes.len())
                    .filter(|&k| modes[k - 1] != DiaboloMode::Dropped)
                    .map(Body::Diabolo),
            )
            .collect();
        let mut pairs = Vec::new();
        for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                if matches!(b, Body::Stick(_)) {
                    continue;
                }
                let gap = body_gap(&self.system.params, full, impact_body(a), impact_body(b));
                if gap.gap.abs() <= TOUCH_GAP {
                    pairs.push([a, b]);
                }
            }
        }
        pairs
    }

    /// The pairs that take part in an impact at the state `full` besides `except`: every pair
    /// touching, and every resting pair (whose hulls may have drifted within RESTING_DRIFT).
    pub(super) fn pairs_taking_part(
        &self,
        full: &SpaceState,
        except: Option<[Body; 2]>,
    ) -> Vec<[Body; 2]> {
        let mut pairs: Vec<[Body; 2]> = self
            .touching(full)
            .into_iter()
            .map(sorted)
            .filter(|q| Some(*q) != except)
            .collect();
        for &q in &self.resting {
            if Some(q) != except && !pairs.contains(&q) {
                pairs.push(q);
            }
        }
        pairs
    }

    /// The impact's constraints of `pairs`: plastic where the pair rests, else with the contact
    /// restitution.
    pub(super) fn pair_constraints(&self, pairs: &[[Body; 2]]) -> Vec<Constraint> {
        let e = self.system.params.planar.values().contact_restitution;
        pairs
            .iter()
            .map(|&[c, d]| Constraint::Pair {
                a: impact_body(c),
                b: impact_body(d),
                restitution: if self.is_resting([c, d]) { 0.0 } else { e },
            })
            .collect()
    }

    /// Applies the impact of `constraints` to the state `full` at t (named by the bodies
    /// `names` if it has no solution): books its loss and the hands' work and writes every
    /// body back. A fast top's axle turned by more than FAST_TOP_IMPACT_TURN stops the run.
    pub(super) fn impact(
        &mut self,
        t: f64,
        mut full: SpaceState,
        constraints: &[Constraint],
        names: [Body; 2],
    ) -> Result<ImpactOutcome, Stop> {
        let params = self.system.params;
        let slots = self.system.roster.slots().to_vec();
        let axles: Vec<Vector3<f64>> = full.diabolos.iter().map(|d| d.axle).collect();
        let outcome =
            apply_space_impact(&params, &mut full, &slots, self.prescribed(), constraints)
                .map_err(|error| {
                    (
                        t,
                        SpaceStop::Impact {
                            a: names[0],
                            b: names[1],
                            reason: error.to_string(),
                        },
                    )
                })?;
        if params.model == AxleModel::FastTop {
            for (k, (d, before)) in full.diabolos.iter().zip(&axles).enumerate() {
                let turn = d.axle.cross(before).norm().atan2(d.axle.dot(before));
                if turn > FAST_TOP_IMPACT_TURN {
                    return Err((
                        t,
                        SpaceStop::FastTopImpact {
                            diabolo: k + 1,
                            degrees: turn.to_degrees(),
                        },
                    ));
                }
            }
        }
        self.impulse_loss += outcome.energy_lost;
        let accounts = self.system.layout.accounts();
        self.y[accounts] += outcome.hand_work;
        self.put_full_state(&full);
        Ok(outcome)
    }

    /// Bodies `a` and `b` touch at t: an impact if they approach (solved with every other pair
    /// touching and the taut inextensible string), after which the string's phase is entered
    /// anew; a touch without approach is no event, unless the pair is pressed into each other
    /// from a touching start: neighbours on the taut string then rest in contact
    /// ([`super::resting`]), any other pair stops the run (nothing holds it apart).
    pub(super) fn touch(&mut self, t: f64, a: Body, b: Body) -> Result<(), Stop> {
        if self.cascade >= MAX_CASCADE {
            return Err(failed(
                t,
                format!("more than {MAX_CASCADE} impacts cascade at one instant"),
            ));
        }
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        let (_, motion) = self.system.contact_gap(&self.y, a, b);
        let approach = -motion[0];
        let phase = self.system.phase;
        if approach < TOUCH_SPEED {
            // The locator fires a gap at its step's very start only where it closes further
            // than round-off from touching: the pair is pressed together.
            if t == self.stepper.t_old() {
                let held = phase == SpacePhase::Taut && self.segment_between([a, b]).is_some();
                if held && !self.is_resting([a, b]) {
                    return self.come_to_rest(t, [a, b]).map(|_| ());
                }
                return Err((t, SpaceStop::Resting(a, b)));
            }
            return self.enter(t, phase);
        }
        let params = self.system.params;
        let p = params.planar.values();
        let pair = sorted([a, b]);
        let bounces = match self.pair_bounces {
            Some((q, count)) if q == pair => count,
            _ => 0,
        };
        let e = p.contact_restitution;
        let resting =
            e * approach < self.settings.zeno_speed || bounces >= self.settings.zeno_bounces;
        let full = self.state();
        let mut constraints = vec![Constraint::Pair {
            a: impact_body(a),
            b: impact_body(b),
            restitution: if resting { 0.0 } else { e },
        }];
        let others = self.pairs_taking_part(&full, Some(pair));
        constraints.extend(self.pair_constraints(&others));
        // The inextensible string is a constraint of the impact; a compliant one only a force.
        let string = phase == SpacePhase::Taut && self.system.elastic.is_none();
        if string {
            constraints.push(Constraint::String {
                restitution: p.restitution,
            });
        }
        let outcome = self.impact(t, full, &constraints, [a, b])?;
        self.pair_bounces = Some((pair, bounces + 1));
        let parting = TOUCH_SPEED * (1.0 + approach);
        self.release_parting(t, &others, &outcome.rates_after[1..], parting);
        let slack_rate = outcome.rates_after.last().copied().unwrap_or(0.0);
        let slackened = string && slack_rate > parting;
        // The pair rests where the taut string holds it: neighbours on it.
        let held = resting
            && phase == SpacePhase::Taut
            && !slackened
            && self.segment_between(pair).is_some();
        let (body, other) = diabolo_first([a, b]);
        self.event(
            t,
            SpaceEventKind::Contact {
                body,
                other,
                impulse: outcome.impulses[0],
                speed: approach,
                energy_lost: outcome.energy_lost,
                resting: held,
            },
        );
        let logged = self.events.len() - 1;
        self.cascade += 1;
        let entered = if slackened {
            // The impact pulled the string slack: a loosen, after the contact.
            self.event(t, SpaceEventKind::Loosen);
            self.enter(t, SpacePhase::Loose)
        } else if held {
            self.pair_bounces = None;
            self.come_to_rest(t, pair).map(|rests| {
                if !rests {
                    // Nothing presses the pair: it drifts with zero normal rate instead.
                    if let SpaceEventKind::Contact { resting, .. } = &mut self.events[logged].kind {
                        *resting = false;
                    }
                }
            })
        } else {
            self.start_phase(t)
        };
        if entered.is_ok()
            && phase == SpacePhase::Taut
            && self.system.phase == SpacePhase::Loose
            && !slackened
        {
            self.event(t, SpaceEventKind::Loosen);
        }
        self.cascade -= 1;
        entered
    }

    /// The string reaches its length at t while bodies touch or rest: the tensing impulse is
    /// solved as one impact with their contacts (resting pairs plastic, the others with the
    /// contact restitution; the string with `restitution`), as in the plane, so that a resting
    /// pair moves on together instead of being pulled through itself. Each contact the tensing
    /// pressed is logged after it; a pair it parts separates.
    pub(super) fn joint_tense(
        &mut self,
        t: f64,
        restitution: f64,
        full: SpaceState,
        pairs: &[[Body; 2]],
    ) -> Result<(), Stop> {
        let mut constraints = vec![Constraint::String { restitution }];
        constraints.extend(self.pair_constraints(pairs));
        let outcome = self.impact(t, full, &constraints, pairs[0])?;
        self.event(
            t,
            SpaceEventKind::Tense {
                impulse: outcome.impulses[0],
                energy_lost: outcome.energy_lost,
            },
        );
        for (k, &pair) in pairs.iter().enumerate() {
            let impulse = outcome.impulses[k + 1];
            if impulse > 0.0 {
                let (body, other) = diabolo_first(pair);
                let resting = self.is_resting(pair);
                self.event(
                    t,
                    SpaceEventKind::Contact {
                        body,
                        other,
                        impulse,
                        speed: (-outcome.rates_before[k + 1]).max(0.0),
                        energy_lost: 0.0,
                        resting,
                    },
                );
            }
        }
        let parting = TOUCH_SPEED * (1.0 + outcome.rates_before[0].abs());
        self.release_parting(t, pairs, &outcome.rates_after[1..], parting);
        // The string's constraint: its slack's rate after (positive: it rebounds slack).
        if outcome.rates_after[0] > ZENO_RATE {
            self.bounces += 1;
            return self.enter(t, SpacePhase::Loose);
        }
        self.bounces = 0;
        self.start_phase(t)
    }
}
