//! The taut string's tensions in space: the planar rotating-frame solution in vector form
//! (docs/space.md, "Tension in vector form").
//!
//! Every object j has the acceleration a_j = a0_j + mu_j (T_j u_j - T_{j-1} u_{j-1}) (the string
//! pulls each end of a segment toward the other; T_{-1} = T_{N+1} = 0), with mu_j its inverse
//! mass (0 for a stick whose acceleration is prescribed) and a0_j what it has without the
//! string (gravity, the hand). Then l_i'' = b_i + sum_k A_ik T_k is linear in the tensions, with
//! b_i = u_i . (a0_{i+1} - a0_i) + q_i and the symmetric tridiagonal
//! A_ii = -(mu_i + mu_{i+1}), A_{i,i+1} = mu_{i+1} cos beta_{i+1}, A_{i,i-1} = mu_i cos beta_i.
//! The unknowns T_0..T_N solve one row for the taut string (sum l_i'' = 0) and one per axle:
//! T_K = d'_K T_{K-1} with d'_K = exp(c'_K theta'_K) where it slips, the slip acceleration zero
//! where it grips. With every axle slipping T_K = d_K T_0 and the constraint row gives
//! T_0 = M G P: the gear ratio G = 2 / (M k_T), k_T = -sum_k (sum_i A_ik) d_k, and
//! P = (1/2) sum_i b_i = (F^_0^b + F^_{N+1}^b) / 2 + F_C, the planar formulas' vector form.

use nalgebra::Vector3;

use super::params::SpaceParams;
use super::state::SpaceState;
use super::string::SpaceString;
use crate::model::friction::{effective_friction, AxleMode, SlipDirection};
use crate::model::grip::{solve_dense, LengthLaw};
use crate::model::params::{FrictionLaw, ParamValues};
use crate::model::StickInput;

/// Where the slip speed is measured from (docs/model.md, "Friction and spin").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceSlipReference {
    /// w'_K = w_K - sum_{j<K} l_j': the taut string's definition.
    LeftSide,
    /// w'_K = w_K - (sum_{j<K} l_j' - sum_{j>=K} l_j') / 2: for the tensing impulse.
    Symmetric,
    /// w'_K = w_K - sum_{j<K} l_j' + rho_K L': against the material of a compliant string
    /// stretched evenly (rho_K the share of the string's length left of axle K, docs/elastic.md).
    UniformStretch,
}

/// rho_K = sum_{j<K} l_j / sum l: the share of the string's length left of axle K, and its rate
/// rho_K' = (sum_{j<K} l_j' - rho_K L') / sum l (1/s).
pub fn stretch_share(string: &SpaceString, k: usize) -> (f64, f64) {
    let segments = string.segments();
    let used = string.total_length();
    let left: f64 = segments[..k].iter().map(|s| s.length).sum();
    let share = left / used;
    (
        share,
        (string.feed(k) - share * string.total_length_rate()) / used,
    )
}

/// The tension solve failed: the string's equations are singular at this state (a gripping
/// chain with no tension to spare, or objects on one line with both sticks prescribed).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("the taut string's tension equations are singular here (objects on one line, or gripping axles that fix every tension)")]
pub struct SingularTension;

/// The friction state of one axle at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpaceAxleContact {
    /// theta': contact angle, rad.
    pub contact_angle: f64,
    /// w': slip speed of the axle surface against the string, m/s.
    pub slip_speed: f64,
    /// c': effective friction coefficient (0 at a gripping axle).
    pub effective_friction: f64,
}

/// mu_j: the inverse mass of object j of N diabolos (1 / M for a stick, 0 for a prescribed one,
/// `prescribed` left and right; 1 / m for a diabolo), 1/kg.
pub fn inverse_mass(p: &ParamValues, prescribed: [bool; 2], n: usize, j: usize) -> f64 {
    if j == 0 || j == n + 1 {
        if prescribed[usize::from(j != 0)] {
            0.0
        } else {
            1.0 / p.stick_mass
        }
    } else {
        1.0 / p.diabolo_mass
    }
}

