//! The phases of the run in space as ODE systems: one state vector for both (its layout in
//! `layout`), the taut string's equations or the slack string's, and their guards.

use nalgebra::Vector3;

pub(super) use super::layout::Layout;
use super::layout::{put, STICK};
use super::roster::SpaceRoster;
use super::SpaceHand;
use crate::model::friction::{filippov_mode, AxleMode, SlipDirection};
use crate::model::grip::LengthLaw;
use crate::model::space::{
    chord_crossing, fast_top_rate, lowest_rim_point, offset_torque, rigid_axle_acceleration,
    spin_rate_about_axle, string_torque, AxleModel, CollapsedSegment, SingularTension,
    SpaceDiabolo, SpaceParams, SpaceState, SpaceString, SpaceTension,
};
use crate::model::{ElasticString, StickInput};
use crate::simulation::ode::events::{EventSystem, GapMotion};
use crate::simulation::ode::integrate::OdeSystem;
use crate::simulation::tolerances::{PULLED_STRAIGHT, RESTING_DRIFT};
use crate::simulation::DiaboloMode;

/// The slack string reaches its length when its slack falls below minus this fraction of L:
/// the slack's own round-off at a rebound is not an arrival (as in the plane).
pub const SLACK_ROUNDOFF: f64 = 1e-14;

/// The fast-top limit is left when the axle's precession |a'| exceeds this fraction of the
/// nutation frequency I_p |Omega| / I_t.
pub const FAST_TOP_RATIO: f64 = 0.1;

/// What can go wrong evaluating the model in space.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SpaceModelError {
    /// Two neighbours on the string coincide.
    #[error(transparent)]
    Collapsed(#[from] CollapsedSegment),
    /// The tension equations are singular.
    #[error(transparent)]
    Singular(#[from] SingularTension),
}

/// Which equations a phase integrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpacePhase {
    /// The string is taut: the tensions hold sum l = L (a compliant string: it is stretched
    /// and pulls, its mean tension from its law).
    Taut,
    /// The string is slack: no tension, every object free.
    Loose,
}

impl SpacePhase {
    /// The name in the trajectory's `phase` column.
    pub fn name(self) -> &'static str {
        match self {
            Self::Taut => "taut",
            Self::Loose => "loose",
        }
    }
}

/// A guard of the run in space: what its zero means, with its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceGuard {
    /// T_0 falls to zero: the string goes slack (a compliant string: its pull margin).
    Loosen,
    /// sum_k sin^2 (delta_k / 2) - [`PULLED_STRAIGHT`], delta_k the angle the string turns
    /// through at the diabolo in slot k: both hands impose their acceleration and pull the
    /// inextensible string straight (armed only then), and the run stops.
    Straighten,
    /// The slack L - sum l falls through -SLACK_ROUNDOFF L: the slack string snaps taut (a
    /// compliant string's gap L / EA times minus its pull margin falls through zero: it starts
    /// pulling).
    Tense,
    /// The slip speed of a slipping axle reaches zero (step and bearing laws).
    SlipZero(usize),
    /// A gripping axle's need reaches its capstan bound.
    GripLimit(usize),
    /// sin of the string's turn about the axle in slot k (1..n), either way: zero where the
    /// string runs straight past the axle (a diabolo without a knot leaves the string when its
    /// turn falls through zero) or folds back through it (the turn passes +-pi: a wrap begins
    /// or ends, a knot change).
    Fold(usize),
    /// A strand reaches the cup angle: the string climbs a cup.
    Cup(usize),
    /// Flying diabolo K's centre crosses the plane through the chord of `segment` (0..=n)
    /// spanned by the chord and the axle, downward: the string may pass between its cups (a
    /// landing, when the crossing lies between the chord's ends and within the axle's
    /// half-length).
    Land {
        /// K.
        diabolo: usize,
        /// The segment (0 starts at the left stick).
        segment: usize,
    },
    /// Flying diabolo K's lowest rim point reaches the floor.
    Floor(usize),
    /// Objects j and j + 1 on the string touch (their hulls, `model::space::hull`; a stick tip
    /// a point): an impact if they approach.
    Touch(usize),
    /// Flying diabolo K touches another body (hull against hull, or a stick tip): an impact if
    /// they approach.
    Meet {
        /// K.
        diabolo: usize,
        /// The other body.
        other: Body,
    },
    /// The fast-top limit no longer holds: the precession is no longer slow against the
    /// nutation.
    SlowSpin(usize),
    /// lambda, N: the force of the contact resting across segment s (0..=n) falls through
    /// zero: the pair separates.
    Separate(usize),
    /// RESTING_DRIFT - |g|, m: the hull gap g of the pair resting across segment s, held at its
    /// centres' distance, leaves the band where the pair touches (the axles turned): opening,
    /// the pair separates; closing, the hulls would pass into each other.
    Seat(usize),
}

