//! Values a scenario accepts but a real diabolo never has: each is a [`Warning`] that names the
//! value's JSON path, the plausible range with its reason, and the likely unit mistake
//! (`string_length` 146 is 146 cm; `spin` 100 is 100 rad/s). The command line prints them on
//! standard error; they change no output. The accepted ranges (errors) are in
//! [`super::ranges`] and [`crate::model::ranges`].

use std::fmt;

use thiserror::Error;

use super::error::ScenarioError;
use super::spec::{DriveSpec, Scenario};
use crate::display::Compact;

/// A unit the user may have thought in: `value * factor` is the value in the field's unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitSlip {
    /// The unit as written after a number (`cm`, `g`, `rad/s on a 6.5 mm axle`).
    pub unit: &'static str,
    /// The factor from that unit to the field's unit.
    pub factor: f64,
}

/// The range of a value on a real diabolo, with the reason and the usual unit mistakes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plausible {
    /// The smallest plausible value.
    pub min: f64,
    /// The largest plausible value.
    pub max: f64,
    /// The field's unit, as written after a number; empty for pure numbers.
    pub unit: &'static str,
    /// What real diabolos have.
    pub why: &'static str,
    /// Units a value outside the range may have been given in, tried in order.
    pub slips: &'static [UnitSlip],
}

impl Plausible {
    /// Whether `value` is within the range (bounds included).
    pub fn contains(&self, value: f64) -> bool {
        (self.min..=self.max).contains(&value)
    }

    /// The first unit slip that brings `value` into the range, as `146 cm is 1.46 m`.
    pub fn likely_mistake(&self, value: f64) -> Option<String> {
        self.slips
            .iter()
            .find(|slip| self.contains(value * slip.factor))
            .map(|slip| {
                format!(
                    "{} {} is {} {}",
                    Compact(value),
                    slip.unit,
                    Compact(value * slip.factor),
                    self.unit
                )
            })
    }
}

const CENTIMETRES: UnitSlip = UnitSlip {
    unit: "cm",
    factor: 0.01,
};
const MILLIMETRES: UnitSlip = UnitSlip {
    unit: "mm",
    factor: 0.001,
};
const GRAMS: UnitSlip = UnitSlip {
    unit: "g",
    factor: 0.001,
};

