//! The taut-phase derivative: state in, all rates out, in a fixed pipeline of named phases
//! (geometry -> friction -> tension -> accelerations -> spin rates), allocation-free.

use nalgebra::Vector2;
use thiserror::Error;

use super::elastic::{self, ElasticString};
use super::energy::PowerBalance;
use super::friction::{AxleMode, Axles, SlipReference};
use super::geometry::Kinematics;
use super::grip::{self, FrameInput, GripSolver, LengthLaw};
use super::params::Params;
use super::state::{Body, CartesianState, DiaboloState, ReducedLayout, StateError};
use super::tension::{self, Regularisation, StickInput, TensionSolution};

/// Why a derivative could not be evaluated.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum DynamicsError {
    /// The state itself is not a diabolo on a string.
    #[error(transparent)]
    State(#[from] StateError),
    /// Two neighbours on the string meet: segment `segment` (0 from the left stick) has shrunk to
    /// `length`, m.
    #[error("segment {segment} has length {length:.3e} m: object {segment} and object {} meet", segment + 1)]
    SegmentCollapsed {
        /// The segment's index, 0 starting at the left stick.
        segment: usize,
        /// Its length, m.
        length: f64,
    },
    /// A rate came out NaN or infinite.
    #[error("the derivative is not finite (the state is degenerate)")]
    NonFinite,
    /// The grip equations have no unique solution.
    #[error("the tension with gripping axles has no unique solution (a straight string between driven sticks)")]
    SingularGrip,
}

/// Workspace for the taut-phase dynamics of N diabolos. Build it once; [`TautDynamics::evaluate`]
/// then allocates nothing.
#[derive(Clone, Debug)]
pub struct TautDynamics {
    params: Params,
    /// The compliant string's law, if the string has a stiffness (docs/elastic.md).
    string: Option<ElasticString>,
    layout: ReducedLayout,
    regularisation: Regularisation,
    kin: Kinematics,
    axles: Axles,
    spins: Vec<f64>,
    solution: TensionSolution,
    accelerations: Vec<(f64, f64)>,
    spin_rates: Vec<f64>,
    grip: GripSolver,
    tensions: Vec<f64>,
    slip_rates: Vec<f64>,
    /// The segments across which a contact rests (docs/flight.md), in the order their contact
    /// forces are reported.
    resting: Vec<usize>,
}

impl TautDynamics {
    /// Workspace for `n` diabolos with the default [`Regularisation`] (a compliant string's
    /// layout if the parameters give the string a stiffness).
    pub fn new(params: &Params, n: usize) -> Self {
        let string = params.elastic();
        Self {
            params: *params,
            string,
            layout: if string.is_some() {
                ReducedLayout::elastic(n)
            } else {
                ReducedLayout::new(n)
            },
            regularisation: Regularisation::default(),
            kin: Kinematics::new(n),
            axles: Axles::new(n),
            spins: vec![0.0; n],
            solution: TensionSolution::default(),
            accelerations: vec![(0.0, 0.0); n + 2],
            spin_rates: vec![0.0; n],
            grip: GripSolver::new(n),
            tensions: vec![0.0; n + 1],
            slip_rates: vec![0.0; n],
            resting: Vec::new(),
        }
    }

    /// Sets the segments across which a contact rests: the objects at each one's ends are held
    /// at their distance by a contact force (see [`TautDynamics::contact_forces`]).
    pub fn set_resting(&mut self, segments: &[usize]) {
        self.resting.clear();
        self.resting.extend_from_slice(segments);
    }

    /// The segments across which a contact rests.
    pub fn resting(&self) -> &[usize] {
        &self.resting
    }

    /// lambda of each resting contact at the last evaluation, N (in the order of
    /// [`TautDynamics::resting`]).
    pub fn contact_forces(&self) -> &[f64] {
        if self.resting.is_empty() {
            &[]
        } else {
            self.grip.contact_forces()
        }
    }

    /// Sets how the stick-force solve behaves near the straight string.
    pub fn with_regularisation(mut self, regularisation: Regularisation) -> Self {
        self.regularisation = regularisation;
        self
    }

    /// The parameters the workspace was built for.
    pub fn params(&self) -> &Params {
        &self.params
    }
    /// Where each quantity lives in the reduced state vector.
    pub fn layout(&self) -> ReducedLayout {
        self.layout
    }

