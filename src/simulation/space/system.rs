//! The phases of the run in space as ODE systems: one state vector for both (the layout
//! below), the taut string's equations or the slack string's, and their guards.
//!
//! Layout: left stick position and velocity (6), right stick (6), then per diabolo its centre
//! (3), velocity (3), spin w (1), axle a (3) and axle rate a' (3), then the accounts: the hands'
//! work, the friction loss, the drag loss and the work of the string's torque on a rigid axle's
//! transverse rotation (J).

use nalgebra::Vector3;

use super::SpaceHand;
use crate::model::friction::{filippov_mode, AxleMode, SlipDirection};
use crate::model::space::{
    fast_top_rate, offset_torque, rigid_axle_acceleration, spin_rate_about_axle, string_torque,
    AxleModel, CollapsedSegment, SingularTension, SpaceParams, SpaceState, SpaceString,
    SpaceTension,
};
use crate::model::StickInput;
use crate::simulation::ode::events::EventSystem;
use crate::simulation::ode::integrate::OdeSystem;

/// Numbers per stick in the state vector.
const STICK: usize = 6;
/// Numbers per diabolo.
const DIABOLO: usize = 13;
/// Accounts at the end of the state vector.
pub(super) const ACCOUNTS: usize = 4;

/// The slack string reaches its length when its slack falls below minus this fraction of L:
/// the slack's own round-off at a rebound is not an arrival (as in the plane).
pub const SLACK_ROUNDOFF: f64 = 1e-14;

/// The fast-top limit is left when the axle's precession |a'| exceeds this fraction of the
/// nutation frequency I_p |Omega| / I_t.
pub const FAST_TOP_RATIO: f64 = 0.1;

/// Where a diabolo's or an account's numbers sit in the state vector.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) diabolos: usize,
}

impl Layout {
    pub(super) fn dimension(self) -> usize {
        2 * STICK + DIABOLO * self.diabolos + ACCOUNTS
    }

    pub(super) fn diabolo(self, k: usize) -> usize {
        2 * STICK + DIABOLO * (k - 1)
    }

    pub(super) fn accounts(self) -> usize {
        2 * STICK + DIABOLO * self.diabolos
    }

    /// The state vector of a state (accounts zero).
    pub(super) fn pack(self, state: &SpaceState, y: &mut [f64]) {
        let put = |y: &mut [f64], at: usize, v: &Vector3<f64>| {
            y[at..at + 3].copy_from_slice(v.as_slice())
        };
        for (side, body) in [&state.left, &state.right].into_iter().enumerate() {
            put(y, side * STICK, &body.pos);
            put(y, side * STICK + 3, &body.vel);
        }
        for (i, d) in state.diabolos.iter().enumerate() {
            let at = self.diabolo(i + 1);
            put(y, at, &d.pos);
            put(y, at + 3, &d.vel);
            y[at + 6] = d.spin;
            put(y, at + 7, &d.axle);
            put(y, at + 10, &d.axle_rate);
        }
    }

    /// The state of a state vector (knots kept from `state`).
    pub(super) fn unpack(self, y: &[f64], state: &mut SpaceState) {
        let get = |at: usize| Vector3::new(y[at], y[at + 1], y[at + 2]);
        for (side, body) in [&mut state.left, &mut state.right].into_iter().enumerate() {
            body.pos = get(side * STICK);
            body.vel = get(side * STICK + 3);
        }
        for (i, d) in state.diabolos.iter_mut().enumerate() {
            let at = self.diabolo(i + 1);
            d.pos = get(at);
            d.vel = get(at + 3);
            d.spin = y[at + 6];
            d.axle = get(at + 7);
            d.axle_rate = get(at + 10);
        }
    }
}

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
    /// The string is taut: the tensions hold sum l = L.
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
    /// T_0 falls to zero: the string goes slack.
    Loosen,
    /// The slack L - sum l falls through -SLACK_ROUNDOFF L: the slack string snaps taut.
    Tense,
    /// The slip speed of a slipping axle reaches zero (step and bearing laws).
    SlipZero(usize),
    /// A gripping axle's need reaches its capstan bound.
    GripLimit(usize),
    /// The string's turn about the axle falls to zero: the diabolo leaves the string.
    Leave(usize),
    /// A strand reaches the cup angle: the string climbs a cup.
    Cup(usize),
    /// The string's turn about the axle reaches +-pi: a wrap begins or ends (a knot change).
    Wrap(usize),
    /// Objects j and j + 1 on the string touch (a diabolo's rim against its neighbour or a stick
    /// tip; the diabolo's rim taken as a sphere of radius R about its centre): contacts are not
    /// followed in space yet.
    Touch(usize),
    /// The fast-top limit no longer holds: the precession is no longer slow against the
    /// nutation.
    SlowSpin(usize),
}

