//! The parameters of the model in space: the planar model's, and the axle's as a rigid body
//! (docs/space.md, "The axle as a gyroscope").

use crate::model::params::{ParamError, Params};

/// The default lambda of [`AxleValues::string_offset`], m. A diabolo hanging with its axle
/// tilted by tau turns about the vertical at (r sin(alpha) + lambda) g sin(tau) / (J r^2 Omega)
/// (alpha half the string's V angle): the strands' tangent points give the r sin(alpha), the
/// offset the rest. The inclination recordings turn at 0.187 deg/s per degree of tilt at their
/// median spin of 116 rad/s; with J = 50, r = 6.5 mm and the V of hands 0.8 m apart on a
/// 1.46 m string (sin(alpha) = 0.548) the tangent points give 0.142 of it, and lambda the rest:
/// 0.187 J r^2 Omega / g - r sin(alpha) = 1.1 mm.
pub const STRING_OFFSET: f64 = 0.187 * 50.0 * 0.0065 * 0.0065 * 116.0 / 9.81 - 0.0065 * 0.548;

/// How the axle's direction moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AxleModel {
    /// The fast-top limit: the transverse angular momentum is neglected against the spin's, and
    /// the axle turns at a' = tau_perp / (I_p Omega). Valid while the precession is slow
    /// against the nutation frequency I_p |Omega| / I_t (checked as the run goes).
    #[default]
    FastTop,
    /// The full axisymmetric rigid body: I_t a x a'' + I_p Omega a' = tau_perp, with nutation.
    Rigid,
}

impl AxleModel {
    /// The name a scenario uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::FastTop => "fast_top",
            Self::Rigid => "rigid",
        }
    }
}

/// The axle's parameters as a scenario states them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxleValues {
    /// r: the axle's radius where the string wraps it, m (6.5 mm for the shipped diabolo).
    pub axle_radius: f64,
    /// I_t: the moment of inertia about a transverse axis through the centre, kg m^2; `None`:
    /// two rings at the cups, I_t = I_p / 2 + m (h / 2)^2.
    pub transverse_inertia: Option<f64>,
    /// h: half the distance between the cups' contact planes, m (the half-length of the axle
    /// the string can use).
    pub half_length: f64,
    /// gamma: the largest angle between a strand of string and the plane perpendicular to the
    /// axle that the cups' cones keep on the axle, rad; beyond it the string climbs a cup.
    pub cup_angle: f64,
    /// lambda: where the string sits along a tilted axle, m: at s = lambda sin(tilt) from the
    /// centre toward the upper cup (the axle slides down through the string until the cups'
    /// cones hold it). The string's pull applied there turns the diabolo about the vertical
    /// (docs/space.md, "The turn"). Fitted on the recordings: 1.1 mm ([`STRING_OFFSET`]).
    pub string_offset: f64,
    /// The equations of the axle's direction.
    pub model: AxleModel,
}

impl Default for AxleValues {
    fn default() -> Self {
        Self {
            axle_radius: 0.0065,
            transverse_inertia: None,
            half_length: 0.06,
            cup_angle: 35f64.to_radians(),
            string_offset: STRING_OFFSET,
            model: AxleModel::FastTop,
        }
    }
}

/// Checked parameters of the model in space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceParams {
    /// The planar model's parameters (string, masses, friction, spin).
    pub planar: Params,
    /// r, m.
    pub axle_radius: f64,
    /// I_p = J m r^2: the polar moment of inertia, kg m^2.
    pub polar_inertia: f64,
    /// I_t, kg m^2.
    pub transverse_inertia: f64,
    /// h, m.
    pub half_length: f64,
    /// gamma, rad.
    pub cup_angle: f64,
    /// lambda, m.
    pub string_offset: f64,
    /// The axle's equations.
    pub model: AxleModel,
}

impl SpaceParams {
    /// Diabolo `d`'s hull: the solid cylinder its cup rims span (radius R, half-length h).
    pub fn hull(&self, d: &super::state::SpaceDiabolo) -> super::hull::Hull {
        super::hull::Hull {
            centre: d.pos,
            axle: d.axle,
            radius: self.planar.values().diabolo_radius,
            half_length: self.half_length,
        }
    }

    /// Checks the axle's values against the planar parameters.
    pub fn new(planar: Params, axle: AxleValues) -> Result<Self, ParamError> {
        let err = |field: &'static str, value: f64, requirement: &str| ParamError {
            field,
            value,
            requirement: requirement.to_string(),
        };
        if !(axle.axle_radius > 0.0 && axle.axle_radius <= 0.05) {
            return Err(err(
                "axle_radius",
                axle.axle_radius,
                "a positive radius of at most 0.05 m (a diabolo's axle is a few mm)",
            ));
        }
        if !(axle.half_length > 0.0 && axle.half_length <= 1.0) {
            return Err(err(
                "half_length",
                axle.half_length,
                "a positive half-length of at most 1 m",
            ));
        }
        if !(axle.cup_angle > 0.0 && axle.cup_angle < std::f64::consts::FRAC_PI_2) {
            return Err(err(
                "cup_angle",
                axle.cup_angle,
                "an angle between 0 and pi/2 rad",
            ));
        }
        if axle.string_offset.is_nan() || axle.string_offset.abs() > axle.half_length {
            return Err(err(
                "string_offset",
                axle.string_offset,
                "an offset of at most the half-length in size (the string stays between the cups)",
            ));
        }
        let p = planar.values();
        let polar = p.spin_inertia * p.diabolo_mass * axle.axle_radius * axle.axle_radius;
        let transverse = axle.transverse_inertia.unwrap_or(
            0.5 * polar + p.diabolo_mass * (0.5 * axle.half_length) * (0.5 * axle.half_length),
        );
        // A thin axisymmetric body has I_t >= I_p / 2 (the perpendicular-axis theorem).
        if !(transverse.is_finite() && transverse >= 0.5 * polar * (1.0 - 1e-12)) {
            return Err(err(
                "transverse_inertia",
                transverse,
                &format!(
                    "at least half the polar moment J m r^2 = {polar:.3e} kg m^2 (the perpendicular-axis theorem)"
                ),
            ));
        }
        Ok(Self {
            planar,
            axle_radius: axle.axle_radius,
            polar_inertia: polar,
            transverse_inertia: transverse,
            half_length: axle.half_length,
            cup_angle: axle.cup_angle,
            string_offset: axle.string_offset,
            model: axle.model,
        })
    }
}