    /// Evaluates everything at reduced state `x` for the hands' `inputs` and the axle `modes`
    /// (one per diabolo; ignored by the tanh law).
    pub fn evaluate(
        &mut self,
        x: &[f64],
        inputs: &[StickInput; 2],
        modes: &[AxleMode],
    ) -> Result<(), DynamicsError> {
        self.evaluate_with(x, |_| *inputs, modes)
    }

    /// As [`TautDynamics::evaluate`], with the hands' inputs decided from the sticks' current
    /// states (positions and velocities of the left and right stick), as a tracking hand or a
    /// path correction needs.
    pub fn evaluate_with(
        &mut self,
        x: &[f64],
        inputs: impl FnOnce([Body; 2]) -> [StickInput; 2],
        modes: &[AxleMode],
    ) -> Result<(), DynamicsError> {
        self.layout.check(x)?;
        let n = self.layout.diabolos();
        // Phase 1: geometry and kinematic rates.
        self.kin
            .load_reduced(&self.layout, x, self.params.string_length);
        if let Some((segment, s)) = self
            .kin
            .segments()
            .iter()
            .enumerate()
            // A negative length is still a state (the collision event finds its zero); a zero
            // or non-finite one is not.
            .find(|(_, s)| s.length == 0.0 || !s.length.is_finite())
        {
            return Err(DynamicsError::SegmentCollapsed {
                segment,
                length: s.length,
            });
        }
        let inputs = &inputs(self.sticks(x));
        // Phase 2: friction (slip speeds, contact angles, tension ratios).
        for i in 1..=n {
            self.spins[i - 1] = x[self.layout.spin(i)];
        }
        self.axles.update(
            self.params.friction_law,
            self.params.friction,
            &self.kin,
            &self.spins,
            Some(modes),
            self.slip_reference(),
        );
        // Phases 3 and 4: tension and accelerations.
        let law = self.length_law();
        if modes.contains(&AxleMode::Stuck) || !self.resting.is_empty() {
            self.solve_with_grip(inputs, modes, law)?;
        } else {
            self.solution = match law {
                LengthLaw::Inextensible => tension::solve(
                    &self.params,
                    &self.kin,
                    &self.axles,
                    inputs,
                    self.regularisation,
                ),
                LengthLaw::MeanTension(mean) => tension::with_base_tension(
                    &self.params,
                    &self.kin,
                    &self.axles,
                    inputs,
                    ElasticString::base_tension(mean, &self.kin, self.axles.tension_ratios()),
                ),
            };
            tension::accelerations(
                &self.params,
                &self.kin,
                self.axles.tension_ratios(),
                &self.solution,
                &mut self.accelerations,
            );
        }
        // Phase 5: spin rates w_i' = sigma_i (T_{i-1} - T_i) / (m J) - D w_i.
        let ratios = self.axles.tension_ratios();
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        for i in 1..=n {
            let side = self.axles.contacts()[i - 1].side;
            let torque = self.solution.base_tension * (ratios[i - 1] - ratios[i]);
            self.spin_rates[i - 1] =
                side * torque / spin_mass - self.params.spin_drag * self.spins[i - 1];
        }
        if !(self.solution.base_tension.is_finite()
            && self
                .accelerations
                .iter()
                .all(|a| a.0.is_finite() && a.1.is_finite()))
        {
            return Err(DynamicsError::NonFinite);
        }
        Ok(())
    }

    /// What fixes the string's length at the loaded state: the constraint, or the compliant
    /// string's mean tension from its stretch (applied as it is: the phase ends where it
    /// reaches zero).
    fn length_law(&self) -> LengthLaw {
        match &self.string {
            None => LengthLaw::Inextensible,
            Some(string) => {
                let (stretch, rate) = elastic::stretch(&self.kin, string.length);
                LengthLaw::MeanTension(string.mean_tension(stretch, rate))
            }
        }
    }

    /// Where slip speeds are measured from: the left side, or a compliant string's material.
    fn slip_reference(&self) -> SlipReference {
        if self.string.is_some() {
            SlipReference::UniformStretch
        } else {
            SlipReference::LeftSide
        }
    }

    /// The compliant string's law, if the string has one.
    pub fn elastic_string(&self) -> Option<&ElasticString> {
        self.string.as_ref()
    }

