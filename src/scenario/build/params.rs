//! The parameters: a `params` section checked into [`Params`], and back.

use crate::display::compact;
use crate::model::{FrictionLaw, ParamValues, Params};

use super::checks::invalid;
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::defaults;
use crate::scenario::spec::{FrictionLawName, ParamsSpec};

impl ParamsSpec {
    /// The checked parameters.
    pub fn to_params(&self) -> Result<Params, ScenarioError> {
        build_params(self)
    }
}

impl From<ParamValues> for ParamsSpec {
    /// The spec that builds `values` (the inverse of [`ParamsSpec::to_params`]); the tanh
    /// width, which only the tanh law has, at its default for the other laws.
    fn from(values: ParamValues) -> Self {
        let (friction_law, friction_width) = match values.friction_law {
            FrictionLaw::Step => (FrictionLawName::Step, defaults::friction_width()),
            FrictionLaw::Tanh { width } => (FrictionLawName::Tanh, width),
            FrictionLaw::Bearing => (FrictionLawName::Bearing, defaults::friction_width()),
        };
        Self {
            string_length: values.string_length,
            diabolo_mass: values.diabolo_mass,
            stick_mass: values.stick_mass,
            friction: values.friction,
            spin_inertia: values.spin_inertia,
            spin_drag: values.spin_drag,
            gravity: values.gravity,
            restitution: values.restitution,
            friction_law,
            friction_width,
            diabolo_radius: values.diabolo_radius,
            contact_restitution: values.contact_restitution,
            string_stiffness: values.string_stiffness,
            string_damping: values.string_damping,
            axle_radius: None,
            transverse_inertia: None,
            half_length: None,
            cup_angle: None,
            string_offset: None,
        }
    }
}

pub(super) fn build_params(spec: &ParamsSpec) -> Result<Params, ScenarioError> {
    let friction_law = match spec.friction_law {
        FrictionLawName::Step => FrictionLaw::Step,
        FrictionLawName::Tanh => FrictionLaw::Tanh {
            width: spec.friction_width,
        },
        FrictionLawName::Bearing => FrictionLaw::Bearing,
    };
    let values = ParamValues {
        string_length: spec.string_length,
        diabolo_mass: spec.diabolo_mass,
        stick_mass: spec.stick_mass,
        friction: spec.friction,
        spin_inertia: spec.spin_inertia,
        spin_drag: spec.spin_drag,
        gravity: spec.gravity,
        restitution: spec.restitution,
        friction_law,
        diabolo_radius: spec.diabolo_radius,
        contact_restitution: spec.contact_restitution,
        string_stiffness: spec.string_stiffness,
        string_damping: spec.string_damping,
    };
    values
        .check_ranges()
        .and_then(|()| Params::new(values))
        .map_err(|e| {
            invalid(
                format!("params.{}", e.field),
                compact(e.value),
                "out of range",
                e.requirement,
            )
        })
}
