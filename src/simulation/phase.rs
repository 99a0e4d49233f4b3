//! The two phases of a run as ODE systems, with their event functions.
//!
//! - Taut: the reduced rotating-frame state of the note (the string length holds by
//!   construction), followed by three energy accumulators.
//! - Loose: positions and velocities of every object, then spins, then the accumulators.
//!
//! The accumulators integrate the power terms of the energy balance along the run:
//! hand work W, friction loss and drag loss (and with a compliant string its damping loss), so
//! that E(t) - E(0) = W - friction - drag - string loss - impulse losses can be checked at any
//! time.

use crate::model::{
    tension, AxleMode, Body, CartesianState, DiaboloState, DynamicsError, Params, StickInput,
    TautDynamics,
};
use nalgebra::Vector2;

use super::drive::{Drive, Path};
use super::hybrid::guards::{shared_guards, FlightView, LooseGuards, TautGuards};
use super::imposed::{self, TautPaths};
use super::ode::events::{EventSpec, EventSystem};
use super::ode::integrate::ErrorGroups;
use super::ode::integrate::OdeSystem;

/// The most energy accumulators at the end of a phase state: hand work, friction loss, drag
/// loss and, with a compliant string only, the string's damping loss (J).
pub const ACCUMULATORS: usize = 4;

/// The accumulators a run with these parameters integrates: 3, or 4 with a compliant string.
pub fn accumulators(params: &Params) -> usize {
    if params.string_stiffness.is_some() {
        ACCUMULATORS
    } else {
        ACCUMULATORS - 1
    }
}

/// Which phase the string is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The string is taut: its length L holds and it carries tension.
    Taut,
    /// The string is slack (sum l < L): no tension acts, the diabolos fly freely.
    Loose,
}

impl Phase {
    /// The phase's name in the output and in messages ("taut", "loose").
    pub fn name(self) -> &'static str {
        match self {
            Self::Taut => "taut",
            Self::Loose => "loose",
        }
    }
}

/// A quantity of a phase state, for messages: what it is and whose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    /// The object (0 the left stick, 1..N the diabolos, N + 1 the right stick), or `None` for
    /// the string and the energy accounts.
    pub object: Option<usize>,
    /// What it is: "position", "velocity", "spin", "tension"...
    pub name: &'static str,
}

impl Quantity {
    fn of(object: usize, name: &'static str) -> Self {
        Self {
            object: Some(object),
            name,
        }
    }

    /// The energy account at `index` of the accumulators.
    fn account(index: usize) -> Self {
        Self {
            object: None,
            name: ["hand work", "friction loss", "drag loss", "string loss"]
                [index.min(ACCUMULATORS - 1)],
        }
    }

    /// The rate of change of this quantity, in words.
    pub fn rate(self) -> Self {
        let name = match self.name {
            "position" => "velocity",
            "velocity" => "acceleration",
            "spin" => "spin acceleration",
            "string angle" => "string angle rate",
            "segment length" => "segment length rate",
            "hand work" => "hand power",
            "friction loss" => "friction power",
            "drag loss" => "drag power",
            "string loss" => "string damping power",
            other => other,
        };
        Self { name, ..self }
    }
}

/// The hands' inputs at time t for sticks in the given states.
pub fn hand_inputs(drives: &[Drive; 2], t: f64, sticks: &[Body; 2]) -> [StickInput; 2] {
    [
        drives[0].input(t, &sticks[0]),
        drives[1].input(t, &sticks[1]),
    ]
}

/// The taut phase: reduced state + accumulators.
#[derive(Clone, Debug)]
pub struct TautSystem {
    pub(crate) dynamics: TautDynamics,
    pub(crate) drives: [Drive; 2],
    /// Friction mode of each axle, locked between events (ignored by the tanh law).
    pub(crate) modes: Vec<AxleMode>,
    /// Knot degree k_i of each diabolo at the start of the current segment.
    pub(crate) knots: Vec<i32>,
    /// What the shared guards watch besides the string (the diabolos off it).
    pub(crate) flight: FlightView,
    /// The guards (event functions) and their layout.
    pub(crate) guards: TautGuards,
    /// The string's objects' positions at the last event evaluation, m (a buffer).
    positions: Vec<Vector2<f64>>,
    /// The velocity of each path-driven stick's path at the last evaluation, m/s.
    path_velocities: [Option<Vector2<f64>>; 2],
    /// The time of the last event evaluation, s.
    event_time: f64,
    /// Puts the state back on the sticks' paths after each step.
    paths: TautPaths,
}

