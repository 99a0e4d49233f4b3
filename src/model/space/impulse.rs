//! The tensing impulse in space (docs/space.md; the planar one is docs/model.md, "Loose phase
//! and tensing").
//!
//! When the slack string reaches its length with L' > 0, segment i takes the impulse
//! Pi_i = Lambda d_i (the ratios of the capstan law for the pre-impact symmetric slip speeds),
//! every object's velocity jumps by mu_j (Pi_j u_j - Pi_{j-1} u_{j-1}) and every spin by
//! (Pi_{K-1} - Pi_K) / (m J): the same linear structure as the tensions, so
//! L'+ = L'- - k_T Lambda and Lambda = (1 + e) L'- / k_T makes L'+ = -e L'-. A prescribed stick is
//! infinitely heavy (mu = 0): its hand absorbs the impulse.

use nalgebra::Vector3;

use super::energy::space_energy;
use super::params::SpaceParams;
use super::state::SpaceState;
use super::string::SpaceString;
use super::tension::{SpaceSlipReference, SpaceTension};

/// What a tensing impulse did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceImpulse {
    /// Lambda: the impulse of segment 0, N s (segment i takes Lambda d_i).
    pub impulse: f64,
    /// L' before, m/s.
    pub rate_before: f64,
    /// L' after, m/s (-e times the rate before).
    pub rate_after: f64,
    /// The energy the impulse dissipated: the kinetic energy lost plus the hands' work during
    /// it, J (>= 0).
    pub energy_lost: f64,
    /// The work the hands of prescribed sticks did during the impulse, J.
    pub hand_work: f64,
}

/// A tensing impulse the model in space cannot apply.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SpaceImpulseError {
    /// Nothing can take the impulse (every object infinitely heavy).
    #[error("the string cannot take the tensing impulse: every object on it is prescribed")]
    Rigid,
    /// An axle's slip changes sign during the impulse (the planar model follows it in pieces;
    /// the model in space does not yet).
    #[error("the slip at diabolo {diabolo} changes sign during the tensing impulse ({before:.3e} -> {after:.3e} m/s), which the model in space does not follow yet")]
    SlipReversal {
        /// The diabolo, 1..N.
        diabolo: usize,
        /// Its symmetric slip speed before and after, m/s.
        before: f64,
        /// After, m/s.
        after: f64,
    },
}

/// Applies the tensing impulse with restitution e to `state` (on `string`'s geometry, filled
/// from it); `prescribed` says which sticks are infinitely heavy (left, right).
pub fn space_tensing_impulse(
    params: &SpaceParams,
    state: &mut SpaceState,
    string: &mut SpaceString,
    work: &mut SpaceTension,
    prescribed: [bool; 2],
) -> Result<SpaceImpulse, SpaceImpulseError> {
    let p = params.planar.values();
    let n = state.diabolos.len();
    let _ = string.update(state);
    work.update_contacts(params, state, string, None, SpaceSlipReference::Symmetric);
    let slips_before: Vec<f64> = (1..=n).map(|k| work.contact(k).slip_speed).collect();
    let ratios = work.ratios().to_vec();
    let mu = |j: usize| -> f64 {
        if j == 0 || j == n + 1 {
            let side = usize::from(j != 0);
            if prescribed[side] {
                0.0
            } else {
                1.0 / p.stick_mass
            }
        } else {
            1.0 / p.diabolo_mass
        }
    };
    let segments = string.segments().to_vec();
    // k_T = -sum_k (sum_i A_ik) d_k.
    let mut k_t = 0.0;
    for k in 0..=n {
        let mut column = -(mu(k) + mu(k + 1));
        if k > 0 {
            column += mu(k) * segments[k - 1].direction.dot(&segments[k].direction);
        }
        if k < n {
            column += mu(k + 1) * segments[k].direction.dot(&segments[k + 1].direction);
        }
        k_t -= column * ratios[k];
    }
    if k_t.is_nan() || k_t <= 0.0 {
        return Err(SpaceImpulseError::Rigid);
    }
    let rate_before = string.total_length_rate();
    let lambda = (1.0 + p.restitution) * rate_before / k_t;
    let energy_before = space_energy(params, state);
    let pull = |j: usize| -> Vector3<f64> {
        let right = if j <= n {
            lambda * ratios[j] * segments[j].direction
        } else {
            Vector3::zeros()
        };
        let left = if j > 0 {
            lambda * ratios[j - 1] * segments[j - 1].direction
        } else {
            Vector3::zeros()
        };
        right - left
    };
    let mut hand_work = 0.0;
    for (side, j) in [(0usize, 0usize), (1, n + 1)] {
        let stick = if side == 0 {
            &mut state.left
        } else {
            &mut state.right
        };
        if prescribed[side] {
            // The hand's impulse cancels the string's; the stick keeps its velocity.
            hand_work -= pull(j).dot(&stick.vel);
        } else {
            stick.vel += pull(j) * mu(j);
        }
    }
    let spin_mass = p.diabolo_mass * p.spin_inertia;
    for k in 1..=n {
        let jump = pull(k) * mu(k);
        let d = &mut state.diabolos[k - 1];
        d.vel += jump;
        d.spin += lambda * (ratios[k - 1] - ratios[k]) / spin_mass;
    }
    let _ = string.update(state);
    work.update_contacts(params, state, string, None, SpaceSlipReference::Symmetric);
    for (k, before) in slips_before.iter().enumerate() {
        let after = work.contact(k + 1).slip_speed;
        if before * after < 0.0 {
            return Err(SpaceImpulseError::SlipReversal {
                diabolo: k + 1,
                before: *before,
                after,
            });
        }
    }
    let energy_after = space_energy(params, state);
    Ok(SpaceImpulse {
        impulse: lambda,
        rate_before,
        rate_after: string.total_length_rate(),
        energy_lost: energy_before - energy_after + hand_work,
        hand_work,
    })
}