/// A body of the run: a stick tip or a diabolo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// A stick tip (0 left, 1 right).
    Stick(usize),
    /// Diabolo K (on the string or flying; a dropped one touches nothing).
    Diabolo(usize),
}

impl std::fmt::Display for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Stick(0) => write!(f, "the left stick tip"),
            Self::Stick(_) => write!(f, "the right stick tip"),
            Self::Diabolo(k) => write!(f, "diabolo {k}"),
        }
    }
}

/// One phase's ODE system with its guards; its buffers are allocated at construction and
/// resized only when a diabolo leaves or lands.
#[derive(Clone)]
pub struct SpaceSystem<H: SpaceHand> {
    pub(super) params: SpaceParams,
    /// The compliant string's law (None: inextensible).
    pub(super) elastic: Option<ElasticString>,
    pub(super) hands: [H; 2],
    pub(super) layout: Layout,
    pub(super) phase: SpacePhase,
    /// The friction mode of the axle in each slot.
    pub(super) modes: Vec<AxleMode>,
    pub(super) guards: Vec<SpaceGuard>,
    /// The string's objects: the sticks and the diabolos in slot order.
    pub(super) state: SpaceState,
    pub(super) roster: SpaceRoster,
    /// The floor's height, m.
    pub(super) floor: Option<f64>,
    pub(super) string: SpaceString,
    pub(super) tension: SpaceTension,
    pub(super) inputs: [StickInput<3>; 2],
    pub(super) torques: Vec<Vector3<f64>>,
    /// The gradient of sum l by object (a buffer of the projection onto the string).
    pub(super) gradients: Vec<Vector3<f64>>,
    pub(super) switching: bool,
    /// Each guard's gap motion at the last evaluation (zero for the guards that are not gaps).
    pub(super) gap_motion: Vec<GapMotion>,
    /// A breakpoint the current step lands on: there the hands are read as their limit from
    /// before (the step's own piece), not from the piece that starts there.
    pub(super) landing_on: Option<f64>,
}

impl<H: SpaceHand> SpaceSystem<H> {
    /// The system of a run from `start` (every diabolo, in index order) with the diabolos'
    /// modes `modes`.
    pub(super) fn new(
        params: SpaceParams,
        hands: [H; 2],
        start: &SpaceState,
        modes: &[DiaboloMode],
        floor: Option<f64>,
    ) -> Self {
        let starts: Vec<(f64, f64)> = start.diabolos.iter().map(|d| (d.pos.y, d.vel.y)).collect();
        let roster = SpaceRoster::new(modes, &starts, params.planar.values().gravity);
        let state = SpaceState {
            left: start.left,
            right: start.right,
            diabolos: roster
                .slots()
                .iter()
                .map(|&k| start.diabolos[k - 1])
                .collect(),
        };
        let switching = params.planar.has_switching_friction();
        let elastic = params.planar.elastic();
        let mut system = Self {
            params,
            elastic,
            hands,
            layout: Layout::new(modes.len(), elastic.is_some()),
            phase: SpacePhase::Taut,
            modes: Vec::new(),
            guards: Vec::with_capacity(Self::most_guards(modes.len())),
            state,
            roster,
            floor,
            string: SpaceString::new(0),
            tension: SpaceTension::new(0),
            inputs: [StickInput::RELEASED; 2],
            torques: Vec::new(),
            gradients: Vec::new(),
            switching,
            gap_motion: vec![[0.0; 4]; Self::most_guards(modes.len())],
            landing_on: None,
        };
        system.resize_string();
        system
    }