impl TautSystem {
    /// The taut phase of `n` diabolos with these parameters and hand drives, every axle
    /// gripping and every knot degree 0 until set.
    pub fn new(params: &Params, n: usize, drives: [Drive; 2]) -> Self {
        Self::watching(params, FlightView::all_on_string(params, n, &drives))
    }

    /// The taut phase of the string of `view` (its slots), watching its flying diabolos.
    pub(crate) fn watching(params: &Params, view: FlightView) -> Self {
        let n = view.on_string();
        let drives = view.drives.clone();
        let mut dynamics = TautDynamics::new(params, n);
        dynamics.set_resting(&view.resting);
        Self {
            dynamics,
            guards: TautGuards::new(params, n, &view.resting, &shared_guards(&view)),
            drives,
            modes: vec![AxleMode::from_slip(0.0); n],
            knots: vec![0; n],
            flight: view,
            positions: vec![Vector2::zeros(); n + 2],
            path_velocities: [None; 2],
            event_time: 0.0,
            paths: TautPaths::new(n),
        }
    }

    /// The rotating-frame dynamics workspace (its layout, its last evaluation).
    pub fn dynamics(&self) -> &TautDynamics {
        &self.dynamics
    }

    /// Length of the phase state: 5N + 6 (5N + 8 with a compliant string) + accumulators.
    pub fn dimension(&self) -> usize {
        self.dynamics.layout().len() + accumulators(self.dynamics.params())
    }

    /// Evaluates the dynamics at (t, y) with the current modes.
    pub fn evaluate(&mut self, t: f64, y: &[f64]) -> Result<(), DynamicsError> {
        let reduced = &y[..self.dynamics.layout().len()];
        let (drives, path_velocities) = (&self.drives, &mut self.path_velocities);
        let inputs = |sticks: [Body; 2]| {
            [0, 1].map(|s| {
                let (input, point) = drives[s].input_on_path(t, &sticks[s]);
                path_velocities[s] = point.map(|p| p.vel);
                input
            })
        };
        self.dynamics.evaluate_with(reduced, inputs, &self.modes)
    }

    /// dy/dt at (t, y).
    pub fn rates(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), DynamicsError> {
        self.evaluate(t, y)?;
        let len = self.dynamics.layout().len();
        self.dynamics.write_rates(&mut dydt[..len]);
        let balance = self.dynamics.power_balance();
        dydt[len] = self.hand_power();
        dydt[len + 1] = balance.friction_dissipation;
        dydt[len + 2] = balance.drag_loss;
        if let Some(loss) = balance.string_loss {
            dydt[len + 3] = loss;
        }
        Ok(())
    }

    /// The hands' power on the last evaluated state, W: each hand force times its stick's
    /// velocity, a path-driven stick's from its path (a still hand does no work, exactly).
    fn hand_power(&self) -> f64 {
        let n = self.dynamics.layout().diabolos();
        let objects = self.dynamics.kinematics().objects();
        let forces = self.dynamics.tension().hand_forces;
        [0, 1]
            .into_iter()
            .map(|s| {
                let velocity =
                    self.path_velocities[s].unwrap_or_else(|| objects[s * (n + 1)].velocity());
                forces[s].dot(&velocity)
            })
            .sum()
    }

