//! Segment tensions when one or more axles grip the string (docs/model.md, "Friction and spin").
//!
//! A gripping (stuck) axle holds its slip speed at zero: its tension ratio T_k / T_{k-1} is no
//! longer the capstan exponential but an unknown, solved together with the tension from
//! L'' = 0 and d(w'_k)/dt = 0. Everything is linear in the segment tensions T_0..T_N:
//! slipping axles chain them (T_k = r_k T_{k-1}), so the tensions fall into blocks that start at
//! segment 0 and at each gripping axle, T_j = tau_b rho_j, and the unknown block scales tau_b
//! solve a (1 + s)-square system for s gripping axles.
//!
//! The accelerations from given tensions are Newton's law in each object's frame:
//! diabolo a_i = ((T_i - T_{i-1}) cos psi_i, (T_i + T_{i-1}) sin psi_i) / m - g (sin phi_i, cos phi_i);
//! a force-driven stick a^b = F^b - T/M - g cos phi (T = T_0 left, T_N right); an
//! acceleration-driven stick has its given acceleration. The slip acceleration of axle k is
//! d(w'_k)/dt = (T_{k-1} - T_k)/(m J) - sigma_k D w_k - sum_{j<k} l_j'', with
//! sum_{j<k} l_j'' = a_k^a cos psi_k - a_k^b sin psi_k + a_0^b - 2 sum_{0<j<k} a_j^b sin psi_j
//! + sum_{j<k} l_j omega_j^2.

use super::elastic::stretch_share;
use super::friction::AxleMode;
use super::geometry::Kinematics;
use super::params::{FrictionLaw, Params};

/// How far a gripping axle is from slipping: two margins that reach 0 at the capstan bounds
/// (docs/model.md: it unsticks when the ratio needed reaches exp(+-c theta'), the bearing's upper
/// bound being 1), the upper one when the string would slip positive (T_k / T_{k-1} too large),
/// the lower one when it would slip negative.
///
/// `base_tension` is T_0 and `before`, `after` are the ratios d_{k-1}, d_k of the axle's two
/// segments (T_j = T_0 d_j). While both tensions are positive the margins are the log form
/// c theta' -+ ln(d_k / d_{k-1}). The grip solve lets a tension of a gripping axle pass through
/// zero inside one step (the string loosening, or a bound so wide that exp(-c theta') is near 0),
/// and there the logarithm is undefined (NaN at a step's end stopped the run). There the
/// margins take the tension form T_{k-1} - exp(-c theta') T_k (bearing: T_{k-1} - T_k) and
/// T_k - exp(-c theta') T_{k-1}, in N: finite, and of the same sign as the log form wherever both
/// are defined, so each margin changes sign exactly once, at its bound, and the event is located
/// there. Only exp(-c theta') <= 1 enters, so no factor overflows.
pub fn grip_margins(
    law: FrictionLaw,
    friction: f64,
    contact_angle: f64,
    base_tension: f64,
    before: f64,
    after: f64,
) -> (f64, f64) {
    let bound = friction * contact_angle;
    let (tension_before, tension_after) = (base_tension * before, base_tension * after);
    if tension_before > 0.0 && tension_after > 0.0 {
        let log_ratio = (after / before).ln();
        let upper = if law == FrictionLaw::Bearing {
            0.0
        } else {
            bound
        };
        return (upper - log_ratio, log_ratio + bound);
    }
    let shrink = (-bound).exp();
    let upper = if law == FrictionLaw::Bearing {
        tension_before - tension_after
    } else {
        tension_before - shrink * tension_after
    };
    (upper, tension_after - shrink * tension_before)
}

/// What fixes the string's length in the tension solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthLaw {
    /// The inextensible string: L'' = 0, slip speeds from the left side.
    Inextensible,
    /// A compliant string (docs/elastic.md): its mean tension sum T_j l_j / sum l is this value,
    /// N, and slip speeds are measured against its evenly stretched material.
    MeanTension(f64),
}

/// A stick input resolved in the stick's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameInput {
    /// Normalised hand force (F^a, F^b) = F / M.
    Force(f64, f64),
    /// Prescribed acceleration (a^a, a^b).
    Accel(f64, f64),
}

