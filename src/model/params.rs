//! Physical parameters of the string, sticks and diabolos, validated once at construction.

use std::ops::Deref;
use thiserror::Error;

use crate::display::Compact;

/// How the capstan friction at an axle depends on the slip speed w' (docs/model.md, "Friction and spin").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrictionLaw {
    /// The note's law: effective coefficient c' = -c while w' < 0 and +c while w' > 0.
    Step,
    /// Smoothed: c' = c tanh(w' / width), `width` a slip speed in m/s.
    Tanh {
        /// The slip speed over which c' rises from 0 to about 0.76 c, m/s.
        width: f64,
    },
    /// One-way clutch (bearing diabolo): c' = -c while w' < 0 and 0 while w' > 0.
    Bearing,
}

/// Raw parameter values, as a scenario states them. Build a [`Params`] from them to use them.
///
/// The defaults are the realistic values of docs/model.md (a 0.2 kg diabolo on a 1.46 m string).
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
    /// R: radius of a diabolo's disc for contact, m (a 127 mm diabolo has 0.0635 m). For
    /// contact only: the string still runs through the axle centre.
    pub diabolo_radius: f64,
    /// e_c: coefficient of restitution of an impact between two diabolos or a diabolo and a
    /// stick tip, 0 (plastic) to 1 (elastic).
    pub contact_restitution: f64,
    /// EA: axial stiffness of a compliant string, N (docs/elastic.md). `None`: the string is
    /// inextensible, the note's model.
    pub string_stiffness: Option<f64>,
    /// eta: internal damping of the string's stretch, N s (only with a stiffness).
    pub string_damping: f64,
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
            diabolo_radius: 0.0635,
            contact_restitution: 0.5,
            string_stiffness: None,
            string_damping: 0.0,
        }
    }
}

/// A parameter value that cannot describe a physical diabolo.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("params.{field}: {} is not allowed: {requirement}", Compact(*value))]
pub struct ParamError {
    /// The field's name as in the scenario file (`string_length`, `friction`, ...).
    pub field: &'static str,
    /// The offending value.
    pub value: f64,
    /// What the value must be.
    pub requirement: String,
}

/// The accepted values of one number of a scenario: from `min` to `max`, both included, and why
/// the bounds are there. The scenario checks every number against its range (with its JSON
/// path), the JSON schema states it, docs/cli.md ("Accepted ranges") lists it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// The smallest accepted value.
    pub min: f64,
    /// The largest accepted value.
    pub max: f64,
    /// The unit, as written after a number (`m`, `kg`, `1/s`); empty for pure numbers.
    pub unit: &'static str,
    /// Why the bounds are where they are.
    pub why: &'static str,
}

impl Range {
    /// Whether `value` is finite and within the range.
    pub fn contains(&self, value: f64) -> bool {
        value.is_finite() && (self.min..=self.max).contains(&value)
    }

    /// `from MIN to MAX UNIT`, numbers compact.
    pub fn span(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        format!("from {} to {}{unit}", Compact(self.min), Compact(self.max))
    }

    /// The requirement a value outside the range breaks, with the reason.
    pub fn requirement(&self) -> String {
        format!("it must be {} ({})", self.span(), self.why)
    }
}

/// The accepted parameter ranges. Real props (docs/model.md) sit well inside each, with a margin of
/// 10 to 100 times; the bounds keep the model's arithmetic meaningful.
pub mod ranges {
    use super::Range;

