//! Scenario files (interface.md): the JSON format, its schema, `--set` overrides, and the
//! checked construction of a [`Simulation`](crate::simulation::run::Simulation) from them.

mod build;
mod error;
pub mod overrides;
mod spec;

pub use build::{DEFAULT_SMOOTHING, PATH_AGREEMENT, TAUT_SNAP_TOLERANCE};
pub use error::ScenarioError;
pub use spec::{
    BodySpec, DiaboloSpec, DriveSpec, DrivesSpec, FrictionLawName, InitialSpec, MethodName,
    ParamsSpec, PathSpec, Scenario, ScheduleSpec, SimSpec, SineSpec, TrackingSpec,
};

use serde_json::Value;

impl Scenario {
    /// Parses a scenario from JSON text, with `--set` style overrides (KEY, VALUE text) applied
    /// first. Errors carry the JSON path.
    pub fn parse(text: &str, overrides: &[(String, String)]) -> Result<Self, ScenarioError> {
        Self::from_value(Self::document(text, overrides)?)
    }

    /// The JSON document of a scenario text with the overrides applied, not yet typed.
    pub fn document(text: &str, overrides: &[(String, String)]) -> Result<Value, ScenarioError> {
        let mut document: Value =
            serde_json::from_str(text).map_err(|e| ScenarioError::Format {
                path: format!("line {}, column {}", e.line(), e.column()),
                message: format!("not valid JSON: {e}"),
            })?;
        for (key, value) in overrides {
            overrides::apply(&mut document, key, overrides::parse_value(value))?;
        }
        Ok(document)
    }

    /// Types a JSON document as a scenario; unknown fields and wrong types name their path.
    pub fn from_value(document: Value) -> Result<Self, ScenarioError> {
        serde_path_to_error::deserialize(&document).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                "(top level)".to_string()
            } else {
                path
            };
            drive_detail(&document, &path).unwrap_or(ScenarioError::Format {
                path,
                message: e.into_inner().to_string(),
            })
        })
    }

    /// The JSON Schema of the scenario format.
    pub fn schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Scenario)).expect("a schema is JSON")
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
        _ => return None,
    };
    let e = result.err()?;
    Some(ScenarioError::Format {
        path: format!("{path}.{}", e.path()),
        message: e.into_inner().to_string(),
    })
}