    /// Component `index` of the phase state.
    pub fn quantity(&self, index: usize) -> Quantity {
        let layout = self.dynamics.layout();
        let n = layout.diabolos();
        if index >= layout.len() {
            return Quantity::account(index - layout.len());
        }
        if index < 2 {
            return Quantity::of(0, "position");
        }
        if index == layout.phi0() {
            return Quantity::of(0, "string angle");
        }
        if index == layout.u_alpha_right() {
            return Quantity::of(n + 1, "velocity");
        }
        let find = |name, of: &dyn Fn(usize) -> usize, objects: std::ops::Range<usize>| {
            objects
                .into_iter()
                .find(|&k| of(k) == index)
                .map(|k| Quantity::of(k, name))
        };
        find("segment length", &|k| layout.segment_length(k), 0..n)
            .or_else(|| find("string angle", &|k| layout.theta(k), 1..n + 1))
            .or_else(|| find("spin", &|k| layout.spin(k), 1..n + 1))
            .or_else(|| find("velocity", &|k| layout.u_alpha(k), 0..n + 1))
            .or_else(|| find("velocity", &|k| layout.u_beta(k), 0..n + 1))
            .unwrap_or(Quantity {
                object: None,
                name: "state",
            })
    }

    /// The first output of the last evaluation that is not finite: the tension, an
    /// acceleration or a spin acceleration.
    pub fn non_finite_output(&self) -> Option<Quantity> {
        let dynamics = &self.dynamics;
        let n = dynamics.layout().diabolos();
        if !dynamics.tension().base_tension.is_finite() {
            return Some(Quantity {
                object: None,
                name: "tension",
            });
        }
        let accelerations = dynamics.frame_accelerations();
        (0..n + 2)
            .find(|&k| !(accelerations[k].0.is_finite() && accelerations[k].1.is_finite()))
            .map(|k| Quantity::of(k, "acceleration"))
            .or_else(|| {
                (1..=n)
                    .find(|&i| !dynamics.spin_rate(i).is_finite())
                    .map(|i| Quantity::of(i, "spin acceleration"))
            })
    }

    /// Direction filters of the event functions: all fire when reaching zero from above.
    pub fn event_specs(&self) -> Vec<EventSpec> {
        self.guards.specs()
    }

    /// The guards' values (the taut guards, in their layout's order) on the last evaluated state
    /// y at t.
    pub fn event_values(&mut self, t: f64, y: &[f64], out: &mut [f64]) {
        if self.flight.needs_positions() {
            let kin = self.dynamics.kinematics();
            let mut p = Vector2::new(y[0], y[1]);
            self.positions[0] = p;
            for (i, segment) in kin.segments().iter().enumerate() {
                p += kin.segment_direction(i) * segment.length;
                self.positions[i + 1] = p;
            }
        }
        self.guards.write_values(self, t, &self.positions, out);
    }
}

/// L - |p_right(t) - p_left(t)| when both sticks follow paths (they cannot be farther apart than
/// the string is long), m; 1 otherwise.
pub fn path_margin(drives: &[Drive; 2], string_length: f64, t: f64) -> f64 {
    match (&drives[0], &drives[1]) {
        (Drive::Path(a), Drive::Path(b)) => string_length - (b.at(t).pos - a.at(t).pos).norm(),
        _ => 1.0,
    }
}

impl OdeSystem for TautSystem {
    type Error = DynamicsError;
    fn dimension(&self) -> usize {
        TautSystem::dimension(self)
    }
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), DynamicsError> {
        self.rates(t, y, dydt)
    }
}

/// What the run asks of a phase's ODE system besides its rates and event values.
pub trait PhaseSystem: EventSystem<Error = DynamicsError> {
    /// How its components are measured in the error norm: vectors together, what the paths
    /// impose not at all.
    fn error_groups(&self) -> ErrorGroups;
    /// Puts the state y at t back on the sticks' paths (after a step); whether it changed.
    fn impose(&mut self, t: f64, y: &mut [f64]) -> bool;
}

impl PhaseSystem for TautSystem {
    /// x_0 and each u_k (k <= N) are vectors; u_{N+1}^alpha is alone (its beta part is not a
    /// state).
    fn error_groups(&self) -> ErrorGroups {
        let layout = self.dynamics.layout();
        let n = layout.diabolos();
        let mut groups = vec![vec![0, 1]];
        groups.extend((0..=n).map(|k| vec![layout.u_alpha(k), layout.u_beta(k)]));
        if layout.is_elastic() {
            groups.push(vec![layout.u_alpha_right(), layout.u_beta_right()]);
        }
        ErrorGroups {
            groups,
            ignored: imposed::taut_components(&layout, &self.drives),
        }
    }
    fn impose(&mut self, t: f64, y: &mut [f64]) -> bool {
        let layout = self.dynamics.layout();
        let length = self.dynamics.params().string_length;
        self.paths
            .impose(&layout, length, &self.drives, t, &mut y[..layout.len()])
    }
}

