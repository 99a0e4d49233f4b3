//! The string in space: the polyline from the left tip through the diabolos to the right tip
//! (docs/space.md, "The string in space").
//!
//! Segment i joins object i and i + 1 (0 the left stick, N + 1 the right): length l_i (m),
//! unit direction u_i from its left end to its right end, length rate
//! l_i' = u_i . (v_{i+1} - v_i) (m/s) and the transverse term
//! q_i = (|v_{i+1} - v_i|^2 - l_i'^2) / l_i (m/s^2), so that
//! l_i'' = u_i . (a_{i+1} - a_i) + q_i.
//! At diabolo K the string turns from u_{K-1} to u_K (cos beta_K = u_{K-1} . u_K) and wraps the
//! axle over the contact angle theta'_K = (its turn about the axle) + 2 pi k_K
//! ([`SpaceString::contact_angle`]).

use std::f64::consts::PI;

use nalgebra::Vector3;

use super::state::SpaceState;

/// One segment of the string.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpaceSegment {
    /// l_i: length, m.
    pub length: f64,
    /// u_i: unit direction from the segment's left end to its right end.
    pub direction: Vector3<f64>,
    /// l_i': length rate, m/s.
    pub length_rate: f64,
    /// q_i = (|v_{i+1} - v_i|^2 - l_i'^2) / l_i: the part of l_i'' that the velocities alone
    /// give (the segment's turning), m/s^2.
    pub transverse: f64,
}

/// The string's geometry and rates at one instant, in preallocated buffers (allocation-free
/// after [`SpaceString::new`]).
#[derive(Clone, Debug)]
pub struct SpaceString {
    segments: Vec<SpaceSegment>,
}

/// Two neighbours on the string at the same point: the string's direction is undefined there.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("segment {segment} of the string (between object {segment} and {}) has zero length: two objects coincide", segment + 1)]
pub struct CollapsedSegment {
    /// The segment's index, 0 starting at the left stick.
    pub segment: usize,
}

impl SpaceString {
    /// Buffers for N diabolos (N + 1 segments).
    pub fn new(diabolos: usize) -> Self {
        Self {
            segments: vec![SpaceSegment::default(); diabolos + 1],
        }
    }

    /// Fills the segments from a state.
    pub fn update(&mut self, state: &SpaceState) -> Result<(), CollapsedSegment> {
        for (i, segment) in self.segments.iter_mut().enumerate() {
            let span = state.position(i + 1) - state.position(i);
            let dv = state.velocity(i + 1) - state.velocity(i);
            let length = span.norm();
            if length.is_nan() || length <= 0.0 {
                return Err(CollapsedSegment { segment: i });
            }
            let direction = span / length;
            let length_rate = direction.dot(&dv);
            *segment = SpaceSegment {
                length,
                direction,
                length_rate,
                transverse: (dv.norm_squared() - length_rate * length_rate).max(0.0) / length,
            };
        }
        Ok(())
    }

    /// The segments 0..=N.
    pub fn segments(&self) -> &[SpaceSegment] {
        &self.segments
    }

    /// sum l_i, m.
    pub fn total_length(&self) -> f64 {
        self.segments.iter().map(|s| s.length).sum()
    }

    /// L' = sum l_i', m/s.
    pub fn total_length_rate(&self) -> f64 {
        self.segments.iter().map(|s| s.length_rate).sum()
    }

    /// F_C = (1/2) sum_i q_i: the centrifugal term, m/s^2. The velocity part of
    /// (1/2) d^2/dt^2 sum l_i; equal to the planar model's F^_C in the plane.
    pub fn centrifugal_term(&self) -> f64 {
        0.5 * self.segments.iter().map(|s| s.transverse).sum::<f64>()
    }

    /// cos beta_K = u_{K-1} . u_K at diabolo K (1..N).
    pub fn turning_cosine(&self, k: usize) -> f64 {
        self.segments[k - 1]
            .direction
            .dot(&self.segments[k].direction)
    }

    /// The string's turn at diabolo K about its axle a, in (-pi, pi], rad: the angle from
    /// u_{K-1} to u_K projected on the plane perpendicular to a, counter-clockwise seen from the
    /// tip of a. In the plane (a = +z) it is the planar model's theta - pi reduced to (-pi, pi]:
    /// positive for a V under the axle, zero where the string runs straight past it, negative
    /// where a diabolo without a knot is off the string's side (it left) or, with a knot, above
    /// the chord.
    pub fn turn_about(&self, k: usize, axle: &Vector3<f64>) -> f64 {
        let (sin, cos) = self.turn_sine_cosine(k, axle);
        sin.atan2(cos)
    }

    /// (sin, cos) of [`SpaceString::turn_about`] up to one positive factor
    /// (|u_perp| |v_perp|, the strands' lengths across the axle): its sine's sign changes where
    /// the string runs straight past the axle or folds back through it.
    pub fn turn_sine_cosine(&self, k: usize, axle: &Vector3<f64>) -> (f64, f64) {
        let (u, v) = (self.segments[k - 1].direction, self.segments[k].direction);
        let (u, v) = (u - axle * axle.dot(&u), v - axle * axle.dot(&v));
        (u.cross(&v).dot(axle), u.dot(&v))
    }

    /// theta'_K = turn_about + 2 pi k_K: how far the string goes around axle K, rad (the
    /// planar model's theta - pi). The turn is measured about the axle (the string's path
    /// around the axle's circle), not as the 3D angle between the strands: the two agree when
    /// the strands are perpendicular to the axle and differ by second order in their slope.
    pub fn contact_angle(&self, k: usize, knot: i32, axle: &Vector3<f64>) -> f64 {
        (self.turn_about(k, axle) + 2.0 * PI * f64::from(knot)).max(0.0)
    }

    /// sum_{j<K} l_j': the speed at which the string's material passes diabolo K (1..N+1) from
    /// left to right, m/s.
    pub fn feed(&self, k: usize) -> f64 {
        self.segments[..k].iter().map(|s| s.length_rate).sum()
    }
}
