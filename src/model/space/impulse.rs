//! The tensing impulse in space (docs/space.md; the planar one is docs/model.md, "Loose phase
//! and tensing").
//!
//! When the slack string reaches its length with L' > 0, segment i takes the impulse
//! Pi_i = Lambda d_i (the ratios of the capstan law for the pre-impact symmetric slip speeds),
//! every object's velocity jumps by mu_j (Pi_j u_j - Pi_{j-1} u_{j-1}) and every spin by
//! (Pi_{K-1} - Pi_K) / (m J): the same linear structure as the tensions, so
//! L'+ = L'- - k_T Lambda and Lambda = (1 + e) L'- / k_T makes L'+ = -e L'-. A prescribed stick is
//! infinitely heavy (mu = 0): its hand absorbs the impulse. An axle whose slip the impulse
//! would reverse grips instead: its slip ends at zero and its ratio is solved.

use nalgebra::Vector3;

use super::energy::space_energy;
use super::params::SpaceParams;
use super::state::SpaceState;
use super::string::SpaceString;
use super::tension::{chain_coefficient, inverse_mass, SpaceSlipReference, SpaceTension};

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
    /// The axles' takes (slip or grip) did not settle within 2 N + 2 solves.
    #[error("the tensing impulse found no consistent slip or grip of the axles")]
    Unsettled,
}

/// How each axle takes the impulse: slipping with its ratio, or gripping (its slip ends at zero).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Take {
    /// Pi_K = ratio Pi_{K-1}.
    Slips(f64),
    /// The symmetric slip after the impulse is zero; the ratio is solved.
    Grips,
}

/// Applies the tensing impulse with restitution `restitution` (e; a bouncing string that
/// settles takes 0) to `state` (on `string`'s geometry, filled from it); `prescribed` says which
/// sticks are infinitely heavy (left, right).
///
/// Each axle first takes it slipping the way its symmetric slip points; one whose slip the
/// impulse would reverse grips instead (its slip ends at zero, the ratio of its segments'
/// impulses solved), and one gripping whose ratio passes its capstan bound slips at that bound:
/// the planar model's pieces through a slip reversal, as one solve with the axles' final takes.
pub fn space_tensing_impulse(
    params: &SpaceParams,
    restitution: f64,
    state: &mut SpaceState,
    string: &mut SpaceString,
    work: &mut SpaceTension,
    prescribed: [bool; 2],
) -> Result<SpaceImpulse, SpaceImpulseError> {
    let p = params.planar.values();
    let n = state.diabolos.len();
    let _ = string.update(state);
    work.update_contacts(params, state, string, None, SpaceSlipReference::Symmetric);
    let slips: Vec<f64> = (1..=n).map(|k| work.contact(k).slip_speed).collect();
    let angles: Vec<f64> = (1..=n).map(|k| work.contact(k).contact_angle).collect();
    let mu = |j: usize| inverse_mass(p, prescribed, n, j);
    let segments = string.segments().to_vec();
    // A_ik: the change of l_i' per unit impulse of segment k.
    let a = |i: usize, k: usize| chain_coefficient(mu, string, i, k);
    let size = n + 1;
    let column: Vec<f64> = (0..size)
        .map(|k| (0..size).map(|i| a(i, k)).sum())
        .collect();
    if column.iter().all(|c| *c == 0.0) {
        return Err(SpaceImpulseError::Rigid);
    }
    let rate_before = string.total_length_rate();
    let spin_mass = p.diabolo_mass * p.spin_inertia;
    let law = p.friction_law;
    let ratio = |k: usize, slip: f64| {
        let c = crate::model::friction::effective_friction(
            law,
            p.friction,
            slip,
            crate::model::friction::AxleMode::from_slip(slip),
        );
        (c * angles[k - 1]).exp()
    };
    let mut takes: Vec<Take> = (1..=n)
        .map(|k| Take::Slips(ratio(k, slips[k - 1])))
        .collect();
    let mut impulses = vec![0.0; size];
    let mut matrix = vec![0.0; size * size];
    let mut settled = false;
    for _ in 0..2 * n + 2 {
        matrix.iter_mut().for_each(|x| *x = 0.0);
        matrix[..size].copy_from_slice(&column);
        impulses[0] = -(1.0 + restitution) * rate_before;
        for k in 1..=n {
            let row = k * size;
            match takes[k - 1] {
                Take::Slips(d) => {
                    matrix[row + k] = 1.0;
                    matrix[row + k - 1] = -d;
                    impulses[k] = 0.0;
                }
                Take::Grips => {
                    matrix[row + k - 1] += 1.0 / spin_mass;
                    matrix[row + k] -= 1.0 / spin_mass;
                    for col in 0..size {
                        let feed: f64 = (0..k).map(|j| a(j, col)).sum();
                        matrix[row + col] += -feed + 0.5 * column[col];
                    }
                    impulses[k] = -slips[k - 1];
                }
            }
        }
        crate::model::grip::solve_dense(&mut matrix, &mut impulses, size)
            .map_err(|_| SpaceImpulseError::Rigid)?;
        // The slips after, and the takes they call for.
        let rate_change: f64 = (0..size).map(|k| column[k] * impulses[k]).sum();
        let mut changed = false;
        for k in 1..=n {
            let feed: f64 = (0..k)
                .map(|j| (0..size).map(|col| a(j, col) * impulses[col]).sum::<f64>())
                .sum();
            let after = slips[k - 1] + (impulses[k - 1] - impulses[k]) / spin_mass - feed
                + 0.5 * rate_change;
            match takes[k - 1] {
                Take::Slips(_) if after * slips[k - 1] < 0.0 => {
                    takes[k - 1] = Take::Grips;
                    changed = true;
                }
                Take::Grips => {
                    let needed = impulses[k] / impulses[k - 1];
                    let bound_up = (p.friction * angles[k - 1]).exp();
                    let up = match law {
                        crate::model::params::FrictionLaw::Bearing => 1.0,
                        _ => bound_up,
                    };
                    let down = 1.0 / bound_up;
                    if needed > up * (1.0 + 1e-12) {
                        takes[k - 1] = Take::Slips(up);
                        changed = true;
                    } else if needed < down * (1.0 - 1e-12) {
                        takes[k - 1] = Take::Slips(down);
                        changed = true;
                    }
                }
                _ => {}
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return Err(SpaceImpulseError::Unsettled);
    }
    let energy_before = space_energy(params, state);
    let pull = |j: usize| -> Vector3<f64> {
        let right = if j <= n {
            impulses[j] * segments[j].direction
        } else {
            Vector3::zeros()
        };
        let left = if j > 0 {
            impulses[j - 1] * segments[j - 1].direction
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
    for k in 1..=n {
        let jump = pull(k) * mu(k);
        let d = &mut state.diabolos[k - 1];
        d.vel += jump;
        d.spin += (impulses[k - 1] - impulses[k]) / spin_mass;
    }
    let _ = string.update(state);
    let energy_after = space_energy(params, state);
    Ok(SpaceImpulse {
        impulse: impulses[0],
        rate_before,
        rate_after: string.total_length_rate(),
        energy_lost: energy_before - energy_after + hand_work,
        hand_work,
    })
}
