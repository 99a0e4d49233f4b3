//! The taut phase as an ODE system: the reduced rotating-frame state of the note (the string
//! length holds by construction), followed by the energy accumulators, with its guards.

use nalgebra::Vector2;

use crate::model::{AxleMode, Body, DynamicsError, Params, TautDynamics};
use crate::simulation::drive::Drive;
use crate::simulation::ode::events::{EventSpec, EventSystem};
use crate::simulation::ode::integrate::{ErrorGroups, OdeSystem};

use super::guards::{TautGuards, TautWatch};
use super::imposed::{self, TautPaths};
use super::shared::{shared_guards, FlightView};
use super::{accumulators, Measure, PhaseSystem, Quantity};

/// The taut phase: reduced state + accumulators.
#[derive(Clone, Debug)]
pub struct TautSystem {
    pub(crate) dynamics: TautDynamics,
    pub(crate) drives: [Drive; 2],
    /// Friction mode of each axle, locked between events (ignored by the tanh law).
    pub(crate) axle_modes: Vec<AxleMode>,
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
    /// What the dynamics were last evaluated on: the same evaluation again is skipped (the end
    /// of a step is evaluated by its last stage, then by the event sample, then on a restart).
    evaluated: Evaluated,
}

/// The inputs of the last evaluation of the taut dynamics, bit for bit: t, the reduced state
/// and the axles' modes (`valid` false: unknown, or changed in a way they do not show).
#[derive(Clone, Debug, Default, PartialEq)]
struct Evaluated {
    valid: bool,
    t: u64,
    y: Vec<u64>,
    axle_modes: Vec<AxleMode>,
}

impl Evaluated {
    /// Whether these were the inputs (t, y, modes), bit for bit.
    fn matches(&self, t: f64, y: &[f64], axle_modes: &[AxleMode]) -> bool {
        self.valid
            && self.t == t.to_bits()
            && self.y.len() == y.len()
            && self.y.iter().zip(y).all(|(a, b)| *a == b.to_bits())
            && self.axle_modes == axle_modes
    }

    /// Records the inputs (t, y, modes) in place (no allocation once the sizes are reached).
    fn record(&mut self, t: f64, y: &[f64], axle_modes: &[AxleMode]) {
        self.valid = true;
        self.t = t.to_bits();
        self.y.clear();
        self.y.extend(y.iter().map(|v| v.to_bits()));
        self.axle_modes.clear();
        self.axle_modes.extend_from_slice(axle_modes);
    }
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
            guards: TautGuards::new(
                params.has_switching_friction(),
                n,
                &view.resting,
                &shared_guards(&view),
            ),
            drives,
            axle_modes: vec![AxleMode::from_slip(0.0); n],
            knots: vec![0; n],
            flight: view,
            positions: vec![Vector2::zeros(); n + 2],
            path_velocities: [None; 2],
            event_time: 0.0,
            paths: TautPaths::new(n),
            evaluated: Evaluated::default(),
        }
    }

    /// Forgets the last evaluation's inputs: the next evaluation is done whatever its inputs
    /// (after a change the inputs do not show, such as the hands' drives).
    pub(crate) fn forget_evaluation(&mut self) {
        self.evaluated.valid = false;
    }

    /// The rotating-frame dynamics workspace (its layout, its last evaluation).
    pub fn dynamics(&self) -> &TautDynamics {
        &self.dynamics
    }

    /// The [`super::guards::TautGuard::Straighten`] value on the last evaluation: below 0 the
    /// hands have pulled the string straight.
    pub fn straightness(&self) -> f64 {
        super::guards::straightness(&self.watch())
    }

    /// What the taut guards read on the last evaluation.
    fn watch(&self) -> TautWatch<'_> {
        TautWatch {
            dynamics: &self.dynamics,
            axle_modes: &self.axle_modes,
            knots: &self.knots,
            flight: &self.flight,
        }
    }

    /// Length of the phase state: 5N + 6 (5N + 8 with a compliant string) + accumulators.
    pub fn dimension(&self) -> usize {
        self.dynamics.layout().len() + accumulators(self.dynamics.params())
    }

    /// Evaluates the dynamics at (t, y) with the current modes (nothing to do when the last
    /// evaluation had these inputs, bit for bit).
    pub fn evaluate(&mut self, t: f64, y: &[f64]) -> Result<(), DynamicsError> {
        let reduced = &y[..self.dynamics.layout().len()];
        if self.evaluated.matches(t, reduced, &self.axle_modes) {
            return Ok(());
        }
        let result = self.evaluate_anew(t, reduced);
        match result {
            Ok(()) => self.evaluated.record(t, reduced, &self.axle_modes),
            Err(_) => self.forget_evaluation(),
        }
        result
    }

    /// Evaluates the dynamics at (t, reduced state) with the current modes.
    fn evaluate_anew(&mut self, t: f64, reduced: &[f64]) -> Result<(), DynamicsError> {
        let (drives, path_velocities) = (&self.drives, &mut self.path_velocities);
        let inputs = |sticks: [Body; 2]| {
            [0, 1].map(|s| {
                let (input, point) = drives[s].input_on_path(t, &sticks[s]);
                path_velocities[s] = point.map(|p| p.vel);
                input
            })
        };
        self.dynamics
            .evaluate_with(reduced, inputs, &self.axle_modes)
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
            return Quantity::of(0, Measure::Position);
        }
        if index == layout.phi0() {
            return Quantity::of(0, Measure::StringAngle);
        }
        if index == layout.u_alpha_right() {
            return Quantity::of(n + 1, Measure::Velocity);
        }
        let find = |name, of: &dyn Fn(usize) -> usize, objects: std::ops::Range<usize>| {
            objects
                .into_iter()
                .find(|&k| of(k) == index)
                .map(|k| Quantity::of(k, name))
        };
        find(Measure::SegmentLength, &|k| layout.segment_length(k), 0..n)
            .or_else(|| find(Measure::StringAngle, &|k| layout.theta(k), 1..n + 1))
            .or_else(|| find(Measure::Spin, &|k| layout.spin(k), 1..n + 1))
            .or_else(|| find(Measure::Velocity, &|k| layout.u_alpha(k), 0..n + 1))
            .or_else(|| find(Measure::Velocity, &|k| layout.u_beta(k), 0..n + 1))
            .unwrap_or(Quantity::of_string(Measure::State))
    }

    /// The first output of the last evaluation that is not finite: the tension, an
    /// acceleration or a spin acceleration.
    pub fn non_finite_output(&self) -> Option<Quantity> {
        let dynamics = &self.dynamics;
        let n = dynamics.layout().diabolos();
        if !dynamics.tension().base_tension.is_finite() {
            return Some(Quantity::of_string(Measure::Tension));
        }
        let accelerations = dynamics.frame_accelerations();
        (0..n + 2)
            .find(|&k| !(accelerations[k].0.is_finite() && accelerations[k].1.is_finite()))
            .map(|k| Quantity::of(k, Measure::Acceleration))
            .or_else(|| {
                (1..=n)
                    .find(|&i| !dynamics.spin_rate(i).is_finite())
                    .map(|i| Quantity::of(i, Measure::SpinAcceleration))
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
        self.guards
            .write_values(&self.watch(), t, &self.positions, out);
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

    fn gap_velocities(&self, out: &mut [crate::simulation::ode::events::GapMotion]) {
        self.guards.write_gap_velocities(
            self.dynamics.kinematics(),
            &self.flight,
            self.event_time,
            &self.positions,
            out,
        );
    }
}
