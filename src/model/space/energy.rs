//! Mechanical energy in space.

use super::params::{AxleModel, SpaceParams};
use super::state::SpaceState;

/// E: translational kinetic energy (1/2 M v^2 per stick, 1/2 m v^2 per diabolo), spin energy
/// (1/2 m J w^2 = 1/2 I_p Omega^2), the rigid axle's transverse rotation (1/2 I_t |a'|^2; none
/// in the fast-top limit, which neglects it) and gravitational potential (mass g y), J.
pub fn space_energy(params: &SpaceParams, state: &SpaceState) -> f64 {
    let p = params.planar.values();
    let (m, big_m, g) = (p.diabolo_mass, p.stick_mass, p.gravity);
    let sticks = [&state.left, &state.right]
        .iter()
        .map(|b| 0.5 * big_m * b.vel.norm_squared() + big_m * g * b.pos.y)
        .sum::<f64>();
    let transverse = match params.model {
        AxleModel::FastTop => 0.0,
        AxleModel::Rigid => 0.5 * params.transverse_inertia,
    };
    let diabolos = state
        .diabolos
        .iter()
        .map(|d| {
            0.5 * m * (d.vel.norm_squared() + p.spin_inertia * d.spin * d.spin)
                + transverse * d.axle_rate.norm_squared()
                + m * g * d.pos.y
        })
        .sum::<f64>();
    sticks + diabolos
}