/// Frame accelerations (a^alpha, a^beta) of all objects for segment tensions `tensions`.
pub fn frame_accelerations(
    params: &Params,
    kin: &Kinematics,
    sticks: &[FrameInput; 2],
    tensions: &[f64],
    out: &mut [(f64, f64)],
) {
    let n = kin.diabolos();
    let o = kin.objects();
    let g = params.gravity;
    for (s, k, t) in [(0, 0, tensions[0]), (1, n + 1, tensions[n])] {
        out[k] = match sticks[s] {
            FrameInput::Force(fa, fb) => (
                fa - g * o[k].sin_phi,
                fb - t / params.stick_mass - g * o[k].cos_phi,
            ),
            FrameInput::Accel(aa, ab) => (aa, ab),
        };
    }
    let m = params.diabolo_mass;
    for i in 1..=n {
        out[i] = (
            (tensions[i] - tensions[i - 1]) * o[i].cos_psi / m - g * o[i].sin_phi,
            (tensions[i] + tensions[i - 1]) * o[i].sin_psi / m - g * o[i].cos_phi,
        );
    }
}

/// L'' for frame accelerations `acc` (note section 2-1).
pub fn length_acceleration(kin: &Kinematics, acc: &[(f64, f64)]) -> f64 {
    let n = kin.diabolos();
    let o = kin.objects();
    let velocity_terms = o[0].u_alpha * o[0].phi_rate + o[n + 1].u_alpha * o[n + 1].phi_rate;
    let diabolos: f64 = (1..=n)
        .map(|i| {
            acc[i].1 * o[i].sin_psi - o[i].u_alpha * o[i].phi_rate * o[i].sin_psi
                + o[i].u_beta * 0.5 * kin.theta_rate(i) * o[i].cos_psi
        })
        .sum();
    acc[0].1 + acc[n + 1].1 - velocity_terms - 2.0 * diabolos
}

/// d(w'_k)/dt of every axle (k = 1..N into `out[k - 1]`), for frame accelerations `acc`,
/// segment tensions `tensions`, spins `spins` and sides `sides` (sigma_k). On a compliant
/// string the slip's reference rho_k L' adds rho_k' L' + rho_k L''.
#[allow(clippy::too_many_arguments)]
pub fn slip_accelerations(
    params: &Params,
    kin: &Kinematics,
    acc: &[(f64, f64)],
    tensions: &[f64],
    spins: &[f64],
    sides: impl Fn(usize) -> f64,
    law: LengthLaw,
    out: &mut [f64],
) {
    let n = kin.diabolos();
    let o = kin.objects();
    let spin_mass = params.diabolo_mass * params.spin_inertia;
    // Running part of sum_{j<k} l_j'': a_0^b - 2 sum_{0<j<k} a_j^b sin psi_j + sum_{j<k} l_j omega_j^2.
    let mut running = acc[0].1;
    for k in 1..=n {
        let s = &kin.segments()[k - 1];
        running += s.length * s.angular_rate * s.angular_rate;
        let feed = acc[k].0 * o[k].cos_psi - acc[k].1 * o[k].sin_psi + running;
        let side = sides(k);
        out[k - 1] = (tensions[k - 1] - tensions[k]) / spin_mass
            - side * params.spin_drag * spins[k - 1]
            - feed;
        running -= 2.0 * acc[k].1 * o[k].sin_psi;
    }
    if let LengthLaw::MeanTension(_) = law {
        let (rate, acceleration) = (kin.total_length_rate(), length_acceleration(kin, acc));
        for (k, slip) in out.iter_mut().enumerate().take(n) {
            let (share, share_rate) = stretch_share(kin, k + 1);
            *slip += share_rate * rate + share * acceleration;
        }
    }
}

/// l_s'' of segment s for frame accelerations `acc`, m/s^2: e_s . (a_{s+1} - a_s) + l_s omega_s^2.
pub fn segment_acceleration(kin: &Kinematics, acc: &[(f64, f64)], s: usize) -> f64 {
    let o = kin.objects();
    let world = |k: usize| o[k].to_world(acc[k].0, acc[k].1);
    let segment = &kin.segments()[s];
    kin.segment_direction(s).dot(&(world(s + 1) - world(s)))
        + segment.length * segment.angular_rate * segment.angular_rate
}