    /// The most guards a run of N diabolos arms at once.
    pub(super) fn most_guards(n: usize) -> usize {
        4 + 7 * n + 2 * n * (n + 1)
    }

    /// Sizes the string's buffers for the diabolos now on it (their axles' modes kept by
    /// slot where a slot's diabolo stayed; the caller decides the others).
    pub(super) fn resize_string(&mut self) {
        let n = self.roster.on_string();
        self.string = SpaceString::new(n);
        self.tension = SpaceTension::new(n);
        self.modes
            .resize(n, AxleMode::Slipping(SlipDirection::Positive));
        self.torques = vec![Vector3::zeros(); n];
        self.gradients = vec![Vector3::zeros(); n + 2];
    }

    /// Reads the sticks and the string's diabolos from the state vector.
    pub(super) fn read(&mut self, y: &[f64]) {
        self.layout.unpack(y, self.roster.slots(), &mut self.state);
    }

    /// Writes the sticks and the string's diabolos into the state vector.
    pub(super) fn write(&self, y: &mut [f64]) {
        self.layout.pack(&self.state, self.roster.slots(), y);
    }

    /// The body that is object j of the string (0 the left stick, n + 1 the right).
    pub(super) fn string_body(&self, j: usize) -> Body {
        match j {
            0 => Body::Stick(0),
            j if j == self.on_string() + 1 => Body::Stick(1),
            j => Body::Diabolo(self.roster.diabolo_in(j)),
        }
    }

    /// n: the diabolos on the string.
    pub(super) fn on_string(&self) -> usize {
        self.state.diabolos.len()
    }

    /// Enters `phase` with the axles in `modes` and arms its guards.
    pub(super) fn enter(&mut self, phase: SpacePhase) {
        self.phase = phase;
        self.guards.clear();
        let n = self.on_string();
        let fast_top = self.params.model == AxleModel::FastTop;
        match phase {
            SpacePhase::Taut => {
                self.guards.push(SpaceGuard::Loosen);
                let imposed = self.hands.iter().all(|h| h.imposes_acceleration());
                if imposed && self.elastic.is_none() {
                    self.guards.push(SpaceGuard::Straighten);
                }
                for k in 1..=n {
                    if self.switching {
                        self.guards.push(match self.modes[k - 1] {
                            AxleMode::Stuck => SpaceGuard::GripLimit(k),
                            AxleMode::Slipping(_) => SpaceGuard::SlipZero(k),
                        });
                    }
                    self.guards.push(SpaceGuard::Fold(k));
                    self.guards.push(SpaceGuard::Cup(k));
                }
            }
            SpacePhase::Loose => {
                self.guards.push(SpaceGuard::Tense);
                self.guards.extend((1..=n).map(SpaceGuard::Fold));
            }
        }
        if fast_top {
            self.guards.extend((1..=n).map(SpaceGuard::SlowSpin));
        }
        // A resting pair's gap is held: its force and its hulls' band are watched instead.
        let resting = self.tension.resting();
        if phase == SpacePhase::Taut {
            for &s in resting {
                self.guards.push(SpaceGuard::Separate(s));
                self.guards.push(SpaceGuard::Seat(s));
            }
        }
        let touching = (0..=n).filter(|s| phase == SpacePhase::Loose || !resting.contains(s));
        self.guards.extend(touching.map(SpaceGuard::Touch));
        let modes = self.roster.modes();
        for k in 1..=modes.len() {
            if modes[k - 1] != DiaboloMode::Flying {
                continue;
            }
            self.guards.extend((0..=n).map(|segment| SpaceGuard::Land {
                diabolo: k,
                segment,
            }));
            if self.floor.is_some() {
                self.guards.push(SpaceGuard::Floor(k));
            }
            let others = (0..2).map(Body::Stick).chain(
                (1..=modes.len())
                    .filter(|&j| match modes[j - 1] {
                        DiaboloMode::String => true,
                        DiaboloMode::Flying => j > k,
                        DiaboloMode::Dropped => false,
                    })
                    .map(Body::Diabolo),
            );
            self.guards
                .extend(others.map(|other| SpaceGuard::Meet { diabolo: k, other }));
        }
    }

