//! What can be wrong with a scenario: always the JSON path, the value, the reason and the fix.

use thiserror::Error;

/// An input error: nothing runs and nothing is written.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ScenarioError {
    /// Not JSON, a value of the wrong type, a missing or an unknown field.
    #[error("{path}: {message}")]
    Format { path: String, message: String },
    /// A value out of its range, or an impossible initial state.
    #[error("{path}: {reason}{}; {fix}", shown(value))]
    Invalid {
        path: String,
        value: String,
        reason: String,
        fix: String,
    },
    /// A `--set KEY=VALUE` that cannot be applied.
    #[error("--set {key}: {reason}")]
    Override { key: String, reason: String },
    /// A command-line limit (`--max-rows`, `--max-duration`) that cannot be used.
    #[error("{flag}: {reason}")]
    Flag { flag: String, reason: String },
    /// The scenario file cannot be read.
    #[error("{file}: cannot read the scenario: {reason}")]
    Read { file: String, reason: String },
}

fn shown(value: &str) -> String {
    if value.is_empty() {
        String::new()
    } else {
        format!(" (got {value})")
    }
}

impl ScenarioError {
    /// The JSON path (or the override key, or the file) the error is about.
    pub fn path(&self) -> &str {
        match self {
            Self::Format { path, .. } | Self::Invalid { path, .. } => path,
            Self::Override { key, .. } => key,
            Self::Flag { flag, .. } => flag,
            Self::Read { file, .. } => file,
        }
    }
}
