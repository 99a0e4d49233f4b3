//! Mechanical energy and the terms of its balance.

use super::params::Params;
use super::state::CartesianState;

/// E: kinetic energy of translation (1/2 M v^2 per stick, 1/2 m v^2 per diabolo), spin energy
/// (1/2 m J w^2 per diabolo) and gravitational potential (mass g y), J.
pub fn mechanical_energy(params: &Params, state: &CartesianState) -> f64 {
    kinetic_energy(params, state) + potential_energy(params, state)
}

/// V: the elastic energy of a compliant string through the objects of `string` (the sticks and
/// the diabolos on it), EA max(delta, 0)^2 / (2 L), J; 0 for the inextensible string.
pub fn string_energy(params: &Params, string: &CartesianState) -> f64 {
    params
        .elastic()
        .map_or(0.0, |s| s.energy(string.string_used() - s.length))
}

/// Translational plus spin kinetic energy, J.
pub fn kinetic_energy(params: &Params, state: &CartesianState) -> f64 {
    let m = params.diabolo_mass;
    let sticks =
        0.5 * params.stick_mass * (state.left.vel.norm_squared() + state.right.vel.norm_squared());
    let diabolos: f64 = state
        .diabolos
        .iter()
        .map(|d| 0.5 * m * (d.vel.norm_squared() + params.spin_inertia * d.spin * d.spin))
        .sum();
    sticks + diabolos
}

/// Gravitational potential energy relative to y = 0, J.
pub fn potential_energy(params: &Params, state: &CartesianState) -> f64 {
    let g = params.gravity;
    g * (params.stick_mass * (state.left.pos.y + state.right.pos.y)
        + params.diabolo_mass * state.diabolos.iter().map(|d| d.pos.y).sum::<f64>())
}

/// The power terms of dE/dt = hand_power - friction_dissipation - drag_loss - string_loss, W
/// (E with a compliant string's elastic energy).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerBalance {
    /// sum over sticks of F . v: power the hands put in.
    pub hand_power: f64,
    /// sum_i (T_i - T_{i-1}) w'_i: power lost to friction between string and axles (>= 0).
    pub friction_dissipation: f64,
    /// sum_i m J D w_i^2: power lost to spin drag (>= 0).
    pub drag_loss: f64,
    /// A compliant string's damping loss (docs/elastic.md, >= 0); `None` for the inextensible
    /// string.
    pub string_loss: Option<f64>,
}

impl PowerBalance {
    /// dE/dt predicted by the balance.
    pub fn energy_rate(&self) -> f64 {
        self.hand_power
            - self.friction_dissipation
            - self.drag_loss
            - self.string_loss.unwrap_or(0.0)
    }
}