    /// Loads `y` at time t: the string's state, the string, the hands' inputs and (taut) the
    /// tensions and torques.
    pub(super) fn load(&mut self, t: f64, y: &[f64]) -> Result<(), SpaceModelError> {
        self.read(y);
        self.string.update(&self.state)?;
        let before = self.landing_on == Some(t);
        let read = |hand: &H, stick| match before {
            true => hand.input_before(t, stick),
            false => hand.input(t, stick),
        };
        self.inputs = [
            read(&self.hands[0], &self.state.left),
            read(&self.hands[1], &self.state.right),
        ];
        if self.phase == SpacePhase::Taut {
            let law = self.length_law();
            self.tension.solve(
                &self.params,
                &self.state,
                &self.string,
                &self.inputs,
                Some(&self.modes),
                law,
            )?;
            let segments = self.string.segments();
            let tensions = self.tension.tensions();
            for k in 1..=self.state.diabolos.len() {
                let axle = &self.state.diabolos[k - 1].axle;
                let pull = tensions[k] * segments[k].direction
                    - tensions[k - 1] * segments[k - 1].direction;
                self.torques[k - 1] = string_torque(
                    axle,
                    &segments[k - 1].direction,
                    &segments[k].direction,
                    (tensions[k - 1], tensions[k]),
                    self.params.axle_radius,
                ) + offset_torque(axle, &pull, self.params.string_offset);
            }
        } else {
            self.torques.iter_mut().for_each(|t| *t = Vector3::zeros());
        }
        Ok(())
    }

    /// What holds the string's length at the loaded string: the constraint, or the compliant
    /// string's mean tension from its stretch.
    pub(super) fn length_law(&self) -> LengthLaw {
        match &self.elastic {
            None => LengthLaw::Inextensible,
            Some(string) => {
                let (stretch, rate) = self.stretch();
                LengthLaw::MeanTension(string.mean_tension(stretch, rate))
            }
        }
    }

    /// (delta, delta') = (sum l - L, L') of the loaded string, m and m/s.
    pub(super) fn stretch(&self) -> (f64, f64) {
        let length = self.params.planar.values().string_length;
        (
            self.string.total_length() - length,
            self.string.total_length_rate(),
        )
    }

    /// The compliant string's pull margin min(EA delta, EA delta + eta delta') / L at the loaded
    /// string, N (positive while it pulls); None for an inextensible string.
    pub(super) fn pull_margin(&self) -> Option<f64> {
        self.elastic.map(|string| {
            let (stretch, rate) = self.stretch();
            string.pull_margin(stretch, rate)
        })
    }

    /// A compliant string's gap from pulling, L / EA times minus its pull margin (m; the slack
    /// where the damper does not push) at the loaded string; None for an inextensible string.
    pub(super) fn compliant_gap(&self) -> Option<f64> {
        self.elastic.map(|string| {
            let (stretch, rate) = self.stretch();
            -string.pull_margin(stretch, rate) * string.length / string.stiffness
        })
    }

    /// V: the elastic energy of the string with its segments summing to `used` (m), J (0 for
    /// an inextensible string).
    pub(super) fn stored_energy_at(&self, used: f64) -> f64 {
        self.elastic
            .map_or(0.0, |string| string.energy(used - string.length))
    }

    /// V of the loaded string, J.
    pub(super) fn stored_energy(&self) -> f64 {
        self.stored_energy_at(self.string.total_length())
    }

    /// V of the string through the string's diabolos of `start` (every diabolo in index
    /// order, the roster's slots picking the string's), J.
    pub(super) fn stored_energy_of(&self, start: &SpaceState) -> f64 {
        let mut used = 0.0;
        let mut at = start.left.pos;
        for &k in self.roster.slots() {
            let p = start.diabolos[k - 1].pos;
            used += (p - at).norm();
            at = p;
        }
        used += (start.right.pos - at).norm();
        self.stored_energy_at(used)
    }