/// A_ik: the change of l_i'' per newton of segment k's tension (of l_i' per N s of its
/// impulse), with the inverse masses `mu`: -(mu_i + mu_{i+1}) on the diagonal,
/// mu_{i+1} cos beta_{i+1} and mu_i cos beta_i beside it, 0 elsewhere.
pub fn chain_coefficient(
    mu: impl Fn(usize) -> f64,
    string: &SpaceString,
    i: usize,
    k: usize,
) -> f64 {
    if k == i {
        -(mu(i) + mu(i + 1))
    } else if k == i + 1 {
        mu(i + 1) * string.turning_cosine(i + 1)
    } else if k + 1 == i {
        mu(i) * string.turning_cosine(i)
    } else {
        0.0
    }
}

/// k_T = -sum_k (sum_i A_ik) d_k: how fast the string's length accelerates back per newton of
/// T_0 with the ratios d (1/kg; > 0 for a string that can hold tension).
pub fn chain_stiffness(
    mu: impl Fn(usize) -> f64 + Copy,
    string: &SpaceString,
    ratios: &[f64],
) -> f64 {
    let size = ratios.len();
    -(0..size)
        .map(|k| {
            let column: f64 = (k.saturating_sub(1)..(k + 2).min(size))
                .map(|i| chain_coefficient(mu, string, i, k))
                .sum();
            column * ratios[k]
        })
        .sum::<f64>()
}

/// The rows of the tension solve written in the segments' forces F_k = T_k - lambda_k: a
/// coefficient of F_k goes to T_k and, with the opposite sign, to the force of each contact
/// resting across segment k.
struct ForceRows<'a> {
    matrix: &'a mut [f64],
    width: usize,
    resting: &'a [usize],
}

impl ForceRows<'_> {
    /// Adds `coefficient` F_k to row `row`.
    fn add(&mut self, row: usize, k: usize, coefficient: f64) {
        let at = row * self.width;
        self.matrix[at + k] += coefficient;
        let size = self.width - self.resting.len();
        for (c, &s) in self.resting.iter().enumerate() {
            if s == k {
                self.matrix[at + size + c] -= coefficient;
            }
        }
    }
}

/// Tensions, accelerations and spin rates of the taut string in space, in preallocated buffers.
#[derive(Clone, Debug)]
pub struct SpaceTension {
    n: usize,
    matrix: Vec<f64>,
    tensions: Vec<f64>,
    /// sum_i A_ik: the constraint row's coefficient of T_k.
    column_sums: Vec<f64>,
    /// b_i: the part of l_i'' without the string (the objects' free accelerations and the
    /// segments' turning), m/s^2.
    free_rates: Vec<f64>,
    base: Vec<Vector3<f64>>,
    inverse_mass: Vec<f64>,
    accelerations: Vec<Vector3<f64>>,
    contacts: Vec<SpaceAxleContact>,
    ratios: Vec<f64>,
    spin_rates: Vec<f64>,
    hand_forces: [Vector3<f64>; 2],
    /// Where the last solve measured the slip speeds from.
    reference: SpaceSlipReference,
    /// The segments across which a contact rests (docs/space.md, "Resting contact").
    resting: Vec<usize>,
}

impl SpaceTension {
    /// Buffers for N diabolos.
    pub fn new(diabolos: usize) -> Self {
        let n = diabolos;
        Self {
            n,
            matrix: vec![0.0; (n + 1) * (n + 1)],
            tensions: vec![0.0; n + 1],
            column_sums: vec![0.0; n + 1],
            free_rates: vec![0.0; n + 1],
            base: vec![Vector3::zeros(); n + 2],
            inverse_mass: vec![0.0; n + 2],
            accelerations: vec![Vector3::zeros(); n + 2],
            contacts: vec![SpaceAxleContact::default(); n],
            ratios: vec![1.0; n + 1],
            spin_rates: vec![0.0; n],
            hand_forces: [Vector3::zeros(); 2],
            reference: SpaceSlipReference::LeftSide,
            resting: Vec::new(),
        }
    }

