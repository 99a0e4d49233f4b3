//! Scenario files (docs/interface.md): the JSON format, its schema, `--set` overrides, and the
//! checked construction of a [`Simulation`](crate::simulation::Simulation) from them.

mod build;
mod coords;
mod error;
mod json;
mod limits;
mod load;
mod messages;
pub mod overrides;
pub mod plausible;
pub mod ranges;
mod spec;

pub use build::{Built, DEFAULT_SMOOTHING, PATH_AGREEMENT, TAUT_SNAP_TOLERANCE};
pub use coords::{Coords, Keyframe, Vector};
pub use error::ScenarioError;
pub use json::strict_json;
pub use limits::Limits;
pub use load::Source;
pub use plausible::Warning;
pub use spec::{
    AxleName, BodySpec, DiaboloSpec, DriveSpec, DrivesSpec, FrictionLawName, InitialSpec,
    InterpolationName, MethodName, ParamsSpec, PathSpec, ReleasedSpec, Scenario, ScheduleSpec,
    SimSpec, SineSpec, TrackingSpec,
};

use serde_json::Value;

use crate::display::echoed;

impl Scenario {
    /// Parses a scenario from JSON text, with `--set` style overrides (KEY, VALUE text) applied
    /// first. Errors carry the JSON path.
    pub fn parse(text: &str, overrides: &[(String, String)]) -> Result<Self, ScenarioError> {
        Self::from_value(Self::document(text, overrides)?)
    }

    /// The JSON document of a scenario text with the overrides applied, not yet typed.
    pub fn document(text: &str, overrides: &[(String, String)]) -> Result<Value, ScenarioError> {
        Self::overridden(strict_json(text)?, overrides)
    }

    /// The document of the scenario file `file` (its text `text`; `-` is standard input), with
    /// the overrides applied: an empty file or text that is not JSON is an error naming the
    /// file, what is wrong and that scenarios are JSON.
    pub fn file_document(
        file: &str,
        text: &str,
        overrides: &[(String, String)],
    ) -> Result<Value, ScenarioError> {
        Self::overridden(json::scenario_json(file, text)?, overrides)
    }

    /// `document` with the overrides applied.
    fn overridden(
        mut document: Value,
        overrides: &[(String, String)],
    ) -> Result<Value, ScenarioError> {
        for (key, value) in overrides {
            overrides::apply(&mut document, key, overrides::parse_value(value))?;
        }
        Ok(document)
    }

    /// Types a JSON document as a scenario; unknown fields and wrong types name their path.
    pub fn from_value(document: Value) -> Result<Self, ScenarioError> {
        if !document.is_object() {
            return Err(ScenarioError::Format {
                path: "(top level)".into(),
                message: format!(
                    "the scenario must be a JSON object {{\"params\": ..., \"initial\": ..., \"sim\": ...}}, got {}",
                    kind(&document)
                ),
            });
        }
        no_list_for_an_object(&document)?;
        serde_path_to_error::deserialize(&document).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                "(top level)".to_string()
            } else {
                path
            };
            drive_detail(&document, &path).unwrap_or_else(|| ScenarioError::Format {
                message: messages::plain(&e.into_inner().to_string(), &path),
                path: echoed(&path),
            })
        })
    }

    /// The JSON Schema of the scenario format.
    pub fn schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Scenario)).expect("a schema is JSON")
    }
}

impl ParamsSpec {
    /// Types a `params` object (of a scenario or a parameter file); errors name
    /// `params.FIELD`.
    pub fn from_value(params: &Value) -> Result<Self, ScenarioError> {
        if params.is_array() {
            return Err(list_for_an_object("params"));
        }
        serde_path_to_error::deserialize(params).map_err(|e| {
            let path = match e.path().to_string().as_str() {
                "." => "params".to_string(),
                inner => format!("params.{inner}"),
            };
            ScenarioError::Format {
                message: messages::plain(&e.into_inner().to_string(), &path),
                path: echoed(&path),
            }
        })
    }
}

/// A drive is read through its `type` tag, which hides where inside it an error is: read the
/// drive again as the struct its type names, to report the full path (`drive.left.keyframes[1]`).
fn drive_detail(document: &Value, path: &str) -> Option<ScenarioError> {
    let side = path.strip_prefix("drive.")?;
    let mut body = document.get("drive")?.get(side)?.as_object()?.clone();
    let kind = body.remove("type")?;
    let body = Value::Object(body);
    let result = match kind.as_str()? {
        "force" | "accel" => serde_path_to_error::deserialize::<_, ScheduleSpec>(&body).map(drop),
        "path" => serde_path_to_error::deserialize::<_, PathSpec>(&body).map(drop),
        "released" => serde_path_to_error::deserialize::<_, ReleasedSpec>(&body).map(drop),
        _ => return None,
    };
    let e = result.err()?;
    let path = format!("{path}.{}", e.path());
    Some(ScenarioError::Format {
        message: messages::plain(&e.into_inner().to_string(), &path),
        path: echoed(&path),
    })
}

