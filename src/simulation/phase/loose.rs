//! The loose phase as an ODE system: positions and velocities of every object, then spins,
//! then the accumulators, with its guards.

use nalgebra::Vector2;

use crate::model::{tension, Body, CartesianState, DiaboloState, DynamicsError, Params};
use crate::simulation::drive::{Drive, Path};
use crate::simulation::ode::events::{EventSpec, EventSystem};
use crate::simulation::ode::integrate::{ErrorGroups, OdeSystem};

use super::guards::LooseGuards;
use super::imposed;
use super::shared::{shared_guards, FlightView};
use super::{accumulators, hand_inputs, Measure, PhaseSystem, Quantity};

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
            i if i < bodies => Quantity::of(
                i / 4,
                if i % 4 < 2 {
                    Measure::Position
                } else {
                    Measure::Velocity
                },
            ),
            i if i < self.len() => Quantity::of(i - bodies + 1, Measure::Spin),
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
            .write_values(&self.flight, t, (&self.positions, &self.lengths, gap), out);
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

    fn gap_velocities(&self, out: &mut [crate::simulation::ode::events::GapMotion]) {
        let motion = (&self.positions[..], &self.velocities[..]);
        self.guards
            .write_gap_velocities(&self.flight, self.event_time, motion, out);
    }
}
