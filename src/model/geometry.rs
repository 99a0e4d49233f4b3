//! Geometry and kinematics of the string (docs/model.md, "Objects and geometry" and "Kinematics").
//!
//! Frame of object k: alpha_k = (cos phi_k, sin phi_k), beta_k = (-sin phi_k, cos phi_k).
//! psi_i = (theta_i - pi) / 2 for diabolos, psi_0 = psi_{N+1} = -pi/2, and
//! phi_k = phi_{k-1} + psi_{k-1} + psi_k. Segment i points along e_i at angle phi_i + psi_i.

use nalgebra::Vector2;
use std::f64::consts::{FRAC_PI_2, PI, TAU};

use super::state::{Body, CartesianState, DiaboloState, ReducedLayout, ReducedState, StateError};

/// Wraps an angle to [-pi, pi).
pub fn wrap_angle(a: f64) -> f64 {
    let w = (a + PI).rem_euclid(TAU) - PI;
    // rem_euclid can return TAU itself for tiny negative inputs.
    if w >= PI {
        w - TAU
    } else {
        w
    }
}

/// The knot degree k = floor(theta / 2 pi) of a string angle theta.
pub fn knot_degree(theta: f64) -> i32 {
    (theta / TAU).floor() as i32
}

/// The string angle theta = pi + tau + 2 pi k of a diabolo whose string turns by tau (in
/// [-pi, pi), counter-clockwise positive) and whose knot degree is k.
pub fn theta_from_turn(turn: f64, knot: i32) -> f64 {
    PI + wrap_angle(turn) + TAU * f64::from(knot)
}

/// Unit vector (cos a, sin a).
pub fn unit(a: f64) -> Vector2<f64> {
    let (s, c) = a.sin_cos();
    Vector2::new(c, s)
}

/// (sin, cos) of a stick's psi = -pi/2, the values `(-FRAC_PI_2).sin_cos()` returns.
const STICK_PSI_SIN_COS: (f64, f64) = (-1.0, 6.123_233_995_736_766e-17);

/// (sin, cos) of a + b from those of a and b.
fn rotate((sin_a, cos_a): (f64, f64), (sin_b, cos_b): (f64, f64)) -> (f64, f64) {
    (sin_a * cos_b + cos_a * sin_b, cos_a * cos_b - sin_a * sin_b)
}

/// Frame quantities of one object (stick or diabolo).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObjectFrame {
    /// theta: string angle at a diabolo (rad); 0 for the sticks by convention.
    pub theta: f64,
    /// psi = (theta - pi) / 2, rad; -pi/2 at the sticks.
    pub psi: f64,
    /// sin psi.
    pub sin_psi: f64,
    /// cos psi.
    pub cos_psi: f64,
    /// phi: frame angle, rad (alpha = (cos phi, sin phi)).
    pub phi: f64,
    /// sin phi.
    pub sin_phi: f64,
    /// cos phi.
    pub cos_phi: f64,
    /// u^alpha = u . alpha, m/s.
    pub u_alpha: f64,
    /// u^beta = u . beta, m/s.
    pub u_beta: f64,
    /// phi': rate of the frame angle, rad/s.
    pub phi_rate: f64,
}

impl ObjectFrame {
    /// alpha = (cos phi, sin phi).
    pub fn alpha(&self) -> Vector2<f64> {
        Vector2::new(self.cos_phi, self.sin_phi)
    }
    /// beta = (-sin phi, cos phi).
    pub fn beta(&self) -> Vector2<f64> {
        Vector2::new(-self.sin_phi, self.cos_phi)
    }
    /// World vector from frame components (v^alpha, v^beta).
    pub fn to_world(&self, alpha: f64, beta: f64) -> Vector2<f64> {
        Vector2::new(
            alpha * self.cos_phi - beta * self.sin_phi,
            alpha * self.sin_phi + beta * self.cos_phi,
        )
    }
    /// Frame components (v . alpha, v . beta) of a world vector.
    pub fn to_frame(&self, v: Vector2<f64>) -> (f64, f64) {
        (
            v.x * self.cos_phi + v.y * self.sin_phi,
            -v.x * self.sin_phi + v.y * self.cos_phi,
        )
    }
    /// Velocity in x-y.
    pub fn velocity(&self) -> Vector2<f64> {
        self.to_world(self.u_alpha, self.u_beta)
    }
}