/// The objects of the format (`[]`: every entry of a list). serde would read a list in their
/// place as the fields in order (`"params": [1.46, 0.2]`): the format has no such shorthand.
const OBJECTS: [&str; 13] = [
    "params",
    "initial",
    "initial.left",
    "initial.right",
    "initial.diabolos[]",
    "drive",
    "drive.left",
    "drive.right",
    "drive.left.sine",
    "drive.right.sine",
    "drive.left.tracking",
    "drive.right.tracking",
    "sim",
];

/// Refuses a list where the format has an object.
fn no_list_for_an_object(document: &Value) -> Result<(), ScenarioError> {
    for pattern in OBJECTS {
        let mut found = vec![(String::new(), document)];
        for part in pattern.split('.') {
            let (name, every) = match part.strip_suffix("[]") {
                Some(name) => (name, true),
                None => (part, false),
            };
            let mut next = Vec::new();
            for (path, value) in found {
                let path = if path.is_empty() {
                    name.to_string()
                } else {
                    format!("{path}.{name}")
                };
                match value.get(name) {
                    Some(Value::Array(items)) if every => next.extend(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| (format!("{path}[{i}]"), item)),
                    ),
                    Some(v) if !every => next.push((path, v)),
                    _ => {}
                }
            }
            found = next;
        }
        if let Some((path, _)) = found.iter().find(|(_, v)| v.is_array()) {
            return Err(list_for_an_object(path));
        }
    }
    Ok(())
}

fn list_for_an_object(path: &str) -> ScenarioError {
    ScenarioError::Format {
        path: path.to_string(),
        message: "invalid type: a list, expected an object {\"field\": value, ...}".into(),
    }
}

/// What a JSON value is, in words.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod defaults_tests {
    use super::*;

    fn parsed(text: &str) -> Scenario {
        Scenario::parse(text, &[]).unwrap()
    }

    #[test]
    fn the_default_scenario_is_the_smallest_hanging_document_with_serde_defaults() {
        let document = r#"{"params": {"string_length": 1.46}, "initial": {"diabolos": [{"x": 0.0}]},
            "drive": {"left": {"type": "path", "keyframes": [[0.0, -0.4, 1.5]]},
                      "right": {"type": "path", "keyframes": [[0.0, 0.4, 1.5]]}},
            "sim": {"duration": 1.0}}"#;
        assert_eq!(Scenario::default(), parsed(document));
    }

    #[test]
    fn constructors_equal_the_documents_they_stand_for() {
        let with_defaults = |params: &str, sim: &str| {
            parsed(&format!(
                r#"{{"params": {params}, "initial": {{"diabolos": []}}, "sim": {sim}}}"#
            ))
        };
        let smallest = with_defaults(r#"{"string_length": 2.0}"#, r#"{"duration": 3.0}"#);
        assert_eq!(ParamsSpec::with_string_length(2.0), smallest.params);
        assert_eq!(SimSpec::for_duration(3.0), smallest.sim);
        assert_eq!(InitialSpec::default(), smallest.initial);
        let drives = parsed(
            r#"{"params": {"string_length": 1.46}, "initial": {"diabolos": [{"pos": [0.1, 0.9]}, {"x": -0.2}]},
                "drive": {"left": {"type": "path", "sine": {"center": [-0.4, 1.5], "amplitude": [0, 0.1], "frequency": 2}},
                          "right": {"type": "released"}},
                "sim": {"duration": 1}}"#,
        );
        assert_eq!(
            drives.drive.left,
            Some(DriveSpec::sine([-0.4, 1.5], [0.0, 0.1], 2.0, [0.0, 0.0]))
        );
        assert_eq!(drives.drive.right, Some(DriveSpec::released()));
        assert_eq!(
            drives.initial.diabolos,
            [DiaboloSpec::at([0.1, 0.9]), DiaboloSpec::at_x(-0.2)]
        );
    }

    #[test]
    fn the_default_scenario_builds_and_hangs_still() {
        let simulation = Scenario::default()
            .build(std::path::Path::new("."))
            .unwrap();
        let mut last = None;
        let report = simulation.run(&mut |row| last = Some(row.clone()));
        assert!(report.failure.is_none(), "{:?}", report.failure);
        let last = last.unwrap();
        assert_eq!(last.t, 1.0);
        // Still hands 0.8 m apart, L = 1.46 m: the diabolo stays at rest at the bottom of the
        // string, sqrt((L/2)^2 - 0.4^2) below the hands.
        let diabolo = &last.state.diabolos[0];
        let bottom = 1.5 - (0.73_f64.powi(2) - 0.4_f64.powi(2)).sqrt();
        approx::assert_abs_diff_eq!(diabolo.pos, [0.0, bottom].into(), epsilon = 1e-9);
        approx::assert_abs_diff_eq!(diabolo.vel, [0.0, 0.0].into(), epsilon = 1e-9);
    }
}