    /// Tension and accelerations when some axles grip the string (see [`super::grip`]).
    fn solve_with_grip(
        &mut self,
        inputs: &[StickInput; 2],
        modes: &[AxleMode],
        law: LengthLaw,
    ) -> Result<(), DynamicsError> {
        let n = self.layout.diabolos();
        let params = &self.params;
        let o = self.kin.objects();
        let frames = [o[0], o[n + 1]];
        let sticks = [0, 1].map(|s| FrameInput::in_frame(inputs[s], &frames[s], params.stick_mass));
        let contacts = self.axles.contacts();
        let sides = |k: usize| contacts[k - 1].side;
        self.grip
            .solve(
                params,
                &self.kin,
                &sticks,
                self.axles.tension_ratios(),
                modes,
                &self.resting,
                &self.spins,
                sides,
                law,
            )
            .map_err(|_| DynamicsError::SingularGrip)?;
        let forces = self.grip.segment_forces();
        grip::frame_accelerations(params, &self.kin, &sticks, forces, &mut self.accelerations);
        // The sticks feel their segments' forces (a contact at a stick tip pushes it too).
        let (first, last) = (forces[0], forces[n]);
        let tensions = self.grip.tensions();
        let string_first = tensions[0];
        self.axles.set_solved_tensions(tensions);
        let ratios = self.axles.tension_ratios();
        let shape_sum = tension::shape_sum(&self.kin, ratios);
        let gear_ratio = tension::gear_ratio(shape_sum, ratios[n], params.mass_ratio());
        let g = params.gravity;
        // The hand force on an acceleration-driven stick: M a = M g + F + string pull, the pull
        // being -T beta in the stick's frame (T_0 on the left, T_N on the right).
        let normalised_forces = [(0, first), (1, last)].map(|(s, t)| match sticks[s] {
            FrameInput::Force(fa, fb) => (fa, fb),
            FrameInput::Accel(aa, ab) => (
                aa + g * frames[s].sin_phi,
                ab + g * frames[s].cos_phi + t / params.stick_mass,
            ),
        });
        let drive = string_first / (params.stick_mass * gear_ratio);
        self.solution = TensionSolution {
            shape_sum,
            gear_ratio,
            centrifugal_term: tension::centrifugal_term(&self.kin),
            drive,
            base_tension: string_first,
            normalised_forces,
            hand_forces: [0, 1].map(|s| {
                params.stick_mass
                    * frames[s].to_world(normalised_forces[s].0, normalised_forces[s].1)
            }),
            regularised: false,
        };
        Ok(())
    }

    /// Writes dX/dt of the last evaluated state into `out` (the layout's length).
    pub fn write_rates(&self, out: &mut [f64]) {
        let layout = &self.layout;
        let n = layout.diabolos();
        let o = self.kin.objects();
        if layout.is_elastic() {
            // u^b' = a^b - u^a phi' for the right stick, as for every other object.
            let beta_acceleration = self.accelerations[n + 1].1;
            out[layout.last_segment_length()] = self.kin.segments()[n].length_rate;
            out[layout.u_beta_right()] = beta_acceleration - o[n + 1].u_alpha * o[n + 1].phi_rate;
        }
        let x0_rate = o[0].velocity();
        out[0] = x0_rate.x;
        out[1] = x0_rate.y;
        for i in 0..n {
            out[layout.segment_length(i)] = self.kin.segments()[i].length_rate;
        }
        out[layout.phi0()] = o[0].phi_rate;
        for i in 1..=n {
            out[layout.theta(i)] = self.kin.theta_rate(i);
            out[layout.spin(i)] = self.spin_rates[i - 1];
        }
        for (k, &(aa, ab)) in self.accelerations.iter().enumerate() {
            // u^a' = a^a + u^b phi', u^b' = a^b - u^a phi'.
            let alpha_rate = aa + o[k].u_beta * o[k].phi_rate;
            if k <= n {
                out[layout.u_alpha(k)] = alpha_rate;
                out[layout.u_beta(k)] = ab - o[k].u_alpha * o[k].phi_rate;
            } else {
                out[layout.u_alpha_right()] = alpha_rate;
            }
        }
    }

    /// Evaluates and writes the rates in one call.
    pub fn rates(
        &mut self,
        x: &[f64],
        inputs: &[StickInput; 2],
        modes: &[AxleMode],
        out: &mut [f64],
    ) -> Result<(), DynamicsError> {
        self.evaluate(x, inputs, modes)?;
        self.write_rates(out);
        Ok(())
    }