/// One phase's ODE system with its guards; all buffers allocated at construction.
#[derive(Clone)]
pub struct SpaceSystem<H: SpaceHand> {
    pub(super) params: SpaceParams,
    pub(super) hands: [H; 2],
    pub(super) layout: Layout,
    pub(super) phase: SpacePhase,
    pub(super) modes: Vec<AxleMode>,
    pub(super) guards: Vec<SpaceGuard>,
    pub(super) state: SpaceState,
    pub(super) string: SpaceString,
    pub(super) tension: SpaceTension,
    pub(super) inputs: [StickInput<3>; 2],
    pub(super) torques: Vec<Vector3<f64>>,
    /// The gradient of sum l by object (a buffer of the projection onto the string).
    pub(super) gradients: Vec<Vector3<f64>>,
    pub(super) switching: bool,
}

impl<H: SpaceHand> SpaceSystem<H> {
    pub(super) fn new(params: SpaceParams, hands: [H; 2], start: &SpaceState) -> Self {
        let n = start.diabolos.len();
        let switching = params.planar.has_switching_friction();
        Self {
            params,
            hands,
            layout: Layout { diabolos: n },
            phase: SpacePhase::Taut,
            modes: vec![AxleMode::Slipping(SlipDirection::Positive); n],
            guards: Vec::with_capacity(2 + 7 * n),
            state: start.clone(),
            string: SpaceString::new(n),
            tension: SpaceTension::new(n),
            inputs: [StickInput::RELEASED; 2],
            torques: vec![Vector3::zeros(); n],
            gradients: vec![Vector3::zeros(); n + 2],
            switching,
        }
    }

    /// Enters `phase` with the axles in `modes` and arms its guards.
    pub(super) fn enter(&mut self, phase: SpacePhase) {
        self.phase = phase;
        self.guards.clear();
        let n = self.layout.diabolos;
        match phase {
            SpacePhase::Taut => {
                self.guards.push(SpaceGuard::Loosen);
                for k in 1..=n {
                    if self.switching {
                        self.guards.push(match self.modes[k - 1] {
                            AxleMode::Stuck => SpaceGuard::GripLimit(k),
                            AxleMode::Slipping(_) => SpaceGuard::SlipZero(k),
                        });
                    }
                    if self.state.diabolos[k - 1].knot == 0 {
                        self.guards.push(SpaceGuard::Leave(k));
                    }
                    self.guards.push(SpaceGuard::Cup(k));
                    self.guards.push(SpaceGuard::Wrap(k));
                    if self.params.model == AxleModel::FastTop {
                        self.guards.push(SpaceGuard::SlowSpin(k));
                    }
                }
                for j in 0..=n {
                    self.guards.push(SpaceGuard::Touch(j));
                }
            }
            SpacePhase::Loose => {
                self.guards.push(SpaceGuard::Tense);
                for k in 1..=n {
                    if self.state.diabolos[k - 1].knot == 0 {
                        self.guards.push(SpaceGuard::Leave(k));
                    }
                }
                for j in 0..=n {
                    self.guards.push(SpaceGuard::Touch(j));
                }
                if self.params.model == AxleModel::FastTop {
                    for k in 1..=n {
                        self.guards.push(SpaceGuard::SlowSpin(k));
                    }
                }
            }
        }
    }