    /// The compliant string's damping loss rate while it pulls, W (0 for an inextensible
    /// one, and while slack: a slack string's stretch relaxes, its loss the stored energy it
    /// gives up, which the run books in closed form because V(max(delta, 0)) has a kink at
    /// delta = 0 that no step should integrate across).
    fn string_loss_rate(&self) -> f64 {
        match (self.elastic, self.phase) {
            (Some(string), SpacePhase::Taut) => {
                let (stretch, rate) = self.stretch();
                string.loss_rate(stretch, rate, string.mean_tension(stretch, rate))
            }
            _ => 0.0,
        }
    }

    /// a' of diabolo K from the loaded state: the fast top's rate, or the rigid body's state.
    pub(super) fn axle_rate(&self, k: usize) -> Vector3<f64> {
        let d = &self.state.diabolos[k - 1];
        match self.params.model {
            AxleModel::FastTop => fast_top_rate(
                &self.torques[k - 1],
                self.params.polar_inertia,
                spin_rate_about_axle(d.spin, self.params.axle_radius),
            ),
            AxleModel::Rigid => d.axle_rate,
        }
    }

    /// FAST_TOP_RATIO (I_p Omega)^2 - I_t |tau_perp| (N m kg m^2): positive while the fast top's
    /// precession |a'| = |tau_perp| / (I_p |Omega|) is below FAST_TOP_RATIO times the nutation
    /// frequency I_p |Omega| / I_t. Without a torque the fast top is exact (a' = 0): the margin
    /// stays positive.
    pub(super) fn fast_top_margin(&self, k: usize) -> f64 {
        let d = &self.state.diabolos[k - 1];
        let momentum =
            self.params.polar_inertia * spin_rate_about_axle(d.spin, self.params.axle_radius);
        let torque = self.torques[k - 1].norm();
        if torque == 0.0 {
            return f64::MIN_POSITIVE.max(FAST_TOP_RATIO * momentum * momentum);
        }
        FAST_TOP_RATIO * momentum * momentum - self.params.transverse_inertia * torque
    }

    /// The acceleration of a stick (side 0 left, 1 right) of the loose phase and its hand's
    /// force (N).
    fn free_stick(&self, side: usize) -> (Vector3<f64>, Vector3<f64>) {
        let p = self.params.planar.values();
        let gravity = Vector3::new(0.0, -p.gravity, 0.0);
        match self.inputs[side] {
            StickInput::Force(f) => (f / p.stick_mass + gravity, f),
            StickInput::Accel(a) => (a, p.stick_mass * (a - gravity)),
        }
    }

    /// The Filippov rule at axle K (its slip at zero) on the loaded state.
    pub(super) fn decide_mode(&mut self, k: usize) -> Result<AxleMode, SpaceModelError> {
        let (positive, negative) = self.slip_trends(k)?;
        Ok(filippov_mode(positive, negative))
    }

    /// Axle K's slip acceleration w'' (m/s^2) if it slipped the positive way and if it slipped
    /// the negative way, the other axles in their modes, on the loaded state (axle K's own mode
    /// is left as it was).
    pub(super) fn slip_trends(&mut self, k: usize) -> Result<(f64, f64), SpaceModelError> {
        let kept = self.modes[k - 1];
        let mut trend = |direction| -> Result<f64, SpaceModelError> {
            self.modes[k - 1] = AxleMode::Slipping(direction);
            let law = self.length_law();
            self.tension.solve(
                &self.params,
                &self.state,
                &self.string,
                &self.inputs,
                Some(&self.modes),
                law,
            )?;
            Ok(self.tension.slip_acceleration(k, &self.string))
        };
        let trends = (
            trend(SlipDirection::Positive),
            trend(SlipDirection::Negative),
        );
        self.modes[k - 1] = kept;
        Ok((trends.0?, trends.1?))
    }
}

impl<H: SpaceHand> OdeSystem for SpaceSystem<H> {
    type Error = SpaceModelError;