/// One string segment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Segment {
    /// l_i: length, m.
    pub length: f64,
    /// l_i': rate of change of the length, m/s.
    pub length_rate: f64,
    /// omega_i: angular rate of the segment's direction, rad/s.
    pub angular_rate: f64,
}

/// Frames, angles, lengths and all kinematic rates of one configuration, in preallocated buffers
/// (loading a state allocates nothing).
#[derive(Clone, Debug)]
pub struct Kinematics {
    n: usize,
    objects: Vec<ObjectFrame>,
    segments: Vec<Segment>,
}

impl Kinematics {
    /// Buffers for N diabolos.
    pub fn new(n: usize) -> Self {
        Self {
            n,
            objects: vec![ObjectFrame::default(); n + 2],
            segments: vec![Segment::default(); n + 1],
        }
    }

    /// N.
    pub fn diabolos(&self) -> usize {
        self.n
    }
    /// Objects 0..=N+1.
    pub fn objects(&self) -> &[ObjectFrame] {
        &self.objects
    }
    /// Segments 0..=N.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Loads a reduced taut state: l_N and u_{N+1}^beta come from the string constraint (from
    /// the state itself in a compliant string's layout).
    pub fn load_reduced(&mut self, layout: &ReducedLayout, x: &[f64], string_length: f64) {
        let n = self.n;
        debug_assert_eq!(layout.diabolos(), n);
        self.objects[0].theta = 0.0;
        self.objects[n + 1].theta = 0.0;
        for i in 1..=n {
            self.objects[i].theta = x[layout.theta(i)];
        }
        self.set_angles(x[layout.phi0()]);
        let mut used = 0.0;
        for i in 0..n {
            let l = x[layout.segment_length(i)];
            self.segments[i].length = l;
            used += l;
        }
        self.segments[n].length = string_length - used;
        let mut right_beta = 0.0;
        for k in 0..=n {
            let o = &mut self.objects[k];
            o.u_alpha = x[layout.u_alpha(k)];
            o.u_beta = x[layout.u_beta(k)];
            right_beta += if k == 0 {
                -o.u_beta
            } else {
                2.0 * o.u_beta * o.sin_psi
            };
        }
        self.objects[n + 1].u_alpha = x[layout.u_alpha_right()];
        self.objects[n + 1].u_beta = right_beta;
        if layout.is_elastic() {
            self.segments[n].length = x[layout.last_segment_length()];
            self.objects[n + 1].u_beta = x[layout.u_beta_right()];
        }
        self.set_rates();
    }