    /// Loads `y` at time t: the state, the string, the hands' inputs and (taut) the tensions
    /// and torques.
    pub(super) fn load(&mut self, t: f64, y: &[f64]) -> Result<(), SpaceModelError> {
        self.layout.unpack(y, &mut self.state);
        self.string.update(&self.state)?;
        self.inputs = [
            self.hands[0].input(t, &self.state.left),
            self.hands[1].input(t, &self.state.right),
        ];
        if self.phase == SpacePhase::Taut {
            self.tension.solve(
                &self.params,
                &self.state,
                &self.string,
                &self.inputs,
                Some(&self.modes),
            )?;
            let segments = self.string.segments();
            let tensions = self.tension.tensions();
            for k in 1..=self.layout.diabolos {
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
        let mut trend = |direction| -> Result<f64, SpaceModelError> {
            self.modes[k - 1] = AxleMode::Slipping(direction);
            self.tension.solve(
                &self.params,
                &self.state,
                &self.string,
                &self.inputs,
                Some(&self.modes),
            )?;
            Ok(self.tension.slip_acceleration(k, &self.string))
        };
        let positive = trend(SlipDirection::Positive)?;
        let negative = trend(SlipDirection::Negative)?;
        Ok(filippov_mode(positive, negative))
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
        let n = self.layout.diabolos;
        let gravity = Vector3::new(0.0, -p.gravity, 0.0);
        let put = |d: &mut [f64], at: usize, v: &Vector3<f64>| {
            d[at..at + 3].copy_from_slice(v.as_slice())
        };
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
        for k in 1..=n {
            let at = self.layout.diabolo(k);
            let d = self.state.diabolos[k - 1];
            let (accel, spin_rate) = match self.phase {
                SpacePhase::Taut => (self.tension.acceleration(k), self.tension.spin_rate(k)),
                SpacePhase::Loose => (gravity, -p.spin_drag * d.spin),
            };
            put(dydt, at, &d.vel);
            put(dydt, at + 3, &accel);
            dydt[at + 6] = spin_rate;
            drag += spin_mass * p.spin_drag * d.spin * d.spin;
            let torque = self.torques[k - 1];
            match self.params.model {
                AxleModel::FastTop => {
                    put(dydt, at + 7, &self.axle_rate(k));
                    put(dydt, at + 10, &Vector3::zeros());
                }
                AxleModel::Rigid => {
                    let omega = spin_rate_about_axle(d.spin, self.params.axle_radius);
                    put(dydt, at + 7, &d.axle_rate);
                    put(
                        dydt,
                        at + 10,
                        &rigid_axle_acceleration(
                            &d.axle,
                            &d.axle_rate,
                            &torque,
                            self.params.polar_inertia,
                            self.params.transverse_inertia,
                            omega,
                        ),
                    );
                    axle_power += torque.dot(&d.axle.cross(&d.axle_rate));
                }
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
        Ok(())
    }
}

impl<H: SpaceHand> EventSystem for SpaceSystem<H> {
    fn events(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error> {
        self.load(t, y)?;
        let law = self.params.planar.values().friction_law;
        let c = self.params.planar.values().friction;
        let sin_cup = self.params.cup_angle.sin();
        let n = self.layout.diabolos;
        for (slot, guard) in out.iter_mut().zip(&self.guards) {
            *slot = match *guard {
                SpaceGuard::Loosen => self.tension.tensions()[0],
                SpaceGuard::Tense => {
                    let length = self.params.planar.values().string_length;
                    length - self.string.total_length() + SLACK_ROUNDOFF * length
                }
                SpaceGuard::SlipZero(k) => self.tension.contact(k).slip_speed,
                SpaceGuard::GripLimit(k) => self.tension.grip_margin(k, law, c),
                SpaceGuard::Leave(k) => self.string.turn_about(k, &self.state.diabolos[k - 1].axle),
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
                SpaceGuard::Wrap(k) => {
                    std::f64::consts::PI
                        - self
                            .string
                            .turn_about(k, &self.state.diabolos[k - 1].axle)
                            .abs()
                }
                SpaceGuard::SlowSpin(k) => self.fast_top_margin(k),
                SpaceGuard::Touch(j) => {
                    let radius = self.params.planar.values().diabolo_radius;
                    let reach = |i: usize| if i == 0 || i == n + 1 { 0.0 } else { radius };
                    self.string.segments()[j].length - reach(j) - reach(j + 1)
                }
            };
        }
        Ok(())
    }
}