    /// Holds a contact resting across each segment of `segments` (0..=N; its two objects kept
    /// at their distance by a force lambda >= 0 along the segment, one more unknown of the
    /// solve with the equation l_s'' = 0). Sizes the buffers: call it at an event, not per step.
    pub fn set_resting(&mut self, segments: &[usize]) {
        self.resting.clear();
        self.resting.extend_from_slice(segments);
        let size = self.n + 1 + segments.len();
        self.matrix.resize(size * size, 0.0);
        self.tensions.resize(size, 0.0);
    }

    /// The segments across which a contact rests.
    pub fn resting(&self) -> &[usize] {
        &self.resting
    }

    /// lambda: the force of each resting contact (in the order of [`SpaceTension::resting`]) of
    /// the last solve, N (positive while it pushes the pair apart).
    pub fn contact_forces(&self) -> &[f64] {
        &self.tensions[self.n + 1..]
    }

    /// lambda_s: the force of the contact resting across segment s at the last solve, N (0 where
    /// none rests).
    pub fn contact_force_across(&self, s: usize) -> f64 {
        self.resting
            .iter()
            .position(|&r| r == s)
            .map_or(0.0, |c| self.tensions[self.n + 1 + c])
    }

    /// F_s = T_s - lambda_s: what segment s pulls its two objects together with, N (the string's
    /// tension less the force of a contact resting across it).
    pub fn segment_force(&self, s: usize) -> f64 {
        self.tensions[s] - self.contact_force_across(s)
    }

    /// Slip speeds and contact angles of every axle (no tension solve): what the Filippov rule
    /// and the guards read.
    pub fn update_contacts(
        &mut self,
        params: &SpaceParams,
        state: &SpaceState,
        string: &SpaceString,
        modes: Option<&[AxleMode]>,
        reference: SpaceSlipReference,
    ) {
        self.reference = reference;
        let p = params.planar.values();
        let rate = string.total_length_rate();
        for k in 1..=self.n {
            let d = &state.diabolos[k - 1];
            let shift = match reference {
                SpaceSlipReference::LeftSide => 0.0,
                SpaceSlipReference::Symmetric => 0.5 * rate,
                SpaceSlipReference::UniformStretch => stretch_share(string, k).0 * rate,
            };
            let slip_speed = d.spin - string.feed(k) + shift;
            let mode = modes.map_or_else(|| AxleMode::from_slip(slip_speed), |m| m[k - 1]);
            self.contacts[k - 1] = SpaceAxleContact {
                contact_angle: string.contact_angle(k, d.knot, &d.axle),
                slip_speed,
                effective_friction: effective_friction(
                    p.friction_law,
                    p.friction,
                    slip_speed,
                    mode,
                ),
            };
        }
        let mut log_ratio = 0.0;
        for k in 1..=self.n {
            let c = self.contacts[k - 1];
            log_ratio += c.effective_friction * c.contact_angle;
            self.ratios[k] = log_ratio.exp();
        }
    }

