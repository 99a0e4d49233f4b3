//! The prop designer's question: how fast does a diabolo tilt when the hands are not in one
//! plane? (docs/space.md, "Which diabolo is steadier").

use nalgebra::Vector3;

use super::{HeldStill, SpaceSettings, SpaceSimulation, SpaceStatus};
use crate::model::axle_angles::tilt;
use crate::model::space::{
    fast_top_rate, string_torque, AxleModel, SpaceBody, SpaceDiabolo, SpaceParams, SpaceState,
};
use crate::simulation::ode::integrate::StepperOptions;

/// How a diabolo hanging on still sticks answers a front/back offset of the right stick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiltResponse {
    /// The fast top's tilt rate at the start, degrees per second (negative: the end toward the
    /// audience goes down).
    pub initial_rate: f64,
    /// The mean tilt rate over `duration` of the fast top, degrees per second.
    pub fast_top_mean: f64,
    /// The mean tilt rate over `duration` of the rigid axle (with its nutation), degrees per
    /// second.
    pub rigid_mean: f64,
    /// 2 pi I_t / (I_p Omega): the period of the rigid axle's nutation, s.
    pub nutation_period: f64,
}

/// A diabolo of `params` hanging at the lowest point of its string between sticks held `span`
/// (m) apart at one height, the right one `offset` (m) toward the audience, spinning at
/// `omega` (rad/s, about an axle toward the audience, the recordings' sense), its axle level
/// and square to the hands' plane: its tilt rate over `duration` (s).
pub fn tilt_response(
    params: &SpaceParams,
    span: f64,
    offset: f64,
    omega: f64,
    duration: f64,
) -> Result<TiltResponse, String> {
    let left = Vector3::new(-0.5 * span, 0.0, 0.0);
    let right = Vector3::new(0.5 * span, 0.0, offset);
    let length = params.planar.values().string_length;
    let half = 0.5 * (right - left).norm();
    let semi_minor = ((0.5 * length).powi(2) - half * half).sqrt();
    let start = 0.5 * (left + right) - Vector3::new(0.0, semi_minor, 0.0);
    let p = params.planar.values();
    let u_l = (start - left).normalize();
    let u_r = (right - start).normalize();
    // The tension holding the diabolo at rest at the lowest point of a frictionless string.
    let tension = p.diabolo_mass * p.gravity / (u_l.y - u_r.y).abs();
    let axle = Vector3::z();
    let torque = string_torque(&axle, &u_l, &u_r, (tension, tension), params.axle_radius);
    let rate = fast_top_rate(&torque, params.polar_inertia, omega);
    let body = |pos| SpaceBody {
        pos,
        vel: Vector3::zeros(),
    };
    let mean = |model: AxleModel| -> Result<f64, String> {
        let sim = SpaceSimulation {
            params: SpaceParams { model, ..*params },
            hands: [HeldStill, HeldStill],
            modes: vec![crate::simulation::DiaboloMode::String],
            initial: SpaceState {
                left: body(left),
                right: body(right),
                diabolos: vec![SpaceDiabolo {
                    pos: start,
                    spin: -params.axle_radius * omega,
                    axle,
                    axle_rate: rate,
                    ..SpaceDiabolo::default()
                }],
            },
            settings: SpaceSettings {
                duration,
                output_interval: duration / 100.0,
                stepper: StepperOptions {
                    rtol: 1e-10,
                    atol: 1e-12,
                    ..StepperOptions::default()
                },
                ..SpaceSettings::default()
            },
        };
        let mut last = (0.0, 0.0);
        let report = sim.run(|row| last = (row.t, tilt(&row.state.diabolos[0].axle)));
        if let SpaceStatus::Stopped { t, reason } = report.status {
            return Err(format!("the run stopped at t = {t:.3} s: {reason}"));
        }
        Ok(last.1 / last.0)
    };
    Ok(TiltResponse {
        // d(tilt)/dt = a_y' / cos(tilt), the tilt zero at the start.
        initial_rate: rate.y.to_degrees(),
        fast_top_mean: mean(AxleModel::FastTop)?,
        rigid_mean: mean(AxleModel::Rigid)?,
        nutation_period: std::f64::consts::TAU * params.transverse_inertia
            / (params.polar_inertia * omega),
    })
}
