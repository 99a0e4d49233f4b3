//! What can go wrong before a replay runs.

use thiserror::Error;

/// A recording that cannot be read, or replay options that do not fit it.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// A recording (or a folder of them) that cannot be read or parsed.
    #[error("{file}: {reason}")]
    Recording {
        /// The file or folder, as named in messages.
        file: String,
        /// What is wrong, with the line and column when there are.
        reason: String,
    },
    /// An option or parameter that does not fit the recording or is out of range.
    #[error("{what}: {reason}")]
    Options {
        /// The option or parameter (e.g. `--horizons`, `params.string_length`).
        what: String,
        /// What is wrong with it, and what to give instead.
        reason: String,
    },
}

impl ReplayError {
    /// The error as one of the recording `name`'s (options errors name it; a recording's
    /// error already does).
    pub fn in_recording(self, name: &str) -> Self {
        match self {
            Self::Options { what, reason } => Self::Recording {
                file: name.to_string(),
                reason: format!("{what}: {reason}"),
            },
            recording => recording,
        }
    }
}