/// Workspace for the tension solve with gripping axles and resting contacts (allocated once,
/// for N diabolos).
///
/// A resting contact between the two objects of segment s (docs/flight.md, "Resting contact")
/// holds l_s at the contact distance with a contact force lambda_s >= 0 pushing them apart
/// along e_s, against the string's pull T_s: the objects feel the segment force T_s - lambda_s,
/// the axles' friction the string's tensions. lambda_s is one more unknown, with l_s'' = 0 its
/// equation; everything stays linear.
#[derive(Clone, Debug)]
pub struct GripSolver {
    /// rho_j: tension of segment j relative to its block's first segment.
    relative: Vec<f64>,
    /// Block index of each segment.
    block: Vec<usize>,
    /// Axle index (1..=N) at which each block after the first starts.
    starts: Vec<usize>,
    tensions: Vec<f64>,
    matrix: Vec<f64>,
    rhs: Vec<f64>,
    base: Vec<f64>,
    acc: Vec<(f64, f64)>,
    slips: Vec<f64>,
    /// The segment forces T_j - lambda_j the objects feel, N.
    forces: Vec<f64>,
    /// lambda_s of each resting segment (in the order given), N.
    contact_forces: Vec<f64>,
}

/// The grip system has no unique solution (a straight string between driven sticks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingularGrip;

impl GripSolver {
    /// A solver for a string carrying `n` diabolos (its workspace allocated once).
    pub fn new(n: usize) -> Self {
        Self {
            relative: vec![1.0; n + 1],
            block: vec![0; n + 1],
            starts: Vec::with_capacity(n),
            tensions: vec![0.0; n + 1],
            matrix: vec![0.0; (n + 1) * (n + 1)],
            rhs: vec![0.0; n + 1],
            base: vec![0.0; n + 1],
            acc: vec![(0.0, 0.0); n + 2],
            slips: vec![0.0; n],
            forces: vec![0.0; n + 1],
            contact_forces: Vec::with_capacity(n + 1),
        }
    }

    /// The segment tensions T_j of the last solve, N.
    pub fn tensions(&self) -> &[f64] {
        &self.tensions
    }

    /// The segment forces T_j - lambda_j of the last solve, N (the tensions where no contact
    /// rests).
    pub fn segment_forces(&self) -> &[f64] {
        &self.forces
    }

    /// lambda_s of each resting segment of the last solve, N.
    pub fn contact_forces(&self) -> &[f64] {
        &self.contact_forces
    }

