//! The two descriptions of the system's state (the conversions between them go through the
//! string's kinematics: [`ReducedLayout::reduce`] and [`ReducedLayout::expand`], in `geometry`).
//!
//! - [`CartesianState`]: positions and velocities of every object in x-y, spins and knot degrees.
//!   Intuitive, and what the loose phase integrates.
//! - [`ReducedState`]: the taut-phase state of the note (section 2-2),
//!   X = (x_0, l_0..l_{N-1}, phi_0, theta_1..theta_N, u_{0..N}^{alpha,beta}, u_{N+1}^alpha, w_1..w_N),
//!   where l_N = L - sum l_j and u_{N+1}^beta = -u_0^beta + 2 sum u_i^beta sin psi_i hold the string
//!   constraint exactly.

use nalgebra::{SVector, Vector2};
use thiserror::Error;

/// A stick tip: a point mass with position (m) and velocity (m/s), in `D` dimensions: x-y in
/// the hands' plane by default, x, y, z (toward the audience) for `Body<3>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body<const D: usize = 2> {
    /// Position [x, y] (or [x, y, z]), m.
    pub pos: SVector<f64, D>,
    /// Velocity [vx, vy] (or [vx, vy, vz]), m/s.
    pub vel: SVector<f64, D>,
}

impl<const D: usize> Default for Body<D> {
    /// At rest at the origin.
    fn default() -> Self {
        Self {
            pos: SVector::zeros(),
            vel: SVector::zeros(),
        }
    }
}

/// One diabolo on the string.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DiaboloState {
    /// Centre position, m.
    pub pos: Vector2<f64>,
    /// Centre velocity, m/s.
    pub vel: Vector2<f64>,
    /// w = r omega: axle surface speed, m/s; positive is a clockwise spin (x right, y up), the
    /// string running under the axle from left to right.
    pub spin: f64,
    /// k: knot degree (wraps of the string around the axle; negative for recaptured states).
    pub knot: i32,
}

/// Positions, velocities, spins and knot degrees of all objects.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CartesianState {
    /// The left stick tip (object 0).
    pub left: Body,
    /// The right stick tip (object N + 1).
    pub right: Body,
    /// Diabolos 1..N, left to right.
    pub diabolos: Vec<DiaboloState>,
}

/// Something wrong with a state as a description of a diabolo on a string.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum StateError {
    /// No diabolo at all.
    #[error("a state needs at least one diabolo")]
    NoDiabolo,
    /// Two neighbours at the same point.
    #[error("segment {segment} (between object {segment} and {}) has zero length: two objects coincide", segment + 1)]
    SegmentCollapsed {
        /// The segment's index, 0 starting at the left stick.
        segment: usize,
    },
    /// The segments do not add up to the string length.
    #[error(
        "the string is not taut: slack L - sum l = {slack:.3e} m (tolerance {tolerance:.1e} m)"
    )]
    NotTaut {
        /// L - sum l, m.
        slack: f64,
        /// The accepted |slack|, m.
        tolerance: f64,
    },
    /// The velocities stretch or slacken a string that should stay taut.
    #[error("the string length is changing: L' = {rate:.3e} m/s on a taut string (tolerance {tolerance:.1e} m/s)")]
    LengthChanging {
        /// d(sum l)/dt, m/s.
        rate: f64,
        /// The accepted |rate|, m/s.
        tolerance: f64,
    },
    /// The sticks are farther apart than the string is long.
    #[error("the sticks are {distance:.4} m apart, farther than the string length {length:.4} m")]
    SticksTooFarApart {
        /// Distance between the stick tips, m.
        distance: f64,
        /// L, m.
        length: f64,
    },
    /// An abscissa no point of the taut string reaches.
    #[error("x = {x:.4} m cannot be on a taut string of length {length:.4} m between the sticks")]
    OffString {
        /// The asked abscissa, m.
        x: f64,
        /// L, m.
        length: f64,
    },
    /// A state vector of the wrong size for its layout.
    #[error("state vector has {got} entries, the layout for {diabolos} diabolos needs {expected}")]
    WrongLength {
        /// Entries given.
        got: usize,
        /// Entries the layout needs.
        expected: usize,
        /// N.
        diabolos: usize,
    },
    /// A NaN or infinite entry.
    #[error("{what} is not finite")]
    NonFinite {
        /// The quantity, in words.
        what: &'static str,
    },
}