    /// L, m. Real strings are 1 to 2 m.
    pub const STRING_LENGTH: Range = Range {
        min: 0.01,
        max: 100.0,
        unit: "m",
        why: "a string of 1 cm to 100 m; real strings are 1 to 2 m",
    };
    /// m, kg. Real diabolos weigh 0.1 to 0.5 kg.
    pub const DIABOLO_MASS: Range = Range {
        min: 1e-3,
        max: 100.0,
        unit: "kg",
        why: "real diabolos weigh 0.1 to 0.5 kg; far heavier ones make the stick-to-diabolo mass ratio so stiff that the integration stalls",
    };
    /// M, kg. Real stick tips weigh 0.03 to 0.1 kg.
    pub const STICK_MASS: Range = Range {
        min: 1e-4,
        max: 100.0,
        unit: "kg",
        why: "real sticks weigh 0.03 to 0.1 kg",
    };
    /// c. The capstan law makes every tension ratio d_i = exp(sum_j c' theta'_j), with each
    /// contact angle theta' up to 2 pi (|k| + 1) for knot degree k: with c = 5 and |k| <= 5 a
    /// diabolo contributes at most e^188 (1e81), whose square still fits a double; friction
    /// 999 overflows e^(c theta) at the first step. Real axles: 0.1 to 0.5.
    pub const FRICTION: Range = Range {
        min: 0.0,
        max: 5.0,
        unit: "",
        why: "the capstan ratio exp(c theta) overflows for larger c; real axles have 0.1 to 0.5",
    };
    /// J = I / (m r^2). Real diabolos: 20 to 100.
    pub const SPIN_INERTIA: Range = Range {
        min: 0.01,
        max: 1e4,
        unit: "",
        why: "real diabolos have 20 to 100",
    };
    /// D, 1/s. Real bearings and air: about 0.01 1/s; the spin decays as e^(-D t).
    pub const SPIN_DRAG: Range = Range {
        min: 0.0,
        max: 100.0,
        unit: "1/s",
        why: "the spin decays as exp(-D t); real diabolos have about 0.01 1/s, and beyond 100 1/s the spin equation is too stiff to integrate",
    };
    /// g, m/s^2.
    pub const GRAVITY: Range = Range {
        min: 0.0,
        max: 100.0,
        unit: "m/s^2",
        why: "Earth has 9.81 m/s^2",
    };
    /// e.
    pub const RESTITUTION: Range = Range {
        min: 0.0,
        max: 1.0,
        unit: "",
        why: "0 is plastic, 1 elastic",
    };
    /// R, m. Real diabolos are 10 to 15 cm across.
    pub const DIABOLO_RADIUS: Range = Range {
        min: 1e-3,
        max: 1.0,
        unit: "m",
        why: "real diabolos are 10 to 15 cm across (R = 0.05 to 0.075 m)",
    };
    /// e_c.
    pub const CONTACT_RESTITUTION: Range = Range {
        min: 0.0,
        max: 1.0,
        unit: "",
        why: "0 is plastic, 1 elastic",
    };
    /// EA, N. Real diabolo strings: 150 to 310 N (the shared recordings' stretch).
    pub const STRING_STIFFNESS: Range = Range {
        min: 1.0,
        max: 1e9,
        unit: "N",
        why: "real diabolo strings have 150 to 310 N; leave it out for an inextensible string",
    };
    /// eta, N s.
    pub const STRING_DAMPING: Range = Range {
        min: 0.0,
        max: 1e4,
        unit: "N s",
        why: "a critically damped snap of a real string needs about 1 N s",
    };
    /// The slip-speed width of the tanh law, m/s: tanh(w' / width) must be resolvable by the
    /// integrator (1e-300 makes it a step the adaptive steps cannot cross).
    pub const FRICTION_WIDTH: Range = Range {
        min: 1e-6,
        max: 10.0,
        unit: "m/s",
        why: "narrower widths make the tanh law a step the integrator cannot resolve; use the step law for that",
    };
}

