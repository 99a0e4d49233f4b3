//! What can be wrong with a scenario: always the JSON path, the value, the reason and the fix.

use thiserror::Error;

/// An input error: nothing runs and nothing is written.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ScenarioError {
    /// Not JSON, a value of the wrong type, a missing or an unknown field.
    #[error("{path}: {message}")]
    Format {
        /// The JSON path (`params.friction`), or `(top level)`.
        path: String,
        /// What is wrong, in the user's words.
        message: String,
    },
    /// A value out of its range, or an impossible initial state.
    #[error("{path}: {reason}{}; {fix}", shown(value))]
    Invalid {
        /// The JSON path of the value.
        path: String,
        /// The value as given (cut when long); empty when there is no single value.
        value: String,
        /// Why it cannot be used.
        reason: String,
        /// What to do instead.
        fix: String,
    },
    /// A `--set KEY=VALUE` that cannot be applied.
    #[error("--set {key}: {reason}")]
    Override {
        /// The dotted key.
        key: String,
        /// Why it cannot be applied.
        reason: String,
    },
    /// A command-line limit (`--max-rows`, `--max-duration`) that cannot be used.
    #[error("{flag}: {reason}")]
    Flag {
        /// The flag, e.g. `--max-rows`.
        flag: String,
        /// Why its value cannot be used.
        reason: String,
    },
    /// Text that is not JSON.
    #[error("{at}: not valid JSON: {reason}")]
    Syntax {
        /// `line L, column C`.
        at: String,
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
        /// What the JSON reader expected.
        reason: String,
    },
    /// A scenario file that is not JSON (a YAML file, a typo).
    #[error("{file}: not JSON (line {line}, column {column}): {reason}; {hint}")]
    NotJson {
        /// The file, or `standard input`.
        file: String,
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
        /// What the JSON reader expected.
        reason: String,
        /// What the file looks like and what to do.
        hint: String,
    },
    /// A scenario file with nothing in it.
    #[error("{file} is empty: a scenario is a JSON object {{\"params\": {{\"string_length\": 1.46}}, \"initial\": ..., \"sim\": {{\"duration\": ...}}}} (see scenarios/*.json and `diabolo schema`)")]
    Empty {
        /// The file, or `standard input`.
        file: String,
    },
    /// The scenario file cannot be read.
    #[error("{file}: cannot read the scenario: {reason}")]
    Read {
        /// The file as given.
        file: String,
        /// The system's reason.
        reason: String,
    },
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
            Self::Syntax { at, .. } => at,
            Self::Read { file, .. } | Self::NotJson { file, .. } | Self::Empty { file } => file,
        }
    }
}