    /// Solves the tensions T_0..T_N, the objects' accelerations, the spin rates and the hand
    /// forces for the pulling string at `state`, with the axles in `modes` (`None`: each slips
    /// the way its slip speed points) and the string's length held by `law`: the inextensible
    /// string's sum l_i'' = 0, or a compliant string's mean tension sum T_i l_i / sum l (its slip
    /// speeds then measured against its evenly stretched material). `string` must hold
    /// `state`'s geometry.
    pub fn solve(
        &mut self,
        params: &SpaceParams,
        state: &SpaceState,
        string: &SpaceString,
        inputs: &[StickInput<3>; 2],
        modes: Option<&[AxleMode]>,
        law: LengthLaw,
    ) -> Result<(), SingularTension> {
        let reference = match law {
            LengthLaw::Inextensible => SpaceSlipReference::LeftSide,
            LengthLaw::MeanTension(_) => SpaceSlipReference::UniformStretch,
        };
        self.update_contacts(params, state, string, modes, reference);
        self.fill_free_motion(params, inputs);
        let n = self.n;
        let size = n + 1;
        let width = size + self.resting.len();
        let segments = string.segments();
        // b_i, the part of l_i'' without the string, and A_ik (tridiagonal), accumulated into
        // the rows.
        for (i, rate) in self.free_rates.iter_mut().enumerate() {
            *rate = segments[i]
                .direction
                .dot(&(self.base[i + 1] - self.base[i]))
                + segments[i].transverse;
        }
        let inverse_mass = &self.inverse_mass;
        let coefficient = |i: usize, k: usize| chain_coefficient(|j| inverse_mass[j], string, i, k);
        let band = |i: usize| i.saturating_sub(1)..(i + 2).min(size);
        self.matrix.iter_mut().for_each(|x| *x = 0.0);
        self.column_sums.iter_mut().for_each(|x| *x = 0.0);
        for i in 0..size {
            for k in band(i) {
                self.column_sums[k] += coefficient(i, k);
            }
        }
        let total_free: f64 = self.free_rates.iter().sum();
        let mut rows = ForceRows {
            matrix: &mut self.matrix,
            width,
            resting: &self.resting,
        };
        match law {
            // The constraint row sum_i l_i'' = 0: sum_k (sum_i A_ik) F_k = -sum_i b_i.
            LengthLaw::Inextensible => {
                for (k, &sum) in self.column_sums.iter().enumerate() {
                    rows.add(0, k, sum);
                }
                self.tensions[0] = -total_free;
            }
            // The compliant string's row: sum_k l_k T_k = T_mean sum l.
            LengthLaw::MeanTension(mean) => {
                for (k, segment) in segments.iter().enumerate() {
                    rows.matrix[k] = segment.length;
                }
                self.tensions[0] = mean * string.total_length();
            }
        }
        let p = params.planar.values();
        let spin_mass = p.diabolo_mass * p.spin_inertia;
        let mut free_feed = 0.0;
        for k in 1..=n {
            free_feed += self.free_rates[k - 1];
            let stuck = modes.is_some_and(|m| m[k - 1] == AxleMode::Stuck);
            let row = k * width;
            if stuck {
                // (T_{K-1} - T_K) / (m J) - D w_K - sum_{j<K} l_j'' (+ rho_K L'' + rho_K' L' on
                // a compliant string) = 0, with l_j'' = b_j + sum_k A_jk F_k.
                rows.matrix[row + k - 1] += 1.0 / spin_mass;
                rows.matrix[row + k] -= 1.0 / spin_mass;
                for j in 0..k {
                    for col in band(j) {
                        rows.add(k, col, -coefficient(j, col));
                    }
                }
                self.tensions[k] = p.spin_drag * state.diabolos[k - 1].spin + free_feed;
                if let LengthLaw::MeanTension(_) = law {
                    let (share, share_rate) = stretch_share(string, k);
                    for (col, &sum) in self.column_sums.iter().enumerate() {
                        rows.add(k, col, share * sum);
                    }
                    self.tensions[k] -=
                        share * total_free + share_rate * string.total_length_rate();
                }
            } else {
                let c = self.contacts[k - 1];
                rows.matrix[row + k] = 1.0;
                rows.matrix[row + k - 1] = -(c.effective_friction * c.contact_angle).exp();
                self.tensions[k] = 0.0;
            }
        }
        // Each resting contact's row: l_s'' = b_s + sum_k A_sk F_k = 0.
        for (c, &s) in self.resting.iter().enumerate() {
            for k in band(s) {
                rows.add(size + c, k, coefficient(s, k));
            }
            self.tensions[size + c] = -self.free_rates[s];
        }
        let slipping = modes.is_none_or(|m| m.iter().all(|&x| x != AxleMode::Stuck));
        if (n == 0 || slipping) && self.resting.is_empty() {
            // Every axle slips: T_K = d_K T_0, one division.
            let t0 = match law {
                LengthLaw::Inextensible => {
                    let k_t = -self.string_stiffness_factor();
                    if k_t.is_nan() || k_t == 0.0 {
                        return Err(SingularTension);
                    }
                    total_free / k_t
                }
                LengthLaw::MeanTension(mean) => {
                    let weighted: f64 = segments
                        .iter()
                        .zip(&self.ratios)
                        .map(|(s, d)| d * s.length)
                        .sum();
                    mean * string.total_length() / weighted
                }
            };
            for k in 0..size {
                self.tensions[k] = self.ratios[k] * t0;
            }
        } else {
            solve_dense(&mut self.matrix, &mut self.tensions, width)
                .map_err(|_| SingularTension)?;
        }
        self.fill_accelerations(params, state, string);
        Ok(())
    }