impl EventSystem for TautSystem {
    fn events(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), DynamicsError> {
        self.evaluate(t, y)?;
        self.event_values(t, y, out);
        self.event_time = t;
        Ok(())
    }

    fn gap_velocities(&self, out: &mut [[f64; 3]]) {
        self.guards
            .write_gap_velocities(self, self.event_time, &self.positions, out);
    }
}

/// +1 or -1 for a slip direction.
pub fn direction_sign(direction: crate::model::SlipDirection) -> f64 {
    match direction {
        crate::model::SlipDirection::Positive => 1.0,
        crate::model::SlipDirection::Negative => -1.0,
    }
}

/// Index map of the loose-phase state: object k's position at 4k, velocity at 4k + 2; spin of
/// diabolo i at 4(N + 2) + i - 1; then the accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LooseLayout {
    n: usize,
}

impl LooseLayout {
    pub fn new(n: usize) -> Self {
        Self { n }
    }
    pub fn diabolos(&self) -> usize {
        self.n
    }
    /// 4 (N + 2) + N, without the accumulators.
    pub fn len(&self) -> usize {
        4 * (self.n + 2) + self.n
    }
    pub fn spin(&self, i: usize) -> usize {
        4 * (self.n + 2) + i - 1
    }

    /// Component `index` of the phase state (accumulators included).
    pub fn quantity(&self, index: usize) -> Quantity {
        let bodies = 4 * (self.n + 2);
        match index {
            i if i < bodies => Quantity::of(i / 4, if i % 4 < 2 { "position" } else { "velocity" }),
            i if i < self.len() => Quantity::of(i - bodies + 1, "spin"),
            i => Quantity::account(i - self.len()),
        }
    }

    /// The Cartesian state held in `y` (knots given), into `out`, reusing its storage.
    pub fn state_into(&self, y: &[f64], knots: &[i32], out: &mut CartesianState) {
        let body = |k: usize| Body {
            pos: Vector2::new(y[4 * k], y[4 * k + 1]),
            vel: Vector2::new(y[4 * k + 2], y[4 * k + 3]),
        };
        out.left = body(0);
        out.right = body(self.n + 1);
        out.diabolos.clear();
        out.diabolos.extend((1..=self.n).map(|i| {
            let b = body(i);
            DiaboloState {
                pos: b.pos,
                vel: b.vel,
                spin: y[self.spin(i)],
                knot: knots[i - 1],
            }
        }));
    }

    /// Writes a Cartesian state into `y` (the accumulators untouched).
    pub fn store(&self, state: &CartesianState, y: &mut [f64]) {
        for k in 0..self.n + 2 {
            let (p, v) = (state.position(k), state.velocity(k));
            y[4 * k..4 * k + 4].copy_from_slice(&[p.x, p.y, v.x, v.y]);
        }
        for (i, d) in state.diabolos.iter().enumerate() {
            y[self.spin(i + 1)] = d.spin;
        }
    }
}

/// The loose phase: no tension; sticks move under gravity and the hands, diabolos fall freely,
/// spins decay by drag.
#[derive(Clone, Debug)]
pub struct LooseSystem {
    pub(crate) params: Params,
    pub(crate) layout: LooseLayout,
    pub(crate) drives: [Drive; 2],
    /// Hand forces of the last evaluation (x-y, N).
    pub(crate) hand_forces: [Vector2<f64>; 2],
    /// Knot degree k_i of each diabolo.
    pub(crate) knots: Vec<i32>,
    /// What the shared guards watch besides the string (the diabolos off it).
    pub(crate) flight: FlightView,
    /// The component of the last derivative that was not finite, if it was not.
    pub(crate) non_finite_rate: Option<usize>,
    /// The guards (event functions) and their layout.
    pub(crate) guards: LooseGuards,
    /// The segment lengths of the last event evaluation, m (a buffer).
    lengths: Vec<f64>,
    /// The string's objects' positions of the last event evaluation, m (a buffer).
    positions: Vec<Vector2<f64>>,
    /// The string's objects' velocities of the last event evaluation, m/s (a buffer), and its
    /// time, s.
    velocities: Vec<Vector2<f64>>,
    event_time: f64,
}