impl CartesianState {
    /// Number of diabolos N.
    pub fn diabolo_count(&self) -> usize {
        self.diabolos.len()
    }

    /// Position of object k (0 = left stick, 1..N diabolos, N+1 = right stick).
    pub fn position(&self, k: usize) -> Vector2<f64> {
        self.body(k).0
    }

    /// Velocity of object k.
    pub fn velocity(&self, k: usize) -> Vector2<f64> {
        self.body(k).1
    }

    fn body(&self, k: usize) -> (Vector2<f64>, Vector2<f64>) {
        let n = self.diabolos.len();
        match k {
            0 => (self.left.pos, self.left.vel),
            k if k == n + 1 => (self.right.pos, self.right.vel),
            k => (self.diabolos[k - 1].pos, self.diabolos[k - 1].vel),
        }
    }

    /// Mutable velocity of object k.
    pub fn velocity_mut(&mut self, k: usize) -> &mut Vector2<f64> {
        let n = self.diabolos.len();
        match k {
            0 => &mut self.left.vel,
            k if k == n + 1 => &mut self.right.vel,
            k => &mut self.diabolos[k - 1].vel,
        }
    }

    /// L' = sum_i e_i . (v_{i+1} - v_i): the rate of the sum of segment lengths, m/s (0 for a
    /// segment of zero length).
    pub fn length_rate(&self) -> f64 {
        (0..=self.diabolos.len())
            .map(|i| {
                let d = self.position(i + 1) - self.position(i);
                let norm = d.norm();
                if norm > 0.0 {
                    d.dot(&(self.velocity(i + 1) - self.velocity(i))) / norm
                } else {
                    0.0
                }
            })
            .sum()
    }

    /// Sum of segment lengths, m.
    pub fn string_used(&self) -> f64 {
        (0..=self.diabolos.len())
            .map(|i| (self.position(i + 1) - self.position(i)).norm())
            .sum()
    }
}

/// Index map of the reduced state vector for N diabolos (length 5N + 6; 5N + 8 for a
/// compliant string, which adds l_N and u_{N+1}^beta at the end: no constraint holds them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReducedLayout {
    n: usize,
    elastic: bool,
}

impl ReducedLayout {
    /// Layout for `n` diabolos (n = 0: the string joins the two sticks directly).
    pub fn new(n: usize) -> Self {
        Self { n, elastic: false }
    }
    /// Layout for `n` diabolos on a compliant string: l_N and u_{N+1}^beta are states.
    pub fn elastic(n: usize) -> Self {
        Self { n, elastic: true }
    }
    /// Whether l_N and u_{N+1}^beta are states (a compliant string).
    pub fn is_elastic(&self) -> bool {
        self.elastic
    }
    /// Index of l_N, the last segment's length (a compliant string's layout only).
    pub fn last_segment_length(&self) -> usize {
        debug_assert!(self.elastic);
        5 * self.n + 6
    }
    /// Index of u_{N+1}^beta (a compliant string's layout only).
    pub fn u_beta_right(&self) -> usize {
        debug_assert!(self.elastic);
        5 * self.n + 7
    }
    /// N, the number of diabolos.
    pub fn diabolos(&self) -> usize {
        self.n
    }
    /// Length of the state vector, 5N + 6 (5N + 8 for a compliant string).
    pub fn len(&self) -> usize {
        5 * self.n + 6 + if self.elastic { 2 } else { 0 }
    }
    /// Never empty (6 entries at least); present for clippy's len-without-is-empty rule.
    pub fn is_empty(&self) -> bool {
        false
    }
    /// Index of x_0 (x at this index, y at the next).
    pub fn x0(&self) -> usize {
        0
    }
    /// Index of l_i, the length of segment i < N.
    pub fn segment_length(&self, i: usize) -> usize {
        debug_assert!(i < self.n);
        2 + i
    }
    /// Index of phi_0, the frame angle of the left stick.
    pub fn phi0(&self) -> usize {
        2 + self.n
    }
    /// Index of theta_i, the string angle at diabolo i (1..=N).
    pub fn theta(&self, i: usize) -> usize {
        debug_assert!((1..=self.n).contains(&i));
        2 + self.n + i
    }
    /// Index of u_k^alpha for object k in 0..=N (u_k^beta is the next index).
    pub fn u_alpha(&self, k: usize) -> usize {
        debug_assert!(k <= self.n);
        3 + 2 * self.n + 2 * k
    }
    /// Index of u_k^beta for object k in 0..=N.
    pub fn u_beta(&self, k: usize) -> usize {
        self.u_alpha(k) + 1
    }
    /// Index of u_{N+1}^alpha (the right stick's beta velocity is held by the constraint).
    pub fn u_alpha_right(&self) -> usize {
        5 + 4 * self.n
    }
    /// Index of w_i, the spin (axle surface speed) of diabolo i (1..=N).
    pub fn spin(&self, i: usize) -> usize {
        debug_assert!((1..=self.n).contains(&i));
        5 + 4 * self.n + i
    }

