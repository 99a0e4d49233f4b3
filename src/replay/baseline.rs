//! The "stays as it is" forecasts of the third dimension: the axle keeps its tilt and its turn,
//! the centre keeps its distance from the plane. What a 3D model's replay has to beat.

use super::error::ReplayError;
use super::horizons::check_horizons;
use super::recording::Recording;
use crate::model::axle_angles::{tilt, turn_difference};
use crate::output::table::{interpolate, locate};

/// The "stays as it is" forecasts at one horizon, over every start of the recordings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceBaseline {
    /// The prediction horizon, s.
    pub horizon: f64,
    /// The number of starts (frames) with this horizon inside their recording.
    pub n: usize,
    /// Mean |tilt(s + h) - tilt(s)| of the smoothed axle, degrees.
    pub tilt_mean: f64,
    /// Mean |turn(s + h) - turn(s)| of the smoothed axle (a line's turn, modulo 180), degrees.
    pub turn_mean: f64,
    /// Mean |z(s + h) - z(s)| of the diabolo's centre, m: it keeps its distance from the plane.
    pub oop_mean: f64,
    /// Mean |z(s + h)| of the diabolo's centre, m: it is on the plane (a planar model's
    /// out-of-plane error).
    pub plane_mean: f64,
}

/// The "stays as it is" forecasts of the recordings at each horizon.
///
/// The rule: every frame of every recording is a start; a horizon h is scored at the starts s
/// with s + h no later than the recording's last frame, against the recording at s + h (linear
/// between frames, the axle's components interpolated); the errors of all recordings are pooled, each start weighing the same. The
/// angles are of the axle smoothed over `half_width` s ([`Space::smoothed_axle`](super::Space::smoothed_axle)); the centre's
/// z is as recorded. (Not the replay's starts, every 0.25 s from 0.25 s in: on
/// `data/inclination/` those give a mean tilt error of 2.044 degrees at 2 s, where every frame
/// gives 2.038, the figure the inclination analysis found.)
///
/// A planar recording, or horizons that are not positive multiples of 0.005 s, are an error.
pub fn stay_baselines(
    recordings: &[Recording],
    horizons: &[f64],
    half_width: f64,
) -> Result<Vec<SpaceBaseline>, ReplayError> {
    check_horizons(horizons)?;
    let mut series = Vec::with_capacity(recordings.len());
    for rec in recordings {
        let space = rec.space.as_ref().ok_or_else(|| ReplayError::Recording {
            file: rec.name.clone(),
            reason: "a planar recording: the baselines of the third dimension need the 3D \
                     columns (left_z, ..., axle_z)"
                .into(),
        })?;
        series.push((rec, space.smoothed_axle(&rec.t, half_width), &space.dia_z));
    }
    Ok(horizons
        .iter()
        .map(|&h| {
            let mut sums = [0.0; 4];
            let mut n = 0;
            for (rec, axle, z) in &series {
                let last = rec.t[rec.t.len() - 1];
                for (i, &s) in rec.t.iter().enumerate() {
                    if s + h > last + 1e-9 {
                        break;
                    }
                    let at = s + h;
                    let z_h = interpolate(&rec.t, z, at);
                    let (j, f) = locate(&rec.t, at);
                    let axle_h = if f == 0.0 {
                        axle[j]
                    } else {
                        axle[j] + (axle[j + 1] - axle[j]) * f
                    };
                    sums[0] += (tilt(&axle_h) - tilt(&axle[i])).abs();
                    sums[1] += turn_difference(&axle_h, &axle[i]).abs();
                    sums[2] += (z_h - z[i]).abs();
                    sums[3] += z_h.abs();
                    n += 1;
                }
            }
            let mean = |sum: f64| if n == 0 { f64::NAN } else { sum / n as f64 };
            SpaceBaseline {
                horizon: h,
                n,
                tilt_mean: mean(sums[0]),
                turn_mean: mean(sums[1]),
                oop_mean: mean(sums[2]),
                plane_mean: mean(sums[3]),
            }
        })
        .collect())
}