/// L, m: real strings are 1 to 2 m; 146 is a length in cm.
pub const STRING_LENGTH: Plausible = Plausible {
    min: 0.5,
    max: 3.0,
    unit: "m",
    why: "real strings are 1 to 2 m long; the default scenarios use 1.46 m",
    slips: &[CENTIMETRES, MILLIMETRES],
};
/// m, kg: real diabolos weigh 0.1 to 0.5 kg.
pub const DIABOLO_MASS: Plausible = Plausible {
    min: 0.05,
    max: 1.0,
    unit: "kg",
    why: "real diabolos weigh 0.1 to 0.5 kg; the default is 0.2 kg",
    slips: &[GRAMS],
};
/// M, kg: real sticks weigh 0.03 to 0.1 kg.
pub const STICK_MASS: Plausible = Plausible {
    min: 0.01,
    max: 0.3,
    unit: "kg",
    why: "real sticks weigh 0.03 to 0.1 kg; the default is 0.04 kg",
    slips: &[GRAMS],
};
/// R, m: real diabolos are 10 to 15 cm across; 63.5 is a radius in mm.
pub const DIABOLO_RADIUS: Plausible = Plausible {
    min: 0.03,
    max: 0.12,
    unit: "m",
    why: "real diabolos are 10 to 15 cm across (R = 0.05 to 0.075 m); the default is 0.0635 m",
    slips: &[CENTIMETRES, MILLIMETRES],
};
/// c: the capstan coefficient of a string on an axle.
pub const FRICTION: Plausible = Plausible {
    min: 0.0,
    max: 1.0,
    unit: "",
    why: "string on an axle has a capstan coefficient of 0.1 to 0.5; the default is 0.17",
    slips: &[],
};
/// J = I / (m r^2): a diabolo's inertia is that of its cups, far from the thin axle.
pub const SPIN_INERTIA: Plausible = Plausible {
    min: 5.0,
    max: 500.0,
    unit: "",
    why: "J = I / (m r^2) is I relative to the axle radius r; real diabolos have 20 to 100; the default is 50; a moment of inertia I in kg m^2 is far below 1",
    slips: &[],
};
/// D, 1/s: a free diabolo spins for minutes.
pub const SPIN_DRAG: Plausible = Plausible {
    min: 0.0,
    max: 1.0,
    unit: "1/s",
    why: "the spin decays as exp(-D t) and a free diabolo spins for minutes: real diabolos have about 0.01 1/s",
    slips: &[],
};
/// g, m/s^2: Earth's gravity is 9.78 to 9.83 m/s^2.
pub const GRAVITY: Plausible = Plausible {
    min: 9.7,
    max: 9.9,
    unit: "m/s^2",
    why: "Earth's gravity is 9.78 to 9.83 m/s^2; another planet, or none, is allowed",
    slips: &[
        UnitSlip {
            unit: "cm/s^2",
            factor: 0.01,
        },
        UnitSlip {
            unit: "ft/s^2",
            factor: 0.3048,
        },
    ],
};
/// w, m/s: the axle's surface speed, at most a few m/s.
pub const SPIN: Plausible = Plausible {
    min: -3.0,
    max: 3.0,
    unit: "m/s",
    why: "spin is the axle's surface speed in m/s, not an angular speed: a diabolo at 3000 rpm on a 1 cm axle has about 1.6 m/s",
    slips: &[UnitSlip {
        unit: "rad/s on a 6.5 mm axle",
        factor: 0.0065,
    }],
};
/// k, turns: a knot has one or two turns.
pub const KNOT: Plausible = Plausible {
    min: -2.0,
    max: 2.0,
    unit: "turns",
    why: "a knot on a real diabolo has 1 or 2 turns of string around the axle",
    slips: &[],
};
/// A position coordinate of a stick or a diabolo, m: within reach of a juggler standing at the
/// origin.
pub const COORDINATE: Plausible = Plausible {
    min: -5.0,
    max: 5.0,
    unit: "m",
    why: "hands, sticks and diabolos stay within a few metres of the juggler",
    slips: &[CENTIMETRES, MILLIMETRES],
};
/// A sine amplitude of a hand, m.
pub const AMPLITUDE: Plausible = Plausible {
    min: -1.0,
    max: 1.0,
    unit: "m",
    why: "a hand moves by at most an arm's length",
    slips: &[CENTIMETRES, MILLIMETRES],
};
/// A sine frequency of a hand, Hz.
pub const FREQUENCY: Plausible = Plausible {
    min: 0.05,
    max: 10.0,
    unit: "Hz",
    why: "hands move at 0.5 to 5 Hz",
    slips: &[UnitSlip {
        unit: "rad/s",
        factor: 1.0 / std::f64::consts::TAU,
    }],
};

/// A value of a scenario that a real diabolo does not have: the run goes on, the user is told.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum Warning {
    /// A value outside the plausible range of its field.
    #[error("{path} = {}: outside the plausible range {}{}", Compact(*value), Span(plausible), mistake_text(mistake))]
    Implausible {
        /// The JSON path of the value.
        path: String,
        /// The value as given.
        value: f64,
        /// The plausible range of the field, with its reason.
        plausible: Plausible,
        /// The likely unit mistake (`146 cm is 1.46 m`), when one explains the value.
        mistake: Option<String>,
    },
    /// Both hands' paths bring the sticks within 1 cm of the string length, or beyond.
    #[error("drive: {0}")]
    Reach(crate::simulation::drive::ReachWarning),
}

