//! The third dimension of a recording: the z of the tips and of the diabolo's centre, and the
//! axle's direction; the axle smoothed of its wobble.

use nalgebra::Vector3;

use crate::display::Compact;
use crate::model::axle_angles;

/// The default half-width of the axle's smoothing window, s ([`Space::smoothed_axle`]).
///
/// The recorded axle wobbles at twice the spin frequency (an imperfect axle: 0.6 degrees RMS of
/// tilt above 12 Hz on `data/inclination/`, at 25 to 50 Hz for spins of 77 to 160 rad/s), and at
/// the spin frequency a little. At 120 frames a second, 0.07 s takes 17 frames (8 either side,
/// 0.14 s, at least one revolution at the slowest spin): the wobble left is 0.04 degrees RMS,
/// while the window changes the tilt's slow motion (below 3 Hz) by 0.016 degrees RMS. Narrower
/// windows leave more wobble (9 frames: 0.07 degrees); wider ones take no more wobble out (21
/// frames: 0.037) and bend the slow motion more (0.023; 31 frames: 0.045).
pub const AXLE_SMOOTHING: f64 = 0.07;

/// How far a recorded axle's length may be from 1 (the files give six decimals).
const UNIT_TOLERANCE: f64 = 1e-3;

/// What a recording with the 3D columns adds to the planar one: one entry per frame.
///
/// Axes: x and y are the planar recording's (x right along the hands, y up), z is normal to
/// that plane toward the audience (0 on the plane).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Space {
    /// z of the left stick tip, m.
    pub left_z: Vec<f64>,
    /// z of the right stick tip, m.
    pub right_z: Vec<f64>,
    /// z of the diabolo's centre, m: its distance out of the plane.
    pub dia_z: Vec<f64>,
    /// The axle's direction, a unit vector with z >= 0 (toward the audience); the recording's
    /// spin is about it. Its angles: [`axle_angles`].
    pub axle: Vec<Vector3<f64>>,
}

impl Space {
    /// Appends one frame; an axle that is not a unit vector (within 1e-3) or points away from
    /// the audience (axle_z < 0) is refused, naming the columns.
    pub(super) fn push(
        &mut self,
        left_z: f64,
        right_z: f64,
        dia_z: f64,
        axle: [f64; 3],
    ) -> Result<(), String> {
        let a = Vector3::from(axle);
        if (a.norm() - 1.0).abs() > UNIT_TOLERANCE {
            return Err(format!(
                "columns axle_x, axle_y, axle_z: the axle ({}, {}, {}) has length {}, not 1; \
                 give its direction as a unit vector",
                Compact(a.x),
                Compact(a.y),
                Compact(a.z),
                Compact(a.norm())
            ));
        }
        if a.z < 0.0 {
            return Err(format!(
                "column axle_z: {} is negative; give the axle's direction toward the audience \
                 (axle_z >= 0: the opposite vector, with the spin's sign flipped)",
                Compact(a.z)
            ));
        }
        self.left_z.push(left_z);
        self.right_z.push(right_z);
        self.dia_z.push(dia_z);
        self.axle.push(a);
        Ok(())
    }

    /// The axle of each frame averaged over the frames within `half_width` s of it (a centred
    /// moving average of the components, the window cut short at the recording's ends, then
    /// normalised): the twice-spin-frequency wobble removed ([`AXLE_SMOOTHING`] is the default
    /// half-width). `t` is the recording's time; a half-width of 0 keeps every frame as it is.
    pub fn smoothed_axle(&self, t: &[f64], half_width: f64) -> Vec<Vector3<f64>> {
        moving_average(t, &self.axle, half_width)
            .into_iter()
            .map(|a| a.normalize())
            .collect()
    }

    /// The tilt of each frame's axle, degrees ([`axle_angles::tilt`]).
    pub fn tilts(axle: &[Vector3<f64>]) -> Vec<f64> {
        axle.iter().map(axle_angles::tilt).collect()
    }

    /// The turn of each frame's axle, degrees ([`axle_angles::turn`]).
    pub fn turns(axle: &[Vector3<f64>]) -> Vec<f64> {
        axle.iter().map(axle_angles::turn).collect()
    }
}

/// The mean of `values` over the samples within `half_width` of each sample's time (running
/// sums: linear in the samples).
fn moving_average(t: &[f64], values: &[Vector3<f64>], half_width: f64) -> Vec<Vector3<f64>> {
    // A half-width that is a whole number of frames takes those frames despite round-off.
    let reach = half_width + 1e-9;
    let (mut lo, mut hi) = (0, 0);
    let mut sum = Vector3::zeros();
    let mut out = Vec::with_capacity(values.len());
    for &ti in t {
        while hi < t.len() && t[hi] <= ti + reach {
            sum += values[hi];
            hi += 1;
        }
        while t[lo] < ti - reach {
            sum -= values[lo];
            lo += 1;
        }
        out.push(sum / (hi - lo) as f64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moving_average_takes_the_frames_within_reach() {
        let t: Vec<f64> = (0..6).map(|i| f64::from(i) / 120.0).collect();
        let v: Vec<Vector3<f64>> = (0..6)
            .map(|i| Vector3::new(f64::from(i), 0.0, 1.0))
            .collect();
        let same = moving_average(&t, &v, 0.0);
        assert_eq!(same, v);
        // One frame either side (1/120 s), cut short at the ends.
        let m = moving_average(&t, &v, 1.0 / 120.0);
        let xs: Vec<f64> = m.iter().map(|a| a.x).collect();
        assert_eq!(xs, [0.5, 1.0, 2.0, 3.0, 4.0, 4.5]);
    }

    #[test]
    fn a_wobble_at_twice_the_spin_frequency_is_smoothed_out() {
        // Tilt 5 degrees with a 0.6 degree wobble at 35 Hz (spin 110 rad/s), at 120 Hz.
        let t: Vec<f64> = (0..600).map(|i| f64::from(i) / 120.0).collect();
        let axle: Vec<Vector3<f64>> = t
            .iter()
            .map(|&t| {
                let wobble = 0.6 * std::f64::consts::SQRT_2 * (2.0 * 110.0 * t).sin();
                axle_angles::direction(5.0 + wobble, 0.0)
            })
            .collect();
        let space = Space {
            left_z: vec![0.0; t.len()],
            right_z: vec![0.0; t.len()],
            dia_z: vec![0.0; t.len()],
            axle,
        };
        let tilts = Space::tilts(&space.smoothed_axle(&t, AXLE_SMOOTHING));
        let worst = tilts[20..580]
            .iter()
            .map(|x| (x - 5.0).abs())
            .fold(0.0, f64::max);
        assert!(worst < 0.1, "{worst}");
    }
}
