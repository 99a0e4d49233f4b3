//! The tensing impulse (note section 3-1, model.md "Loose phase and tensing").
//!
//! When a slack string snaps taut with L' > 0, an impulsive tension J_i = J_0 d_i acts along the
//! segments over an instant. Its tension ratios come from the pre-impact symmetric slip speeds
//! w'_i = sigma_i w_i - (sum_{j<i} l_j' - sum_{j>=i} l_j')/2. Its magnitude makes
//! L'+ = -e L'- (seed 003, eq. 6; e = 0 is the note's plastic impact):
//! J_0 = (1 + e) L'- / (1/M_0 + d_N / M_{N+1} + (2/m) S),
//! where a path-driven stick is infinitely heavy (1/M = 0: the hand absorbs the impulse).

use super::energy::kinetic_energy;
use super::friction::{Axles, SlipReference};
use super::geometry::Kinematics;
use super::params::Params;
use super::state::{CartesianState, StateError};
use super::tension::shape_sum;

/// What a tensing impulse did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TensingImpulse {
    /// J_0 = integral of T_0 over the impact: impulse carried by segment 0, N s.
    pub magnitude: f64,
    /// J_N = J_0 d_N: impulse carried by the last segment, N s.
    pub last_magnitude: f64,
    /// L' just before, m/s.
    pub length_rate_before: f64,
    /// L' just after (= -e L'-), m/s.
    pub length_rate_after: f64,
    /// Work the hands did on path-driven (infinitely heavy) sticks during the impact, J.
    pub hand_work: f64,
    /// Energy dissipated: kinetic energy lost plus the hands' work, J (>= 0).
    pub energy_lost: f64,
}

/// Applies the tensing impulse to `state` (a string at full length, L' > 0) and reports it.
/// `heavy[s]` marks a path-driven stick (s = 0 left, 1 right). With L' <= 0 nothing happens.
pub fn tensing_impulse(
    params: &Params,
    state: &mut CartesianState,
    heavy: [bool; 2],
) -> Result<TensingImpulse, StateError> {
    let n = state.diabolo_count();
    if n == 0 {
        return Err(StateError::NoDiabolo);
    }
    let mut kin = Kinematics::new(n);
    kin.load_cartesian(state)?;
    let length_rate_before = kin.total_length_rate();
    if length_rate_before <= 0.0 {
        return Ok(TensingImpulse {
            length_rate_before,
            length_rate_after: length_rate_before,
            ..TensingImpulse::default()
        });
    }
    let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
    let mut axles = Axles::new(n);
    // The friction direction of the impact is that of the pre-impact symmetric slip.
    axles.update(params.friction_law, params.friction, &kin, &spins, None, SlipReference::Symmetric);
    let ratios = axles.tension_ratios();
    let d_n = axles.last_ratio();
    let inverse_mass = heavy.map(|h| if h { 0.0 } else { 1.0 / params.stick_mass });
    let m = params.diabolo_mass;
    let compliance = inverse_mass[0] + d_n * inverse_mass[1] + 2.0 * shape_sum(&kin, ratios) / m;
    let magnitude = (1.0 + params.restitution) * length_rate_before / compliance;

    let kinetic_before = kinetic_energy(params, state);
    let o = kin.objects();
    // Sticks: the string pulls stick 0 along e_0 = -beta_0 and stick N+1 along -e_N = -beta_{N+1}.
    let mut hand_work = 0.0;
    for (s, k, ratio) in [(0, 0, 1.0), (1, n + 1, d_n)] {
        let impulse = magnitude * ratio;
        if heavy[s] {
            hand_work += impulse * o[k].u_beta;
        } else {
            *state.velocity_mut(k) += o[k].to_world(0.0, -impulse * inverse_mass[s]);
        }
    }
    let spin_mass = m * params.spin_inertia;
    for i in 1..=n {
        let (dd, ds) = (ratios[i] - ratios[i - 1], ratios[i] + ratios[i - 1]);
        let dv = o[i].to_world(magnitude * dd * o[i].cos_psi / m, magnitude * ds * o[i].sin_psi / m);
        let d = &mut state.diabolos[i - 1];
        d.vel += dv;
        d.spin -= axles.contacts()[i - 1].side * magnitude * dd / spin_mass;
    }
    kin.load_cartesian(state)?;
    let kinetic_after = kinetic_energy(params, state);
    Ok(TensingImpulse {
        magnitude,
        last_magnitude: magnitude * d_n,
        length_rate_before,
        length_rate_after: kin.total_length_rate(),
        hand_work,
        energy_lost: kinetic_before + hand_work - kinetic_after,
    })
}