impl ParamValues {
    /// Checks every value against its range in [`ranges`] and names the first one outside.
    /// (Scenarios and parameter files are checked with this; [`Params::new`] checks only what
    /// the model's formulas need.)
    pub fn check_ranges(&self) -> Result<(), ParamError> {
        let mut checks = vec![
            ("string_length", self.string_length, ranges::STRING_LENGTH),
            ("diabolo_mass", self.diabolo_mass, ranges::DIABOLO_MASS),
            ("stick_mass", self.stick_mass, ranges::STICK_MASS),
            ("friction", self.friction, ranges::FRICTION),
            ("spin_inertia", self.spin_inertia, ranges::SPIN_INERTIA),
            ("spin_drag", self.spin_drag, ranges::SPIN_DRAG),
            ("gravity", self.gravity, ranges::GRAVITY),
            ("restitution", self.restitution, ranges::RESTITUTION),
            (
                "diabolo_radius",
                self.diabolo_radius,
                ranges::DIABOLO_RADIUS,
            ),
            (
                "contact_restitution",
                self.contact_restitution,
                ranges::CONTACT_RESTITUTION,
            ),
        ];
        if let FrictionLaw::Tanh { width } = self.friction_law {
            checks.push(("friction_width", width, ranges::FRICTION_WIDTH));
        }
        if let Some(stiffness) = self.string_stiffness {
            checks.push(("string_stiffness", stiffness, ranges::STRING_STIFFNESS));
            checks.push((
                "string_damping",
                self.string_damping,
                ranges::STRING_DAMPING,
            ));
        }
        match checks.into_iter().find(|(_, v, r)| !r.contains(*v)) {
            Some((field, value, range)) => Err(ParamError {
                field,
                value,
                requirement: range.requirement(),
            }),
            None => Ok(()),
        }
    }
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
        let checks: [(&'static str, f64, bool, &'static str); 12] = [
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
            (
                "diabolo_radius",
                values.diabolo_radius,
                values.diabolo_radius > 0.0,
                positive,
            ),
            (
                "contact_restitution",
                values.contact_restitution,
                (0.0..=1.0).contains(&values.contact_restitution),
                "it must be between 0 (plastic) and 1 (elastic)",
            ),
            (
                "string_stiffness",
                values.string_stiffness.unwrap_or(1.0),
                values.string_stiffness.unwrap_or(1.0) > 0.0,
                positive,
            ),
            (
                "string_damping",
                values.string_damping,
                values.string_damping >= 0.0,
                non_negative,
            ),
        ];
        for (field, value, ok, requirement) in checks {
            if !value.is_finite() || !ok {
                return Err(ParamError {
                    field,
                    value,
                    requirement: requirement.to_string(),
                });
            }
        }
        if values.string_stiffness.is_some() && values.restitution != 0.0 {
            return Err(ParamError {
                field: "restitution",
                value: values.restitution,
                requirement: "a compliant string (params.string_stiffness) has no restitution: its snap rebounds by its stiffness and params.string_damping; remove params.restitution".to_string(),
            });
        }
        if values.string_stiffness.is_none() && values.string_damping != 0.0 {
            return Err(ParamError {
                field: "string_damping",
                value: values.string_damping,
                requirement: "it damps a compliant string's stretch: give params.string_stiffness too, or remove it".to_string(),
            });
        }
        if let FrictionLaw::Tanh { width } = values.friction_law {
            if !(width.is_finite() && width > 0.0) {
                return Err(ParamError {
                    field: "friction_width",
                    value: width,
                    requirement: positive.to_string(),
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

    /// The compliant string's law, if the string has a stiffness.
    pub fn elastic(&self) -> Option<super::elastic::ElasticString> {
        self.0
            .string_stiffness
            .map(|stiffness| super::elastic::ElasticString {
                stiffness,
                damping: self.0.string_damping,
                length: self.0.string_length,
            })
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
    fn the_default_values_are_inside_every_range_and_extremes_are_not() {
        assert!(ParamValues::default().check_ranges().is_ok());
        for (field, spoil) in [
            (
                "friction",
                ParamValues {
                    friction: 999.0,
                    ..ParamValues::default()
                },
            ),
            (
                "spin_drag",
                ParamValues {
                    spin_drag: 1.7e308,
                    ..ParamValues::default()
                },
            ),
            (
                "diabolo_mass",
                ParamValues {
                    diabolo_mass: 1e9,
                    ..ParamValues::default()
                },
            ),
            (
                "friction_width",
                ParamValues {
                    friction_law: FrictionLaw::Tanh { width: 1e-300 },
                    ..ParamValues::default()
                },
            ),
        ] {
            let e = spoil.check_ranges().unwrap_err();
            assert_eq!(e.field, field);
            assert!(e.to_string().len() < 400, "{e}");
        }
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
