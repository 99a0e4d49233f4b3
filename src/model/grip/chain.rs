//! The chain of gripping axles: its banded rows, from their closed-form tension partials.

use super::accelerations::FrameInput;
use crate::model::geometry::Kinematics;
use crate::model::params::Params;

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
pub(super) fn chain_rows(
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