impl LooseSystem {
    /// The loose phase of the string of `view` (its slots), watching its flying diabolos; the
    /// string tenses when its slack falls through -`slack_band` (m).
    pub(crate) fn watching(params: &Params, view: FlightView, slack_band: f64) -> Self {
        let n = view.on_string();
        Self {
            params: *params,
            layout: LooseLayout::new(n),
            guards: LooseGuards::new(n, &shared_guards(&view), slack_band),
            lengths: vec![0.0; n + 1],
            positions: vec![Vector2::zeros(); n + 2],
            velocities: vec![Vector2::zeros(); n + 2],
            event_time: 0.0,
            drives: view.drives.clone(),
            hand_forces: [Vector2::zeros(); 2],
            knots: vec![0; n],
            flight: view,
            non_finite_rate: None,
        }
    }

    pub fn dimension(&self) -> usize {
        self.layout.len() + accumulators(&self.params)
    }

    /// Stick `s` (0 left, 1 right) at (t, y): on its path if it follows one.
    fn stick(&self, t: f64, y: &[f64], s: usize) -> Body {
        let k = s * (self.layout.diabolos() + 1);
        let mut body = Body {
            pos: Vector2::new(y[4 * k], y[4 * k + 1]),
            vel: Vector2::new(y[4 * k + 2], y[4 * k + 3]),
        };
        imposed::pin(&self.drives[s], t, &mut body);
        body
    }

    /// dy/dt at (t, y).
    pub fn rates(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), DynamicsError> {
        let n = self.layout.diabolos();
        let sticks = [self.stick(t, y, 0), self.stick(t, y, 1)];
        let inputs = hand_inputs(&self.drives, t, &sticks);
        let sticks_motion = tension::loose_accelerations(&self.params, &inputs);
        let g = Vector2::new(0.0, -self.params.gravity);
        let mut hand_power = 0.0;
        for k in 0..n + 2 {
            let (vel, acc) = match k {
                0 => (sticks[0].vel, sticks_motion[0].0),
                k if k == n + 1 => (sticks[1].vel, sticks_motion[1].0),
                _ => (Vector2::new(y[4 * k + 2], y[4 * k + 3]), g),
            };
            dydt[4 * k..4 * k + 4].copy_from_slice(&[vel.x, vel.y, acc.x, acc.y]);
        }
        for s in 0..2 {
            self.hand_forces[s] = sticks_motion[s].1;
            hand_power += sticks_motion[s].1.dot(&sticks[s].vel);
        }
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        let mut drag = 0.0;
        for i in 1..=n {
            let w = y[self.layout.spin(i)];
            dydt[self.layout.spin(i)] = -self.params.spin_drag * w;
            drag += spin_mass * self.params.spin_drag * w * w;
        }
        let len = self.layout.len();
        dydt[len] = hand_power;
        dydt[len + 1] = 0.0;
        dydt[len + 2] = drag;
        if let Some(string) = self.params.elastic() {
            // A stretch left while slack relaxes in the damper: only while it shortens (a
            // string stretching with a stretch would pull, and the phase would be taut; a
            // stage of a step that reaches past the tensing must not draw energy back from
            // the damper, which would bend the step's whole interpolant of the account).
            let (stretch, rate) = self.stretch(t, y);
            dydt[len + 3] = string.loss_rate(stretch, rate.min(0.0), 0.0);
        }
        self.non_finite_rate = dydt.iter().position(|v| !v.is_finite());
        if self.non_finite_rate.is_some() {
            return Err(DynamicsError::NonFinite);
        }
        Ok(())
    }

    /// Direction filters: the folds fire either way, the others when reaching zero from above.
    pub fn event_specs(&self) -> Vec<EventSpec> {
        self.guards.specs()
    }

