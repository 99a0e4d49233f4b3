//! `diabolo schema`: the JSON Schema of the scenario format.

use super::{say, CliError};
use diabolo::scenario::Scenario;

/// Prints the schema, pretty.
pub fn schema() -> Result<(), CliError> {
    say(serde_json::to_string_pretty(&Scenario::schema()).expect("a schema is JSON"))
}