    /// k_T / -1: sum_k (sum_i A_ik) d_k (negative for a string that can hold tension).
    fn string_stiffness_factor(&self) -> f64 {
        self.column_sums
            .iter()
            .zip(&self.ratios)
            .map(|(a, d)| a * d)
            .sum()
    }

    /// a0_j and mu_j from the inputs.
    fn fill_free_motion(&mut self, params: &SpaceParams, inputs: &[StickInput<3>; 2]) {
        let p = params.planar.values();
        let gravity = Vector3::new(0.0, -p.gravity, 0.0);
        let last = self.n + 1;
        // A prescribed acceleration is an infinitely heavy stick (inverse_mass's mu = 0).
        for (side, input) in inputs.iter().enumerate() {
            let j = if side == 0 { 0 } else { last };
            (self.base[j], self.inverse_mass[j]) = match input {
                StickInput::Accel(a) => (*a, 0.0),
                StickInput::Force(f) => (f / p.stick_mass + gravity, 1.0 / p.stick_mass),
            };
        }
        for j in 1..last {
            self.base[j] = gravity;
            self.inverse_mass[j] = 1.0 / p.diabolo_mass;
        }
    }

    /// Accelerations, spin rates and hand forces from the solved tensions.
    fn fill_accelerations(
        &mut self,
        params: &SpaceParams,
        state: &SpaceState,
        string: &SpaceString,
    ) {
        let p = params.planar.values();
        let segments = string.segments();
        let last = self.n + 1;
        for j in 0..=last {
            let right = if j < last {
                self.segment_force(j) * segments[j].direction
            } else {
                Vector3::zeros()
            };
            let left = if j > 0 {
                self.segment_force(j - 1) * segments[j - 1].direction
            } else {
                Vector3::zeros()
            };
            self.accelerations[j] = self.base[j] + self.inverse_mass[j] * (right - left);
        }
        let gravity = Vector3::new(0.0, -p.gravity, 0.0);
        self.hand_forces[0] = p.stick_mass * (self.accelerations[0] - gravity)
            - self.segment_force(0) * segments[0].direction;
        self.hand_forces[1] = p.stick_mass * (self.accelerations[last] - gravity)
            + self.segment_force(self.n) * segments[self.n].direction;
        let spin_mass = p.diabolo_mass * p.spin_inertia;
        for k in 1..=self.n {
            self.spin_rates[k - 1] = (self.tensions[k - 1] - self.tensions[k]) / spin_mass
                - p.spin_drag * state.diabolos[k - 1].spin;
        }
    }

