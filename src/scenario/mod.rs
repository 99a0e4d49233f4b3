//! Scenario files (interface.md): the JSON format, its schema, `--set` overrides, and the
//! checked construction of a [`Simulation`](crate::simulation::run::Simulation) from them.

mod build;
mod error;
mod json;
mod limits;
mod messages;
pub mod overrides;
pub mod ranges;
mod spec;

pub use build::{DEFAULT_SMOOTHING, PATH_AGREEMENT, TAUT_SNAP_TOLERANCE};
pub use error::ScenarioError;
pub use json::strict_json;
pub use limits::Limits;
pub use spec::{
    BodySpec, DiaboloSpec, DriveSpec, DrivesSpec, FrictionLawName, InitialSpec, MethodName,
    ParamsSpec, PathSpec, ReleasedSpec, Scenario, ScheduleSpec, SimSpec, SineSpec, TrackingSpec,
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
        let mut document = strict_json(text)?;
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
        serde_path_to_error::deserialize(&document).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." {
                "(top level)".to_string()
            } else {
                path
            };
            drive_detail(&document, &path).unwrap_or_else(|| ScenarioError::Format {
                message: messages::plain(&e.into_inner().to_string(), &path),
                path,
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
        serde_path_to_error::deserialize(params).map_err(|e| {
            let path = match e.path().to_string().as_str() {
                "." => "params".to_string(),
                inner => format!("params.{inner}"),
            };
            ScenarioError::Format {
                message: messages::plain(&e.into_inner().to_string(), &path),
                path,
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
        path,
    })
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
