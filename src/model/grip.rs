//! Segment tensions when one or more axles grip the string (docs/model.md, "Friction and spin").
//!
//! A gripping (stuck) axle holds its slip speed at zero: its tension ratio T_k / T_{k-1} is no
//! longer the capstan exponential but an unknown, solved together with the tension from
//! L'' = 0 and d(w'_k)/dt = 0. Everything is linear in the segment tensions T_0..T_N:
//! slipping axles chain them (T_k = r_k T_{k-1}), so the tensions fall into blocks that start at
//! segment 0 and at each gripping axle, T_j = tau_b rho_j, and the unknown block scales tau_b
//! solve a (1 + s)-square system for s gripping axles.
//!
//! A chain of s gripping axles on an inextensible string with no resting contact is solved in
//! O(N) ([`GripSolver::solve`], "the chain"): the slip acceleration of axle k sums the length
//! accelerations of every segment left of it, but the difference of two consecutive gripping
//! axles' slips only involves the segments between them, that is the scales of three blocks at
//! most. Those rows are written from their closed-form tension partials
//! (`chain_rows`) and their values at zero tension (the residuals in one pass along the
//! string), the length row L'' = 0 is dense and written from its own partials, and the
//! banded system bordered by that row is solved by substitution along the band (pivoted
//! elimination inside the band where a diagonal entry is small).
//! Fewer gripping axles, a compliant string (whose slips carry a share of the dense L'') or a
//! resting contact take the dense solve.
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
use super::geometry::{Kinematics, ObjectFrame};
use super::params::{FrictionLaw, Params};
use super::tension::StickInput;

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

impl FrameInput {
    /// `input` in the frame of a stick of mass `stick_mass` (kg): a hand force normalised by
    /// the mass, an acceleration as it is.
    pub fn in_frame(input: StickInput, frame: &ObjectFrame, stick_mass: f64) -> Self {
        match input {
            StickInput::Force(f) => {
                let (fa, fb) = frame.to_frame(f / stick_mass);
                Self::Force(fa, fb)
            }
            StickInput::Accel(a) => {
                let (aa, ab) = frame.to_frame(a);
                Self::Accel(aa, ab)
            }
        }
    }
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
    out[0] = stick_acceleration(params, &o[0], sticks[0], tensions[0]);
    out[n + 1] = stick_acceleration(params, &o[n + 1], sticks[1], tensions[n]);
    // 1/m once: a division per component would cost more than the rest of the loop.
    let per_mass = 1.0 / params.diabolo_mass;
    for i in 1..=n {
        out[i] = diabolo_acceleration(params, per_mass, &o[i], tensions[i - 1], tensions[i]);
    }
}

/// A stick's frame acceleration: a hand force's F^b - T / M (and gravity), or the prescribed
/// acceleration; `tension` is that of the stick's segment.
fn stick_acceleration(
    params: &Params,
    frame: &ObjectFrame,
    input: FrameInput,
    tension: f64,
) -> (f64, f64) {
    let g = params.gravity;
    match input {
        FrameInput::Force(fa, fb) => (
            fa - g * frame.sin_phi,
            fb - tension / params.stick_mass - g * frame.cos_phi,
        ),
        FrameInput::Accel(aa, ab) => (aa, ab),
    }
}

/// A diabolo's frame acceleration between segment tensions `before` and `after`:
/// ((T_i - T_{i-1}) cos psi_i, (T_i + T_{i-1}) sin psi_i) / m - g (sin phi_i, cos phi_i), with
/// `per_mass` = 1/m.
fn diabolo_acceleration(
    params: &Params,
    per_mass: f64,
    frame: &ObjectFrame,
    before: f64,
    after: f64,
) -> (f64, f64) {
    let g = params.gravity;
    (
        (after - before) * frame.cos_psi * per_mass - g * frame.sin_phi,
        (after + before) * frame.sin_psi * per_mass - g * frame.cos_phi,
    )
}

