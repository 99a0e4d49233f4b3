//! Physical parameters of the string, sticks and diabolos, validated once at construction.

use std::ops::Deref;
use thiserror::Error;

/// How the capstan friction at an axle depends on the slip speed w' (model.md, "Friction and spin").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrictionLaw {
    /// The note's law: effective coefficient c' = -c while w' < 0 and +c while w' > 0.
    Step,
    /// Smoothed: c' = c tanh(w' / width), `width` a slip speed in m/s.
    Tanh { width: f64 },
    /// One-way clutch (bearing diabolo): c' = -c while w' < 0 and 0 while w' > 0.
    Bearing,
}

/// Raw parameter values, as a scenario states them. Build a [`Params`] from them to use them.
///
/// The defaults are the realistic values of model.md (a 0.2 kg diabolo on a 1.46 m string).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamValues {
    /// L: total string length, m.
    pub string_length: f64,
    /// m: mass of one diabolo, kg.
    pub diabolo_mass: f64,
    /// M: mass of one stick, kg.
    pub stick_mass: f64,
    /// c: capstan friction coefficient between string and axle (dimensionless).
    pub friction: f64,
    /// J = I / (m r^2): normalised spin inertia of a diabolo (dimensionless).
    pub spin_inertia: f64,
    /// D: viscous spin drag, 1/s (the spin rate w' gets -D w).
    pub spin_drag: f64,
    /// g: gravitational acceleration, m/s^2, pointing along -y.
    pub gravity: f64,
    /// e: coefficient of restitution of the tensing impulse, 0 (plastic) to 1 (elastic).
    pub restitution: f64,
    /// The friction law at every axle.
    pub friction_law: FrictionLaw,
}

impl Default for ParamValues {
    fn default() -> Self {
        Self {
            string_length: 1.46,
            diabolo_mass: 0.2,
            stick_mass: 0.04,
            friction: 0.17,
            spin_inertia: 50.0,
            spin_drag: 0.0,
            gravity: 9.81,
            restitution: 0.0,
            friction_law: FrictionLaw::Step,
        }
    }
}

/// A parameter value that cannot describe a physical diabolo.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("params.{field}: {value} is not allowed: {requirement}")]
pub struct ParamError {
    /// The field's name as in the scenario file (`string_length`, `friction`, ...).
    pub field: &'static str,
    /// The offending value.
    pub value: f64,
    /// What the value must be.
    pub requirement: &'static str,
}

/// Validated parameters: every length, mass and inertia positive, friction and drag non-negative,
/// restitution in [0, 1], everything finite. Read the values through `Deref` to [`ParamValues`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params(ParamValues);

impl Params {
    /// Checks every value and names the first field that is out of its range.
    pub fn new(values: ParamValues) -> Result<Self, ParamError> {
        let positive = "it must be a finite number greater than 0";
        let non_negative = "it must be a finite number of at least 0";
        let checks: [(&'static str, f64, bool, &'static str); 8] = [
            (
                "string_length",
                values.string_length,
                values.string_length > 0.0,
                positive,
            ),
            (
                "diabolo_mass",
                values.diabolo_mass,
                values.diabolo_mass > 0.0,
                positive,
            ),
            (
                "stick_mass",
                values.stick_mass,
                values.stick_mass > 0.0,
                positive,
            ),
            (
                "friction",
                values.friction,
                values.friction >= 0.0,
                non_negative,
            ),
            (
                "spin_inertia",
                values.spin_inertia,
                values.spin_inertia > 0.0,
                positive,
            ),
            (
                "spin_drag",
                values.spin_drag,
                values.spin_drag >= 0.0,
                non_negative,
            ),
            (
                "gravity",
                values.gravity,
                values.gravity >= 0.0,
                non_negative,
            ),
            (
                "restitution",
                values.restitution,
                (0.0..=1.0).contains(&values.restitution),
                "it must be between 0 (plastic) and 1 (elastic)",
            ),
        ];
        for (field, value, ok, requirement) in checks {
            if !value.is_finite() || !ok {
                return Err(ParamError {
                    field,
                    value,
                    requirement,
                });
            }
        }
        if let FrictionLaw::Tanh { width } = values.friction_law {
            if !(width.is_finite() && width > 0.0) {
                return Err(ParamError {
                    field: "friction_width",
                    value: width,
                    requirement: positive,
                });
            }
        }
        Ok(Self(values))
    }

    /// The raw values.
    pub fn values(&self) -> &ParamValues {
        &self.0
    }

    /// Whether the axles switch between locked friction modes (slipping either way, stuck):
    /// the step and bearing laws with c > 0. The tanh law is smooth, and with c = 0 every law
    /// gives d_i = 1 whatever the slip.
    pub fn has_switching_friction(&self) -> bool {
        self.0.friction > 0.0 && !matches!(self.0.friction_law, FrictionLaw::Tanh { .. })
    }

    /// M / m: stick-to-diabolo mass ratio.
    pub fn mass_ratio(&self) -> f64 {
        self.0.stick_mass / self.0.diabolo_mass
    }
}

impl Deref for Params {
    type Target = ParamValues;
    fn deref(&self) -> &ParamValues {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert!(Params::new(ParamValues::default()).is_ok());
    }

    #[test]
    fn each_out_of_range_value_names_its_field() {
        type Spoil = fn(&mut ParamValues);
        let cases: [(&str, Spoil); 10] = [
            ("string_length", |p| p.string_length = 0.0),
            ("diabolo_mass", |p| p.diabolo_mass = -0.1),
            ("stick_mass", |p| p.stick_mass = 0.0),
            ("friction", |p| p.friction = -0.01),
            ("spin_inertia", |p| p.spin_inertia = 0.0),
            ("spin_drag", |p| p.spin_drag = f64::NAN),
            ("gravity", |p| p.gravity = f64::INFINITY),
            ("restitution", |p| p.restitution = 1.5),
            ("friction_width", |p| {
                p.friction_law = FrictionLaw::Tanh { width: 0.0 }
            }),
            ("string_length", |p| p.string_length = f64::NAN),
        ];
        for (field, spoil) in cases {
            let mut values = ParamValues::default();
            spoil(&mut values);
            let err = Params::new(values).unwrap_err();
            assert_eq!(err.field, field);
            assert!(
                err.to_string().starts_with(&format!("params.{field}: ")),
                "{err}"
            );
        }
    }
}