    /// Segment tensions T_0..T_N with the axles in `modes` gripping where `Stuck`, the others
    /// carrying the capstan ratios `ratios` (`ratios[k] / ratios[k-1]` across slipping axle k),
    /// and a contact resting across each segment of `resting` (its force in
    /// [`GripSolver::contact_forces`], the objects' segment forces in
    /// [`GripSolver::segment_forces`]).
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        params: &Params,
        kin: &Kinematics,
        sticks: &[FrameInput; 2],
        ratios: &[f64],
        modes: &[AxleMode],
        resting: &[usize],
        spins: &[f64],
        sides: impl Fn(usize) -> f64 + Copy,
        law: LengthLaw,
    ) -> Result<&[f64], SingularGrip> {
        let n = kin.diabolos();
        self.starts.clear();
        self.block[0] = 0;
        self.relative[0] = 1.0;
        for k in 1..=n {
            if modes[k - 1] == AxleMode::Stuck {
                self.starts.push(k);
                self.relative[k] = 1.0;
            } else {
                self.relative[k] = self.relative[k - 1] * ratios[k] / ratios[k - 1];
            }
            self.block[k] = self.starts.len();
        }
        let blocks = 1 + self.starts.len();
        let size = blocks + resting.len();
        if self.matrix.len() < size * size {
            // Resting contacts add unknowns beyond the grip workspace (at an event, not per
            // step: the contacts are set at events).
            self.matrix.resize(size * size, 0.0);
            self.rhs.resize(size, 0.0);
            self.base.resize(size, 0.0);
        }
        self.contact_forces.clear();
        self.contact_forces.resize(resting.len(), 0.0);
        // Residuals at zero tension and contact force, then one column per unknown.
        self.tensions.iter_mut().for_each(|t| *t = 0.0);
        self.residuals(params, kin, sticks, resting, (spins, sides), law);
        self.base[..size].copy_from_slice(&self.rhs[..size]);
        for b in 0..size {
            for j in 0..=n {
                self.tensions[j] = if self.block[j] == b {
                    self.relative[j]
                } else {
                    0.0
                };
            }
            for (c, force) in self.contact_forces.iter_mut().enumerate() {
                *force = if blocks + c == b { 1.0 } else { 0.0 };
            }
            self.residuals(params, kin, sticks, resting, (spins, sides), law);
            for r in 0..size {
                self.matrix[r * size + b] = self.rhs[r] - self.base[r];
            }
        }
        for r in 0..size {
            self.rhs[r] = -self.base[r];
        }
        solve_dense(&mut self.matrix[..size * size], &mut self.rhs[..size], size)?;
        for j in 0..=n {
            self.tensions[j] = self.rhs[self.block[j]] * self.relative[j];
        }
        for (c, force) in self.contact_forces.iter_mut().enumerate() {
            *force = self.rhs[blocks + c];
        }
        self.segment_forces_from(resting);
        Ok(&self.tensions)
    }

    /// forces = tensions minus the contact forces across the resting segments.
    fn segment_forces_from(&mut self, resting: &[usize]) {
        self.forces.copy_from_slice(&self.tensions);
        for (c, &s) in resting.iter().enumerate() {
            self.forces[s] -= self.contact_forces[c];
        }
    }

    /// Writes the length law's residual (L'', or the mean tension's excess over the law's), the
    /// gripping axles' slip accelerations and the resting segments' l_s'' at the current
    /// tensions and contact forces into `rhs`.
    fn residuals(
        &mut self,
        params: &Params,
        kin: &Kinematics,
        sticks: &[FrameInput; 2],
        resting: &[usize],
        (spins, sides): (&[f64], impl Fn(usize) -> f64),
        law: LengthLaw,
    ) {
        self.segment_forces_from(resting);
        frame_accelerations(params, kin, sticks, &self.forces, &mut self.acc);
        self.rhs[0] = match law {
            LengthLaw::Inextensible => length_acceleration(kin, &self.acc),
            LengthLaw::MeanTension(mean) => {
                let weighted: f64 = (kin.segments().iter().zip(&self.tensions))
                    .map(|(s, t)| s.length * t)
                    .sum();
                weighted / kin.total_length() - mean
            }
        };
        slip_accelerations(
            params,
            kin,
            &self.acc,
            &self.tensions,
            spins,
            sides,
            law,
            &mut self.slips,
        );
        for (r, &k) in self.starts.iter().enumerate() {
            self.rhs[r + 1] = self.slips[k - 1];
        }
        let blocks = 1 + self.starts.len();
        for (c, &s) in resting.iter().enumerate() {
            self.rhs[blocks + c] = segment_acceleration(kin, &self.acc, s);
        }
    }
}

/// Gaussian elimination with partial pivoting, in place: `matrix` (row-major, size x size)
/// and `rhs`, which receives the solution.
fn solve_dense(matrix: &mut [f64], rhs: &mut [f64], size: usize) -> Result<(), SingularGrip> {
    let scale = matrix.iter().fold(0.0_f64, |a, b| a.max(b.abs()));
    for col in 0..size {
        let pivot = (col..size)
            .max_by(|&a, &b| {
                matrix[a * size + col]
                    .abs()
                    .total_cmp(&matrix[b * size + col].abs())
            })
            .unwrap_or(col);
        if matrix[pivot * size + col].abs() <= 1e-13 * scale || scale.is_nan() {
            return Err(SingularGrip);
        }
        if pivot != col {
            for j in 0..size {
                matrix.swap(pivot * size + j, col * size + j);
            }
            rhs.swap(pivot, col);
        }
        for row in col + 1..size {
            let factor = matrix[row * size + col] / matrix[col * size + col];
            for j in col..size {
                matrix[row * size + j] -= factor * matrix[col * size + j];
            }
            rhs[row] -= factor * rhs[col];
        }
    }
    for col in (0..size).rev() {
        let mut value = rhs[col];
        for j in col + 1..size {
            value -= matrix[col * size + j] * rhs[j];
        }
        rhs[col] = value / matrix[col * size + col];
    }
    Ok(())
}
