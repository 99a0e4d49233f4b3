//! The taut string's constraint held after each step: the state projected onto sum l = L and
//! L' = 0 in the metric of the inverse masses (seed 004's projection; a prescribed stick does
//! not move), each axle onto the unit sphere.

use nalgebra::Vector3;

use super::system::{Layout, SpaceSystem};
use super::SpaceHand;
use crate::model::space::tension::inverse_mass;
use crate::model::space::{AxleModel, SpaceState};

/// Projects the taut state onto the string (sum l = L, L' = 0) in the metric of the inverse
/// masses (a prescribed stick does not move), and each axle onto the unit sphere with its rate
/// perpendicular to it. True when anything changed.
pub(super) fn project<H: SpaceHand>(
    system: &mut SpaceSystem<H>,
    layout: Layout,
    prescribed: [bool; 2],
    y: &mut [f64],
) -> bool {
    let params = system.params;
    let p = params.planar.values();
    let mut state = std::mem::take(&mut system.state);
    let n = state.diabolos.len();
    layout.unpack(y, system.roster.slots(), &mut state);
    let mu = |j: usize| inverse_mass(p, prescribed, n, j);
    // grad_j C = u_{j-1} - u_j (u_{-1} = u_{N+1} = 0).
    let direction = |state: &SpaceState, i: usize| {
        let d = state.position(i + 1) - state.position(i);
        d / d.norm()
    };
    let gradient = |state: &SpaceState, j: usize| {
        let left = if j > 0 {
            direction(state, j - 1)
        } else {
            Vector3::zeros()
        };
        let right = if j <= n {
            direction(state, j)
        } else {
            Vector3::zeros()
        };
        left - right
    };
    let mut changed = false;
    for _ in 0..2 {
        let c = state.string_used() - p.string_length;
        let norm: f64 = (0..n + 2)
            .map(|j| mu(j) * gradient(&state, j).norm_squared())
            .sum();
        if c == 0.0 || norm.is_nan() || norm <= 0.0 {
            break;
        }
        let grads = &mut system.gradients;
        for (j, g) in grads.iter_mut().enumerate() {
            *g = gradient(&state, j);
        }
        for (j, g) in grads.iter().enumerate() {
            let shift = -g * (mu(j) * c / norm);
            set_position(&mut state, j, shift);
        }
        changed = true;
    }
    let grads = &mut system.gradients;
    for (j, g) in grads.iter_mut().enumerate() {
        *g = gradient(&state, j);
    }
    let norm: f64 = (0..n + 2).map(|j| mu(j) * grads[j].norm_squared()).sum();
    let rate: f64 = (0..n + 2).map(|j| grads[j].dot(&state.velocity(j))).sum();
    if rate != 0.0 && norm > 0.0 {
        for (j, g) in grads.iter().enumerate() {
            let shift = -g * (mu(j) * rate / norm);
            set_velocity(&mut state, j, shift);
        }
        changed = true;
    }
    for d in &mut state.diabolos {
        let size = d.axle.norm();
        if size != 1.0 {
            d.axle /= size;
            changed = true;
        }
        if params.model == AxleModel::Rigid {
            let along = d.axle.dot(&d.axle_rate);
            if along != 0.0 {
                d.axle_rate -= d.axle * along;
                changed = true;
            }
        }
    }
    if changed {
        layout.pack(&state, system.roster.slots(), y);
    }
    system.state = state;
    changed
}

fn set_position(state: &mut SpaceState, j: usize, shift: Vector3<f64>) {
    let n = state.diabolos.len();
    match j {
        0 => state.left.pos += shift,
        j if j == n + 1 => state.right.pos += shift,
        j => state.diabolos[j - 1].pos += shift,
    }
}

fn set_velocity(state: &mut SpaceState, j: usize, shift: Vector3<f64>) {
    let n = state.diabolos.len();
    match j {
        0 => state.left.vel += shift,
        j if j == n + 1 => state.right.vel += shift,
        j => state.diabolos[j - 1].vel += shift,
    }
}
