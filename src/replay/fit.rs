//! What the planar assimilation (`estimate`) and the one in space (`in_space`) share: the
//! samples of the measured frames they fit, and the Levenberg-Marquardt least squares.

use nalgebra::allocator::Allocator;
use nalgebra::{DVector, DefaultAllocator, DimMin, Dyn, OMatrix, OVector};

use super::recording::Recording;

/// m of residual per rad/s of spin misfit in the assimilation: the marker noise and
/// out-of-plane motion (a few mm) against the spin's noise (about 1 rad/s).
pub(super) const SPIN_RESIDUAL_WEIGHT: f64 = 0.002;

/// The samples every 0.01 s from `from` up to the last frame at or before `from + window`, so
/// that the linear interpolation between frames never reaches a frame after it: their count.
pub(super) fn sample_count(rec: &Recording, from: f64, window: f64) -> usize {
    let last_frame = rec
        .t
        .iter()
        .copied()
        .take_while(|t| *t <= from + window + 1e-9)
        .last()
        .unwrap_or(from);
    ((last_frame - from).max(0.0) / 0.01 + 1e-9).floor() as usize + 1
}

/// The sample a row at `t` s from the start is (rows every 0.005 s, samples every 0.01 s), if
/// it is one of the first `samples`.
pub(super) fn sample_at(t: f64, samples: usize) -> Option<usize> {
    let k = (t / 0.005).round() as usize;
    (k % 2 == 0 && k / 2 < samples).then_some(k / 2)
}

/// The residuals r(x) of a fit with the unknowns x (None where the model cannot run from x).
pub(super) type Residuals<'a, D> = dyn Fn(&OVector<f64, D>) -> Option<DVector<f64>> + 'a;

/// Minimises |r(x)|^2 by Levenberg-Marquardt with forward differences of step `h`: at most 10
/// iterations, stopping when a step lowers the cost by less than 1e-6 of it. `D` is the number
/// of unknowns (5 in the plane, a dynamic 7 in space).
pub(super) fn levenberg_marquardt<D>(
    residuals: &Residuals<D>,
    mut x: OVector<f64, D>,
    h: &OVector<f64, D>,
) -> OVector<f64, D>
where
    D: DimMin<D, Output = D>,
    DefaultAllocator: Allocator<D> + Allocator<D, D> + Allocator<Dyn, D>,
{
    let (unknowns, _) = x.shape_generic();
    let n = x.len();
    let Some(mut r) = residuals(&x) else {
        return x;
    };
    let mut lambda = 1e-3;
    for _ in 0..10 {
        let mut jacobian = OMatrix::<f64, Dyn, D>::zeros_generic(Dyn(r.len()), unknowns);
        for j in 0..n {
            let mut xj = x.clone();
            xj[j] += h[j];
            let Some(rj) = residuals(&xj) else {
                return x;
            };
            jacobian.set_column(j, &((rj - &r) / h[j]));
        }
        let jtj = jacobian.tr_mul(&jacobian);
        let gradient = jacobian.tr_mul(&r);
        let cost = r.norm_squared();
        let mut improved = false;
        for _ in 0..6 {
            let mut a = jtj.clone();
            for d in 0..n {
                a[(d, d)] += lambda * jtj[(d, d)].max(1e-12);
            }
            let Some(step) = a.lu().solve(&(-&gradient)) else {
                lambda *= 10.0;
                continue;
            };
            let candidate = &x + step;
            match residuals(&candidate) {
                Some(rc) if rc.norm_squared() < cost => {
                    improved = cost - rc.norm_squared() > 1e-6 * cost;
                    x = candidate;
                    r = rc;
                    lambda = (lambda * 0.3).max(1e-9);
                    break;
                }
                _ => lambda *= 10.0,
            }
        }
        if !improved {
            break;
        }
    }
    x
}
