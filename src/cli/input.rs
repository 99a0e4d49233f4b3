//! The scenario a command reads: a file or standard input, with the `--set` overrides and the
//! `--max-rows` and `--max-duration` limits.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::args::ScenarioArgs;
use diabolo::scenario::{overrides, Scenario, ScenarioError};
use diabolo::simulation::run::Simulation;

/// Reads the scenario document and applies the overrides: the document and its folder.
pub fn read_document(input: &ScenarioArgs) -> Result<(serde_json::Value, PathBuf), ScenarioError> {
    let (text, base) = if input.scenario == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| ScenarioError::Read {
                file: "-".into(),
                reason: e.to_string(),
            })?;
        (text, PathBuf::from("."))
    } else {
        let path = Path::new(&input.scenario);
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
            file: input.scenario.clone(),
            reason: e.to_string(),
        })?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        (text, base)
    };
    let sets = input
        .set
        .iter()
        .map(|s| overrides::split(s).map(|(k, v)| (k.to_string(), v.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((Scenario::document(&text, &sets)?, base))
}

/// Reads, overrides, types and builds the scenario.
pub fn load(input: &ScenarioArgs) -> Result<(Scenario, Simulation), ScenarioError> {
    let limits = input.limits()?;
    let (document, base) = read_document(input)?;
    let scenario = Scenario::from_value(document)?;
    let simulation = scenario.build_within(&base, &limits)?;
    Ok((scenario, simulation))
}