    /// Loads a Cartesian state (any slack): theta_i from the turn of the string at each diabolo
    /// and its knot degree, phi_0 = atan2(e_0.x, -e_0.y) in [0, 2 pi).
    pub fn load_cartesian(&mut self, state: &CartesianState) -> Result<(), StateError> {
        let n = self.n;
        if state.diabolo_count() != n {
            return Err(StateError::WrongLength {
                got: state.diabolo_count(),
                expected: n,
                diabolos: n,
            });
        }
        let mut previous = 0.0;
        for i in 0..=n {
            let d = state.position(i + 1) - state.position(i);
            let length = d.norm();
            if length.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Err(if length.is_finite() {
                    StateError::SegmentCollapsed { segment: i }
                } else {
                    StateError::NonFinite { what: "a position" }
                });
            }
            self.segments[i].length = length;
            let direction = d.y.atan2(d.x);
            if i == 0 {
                self.objects[0].theta = 0.0;
            } else {
                self.objects[i].theta =
                    theta_from_turn(direction - previous, state.diabolos[i - 1].knot);
            }
            previous = direction;
        }
        self.objects[n + 1].theta = 0.0;
        let e0 = state.position(1) - state.position(0);
        self.set_angles(e0.x.atan2(-e0.y).rem_euclid(TAU));
        for k in 0..n + 2 {
            let v = state.velocity(k);
            let o = &mut self.objects[k];
            (o.u_alpha, o.u_beta) = o.to_frame(v);
        }
        self.set_rates();
        Ok(())
    }

    /// Positions, velocities, spins (from `spin(i)`, i = 1..N) and knot degrees, with the left
    /// stick at `left`.
    pub fn to_cartesian(&self, left: Vector2<f64>, spin: impl Fn(usize) -> f64) -> CartesianState {
        let mut state = CartesianState {
            diabolos: vec![DiaboloState::default(); self.n],
            ..CartesianState::default()
        };
        self.write_cartesian(left, spin, &mut state);
        state
    }

    /// [`Kinematics::to_cartesian`] into a state of N diabolos (allocation-free).
    pub fn write_cartesian(
        &self,
        left: Vector2<f64>,
        spin: impl Fn(usize) -> f64,
        state: &mut CartesianState,
    ) {
        let n = self.n;
        debug_assert_eq!(state.diabolo_count(), n);
        let mut pos = left;
        for (i, d) in (1..=n).zip(state.diabolos.iter_mut()) {
            pos += self.segments[i - 1].length * self.segment_direction(i - 1);
            let o = &self.objects[i];
            *d = DiaboloState {
                pos,
                vel: o.velocity(),
                spin: spin(i),
                knot: knot_degree(o.theta),
            };
        }
        state.left = Body {
            pos: left,
            vel: self.objects[0].velocity(),
        };
        state.right = Body {
            pos: pos + self.segments[n].length * self.segment_direction(n),
            vel: self.objects[n + 1].velocity(),
        };
    }

    /// psi, phi and their sines and cosines of every object from phi_0 and the diabolos' theta.
    /// One `sin_cos` for phi_0 and one per diabolo's psi: phi_k = phi_{k-1} + psi_{k-1} + psi_k
    /// is a rotation of the previous frame by two known angles, so its sine and cosine come
    /// from products (within a few ulps of `phi_k.sin_cos()`), and a stick's psi = -pi/2 is a
    /// constant.
    fn set_angles(&mut self, phi0: f64) {
        let n = self.n;
        let mut phi = phi0;
        let mut phi_sin_cos = phi0.sin_cos();
        let mut previous = (-FRAC_PI_2, STICK_PSI_SIN_COS);
        for k in 0..n + 2 {
            let o = &mut self.objects[k];
            let (psi, psi_sin_cos) = if k == 0 || k == n + 1 {
                (-FRAC_PI_2, STICK_PSI_SIN_COS)
            } else {
                let psi = 0.5 * (o.theta - PI);
                (psi, psi.sin_cos())
            };
            if k > 0 {
                phi += previous.0 + psi;
                phi_sin_cos = rotate(rotate(phi_sin_cos, previous.1), psi_sin_cos);
            }
            o.psi = psi;
            (o.sin_psi, o.cos_psi) = psi_sin_cos;
            o.phi = phi;
            (o.sin_phi, o.cos_phi) = phi_sin_cos;
            previous = (psi, psi_sin_cos);
        }
    }

    /// l_i', omega_i and phi_k' from the frame velocities (docs/model.md, "Kinematics").
    fn set_rates(&mut self) {
        let n = self.n;
        for i in 0..=n {
            let a = &self.objects[i];
            let b = &self.objects[i + 1];
            let s = &mut self.segments[i];
            s.length_rate = -a.u_alpha * a.cos_psi - a.u_beta * a.sin_psi + b.u_alpha * b.cos_psi
                - b.u_beta * b.sin_psi;
            s.angular_rate = (b.u_alpha * b.sin_psi + b.u_beta * b.cos_psi + a.u_alpha * a.sin_psi
                - a.u_beta * a.cos_psi)
                / s.length;
        }
        self.objects[0].phi_rate = self.segments[0].angular_rate;
        self.objects[n + 1].phi_rate = self.segments[n].angular_rate;
        for i in 1..=n {
            self.objects[i].phi_rate =
                0.5 * (self.segments[i].angular_rate + self.segments[i - 1].angular_rate);
        }
    }

    /// theta_i' = omega_i - omega_{i-1} for diabolo i.
    pub fn theta_rate(&self, i: usize) -> f64 {
        self.segments[i].angular_rate - self.segments[i - 1].angular_rate
    }

    /// e_i: unit vector of segment i, at angle phi_i + psi_i.
    pub fn segment_direction(&self, i: usize) -> Vector2<f64> {
        let o = &self.objects[i];
        let (sin, cos) = rotate((o.sin_phi, o.cos_phi), (o.sin_psi, o.cos_psi));
        Vector2::new(cos, sin)
    }

    /// x_{N+1} - x_0 = sum_i l_i e_i: from the left stick to the right one, m.
    pub fn span(&self) -> Vector2<f64> {
        self.segments
            .iter()
            .zip(&self.objects)
            .map(|(s, o)| {
                let (sin, cos) = rotate((o.sin_phi, o.cos_phi), (o.sin_psi, o.cos_psi));
                s.length * Vector2::new(cos, sin)
            })
            .sum()
    }

    /// sum l_i, m.
    pub fn total_length(&self) -> f64 {
        self.segments.iter().map(|s| s.length).sum()
    }

    /// L' = sum l_i', m/s (zero on a taut string).
    pub fn total_length_rate(&self) -> f64 {
        self.segments.iter().map(|s| s.length_rate).sum()
    }

    /// L' by the note's closed form u_0^beta + u_{N+1}^beta - 2 sum u_i^beta sin psi_i.
    pub fn total_length_rate_closed_form(&self) -> f64 {
        let n = self.n;
        let o = &self.objects;
        o[0].u_beta + o[n + 1].u_beta
            - 2.0 * (1..=n).map(|i| o[i].u_beta * o[i].sin_psi).sum::<f64>()
    }

    /// sum_{j<i} l_j': how fast string is fed into the part left of diabolo i, m/s.
    pub fn left_feed_rate(&self, i: usize) -> f64 {
        self.segments[..i].iter().map(|s| s.length_rate).sum()
    }
}