    /// Kinematics of the last evaluated state.
    pub fn kinematics(&self) -> &Kinematics {
        &self.kin
    }
    /// Axle contacts and tension ratios of the last evaluated state.
    pub fn axles(&self) -> &Axles {
        &self.axles
    }
    /// The tension solution of the last evaluated state.
    pub fn tension(&self) -> &TensionSolution {
        &self.solution
    }
    /// T_i = T_0 d_i of segment i, N.
    pub fn segment_tension(&self, i: usize) -> f64 {
        self.solution.base_tension * self.axles.tension_ratios()[i]
    }
    /// (a^alpha, a^beta) of every object in its own frame, m/s^2.
    pub fn frame_accelerations(&self) -> &[(f64, f64)] {
        &self.accelerations
    }
    /// Acceleration of object k in x-y, m/s^2.
    pub fn acceleration(&self, k: usize) -> Vector2<f64> {
        let (aa, ab) = self.accelerations[k];
        self.kin.objects()[k].to_world(aa, ab)
    }
    /// w_i' of diabolo i (1..=N), m/s^2.
    pub fn spin_rate(&self, i: usize) -> f64 {
        self.spin_rates[i - 1]
    }
    /// Spin w_i of diabolo i (1..=N), m/s.
    pub fn spin(&self, i: usize) -> f64 {
        self.spins[i - 1]
    }

    /// d(w'_k)/dt of every axle at the last evaluated state (index k - 1), m/s^2: zero at a
    /// gripping axle; its sign decides grip by the Filippov rule where a slip reaches zero.
    pub fn slip_accelerations(&mut self) -> &[f64] {
        let n = self.layout.diabolos();
        for j in 0..=n {
            self.tensions[j] = self.segment_tension(j);
        }
        let contacts = self.axles.contacts();
        grip::slip_accelerations(
            &self.params,
            &self.kin,
            &self.accelerations,
            &self.tensions,
            &self.spins,
            |k| contacts[k - 1].side,
            self.length_law(),
            &mut self.slip_rates,
        );
        &self.slip_rates
    }

    /// Left and right stick (position, velocity) of the last loaded state `x`.
    pub fn sticks(&self, x: &[f64]) -> [Body; 2] {
        let o = self.kin.objects();
        let left = Vector2::new(x[0], x[1]);
        let n = self.layout.diabolos();
        [
            Body {
                pos: left,
                vel: o[0].velocity(),
            },
            Body {
                pos: left + self.kin.span(),
                vel: o[n + 1].velocity(),
            },
        ]
    }

    /// The Cartesian state of the last evaluated state.
    pub fn cartesian(&self, x: &[f64]) -> CartesianState {
        let mut state = CartesianState::default();
        self.cartesian_into(x, &mut state);
        state
    }

    /// [`TautDynamics::cartesian`] into `out`, reusing its storage.
    pub fn cartesian_into(&self, x: &[f64], out: &mut CartesianState) {
        let n = self.layout.diabolos();
        out.diabolos.resize(n, DiaboloState::default());
        self.kin
            .write_cartesian(Vector2::new(x[0], x[1]), |i| self.spins[i - 1], out);
    }

    /// The power terms of the energy balance at the last evaluated state:
    /// dE/dt = hand_power - friction_dissipation - drag_loss.
    pub fn power_balance(&self) -> PowerBalance {
        let n = self.layout.diabolos();
        let o = self.kin.objects();
        let hand_power = self.solution.hand_forces[0].dot(&o[0].velocity())
            + self.solution.hand_forces[1].dot(&o[n + 1].velocity());
        let ratios = self.axles.tension_ratios();
        let friction_dissipation = (1..=n)
            .map(|i| {
                self.solution.base_tension
                    * (ratios[i] - ratios[i - 1])
                    * self.axles.contacts()[i - 1].slip_speed
            })
            .sum();
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        let drag_loss = self
            .spins
            .iter()
            .map(|w| spin_mass * self.params.spin_drag * w * w)
            .sum();
        let string_loss = self.string.map(|string| {
            let (stretch, rate) = elastic::stretch(&self.kin, string.length);
            string.loss_rate(stretch, rate, string.mean_tension(stretch, rate))
        });
        PowerBalance {
            hand_power,
            friction_dissipation,
            drag_loss,
            string_loss,
        }
    }
}