    /// Checks a slice has this layout's length.
    pub fn check(&self, x: &[f64]) -> Result<(), StateError> {
        if x.len() == self.len() {
            Ok(())
        } else {
            Err(StateError::WrongLength {
                got: x.len(),
                expected: self.len(),
                diabolos: self.n,
            })
        }
    }
}

/// A reduced taut-phase state with its layout.
#[derive(Clone, Debug, PartialEq)]
pub struct ReducedState {
    layout: ReducedLayout,
    values: Vec<f64>,
}

impl ReducedState {
    /// Wraps a vector in a layout, checking its length.
    pub fn from_values(layout: ReducedLayout, values: Vec<f64>) -> Result<Self, StateError> {
        layout.check(&values)?;
        Ok(Self { layout, values })
    }
    /// Where each quantity lives in the vector.
    pub fn layout(&self) -> ReducedLayout {
        self.layout
    }
    /// The vector.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    /// The vector, to change in place.
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }
    /// The vector, owned.
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }
}

/// Moves the diabolos (only) so that sum l = L and L' = 0 exactly, along the gradient of the
/// string length with respect to their positions: g_i = e_{i-1} - e_i (unit segment directions).
pub fn close_onto_string(state: &mut CartesianState, length: f64) {
    close_onto_string_with(state, length, &mut Vec::new());
}

/// [`close_onto_string`] with the gradient in a reused buffer; false when the string is
/// straight or collapsed there (no gradient to move along), the state then unchanged or only
/// partly closed.
pub fn close_onto_string_with(
    state: &mut CartesianState,
    length: f64,
    g: &mut Vec<Vector2<f64>>,
) -> bool {
    let n = state.diabolo_count();
    let direction = |s: &CartesianState, j: usize| {
        let d = s.position(j + 1) - s.position(j);
        let norm = d.norm();
        (norm > 0.0).then(|| d / norm)
    };
    // The gradient into g and its squared norm, if every segment has a direction.
    let gradient = |s: &CartesianState, g: &mut Vec<Vector2<f64>>| -> Option<f64> {
        g.clear();
        for i in 1..=n {
            g.push(direction(s, i - 1)? - direction(s, i)?);
        }
        let norm2: f64 = g.iter().map(|v| v.norm_squared()).sum();
        (norm2 >= 1e-12).then_some(norm2)
    };
    for _ in 0..3 {
        let Some(norm2) = gradient(state, g) else {
            return false;
        };
        let excess = state.string_used() - length;
        for (d, gi) in state.diabolos.iter_mut().zip(g.iter()) {
            d.pos -= gi * (excess / norm2);
        }
    }
    let Some(norm2) = gradient(state, g) else {
        return false;
    };
    let rate: f64 = (0..=n)
        .map(|j| {
            direction(state, j).map_or(0.0, |e| e.dot(&(state.velocity(j + 1) - state.velocity(j))))
        })
        .sum();
    for (d, gi) in state.diabolos.iter_mut().zip(g.iter()) {
        d.vel -= gi * (rate / norm2);
    }
    true
}
