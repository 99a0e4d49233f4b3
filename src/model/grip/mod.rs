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
//!
//! - `accelerations`: the accelerations, length and slip accelerations from given tensions.
//! - `chain`: the chain's banded rows; `linear`: the banded, bordered and dense solves.

mod accelerations;
mod chain;
mod linear;

use super::friction::AxleMode;
use super::geometry::Kinematics;
use super::params::{FrictionLaw, Params};

use accelerations::{
    diabolo_acceleration, length_from_terms, length_term, slip_acceleration, stick_acceleration,
    SlipFeed,
};
use chain::chain_rows;
pub(crate) use linear::solve_dense;
use linear::{solve_bordered, substitute_band};

pub use accelerations::{
    frame_accelerations, length_acceleration, segment_acceleration, slip_accelerations, FrameInput,
    LengthLaw,
};
pub use linear::SingularGrip;

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