    /// The Cartesian state at (t, y). While the string is slack the sticks do not act on the
    /// diabolos, so a path-driven stick's integrated copy is bookkeeping only: it is replaced by
    /// the exact path state.
    pub fn state(&self, t: f64, y: &[f64]) -> CartesianState {
        let mut state = CartesianState::default();
        self.state_into(t, y, &mut state);
        state
    }

    /// [`LooseSystem::state`] into `out`, reusing its storage.
    pub fn state_into(&self, t: f64, y: &[f64], out: &mut CartesianState) {
        self.layout.state_into(y, &self.knots, out);
        imposed::pin(&self.drives[0], t, &mut out.left);
        imposed::pin(&self.drives[1], t, &mut out.right);
    }

    /// The path of object k if it is a path-driven stick.
    fn path_of(&self, k: usize) -> Option<&Path> {
        let n = self.layout.diabolos();
        let drive = match k {
            0 => &self.drives[0],
            k if k == n + 1 => &self.drives[1],
            _ => return None,
        };
        match drive {
            Drive::Path(path) => Some(path),
            _ => None,
        }
    }

    /// Position of object k at (t, y), path-driven sticks exactly on their paths.
    pub(crate) fn position(&self, t: f64, y: &[f64], k: usize) -> Vector2<f64> {
        self.path_of(k)
            .map_or_else(|| Vector2::new(y[4 * k], y[4 * k + 1]), |p| p.at(t).pos)
    }

    /// Velocity of object k at (t, y), path-driven sticks exactly on their paths.
    fn velocity(&self, t: f64, y: &[f64], k: usize) -> Vector2<f64> {
        self.path_of(k)
            .map_or_else(|| Vector2::new(y[4 * k + 2], y[4 * k + 3]), |p| p.at(t).vel)
    }

    /// The slack L - sum l_i at (t, y), m (allocation-free).
    pub fn slack(&self, t: f64, y: &[f64]) -> f64 {
        -self.stretch(t, y).0
    }

    /// The stretch delta = sum l_i - L and its rate delta' at (t, y), m and m/s.
    pub fn stretch(&self, t: f64, y: &[f64]) -> (f64, f64) {
        let n = self.layout.diabolos();
        let (mut used, mut rate) = (0.0, 0.0);
        for i in 0..=n {
            let d = self.position(t, y, i + 1) - self.position(t, y, i);
            let l = d.norm();
            used += l;
            if l > 0.0 {
                rate += d.dot(&(self.velocity(t, y, i + 1) - self.velocity(t, y, i))) / l;
            }
        }
        (used - self.params.string_length, rate)
    }

    /// How far the string is from pulling, m: the slack for the inextensible string (it pulls
    /// from full length on); for a compliant one L / EA times minus its pull margin
    /// (docs/elastic.md), which is the slack where the damper does not push.
    pub fn tense_gap(&self, t: f64, y: &[f64]) -> f64 {
        match self.params.elastic() {
            None => self.slack(t, y),
            Some(string) => {
                let (stretch, rate) = self.stretch(t, y);
                -string.pull_margin(stretch, rate) * string.length / string.stiffness
            }
        }
    }

    /// The guards' values ([`LooseGuards`]) at (t, y), allocation-free.
    pub fn event_values(&mut self, t: f64, y: &[f64], out: &mut [f64]) {
        let n = self.layout.diabolos();
        for k in 0..n + 2 {
            self.positions[k] = self.position(t, y, k);
        }
        let mut used = 0.0;
        for i in 0..=n {
            let l = (self.positions[i + 1] - self.positions[i]).norm();
            used += l;
            self.lengths[i] = l;
        }
        let gap = match self.params.elastic() {
            None => self.params.string_length - used,
            Some(_) => self.tense_gap(t, y),
        };
        self.guards
            .write_values(self, t, (&self.positions, &self.lengths, gap), out);
    }