impl Warning {
    /// The JSON path of the value the warning is about.
    pub fn path(&self) -> &str {
        match self {
            Self::Implausible { path, .. } => path,
            Self::Reach(_) => "drive",
        }
    }

    /// The warning as an input error (for `--strict`).
    pub fn into_error(self) -> ScenarioError {
        match self {
            Self::Implausible {
                path,
                value,
                plausible,
                mistake,
            } => ScenarioError::Invalid {
                path,
                value: Compact(value).to_string(),
                reason: format!("outside the plausible range {}", Span(&plausible)),
                fix: format!(
                    "{}correct the value, or leave out --strict to run it as it is",
                    mistake.map_or(String::new(), |m| format!("likely a unit mistake ({m}): "))
                ),
            },
            Self::Reach(reach) => ScenarioError::Invalid {
                path: "drive".into(),
                value: String::new(),
                reason: reach.to_string(),
                fix: "or leave out --strict to run it as it is".into(),
            },
        }
    }
}

/// The plausible range of the field at the JSON path `path`, for the fields whose values are
/// often given in another unit.
fn plausible_at(path: &str) -> Option<Plausible> {
    match path.rsplit('.').next()? {
        "string_length" => Some(STRING_LENGTH),
        "diabolo_mass" => Some(DIABOLO_MASS),
        "stick_mass" => Some(STICK_MASS),
        "diabolo_radius" => Some(DIABOLO_RADIUS),
        "gravity" => Some(GRAVITY),
        "spin" => Some(SPIN),
        "frequency" => Some(FREQUENCY),
        _ => None,
    }
}

/// An out-of-range error with the likely unit mistake added to its fix, when one explains the
/// value (`string_length` 146 is out of range, and 146 cm is 1.46 m); any other error as it is.
pub fn with_likely_mistake(error: ScenarioError) -> ScenarioError {
    match error {
        ScenarioError::Invalid {
            path,
            value,
            reason,
            fix,
        } => {
            let mistake = value
                .parse::<f64>()
                .ok()
                .zip(plausible_at(&path))
                .and_then(|(v, plausible)| plausible.likely_mistake(v));
            let fix = match mistake {
                Some(mistake) => format!("{fix}; likely a unit mistake: {mistake}"),
                None => fix,
            };
            ScenarioError::Invalid {
                path,
                value,
                reason,
                fix,
            }
        }
        other => other,
    }
}

/// `from MIN to MAX UNIT (why)`.
struct Span<'a>(&'a Plausible);

impl fmt::Display for Span<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        let unit = if p.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", p.unit)
        };
        write!(
            f,
            "{} to {}{unit} ({})",
            Compact(p.min),
            Compact(p.max),
            p.why
        )
    }
}

fn mistake_text(mistake: &Option<String>) -> String {
    mistake
        .as_ref()
        .map_or(String::new(), |m| format!("; likely a unit mistake: {m}"))
}

/// Collects the warnings of one scenario, in document order.
#[derive(Default)]
struct Checker {
    warnings: Vec<Warning>,
}

impl Checker {
    fn check(&mut self, path: impl Into<String>, value: f64, plausible: Plausible) {
        if !plausible.contains(value) {
            self.warnings.push(Warning::Implausible {
                path: path.into(),
                value,
                plausible,
                mistake: plausible.likely_mistake(value),
            });
        }
    }

    fn point(&mut self, path: &str, point: crate::scenario::Vector) {
        for (axis, &value) in point.as_slice().iter().enumerate() {
            self.check(format!("{path}[{axis}]"), value, COORDINATE);
        }
    }

    fn drive(&mut self, path: &str, drive: &DriveSpec) {
        let DriveSpec::Path(spec) = drive else {
            return;
        };
        for (i, keyframe) in spec.keyframes.iter().flatten().enumerate() {
            // [t, x, y] (or [t, x, y, z]): the position from 1 on.
            for (axis, &value) in keyframe.as_slice().iter().enumerate().skip(1) {
                self.check(format!("{path}.keyframes[{i}][{axis}]"), value, COORDINATE);
            }
        }
        if let Some(sine) = &spec.sine {
            self.point(&format!("{path}.sine.center"), sine.center);
            for (axis, &value) in sine.amplitude.as_slice().iter().enumerate() {
                self.check(format!("{path}.sine.amplitude[{axis}]"), value, AMPLITUDE);
            }
            self.check(format!("{path}.sine.frequency"), sine.frequency, FREQUENCY);
        }
    }
}