    /// T_0..T_N, N.
    pub fn tensions(&self) -> &[f64] {
        &self.tensions[..=self.n]
    }

    /// a_j: the acceleration of object j (0 the left stick, N + 1 the right), m/s^2.
    pub fn acceleration(&self, j: usize) -> Vector3<f64> {
        self.accelerations[j]
    }

    /// w_K': the spin rate of diabolo K (1..N), m/s^2.
    pub fn spin_rate(&self, k: usize) -> f64 {
        self.spin_rates[k - 1]
    }

    /// The friction state of axle K (1..N).
    pub fn contact(&self, k: usize) -> SpaceAxleContact {
        self.contacts[k - 1]
    }

    /// d_0..d_N: the tension ratios of the slipping axles (d_0 = 1).
    pub fn ratios(&self) -> &[f64] {
        &self.ratios
    }

    /// The hands' forces on the sticks (left, right), N: M (a - g) less the string's pull.
    pub fn hand_forces(&self) -> [Vector3<f64>; 2] {
        self.hand_forces
    }

    /// G = 2 / (M k_T): the gear ratio of the last solve's slipping axles, the planar model's
    /// G in the plane (with the scenario's stick mass M even for a prescribed stick, as there).
    pub fn gear_ratio(&self, params: &SpaceParams, string: &SpaceString) -> f64 {
        let p = params.planar.values();
        // k_T with both sticks of mass M (the planar G's definition).
        let mu = |j| inverse_mass(p, [false; 2], self.n, j);
        2.0 / (p.stick_mass * chain_stiffness(mu, string, &self.ratios))
    }

    /// Friction dissipation sum_K (T_K - T_{K-1}) w'_K, W (>= 0 for a law that never adds
    /// energy).
    pub fn friction_dissipation(&self) -> f64 {
        (1..=self.n)
            .map(|k| (self.tensions[k] - self.tensions[k - 1]) * self.contacts[k - 1].slip_speed)
            .sum()
    }

    /// The slip acceleration d(w'_K)/dt at axle K (1..N) after the last solve, m/s^2.
    pub fn slip_acceleration(&self, k: usize, string: &SpaceString) -> f64 {
        let segments = string.segments();
        let length_acceleration = |i: usize| {
            let dv = self.accelerations[i + 1] - self.accelerations[i];
            segments[i].direction.dot(&dv) + segments[i].transverse
        };
        let feed_rate: f64 = (0..k).map(length_acceleration).sum();
        let material = match self.reference {
            SpaceSlipReference::UniformStretch => {
                let (share, share_rate) = stretch_share(string, k);
                let total: f64 = (0..segments.len()).map(length_acceleration).sum();
                share * total + share_rate * string.total_length_rate()
            }
            _ => 0.0,
        };
        self.spin_rates[k - 1] - feed_rate + material
    }

    /// The friction coefficient a gripping axle K needs, |ln(T_K / T_{K-1})| / theta', and the
    /// bound of its law toward that side (c, or 0 on a bearing's free side): it unsticks where
    /// the need reaches the bound.
    pub fn grip_margin(&self, k: usize, law: FrictionLaw, c: f64) -> f64 {
        let angle = self.contacts[k - 1].contact_angle;
        let ratio = self.tensions[k] / self.tensions[k - 1];
        if angle.is_nan() || angle <= 0.0 || ratio.is_nan() || ratio <= 0.0 {
            return -1.0;
        }
        let log = ratio.ln();
        let bound = match (law, log > 0.0) {
            (FrictionLaw::Bearing, true) => 0.0,
            _ => c * angle,
        };
        bound - log.abs()
    }

    /// The direction an axle starts slipping in when its grip gives way (the side whose bound
    /// the need reached).
    pub fn breaking_direction(&self, k: usize) -> SlipDirection {
        if self.tensions[k] > self.tensions[k - 1] {
            SlipDirection::Positive
        } else {
            SlipDirection::Negative
        }
    }
}