    fn dimension(&self) -> usize {
        self.layout.dimension()
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error> {
        self.load(t, y)?;
        let p = self.params.planar.values();
        let n = self.on_string();
        let mut hand_power = 0.0;
        for (side, j) in [(0usize, 0usize), (1, n + 1)] {
            let body = if side == 0 {
                &self.state.left
            } else {
                &self.state.right
            };
            let (accel, force) = match self.phase {
                SpacePhase::Taut => (
                    self.tension.acceleration(j),
                    self.tension.hand_forces()[side],
                ),
                SpacePhase::Loose => self.free_stick(side),
            };
            put(dydt, side * STICK, &body.vel);
            put(dydt, side * STICK + 3, &accel);
            hand_power += force.dot(&body.vel);
        }
        let spin_mass = p.diabolo_mass * p.spin_inertia;
        let mut drag = 0.0;
        let mut axle_power = 0.0;
        for slot in 1..=n {
            let d = self.state.diabolos[slot - 1];
            let at = self.layout.diabolo(self.roster.diabolo_in(slot));
            let (accel, spin_rate) = match self.phase {
                SpacePhase::Taut => (
                    self.tension.acceleration(slot),
                    self.tension.spin_rate(slot),
                ),
                SpacePhase::Loose => (self.gravity(), -p.spin_drag * d.spin),
            };
            put(dydt, at, &d.vel);
            put(dydt, at + 3, &accel);
            dydt[at + 6] = spin_rate;
            drag += spin_mass * p.spin_drag * d.spin * d.spin;
            let torque = self.torques[slot - 1];
            axle_power += self.axle_derivative(&d, &torque, slot, &mut dydt[at + 7..at + 13]);
        }
        for k in 1..=self.roster.diabolos() {
            let mode = self.roster.modes()[k - 1];
            if mode == DiaboloMode::String {
                continue;
            }
            let mut d = SpaceDiabolo::default();
            self.layout.unpack_diabolo(y, k, &mut d);
            let at = self.layout.diabolo(k);
            let flying = mode == DiaboloMode::Flying;
            put(dydt, at, &d.vel);
            put(
                dydt,
                at + 3,
                &if flying {
                    self.gravity()
                } else {
                    Vector3::zeros()
                },
            );
            dydt[at + 6] = -p.spin_drag * d.spin;
            drag += spin_mass * p.spin_drag * d.spin * d.spin;
            if flying {
                self.axle_derivative(&d, &Vector3::zeros(), 0, &mut dydt[at + 7..at + 13]);
            } else {
                dydt[at + 7..at + 13].iter_mut().for_each(|v| *v = 0.0);
            }
        }
        let accounts = self.layout.accounts();
        dydt[accounts] = hand_power;
        dydt[accounts + 1] = match self.phase {
            SpacePhase::Taut => self.tension.friction_dissipation(),
            SpacePhase::Loose => 0.0,
        };
        dydt[accounts + 2] = drag;
        dydt[accounts + 3] = axle_power;
        if let Some(at) = self.layout.string_loss() {
            dydt[at] = self.string_loss_rate();
        }
        Ok(())
    }
}

impl<H: SpaceHand> SpaceSystem<H> {
    fn gravity(&self) -> Vector3<f64> {
        Vector3::new(0.0, -self.params.planar.values().gravity, 0.0)
    }