impl Scenario {
    /// The values of the scenario outside the plausible range of a real diabolo (parameters,
    /// spins, knots, positions of the sticks and diabolos, hand paths), in document order. Call
    /// it on a scenario that builds: the warnings do not repeat its errors.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut checker = Checker::default();
        let p = &self.params;
        for (field, value, plausible) in [
            ("string_length", p.string_length, STRING_LENGTH),
            ("diabolo_mass", p.diabolo_mass, DIABOLO_MASS),
            ("stick_mass", p.stick_mass, STICK_MASS),
            ("friction", p.friction, FRICTION),
            ("spin_inertia", p.spin_inertia, SPIN_INERTIA),
            ("spin_drag", p.spin_drag, SPIN_DRAG),
            ("gravity", p.gravity, GRAVITY),
            ("diabolo_radius", p.diabolo_radius, DIABOLO_RADIUS),
        ] {
            checker.check(format!("params.{field}"), value, plausible);
        }
        for (side, body) in [("left", &self.initial.left), ("right", &self.initial.right)] {
            if let Some(body) = body {
                checker.point(&format!("initial.{side}.pos"), body.pos);
            }
        }
        for (i, diabolo) in self.initial.diabolos.iter().enumerate() {
            let path = format!("initial.diabolos[{i}]");
            if let Some(pos) = diabolo.pos {
                checker.point(&format!("{path}.pos"), pos);
            }
            if let Some(x) = diabolo.x {
                checker.check(format!("{path}.x"), x, COORDINATE);
            }
            checker.check(format!("{path}.spin"), diabolo.spin, SPIN);
            checker.check(format!("{path}.knot"), f64::from(diabolo.knot), KNOT);
        }
        for (side, drive) in [("left", &self.drive.left), ("right", &self.drive.right)] {
            if let Some(drive) = drive {
                checker.drive(&format!("drive.{side}"), drive);
            }
        }
        checker.warnings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParamValues;

    fn scenario(text: &str) -> Scenario {
        Scenario::parse(text, &[]).unwrap()
    }

    #[test]
    fn the_model_defaults_are_plausible() {
        let defaults = ParamValues::default();
        for (value, plausible) in [
            (defaults.diabolo_mass, DIABOLO_MASS),
            (defaults.stick_mass, STICK_MASS),
            (defaults.diabolo_radius, DIABOLO_RADIUS),
            (defaults.friction, FRICTION),
            (defaults.spin_inertia, SPIN_INERTIA),
            (defaults.spin_drag, SPIN_DRAG),
            (defaults.gravity, GRAVITY),
        ] {
            assert!(plausible.contains(value), "{value} not in {plausible:?}");
        }
        assert!(Scenario::default().warnings().is_empty());
    }