/// L'' for frame accelerations `acc` (note section 2-1).
pub fn length_acceleration(kin: &Kinematics, acc: &[(f64, f64)]) -> f64 {
    let n = kin.diabolos();
    let diabolos: f64 = (1..=n).map(|i| length_term(kin, i, acc[i].1)).sum();
    length_from_terms(kin, acc[0].1, acc[n + 1].1, diabolos)
}

/// Diabolo i's part of L'' / (-2) for its a^beta `beta`: a_i^b sin psi_i - u_i^a phi_i'
/// sin psi_i + u_i^b (theta_i'/2) cos psi_i.
fn length_term(kin: &Kinematics, i: usize, beta: f64) -> f64 {
    let o = &kin.objects()[i];
    beta * o.sin_psi - o.u_alpha * o.phi_rate * o.sin_psi
        + o.u_beta * 0.5 * kin.theta_rate(i) * o.cos_psi
}

/// L'' from the sticks' a^beta (`left`, `right`) and the diabolos' summed [`length_term`]s.
fn length_from_terms(kin: &Kinematics, left: f64, right: f64, diabolos: f64) -> f64 {
    let n = kin.diabolos();
    let o = kin.objects();
    let velocity_terms = o[0].u_alpha * o[0].phi_rate + o[n + 1].u_alpha * o[n + 1].phi_rate;
    left + right - velocity_terms - 2.0 * diabolos
}

/// d(w'_k)/dt = (T_{k-1} - T_k) / (m J) - sigma_k D w_k - (a_k^a cos psi_k - a_k^b sin psi_k +
/// sum_{j<k} l_j''): from the spin's torque term `spin_torque`, the drag term `drag` and the
/// string's feed `feed` ([`SlipFeed::next`]).
fn slip_acceleration(spin_torque: f64, drag: f64, feed: f64) -> f64 {
    spin_torque - drag - feed
}

/// The running part of the slip accelerations along the string, sum_{j<k} l_j'' =
/// a_0^b - 2 sum_{0<j<k} a_j^b sin psi_j + sum_{j<k} l_j omega_j^2, carried from axle to axle.
struct SlipFeed {
    running: f64,
}

impl SlipFeed {
    /// Starts at the left stick's a^beta.
    fn new(left_beta: f64) -> Self {
        Self { running: left_beta }
    }