    /// Writes (a', a'') of diabolo `d` under the string's torque `torque` into `out` (the fast
    /// top's a' of the string's diabolo in `slot`, zero without a torque off the string) and
    /// returns the torque's power on a rigid axle's transverse rotation, W.
    fn axle_derivative(
        &self,
        d: &SpaceDiabolo,
        torque: &Vector3<f64>,
        slot: usize,
        out: &mut [f64],
    ) -> f64 {
        match self.params.model {
            AxleModel::FastTop => {
                let rate = if slot > 0 {
                    self.axle_rate(slot)
                } else {
                    Vector3::zeros()
                };
                put(out, 0, &rate);
                put(out, 3, &Vector3::zeros());
                0.0
            }
            AxleModel::Rigid => {
                let omega = spin_rate_about_axle(d.spin, self.params.axle_radius);
                put(out, 0, &d.axle_rate);
                put(
                    out,
                    3,
                    &rigid_axle_acceleration(
                        &d.axle,
                        &d.axle_rate,
                        torque,
                        self.params.polar_inertia,
                        self.params.transverse_inertia,
                        omega,
                    ),
                );
                torque.dot(&d.axle.cross(&d.axle_rate))
            }
        }
    }
}

impl<H: SpaceHand> EventSystem for SpaceSystem<H> {
    fn events(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error> {
        self.load(t, y)?;
        let law = self.params.planar.values().friction_law;
        let c = self.params.planar.values().friction;
        let sin_cup = self.params.cup_angle.sin();
        let radius = self.params.planar.values().diabolo_radius;
        let mut gap_motion = std::mem::take(&mut self.gap_motion);
        for ((slot, guard), motion) in out.iter_mut().zip(&self.guards).zip(gap_motion.iter_mut()) {
            *motion = [0.0; 4];
            *slot = match *guard {
                SpaceGuard::Loosen => self
                    .pull_margin()
                    .unwrap_or_else(|| self.tension.tensions()[0]),
                SpaceGuard::Tense => {
                    let length = self.params.planar.values().string_length;
                    self.compliant_gap().unwrap_or_else(|| {
                        length - self.string.total_length() + SLACK_ROUNDOFF * length
                    })
                }
                SpaceGuard::Straighten => {
                    let s = self.string.segments();
                    let bend: f64 = (1..s.len())
                        .map(|k| 0.5 * (1.0 - s[k - 1].direction.dot(&s[k].direction)))
                        .sum();
                    bend - PULLED_STRAIGHT
                }
                SpaceGuard::SlipZero(k) => self.tension.contact(k).slip_speed,
                SpaceGuard::GripLimit(k) => self.tension.grip_margin(k, law, c),
                SpaceGuard::Fold(k) => {
                    let (sin, cos) = self
                        .string
                        .turn_sine_cosine(k, &self.state.diabolos[k - 1].axle);
                    sin / sin.hypot(cos).max(f64::MIN_POSITIVE)
                }
                SpaceGuard::Cup(k) => {
                    let a = self.state.diabolos[k - 1].axle;
                    let s = self.string.segments();
                    sin_cup
                        - s[k - 1]
                            .direction
                            .dot(&a)
                            .abs()
                            .max(s[k].direction.dot(&a).abs())
                }
                SpaceGuard::SlowSpin(k) => self.fast_top_margin(k),
                SpaceGuard::Touch(j) => {
                    let (gap, rate) =
                        self.contact_gap(y, self.string_body(j), self.string_body(j + 1));
                    *motion = rate;
                    gap
                }
                SpaceGuard::Land { diabolo, segment } => {
                    let d = free_diabolo(self.layout, y, diabolo);
                    chord_crossing(
                        &self.state.position(segment),
                        &self.state.position(segment + 1),
                        &d.pos,
                        &d.axle,
                    )
                    .height
                    .unwrap_or(1.0)
                }
                SpaceGuard::Floor(k) => {
                    let d = free_diabolo(self.layout, y, k);
                    let floor = self.floor.unwrap_or(f64::NEG_INFINITY);
                    *motion = [d.vel.y, 0.0, d.vel.y, 0.0];
                    lowest_rim_point(&d.pos, &d.axle, radius, self.params.half_length) - floor
                }
                SpaceGuard::Meet { diabolo, other } => {
                    let (gap, rate) = self.contact_gap(y, Body::Diabolo(diabolo), other);
                    *motion = rate;
                    gap
                }
                SpaceGuard::Separate(s) => self.tension.contact_force_across(s),
                SpaceGuard::Seat(s) => {
                    let (a, b) = (self.string_body(s), self.string_body(s + 1));
                    RESTING_DRIFT - self.contact_gap(y, a, b).0.abs()
                }
            };
        }
        self.gap_motion = gap_motion;
        Ok(())
    }

    fn gap_velocities(&self, out: &mut [GapMotion]) {
        out.copy_from_slice(&self.gap_motion[..out.len()]);
    }
}

/// Diabolo K as the state vector `y` has it (knot 0).
fn free_diabolo(layout: Layout, y: &[f64], k: usize) -> SpaceDiabolo {
    let mut d = SpaceDiabolo::default();
    layout.unpack_diabolo(y, k, &mut d);
    d
}

impl<H: SpaceHand> SpaceSystem<H> {
    /// Diabolo K as the state vector `y` has it (knot 0).
    pub(super) fn free_diabolo(&self, y: &[f64], k: usize) -> SpaceDiabolo {
        free_diabolo(self.layout, y, k)
    }
}