/// The conversions between the two descriptions of the state, through the kinematics.
impl ReducedLayout {
    /// Converts a taut Cartesian state to the reduced state. The string must be taut
    /// (|L - sum l| <= tolerance * L) and not changing length (|L'| <= tolerance * (1 m/s + the
    /// largest speed)), because the reduced state holds both by construction; a compliant
    /// string's layout takes any length.
    pub fn reduce(
        &self,
        state: &CartesianState,
        string_length: f64,
        tolerance: f64,
    ) -> Result<ReducedState, StateError> {
        if state.diabolo_count() != self.diabolos() {
            return Err(StateError::WrongLength {
                got: state.diabolo_count(),
                expected: self.diabolos(),
                diabolos: self.diabolos(),
            });
        }
        let mut kin = Kinematics::new(self.diabolos());
        kin.load_cartesian(state)?;
        let slack = string_length - kin.total_length();
        if !self.is_elastic() && slack.abs() > tolerance * string_length {
            return Err(StateError::NotTaut {
                slack,
                tolerance: tolerance * string_length,
            });
        }
        let speed = (0..self.diabolos() + 2)
            .map(|k| state.velocity(k).norm())
            .fold(0.0, f64::max);
        let rate = kin.total_length_rate();
        if !self.is_elastic() && rate.abs() > tolerance * (1.0 + speed) {
            return Err(StateError::LengthChanging {
                rate,
                tolerance: tolerance * (1.0 + speed),
            });
        }
        let mut x = vec![0.0; self.len()];
        self.write(&kin, state, &mut x);
        ReducedState::from_values(*self, x)
    }