    #[test]
    fn every_shipped_scenario_is_plausible() {
        for entry in std::fs::read_dir("scenarios").unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).unwrap();
                let warnings = scenario(&text).warnings();
                assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
            }
        }
    }

    #[test]
    fn a_string_length_in_centimetres_is_named_as_such() {
        let mut s = Scenario::default();
        s.params.string_length = 146.0;
        let warnings = s.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].path(), "params.string_length");
        let text = warnings[0].to_string();
        assert!(text.contains("146 cm is 1.46 m"), "{text}");
        assert!(text.contains("0.5 to 3 m"), "{text}");
    }

    #[test]
    fn a_spin_in_radians_per_second_is_converted_on_a_6_5_mm_axle() {
        // 100 rad/s times the 6.5 mm radius is 0.65 m/s, the shipped scenarios' spin.
        let mistake = SPIN.likely_mistake(100.0).unwrap();
        assert_eq!(mistake, "100 rad/s on a 6.5 mm axle is 0.65 m/s");
    }

    #[test]
    fn masses_in_grams_and_gravity_in_other_units_are_recognised() {
        assert_eq!(
            DIABOLO_MASS.likely_mistake(200.0).unwrap(),
            "200 g is 0.2 kg"
        );
        assert_eq!(STICK_MASS.likely_mistake(40.0).unwrap(), "40 g is 0.04 kg");
        assert_eq!(
            GRAVITY.likely_mistake(981.0).unwrap(),
            "981 cm/s^2 is 9.81 m/s^2"
        );
        assert!(GRAVITY
            .likely_mistake(32.2)
            .unwrap()
            .starts_with("32.2 ft/s^2 is 9.81"));
        // The Moon is allowed but warned, with no unit that explains it.
        assert_eq!(GRAVITY.likely_mistake(1.62), None);
    }

    #[test]
    fn values_at_the_plausible_bounds_do_not_warn_and_beyond_them_do() {
        for plausible in [STRING_LENGTH, DIABOLO_MASS, GRAVITY, SPIN, COORDINATE] {
            assert!(plausible.contains(plausible.min) && plausible.contains(plausible.max));
            assert!(!plausible.contains(plausible.max * 1.001 + 1e-9));
            assert!(!plausible.contains(plausible.min - 1e-3));
        }
    }

    #[test]
    fn positions_and_hand_paths_in_centimetres_warn_with_their_paths() {
        let s = scenario(
            r#"{"params": {"string_length": 146}, "initial": {"diabolos": [{"pos": [0, 90], "spin": 100, "knot": 3}]},
                "drive": {"left": {"type": "path", "keyframes": [[0, -40, 150]]},
                          "right": {"type": "path", "sine": {"center": [40, 1.5], "amplitude": [0, 10], "frequency": 12.566}}},
                "sim": {"duration": 1}}"#,
        );
        let warnings = s.warnings();
        let paths: Vec<&str> = warnings.iter().map(Warning::path).collect();
        assert_eq!(
            paths,
            [
                "params.string_length",
                "initial.diabolos[0].pos[1]",
                "initial.diabolos[0].spin",
                "initial.diabolos[0].knot",
                "drive.left.keyframes[0][1]",
                "drive.left.keyframes[0][2]",
                "drive.right.sine.center[0]",
                "drive.right.sine.amplitude[1]",
                "drive.right.sine.frequency",
            ]
        );
    }

    #[test]
    fn an_out_of_range_string_length_in_centimetres_names_the_mistake_in_its_error() {
        let mut s = Scenario::default();
        s.params.string_length = 146.0;
        let error = with_likely_mistake(s.build(std::path::Path::new(".")).unwrap_err());
        assert_eq!(error.path(), "params.string_length");
        let text = error.to_string();
        assert!(text.contains("out of range (got 146)"), "{text}");
        assert!(
            text.ends_with("likely a unit mistake: 146 cm is 1.46 m"),
            "{text}"
        );
        // A value no unit explains keeps its error as it is.
        s.params.string_length = -1.0;
        let error = s.build(std::path::Path::new(".")).unwrap_err();
        assert_eq!(with_likely_mistake(error.clone()), error);
    }

    #[test]
    fn a_strict_warning_is_an_input_error_with_the_path_and_the_mistake() {
        let mut s = Scenario::default();
        s.params.diabolo_mass = 200.0;
        let error = s.warnings().remove(0).into_error();
        assert_eq!(error.path(), "params.diabolo_mass");
        let text = error.to_string();
        assert!(text.contains("(got 200)"), "{text}");
        assert!(text.contains("200 g is 0.2 kg"), "{text}");
        assert!(text.contains("--strict"), "{text}");
    }
}