    /// (L', L'') of the string at y, from the free motion of every object (sum over segments
    /// of e . dv and e . da + (|dv|^2 - (e . dv)^2) / l).
    pub fn length_rates(&mut self, t: f64, y: &[f64]) -> Result<(f64, f64), DynamicsError> {
        let n = self.layout.diabolos();
        let mut dydt = vec![0.0; self.dimension()];
        self.rates(t, y, &mut dydt)?;
        let at = |v: &[f64], k: usize, o: usize| Vector2::new(v[4 * k + o], v[4 * k + o + 1]);
        let (mut rate, mut acceleration) = (0.0, 0.0);
        for i in 0..=n {
            let d = at(y, i + 1, 0) - at(y, i, 0);
            let l = d.norm();
            let e = d / l;
            let dv = at(y, i + 1, 2) - at(y, i, 2);
            let da = at(&dydt, i + 1, 2) - at(&dydt, i, 2);
            rate += e.dot(&dv);
            acceleration += e.dot(&da) + (dv.norm_squared() - e.dot(&dv).powi(2)) / l;
        }
        Ok((rate, acceleration))
    }

    /// Whether the segments at diabolo k point opposite ways (a fold, not a straight run).
    pub fn folded(&self, y: &[f64], k: usize) -> bool {
        let pos = |j: usize| Vector2::new(y[4 * j], y[4 * j + 1]);
        (pos(k) - pos(k - 1)).dot(&(pos(k + 1) - pos(k))) < 0.0
    }
}

impl OdeSystem for LooseSystem {
    type Error = DynamicsError;
    fn dimension(&self) -> usize {
        LooseSystem::dimension(self)
    }
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), DynamicsError> {
        self.rates(t, y, dydt)
    }
}

impl PhaseSystem for LooseSystem {
    /// Each object's position and velocity are vectors.
    fn error_groups(&self) -> ErrorGroups {
        let objects = self.layout.diabolos() + 2;
        let groups: Vec<Vec<usize>> = (0..2 * objects).map(|v| vec![2 * v, 2 * v + 1]).collect();
        ErrorGroups {
            groups,
            ignored: imposed::loose_components(self.layout.diabolos(), &self.drives),
        }
    }
    /// Nothing to correct: the loose phase reads a path stick from its path.
    fn impose(&mut self, _t: f64, _y: &mut [f64]) -> bool {
        false
    }
}

impl EventSystem for LooseSystem {
    fn events(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), DynamicsError> {
        self.event_values(t, y, out);
        for k in 0..self.velocities.len() {
            self.velocities[k] = self.velocity(t, y, k);
        }
        self.event_time = t;
        Ok(())
    }

    fn gap_velocities(&self, out: &mut [[f64; 3]]) {
        let motion = (&self.positions[..], &self.velocities[..]);
        self.guards
            .write_gap_velocities(&self.flight, self.event_time, motion, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every component of both phase states has a name and an owner, in layout order.
    #[test]
    fn state_components_are_named_with_their_object() {
        let params = Params::new(crate::model::ParamValues::default()).unwrap();
        let drives = [Drive::Released, Drive::Released];
        let taut = TautSystem::new(&params, 2, drives.clone());
        let named = |q: Quantity| (q.object, q.name);
        let layout = taut.dynamics.layout();
        assert_eq!(named(taut.quantity(1)), (Some(0), "position"));
        assert_eq!(
            named(taut.quantity(layout.segment_length(1))),
            (Some(1), "segment length")
        );
        assert_eq!(
            named(taut.quantity(layout.theta(2))),
            (Some(2), "string angle")
        );
        assert_eq!(named(taut.quantity(layout.spin(2))), (Some(2), "spin"));
        assert_eq!(
            named(taut.quantity(layout.u_beta(1))),
            (Some(1), "velocity")
        );
        assert_eq!(
            named(taut.quantity(layout.u_alpha_right())),
            (Some(3), "velocity")
        );
        assert_eq!(named(taut.quantity(layout.len() + 2)), (None, "drag loss"));
        let loose = LooseLayout::new(2);
        assert_eq!(named(loose.quantity(4 * 3 + 1)), (Some(3), "position"));
        assert_eq!(named(loose.quantity(4 + 3)), (Some(1), "velocity"));
        assert_eq!(named(loose.quantity(loose.spin(2))), (Some(2), "spin"));
        assert_eq!(named(loose.quantity(loose.len())), (None, "hand work"));
        assert_eq!(loose.quantity(4 + 3).rate().name, "acceleration");
        assert_eq!(
            loose.quantity(loose.spin(1)).rate().name,
            "spin acceleration"
        );
    }
}