    /// Writes the reduced state of `state`, whose kinematics `kin` holds (loaded from it), into
    /// `x` (the layout's length; allocation-free).
    pub fn write(&self, kin: &Kinematics, state: &CartesianState, x: &mut [f64]) {
        x[0] = state.left.pos.x;
        x[1] = state.left.pos.y;
        let objects = kin.objects();
        for i in 0..self.diabolos() {
            x[self.segment_length(i)] = kin.segments()[i].length;
        }
        x[self.phi0()] = objects[0].phi;
        for i in 1..=self.diabolos() {
            x[self.theta(i)] = objects[i].theta;
            x[self.spin(i)] = state.diabolos[i - 1].spin;
        }
        for (k, object) in objects.iter().enumerate().take(self.diabolos() + 1) {
            x[self.u_alpha(k)] = object.u_alpha;
            x[self.u_beta(k)] = object.u_beta;
        }
        x[self.u_alpha_right()] = objects[self.diabolos() + 1].u_alpha;
        if self.is_elastic() {
            x[self.last_segment_length()] = kin.segments()[self.diabolos()].length;
            x[self.u_beta_right()] = objects[self.diabolos() + 1].u_beta;
        }
    }

    /// Converts a reduced state back to positions, velocities, spins and knot degrees
    /// (k_i = floor(theta_i / 2 pi)).
    pub fn expand(&self, x: &[f64], string_length: f64) -> Result<CartesianState, StateError> {
        self.check(x)?;
        let mut kin = Kinematics::new(self.diabolos());
        kin.load_reduced(self, x, string_length);
        Ok(kin.to_cartesian(Vector2::new(x[0], x[1]), |i| x[self.spin(i)]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn wrap_angle_lands_in_half_open_interval() {
        for a in [-7.0, -PI, -1e-18, 0.0, 3.0, PI, 7.5, 100.0] {
            let w = wrap_angle(a);
            assert!((-PI..PI).contains(&w), "{a} -> {w}");
            let turns = (a - w) / TAU;
            assert_abs_diff_eq!(turns, turns.round(), epsilon = 1e-12);
        }
    }

    #[test]
    fn the_sticks_psi_constant_is_what_sin_cos_gives() {
        assert_eq!(STICK_PSI_SIN_COS, (-FRAC_PI_2).sin_cos());
    }

    proptest::proptest! {
        /// The frames' sines and cosines, built by rotations along the chain, agree with the
        /// sines and cosines of their angles to a few ulps, for chains of up to 256 diabolos at
        /// any angles (the error grows like the square root of the chain's length at most).
        #[test]
        fn rotated_frames_agree_with_the_frames_angles(
            phi0 in 0.0..TAU,
            thetas in proptest::collection::vec(-TAU..TAU, 0..256),
        ) {
            let n = thetas.len();
            let mut kin = Kinematics::new(n);
            for (i, theta) in thetas.iter().enumerate() {
                kin.objects[i + 1].theta = *theta;
            }
            kin.set_angles(phi0);
            let bound = 1e-15 * (1.0 + (n as f64).sqrt()) * (1.0 + kin.objects[n + 1].phi.abs());
            for (k, o) in kin.objects.iter().enumerate() {
                let (sin, cos) = o.phi.sin_cos();
                proptest::prop_assert!((o.sin_phi - sin).abs() <= bound, "sin phi_{} off by {:e}", k, o.sin_phi - sin);
                proptest::prop_assert!((o.cos_phi - cos).abs() <= bound, "cos phi_{} off by {:e}", k, o.cos_phi - cos);
                let e = unit(o.phi + o.psi);
                if k <= n {
                    proptest::prop_assert!((kin.segment_direction(k) - e).norm() <= bound);
                }
            }
        }
    }
}