    /// a_k^a cos psi_k - a_k^b sin psi_k + sum_{j<k} l_j'' for diabolo k's frame acceleration
    /// `a`, then moves past it.
    fn next(&mut self, kin: &Kinematics, k: usize, a: (f64, f64)) -> f64 {
        let o = &kin.objects()[k];
        let s = &kin.segments()[k - 1];
        self.running += s.length * s.angular_rate * s.angular_rate;
        let feed = a.0 * o.cos_psi - a.1 * o.sin_psi + self.running;
        self.running -= 2.0 * a.1 * o.sin_psi;
        feed
    }
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
    let per_spin_mass = 1.0 / (params.diabolo_mass * params.spin_inertia);
    let mut feed = SlipFeed::new(acc[0].1);
    for k in 1..=n {
        let drag = sides(k) * params.spin_drag * spins[k - 1];
        let spin_torque = (tensions[k - 1] - tensions[k]) * per_spin_mass;
        out[k - 1] = slip_acceleration(spin_torque, drag, feed.next(kin, k, acc[k]));
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
    /// The chain's band rows: the entries of columns r - 2, r - 1, r and the border column.
    band: Vec<[f64; 4]>,
    /// The chain's border row (the length law), dense.
    border: Vec<f64>,
    /// The substitution's vectors.
    chain_work: Vec<f64>,
    /// The chain's row profiles for the pivoted elimination: first and last column of each
    /// row's band.
    profile: Vec<(usize, usize)>,
    /// From how many blocks the banded solve is used.
    chain_blocks: usize,
}

/// Gripping axles from which a chain takes the banded solve (fewer: the dense one, as cheap).
pub const CHAIN_GRIPS: usize = 4;

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
            band: vec![[0.0; 4]; n],
            border: vec![0.0; n + 1],
            chain_work: vec![0.0; 8 * n + 8],
            profile: vec![(0, 0); n + 1],
            chain_blocks: 1 + CHAIN_GRIPS,
        }
    }

    /// From how many blocks (1 + the gripping axles) a chain takes the banded solve (default
    /// 1 + [`CHAIN_GRIPS`]); `usize::MAX` keeps every solve dense, for cross-checks.
    pub fn set_chain_blocks(&mut self, blocks: usize) {
        self.chain_blocks = blocks;
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
        let chain = law == LengthLaw::Inextensible && resting.is_empty();
        if chain && blocks >= self.chain_blocks {
            self.solve_chain(params, kin, sticks, (spins, sides))?;
        } else {
            self.solve_probed(params, kin, sticks, resting, (spins, sides), law)?;
        }
        Ok(&self.tensions)
    }

    /// The dense solve: one probe of the residuals per unknown, then Gaussian elimination.
    fn solve_probed(
        &mut self,
        params: &Params,
        kin: &Kinematics,
        sticks: &[FrameInput; 2],
        resting: &[usize],
        (spins, sides): (&[f64], impl Fn(usize) -> f64 + Copy),
        law: LengthLaw,
    ) -> Result<(), SingularGrip> {
        let n = kin.diabolos();
        let blocks = 1 + self.starts.len();
        let size = blocks + resting.len();
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
        Ok(())
    }

    /// The banded solve of a gripping chain (see the module documentation): unknowns
    /// tau_1..tau_s then tau_0 (the border column), rows D_1..D_s (the differences of
    /// consecutive gripping axles' slip accelerations, D_r in tau_{r-2}..tau_r) then L'' (the
    /// border row).
    fn solve_chain(
        &mut self,
        params: &Params,
        kin: &Kinematics,
        sticks: &[FrameInput; 2],
        (spins, sides): (&[f64], impl Fn(usize) -> f64 + Copy),
    ) -> Result<(), SingularGrip> {
        let n = kin.diabolos();
        let s = self.starts.len();
        let size = s + 1;
        // The residuals at zero tension: the rows' constant parts.
        let length0 = self.chain_residuals_at_zero_tension(params, kin, sticks, (spins, sides));
        // Column of block scale b: tau_0 last.
        let column = |b: usize| if b == 0 { s } else { b - 1 };
        chain_rows(
            params,
            kin,
            sticks,
            &self.starts,
            &self.relative,
            &mut self.band[..s],
            &mut self.border[..size],
        );
        // The rows' constants, moved into rhs[r]: rhs[r + 1] holds the slip acceleration of axle
        // starts[r] at zero tension, so -D_{r+1}(0) is the one before it less this one.
        let mut before = 0.0;
        for r in 0..s {
            let slip = self.rhs[r + 1];
            self.rhs[r] = before - slip;
            before = slip;
        }
        self.rhs[s] = -length0;
        let rhs = &mut self.rhs[..size];
        let ok = substitute_band(
            &self.band[..s],
            &self.border[..size],
            rhs,
            &mut self.chain_work,
        );
        if !ok {
            self.solve_band_pivoted(size)?;
        }
        for j in 0..=n {
            self.tensions[j] = self.rhs[column(self.block[j])] * self.relative[j];
        }
        self.forces.copy_from_slice(&self.tensions);
        Ok(())
    }

    /// L'' at zero tension, and the gripping axles' slip accelerations there in rhs[1..=s]: the
    /// residuals of [`GripSolver::residuals`] for an inextensible string without resting
    /// contacts in one pass along the string (no frame accelerations stored).
    fn chain_residuals_at_zero_tension(
        &mut self,
        params: &Params,
        kin: &Kinematics,
        sticks: &[FrameInput; 2],
        (spins, sides): (&[f64], impl Fn(usize) -> f64),
    ) -> f64 {
        let n = kin.diabolos();
        let o = kin.objects();
        let per_mass = 1.0 / params.diabolo_mass;
        let left = stick_acceleration(params, &o[0], sticks[0], 0.0);
        let right = stick_acceleration(params, &o[n + 1], sticks[1], 0.0);
        let mut feed = SlipFeed::new(left.1);
        let mut length = 0.0;
        let mut gripping = self.starts.iter().zip(&mut self.rhs[1..]).peekable();
        for k in 1..=n {
            let a = diabolo_acceleration(params, per_mass, &o[k], 0.0, 0.0);
            length += length_term(kin, k, a.1);
            let feed_k = feed.next(kin, k, a);
            if let Some((_, slip)) = gripping.next_if(|(&start, _)| start == k) {
                let drag = sides(k) * params.spin_drag * spins[k - 1];
                // (T_{k-1} - T_k) / (m J) at zero tension.
                *slip = slip_acceleration(0.0, drag, feed_k);
            }
        }
        length_from_terms(kin, left.1, right.1, length)
    }

    /// The chain's system (band rows and border, right-hand side in `rhs`) by the pivoted
    /// banded elimination, written out as a matrix with row profiles first.
    fn solve_band_pivoted(&mut self, size: usize) -> Result<(), SingularGrip> {
        let last = size - 1;
        let m = &mut self.matrix[..size * size];
        m.iter_mut().for_each(|v| *v = 0.0);
        for (r, entries) in self.band[..last].iter().enumerate() {
            let lo = r.saturating_sub(2);
            for c in lo..=r {
                m[r * size + c] = entries[c + 2 - r];
            }
            m[r * size + last] = entries[3];
            self.profile[r] = (lo, r);
        }
        m[last * size..].copy_from_slice(&self.border[..size]);
        self.profile[last] = (0, last);
        solve_bordered(m, &mut self.rhs[..size], &mut self.profile[..size], size)
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

/// The chain's band rows (`band[r]`: the entries of columns r - 2, r - 1, r and of the border
/// column) and its border row (`border`, dense), written from their closed-form tension
/// partials in one pass along the string. The unknowns are the block scales (T_j = tau_b rho_j
/// with rho_j = `relative[j]`, a block starting at segment 0 and at each gripping axle of
/// `starts`): tau_1..tau_s in columns 0..s - 1, tau_0 in the border column s.
///
/// Row r is D_{r+1} = S_k - S_p, the slip acceleration of gripping axle k = starts[r] less that
/// of the one before it, p = starts[r - 1] (S_k alone for r = 0), with
/// S_k = (T_{k-1} - T_k) / (m J) - a_k^a cos psi_k + a_k^b sin psi_k - sum_{j<k} l_j'' (see
/// [`slip_accelerations`]). Its tension partials, 1/kg:
/// - T_k (the first segment of block r + 1, column r): own_after(k) = -1/(m J) + (sin^2 psi_k -
///   cos^2 psi_k)/m, through the spin and the axle's frame accelerations
///   (a_k^a = (T_k - T_{k-1}) cos psi_k / m, a_k^b = (T_k + T_{k-1}) sin psi_k / m);
/// - T_{k-1}: own_before = 1/(m J) + 1/m, the same way;
/// - T_{j-1} and T_j for each diabolo j in [p, k) (from 1 for r = 0): pull_j = 2 sin^2 psi_j / m,
///   through sum_{j<k} l_j'' (which holds -2 a_j^b sin psi_j); the difference cancels the
///   diabolos left of p;
/// - the terms of S_p with the opposite sign: -own_after(p) on T_p, -own_before on T_{p-1}
///   (the last segment of block r - 1, column r - 2, or the border column for r = 1);
/// - for r = 0 a force-driven left stick's 1/M on T_0 (a_0^b = ... - T_0 / M).
///
/// The border row is L'' = 0: T_j pulls on the diabolos at its ends (-pull_j, -pull_{j+1}) and
/// on a force-driven stick at an end (-1/M).
fn chain_rows(
    params: &Params,
    kin: &Kinematics,
    sticks: &[FrameInput; 2],
    starts: &[usize],
    relative: &[f64],
    band: &mut [[f64; 4]],
    border: &mut [f64],
) {
    let n = kin.diabolos();
    let o = kin.objects();
    let s = starts.len();
    let per_mass = 1.0 / params.diabolo_mass;
    let per_spin_mass = per_mass / params.spin_inertia;
    let pull = |j: usize| 2.0 * o[j].sin_psi * o[j].sin_psi * per_mass;
    let own_before = per_spin_mass + per_mass;
    let own_after = |a: usize| {
        let (sin, cos) = (o[a].sin_psi, o[a].cos_psi);
        -per_spin_mass + (sin * sin - cos * cos) * per_mass
    };
    let stick = |side: usize| match sticks[side] {
        FrameInput::Force(..) => 1.0 / params.stick_mass,
        FrameInput::Accel(..) => 0.0,
    };
    for (r, row) in band.iter_mut().enumerate() {
        let k = starts[r];
        let previous = r.checked_sub(1).map(|q| starts[q]);
        // Block r: segments from p (from 0 for r = 0) to k - 1.
        let mut own = relative[k - 1] * own_before;
        let from = previous.unwrap_or(1);
        for j in from..k {
            let both = if j > from || previous.is_none() {
                relative[j] + relative[j - 1]
            } else {
                relative[j]
            };
            own += pull(j) * both;
        }
        *row = [0.0, 0.0, own_after(k), 0.0];
        match previous {
            None => row[3] = own + relative[0] * stick(0),
            Some(p) => {
                // relative[p] is 1: p starts block r.
                row[1] = own - own_after(p);
                let before = relative[p - 1] * (pull(p) - own_before);
                if r == 1 {
                    row[3] = before;
                } else {
                    row[0] = before;
                }
            }
        }
    }
    border.iter_mut().for_each(|v| *v = 0.0);
    let (mut block, mut column) = (0, s);
    let mut here = 0.0;
    for t in 0..=n {
        if block < s && t == starts[block] {
            block += 1;
            column = block - 1;
        }
        let next = if t < n { pull(t + 1) } else { 0.0 };
        let mut d = -(here + next);
        if t == 0 {
            d -= stick(0);
        }
        if t == n {
            d -= stick(1);
        }
        border[column] += relative[t] * d;
        here = next;
    }
}

/// The chain's system by substitution, without pivoting, when every band row's diagonal
/// entry is at least a tenth of its row's largest. Band row r holds the entries of columns
/// r - 2, r - 1, r and of the last (the border column) in `band[r]`; `border` is the last row.
/// Each band row gives its unknown as p_r + q_r x_last from the two before it, and the border
/// row then gives x_last; where the residual shows growth along the chain, one step of
/// iterative refinement (the residual solved the same way) recovers what it lost. O(size).
/// `scratch` holds 8 size values; `rhs` receives the solution. False (nothing solved) when a
/// diagonal entry or the border's pivot is too small: the pivoted elimination then takes the
/// system.
fn substitute_band(
    band: &[[f64; 4]],
    border: &[f64],
    rhs: &mut [f64],
    scratch: &mut [f64],
) -> bool {
    let last = band.len();
    let size = last + 1;
    // p and q with two leading zeros, so that rows 0 and 1 need no special case.
    let (q, rest) = scratch.split_at_mut(last + 2);
    let (p, rest) = rest.split_at_mut(last + 2);
    let (residual, rest) = rest.split_at_mut(size);
    // Each band row divided by its diagonal entry (off the substitution's chain of
    // dependences): (a_{r,r-2}, a_{r,r-1}, a_{r,last}, 1) / a_{r,r}.
    let scaled = &mut rest[..4 * last];
    for (a, row) in band.iter().zip(scaled.chunks_exact_mut(4)) {
        // Compared one by one (a NaN entry refuses the row).
        let diagonal = 10.0 * a[2].abs();
        let sound = diagonal >= a[0].abs() && diagonal >= a[1].abs() && diagonal >= a[3].abs();
        if !(sound && a[2] != 0.0) {
            return false;
        }
        let inverse = 1.0 / a[2];
        row.copy_from_slice(&[a[0] * inverse, a[1] * inverse, a[3] * inverse, inverse]);
    }
    let scaled = &*scaled;
    // p (the unknowns for x_last = 0) and q (their dependence on x_last) side by side: two
    // independent chains, each carrying its last two unknowns in locals (read back from the
    // slice, every row would wait on the store of the one before).
    // Row r's unknown from its constant and the two unknowns before it.
    let next = |row: &[f64], (before, last): (f64, f64), constant: f64| {
        constant - row[0] * before - row[1] * last
    };
    let forward = |x: &[f64], p: &mut [f64], q: Option<&mut [f64]>| {
        (p[0], p[1]) = (0.0, 0.0);
        let mut p_two = (0.0, 0.0);
        match q {
            Some(q) => {
                (q[0], q[1]) = (0.0, 0.0);
                let mut q_two = (0.0, 0.0);
                for (r, row) in scaled.chunks_exact(4).enumerate() {
                    let (p_r, q_r) = (next(row, p_two, x[r] * row[3]), next(row, q_two, -row[2]));
                    (p[r + 2], q[r + 2]) = (p_r, q_r);
                    (p_two, q_two) = ((p_two.1, p_r), (q_two.1, q_r));
                }
            }
            None => {
                for (r, row) in scaled.chunks_exact(4).enumerate() {
                    let p_r = next(row, p_two, x[r] * row[3]);
                    p[r + 2] = p_r;
                    p_two = (p_two.1, p_r);
                }
            }
        }
    };
    forward(rhs, p, Some(q));
    let q = &q[2..];
    let slope = border[last] + (0..last).map(|c| border[c] * q[c]).sum::<f64>();
    let scale = border
        .iter()
        .fold(0.0_f64, |m, b| if b.abs() > m { b.abs() } else { m });
    if slope.abs() <= 1e-13 * scale || slope.is_nan() {
        return false;
    }
    let slope_inverse = 1.0 / slope;
    // x from p, q and the border row, in place of the right-hand side `x`.
    let back = |x: &mut [f64], p: &[f64]| {
        let p = &p[2..];
        let x_last = (x[last] - (0..last).map(|c| border[c] * p[c]).sum::<f64>()) * slope_inverse;
        for c in 0..last {
            x[c] = p[c] + q[c] * x_last;
        }
        x[last] = x_last;
    };
    residual.copy_from_slice(rhs);
    back(rhs, p);
    // Refinement: the residual b - A x (independent products, no chain), solved for the
    // correction when it exceeds 1e-12 of the size of the products that make it (a few ulps
    // are the substitution's ordinary round-off; more is growth along the chain).
    fn check(residual: &mut f64, terms: impl Iterator<Item = f64>) -> bool {
        let (mut sum, mut size) = (0.0, residual.abs());
        for term in terms {
            sum += term;
            size += term.abs();
        }
        *residual -= sum;
        residual.abs() > 1e-12 * size
    }
    let mut beyond_round_off = false;
    let x_last = rhs[last];
    // x_{r-2} and x_{r-1} carried along (0 before the first row).
    let mut two = (0.0, 0.0);
    for (r, a) in band.iter().enumerate() {
        let terms = [a[0] * two.0, a[1] * two.1, a[2] * rhs[r], a[3] * x_last];
        beyond_round_off |= check(&mut residual[r], terms.into_iter());
        two = (two.1, rhs[r]);
    }
    let terms = (0..size).map(|c| border[c] * rhs[c]);
    beyond_round_off |= check(&mut residual[last], terms);
    if beyond_round_off {
        forward(residual, p, None);
        back(residual, p);
        for (x, correction) in rhs.iter_mut().zip(residual.iter()) {
            *x += correction;
        }
    }
    true
}

/// Gaussian elimination with partial pivoting of a matrix whose rows are nonzero only in their
/// profile (first, last column) and in the last column, the last row dense: the chain's banded
/// rows bordered by the length row. Pivots are searched among the rows reaching the column
/// (within the band, and the border), so fill stays within the band: O(size) work for a band of
/// bounded width. `rhs` receives the solution.
fn solve_bordered(
    matrix: &mut [f64],
    rhs: &mut [f64],
    profile: &mut [(usize, usize)],
    size: usize,
) -> Result<(), SingularGrip> {
    let last = size - 1;
    let mut scale = 0.0_f64;
    for (r, &(lo, hi)) in profile.iter().enumerate() {
        let row = &matrix[r * size..(r + 1) * size];
        scale = scale.max(
            row[lo..=hi]
                .iter()
                .fold(row[last].abs(), |a, b| a.max(b.abs())),
        );
    }
    if scale.is_nan() {
        return Err(SingularGrip);
    }
    for col in 0..size {
        // The rows that can reach col: the next three (a row further down is an untouched band
        // row starting right of col, or was swapped down at most two below an earlier column)
        // and the last (the border, or the row it was swapped with).
        let mut reaching = [usize::MAX; 4];
        let mut count = 0;
        for r in (col..size.min(col + 3)).chain(Some(last).filter(|&l| l >= col + 3)) {
            if profile[r].0 <= col {
                reaching[count] = r;
                count += 1;
            }
        }
        let reaching = &reaching[..count];
        // Threshold pivoting (as sparse solvers do): the largest band entry unless the
        // last row's is ten times larger, so that the dense border row is rarely the pivot
        // (it would fill every row it reaches).
        let entry = |r: usize| matrix[r * size + col].abs();
        let mut pivot = col;
        for &r in reaching.iter().filter(|&&r| r != last) {
            if entry(r) > entry(pivot) {
                pivot = r;
            }
        }
        if profile[last].0 <= col && (entry(last) > 10.0 * entry(pivot) || pivot == last) {
            pivot = last;
        }
        if matrix[pivot * size + col].abs() <= 1e-13 * scale {
            return Err(SingularGrip);
        }
        if pivot != col {
            // Both rows' entries: their profiles and the last column.
            let (from, to) = (
                profile[pivot].0.min(profile[col].0),
                profile[pivot].1.max(profile[col].1),
            );
            for j in (from..=to).chain((to < last).then_some(last)) {
                matrix.swap(pivot * size + j, col * size + j);
            }
            rhs.swap(pivot, col);
            profile.swap(pivot, col);
        }
        let (_, pivot_hi) = profile[col];
        // The swap exchanged two reaching rows: the same positions reach col.
        for &r in reaching.iter().filter(|&&r| r != col) {
            let factor = matrix[r * size + col] / matrix[col * size + col];
            let (lo, hi) = profile[r];
            // Columns the row gains from the pivot row start at zero.
            for j in hi + 1..=pivot_hi.max(hi) {
                if j != last {
                    matrix[r * size + j] = 0.0;
                }
            }
            for j in col..=pivot_hi {
                matrix[r * size + j] -= factor * matrix[col * size + j];
            }
            if pivot_hi < last {
                matrix[r * size + last] -= factor * matrix[col * size + last];
            }
            rhs[r] -= factor * rhs[col];
            profile[r] = ((col + 1).max(lo), hi.max(pivot_hi));
        }
    }
    for col in (0..size).rev() {
        let (_, hi) = profile[col];
        let row = &matrix[col * size..(col + 1) * size];
        let mut value = rhs[col];
        for j in col + 1..=hi {
            value -= row[j] * rhs[j];
        }
        if hi < last && col < last {
            value -= row[last] * rhs[last];
        }
        rhs[col] = value / row[col];
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A random chain system of `size` unknowns: band rows with columns r - 2..=r and the last,
    /// a dense border row; every third diagonal entry scaled by `diagonal` (tiny ones force the
    /// pivoted elimination's row swaps).
    fn chain_system(
        seed: u64,
        size: usize,
        diagonal: f64,
    ) -> (Vec<f64>, Vec<f64>, Vec<(usize, usize)>) {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let last = size - 1;
        let mut matrix = vec![0.0; size * size];
        let mut profile = vec![(0, 0); size];
        for r in 0..last {
            let lo = r.saturating_sub(2);
            for c in lo..=r {
                matrix[r * size + c] = next();
            }
            if r % 3 == 1 {
                matrix[r * size + r] *= diagonal;
            }
            if r < 2 {
                matrix[r * size + last] = next();
            }
            profile[r] = (lo, r);
        }
        for c in 0..size {
            matrix[last * size + c] = next();
        }
        profile[last] = (0, last);
        let rhs = (0..size).map(|_| next()).collect();
        (matrix, rhs, profile)
    }

    // Both chain solves agree with the dense elimination on random bordered band systems: the
    // substitution when the diagonal is sound, the pivoted elimination always (with pivots
    // taken off the diagonal when a diagonal entry is tiny).
    #[test]
    fn the_chain_solves_agree_with_dense_elimination() {
        for seed in 0..300 {
            let size = 3 + (seed as usize) % 30;
            for diagonal in [1.0, 1e-6, 0.0] {
                let (matrix, rhs, profile) = chain_system(seed, size, diagonal);
                let mut dense = rhs.clone();
                if solve_dense(&mut matrix.clone(), &mut dense, size).is_err() {
                    continue;
                }
                let scale = dense.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
                let mut pivoted = rhs.clone();
                solve_bordered(
                    &mut matrix.clone(),
                    &mut pivoted,
                    &mut profile.clone(),
                    size,
                )
                .unwrap();
                let mut substituted = rhs.clone();
                let mut scratch = vec![0.0; 8 * size];
                let last = size - 1;
                let band: Vec<[f64; 4]> = (0..last)
                    .map(|r| {
                        let at = |c: Option<usize>| c.map_or(0.0, |c| matrix[r * size + c]);
                        [
                            at(r.checked_sub(2)),
                            at(r.checked_sub(1)),
                            at(Some(r)),
                            at(Some(last)),
                        ]
                    })
                    .collect();
                let border = &matrix[last * size..];
                let sound = substitute_band(&band, border, &mut substituted, &mut scratch);
                // The pivoted elimination as the solver calls it, from the band rows.
                let mut solver = GripSolver::new(last);
                solver.band.copy_from_slice(&band);
                solver.border.copy_from_slice(border);
                solver.rhs.copy_from_slice(&rhs);
                solver.solve_band_pivoted(size).unwrap();
                for c in 0..size {
                    assert!(
                        (pivoted[c] - dense[c]).abs() <= 1e-9 * scale,
                        "seed {seed}, size {size}, diagonal {diagonal}: x_{c} {} against {}",
                        pivoted[c],
                        dense[c]
                    );
                    assert!(
                        (solver.rhs[c] - dense[c]).abs() <= 1e-9 * scale,
                        "seed {seed}, size {size}: from the band x_{c} {} against {}",
                        solver.rhs[c],
                        dense[c]
                    );
                    if sound {
                        assert!(
                            (substituted[c] - dense[c]).abs() <= 1e-9 * scale,
                            "seed {seed}, size {size}: substituted x_{c} {} against {}",
                            substituted[c],
                            dense[c]
                        );
                    }
                }
                assert!(
                    diagonal == 1.0 || size < 5 || !sound,
                    "a tiny diagonal is refused"
                );
            }
        }
    }
}
