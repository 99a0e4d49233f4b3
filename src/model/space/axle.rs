//! The axle as an axisymmetric gyroscope driven by the string (docs/space.md, "The axle").
//!
//! Each strand of string leaves the axle tangentially at radius r, at the point where the axle's
//! circle has the strand's direction as its tangent, on the side the string wraps (under the
//! axle in the spin convention). Its pull T f (f the unit direction from the diabolo along the
//! strand) applied there has the torque r n x T f about the centre, n the outward normal at
//! the tangent point: n = a x f_perp / |f_perp| on the left strand, f_perp / |f_perp| x a on
//! the right. The part along the axle is the spin torque (the friction's tension difference);
//! the perpendicular part,
//! tau_perp = r [T_L (u_L . a) u_L,perp / |u_L,perp| - T_R (u_R . a) u_R,perp / |u_R,perp|],
//! with u_L = u_{K-1} and u_R = u_K the segments' directions along the string, turns the axle.
//! With the spin's angular velocity Omega a, Omega = -w / r, the angular momentum is
//! I_p Omega a + I_t a x a', and dL/dt = tau gives
//! I_t (a'' + |a'|^2 a) = I_p Omega a x a' - a x tau (the rigid body) and, neglecting I_t,
//! a' = tau_perp / (I_p Omega) (the fast top).

use nalgebra::Vector3;

/// The string's torque on an axle perpendicular to it, N m: `axle` a (unit), the strands'
/// directions along the string `left` = u_{K-1}, `right` = u_K (unit), their tensions T_L,
/// T_R (N) and the axle radius r (m). Zero for a strand along the axle (no tangent point).
pub fn string_torque(
    axle: &Vector3<f64>,
    left: &Vector3<f64>,
    right: &Vector3<f64>,
    tensions: (f64, f64),
    radius: f64,
) -> Vector3<f64> {
    let part = |u: &Vector3<f64>, tension: f64| {
        let along = u.dot(axle);
        let perp = u - axle * along;
        let size = perp.norm();
        if size > 0.0 {
            perp * (tension * along / size)
        } else {
            Vector3::zeros()
        }
    };
    radius * (part(left, tensions.0) - part(right, tensions.1))
}

/// Omega = -w / r: the spin's angular velocity along a, rad/s.
pub fn spin_rate_about_axle(spin: f64, radius: f64) -> f64 {
    -spin / radius
}

/// a' of the fast top: tau_perp / (I_p Omega), 1/s (zero without a torque; infinite at zero
/// spin with one).
pub fn fast_top_rate(torque: &Vector3<f64>, polar_inertia: f64, omega: f64) -> Vector3<f64> {
    if *torque == Vector3::zeros() {
        return Vector3::zeros();
    }
    torque / (polar_inertia * omega)
}

/// a'' of the rigid axisymmetric body, 1/s^2: -|a'|^2 a + (I_p Omega a x a' - a x tau) / I_t.
pub fn rigid_axle_acceleration(
    axle: &Vector3<f64>,
    rate: &Vector3<f64>,
    torque: &Vector3<f64>,
    polar_inertia: f64,
    transverse_inertia: f64,
    omega: f64,
) -> Vector3<f64> {
    -axle * rate.norm_squared()
        + (axle.cross(rate) * (polar_inertia * omega) - axle.cross(torque)) / transverse_inertia
}

/// The torque of the string's net pull `pull` (N) on a diabolo whose string sits at
/// s = lambda a_y along the axle from the centre (`offset` lambda, m): s a x F, N m. Perpendicular
/// to the axle; it turns a tilted diabolo about the vertical (docs/space.md, "The turn").
pub fn offset_torque(axle: &Vector3<f64>, pull: &Vector3<f64>, offset: f64) -> Vector3<f64> {
    axle.cross(pull) * (offset * axle.y)
}
