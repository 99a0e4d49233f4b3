//! The scenario a command reads ([`Scenario::load`], the one way in shared with the Python
//! package): the scenario argument (a file, or `-` for standard input), the `--set` overrides
//! and the `--max-rows` and `--max-duration` limits; and its plausibility warnings printed
//! (`--quiet`, `--strict`).

use std::io::{self, Write};
use std::path::PathBuf;

use super::args::ScenarioArgs;
use diabolo::scenario::{overrides, Built, Scenario, ScenarioError, Source, Warning};
use diabolo::simulation::Simulation;

/// The `--set KEY=VALUE` overrides as (KEY, VALUE) pairs.
fn overrides(input: &ScenarioArgs) -> Result<Vec<(String, String)>, ScenarioError> {
    input
        .set
        .iter()
        .map(|s| overrides::split(s).map(|(k, v)| (k.to_string(), v.to_string())))
        .collect()
}

/// Reads the scenario document and applies the overrides: the document and its folder.
pub fn read_document(input: &ScenarioArgs) -> Result<(serde_json::Value, PathBuf), ScenarioError> {
    let sets = overrides(input)?;
    Scenario::read_document(&Source::argument(&input.scenario), &sets)
}

/// Reads, overrides, types and builds the scenario, and reports its plausibility warnings.
pub fn load(input: &ScenarioArgs) -> Result<(Scenario, Simulation), ScenarioError> {
    let limits = input.limits()?;
    let sets = overrides(input)?;
    let (scenario, simulation, warnings) =
        Scenario::load(&Source::argument(&input.scenario), &sets, &limits)?;
    report_warnings(input, warnings)?;
    Ok((scenario, simulation))
}

/// [`load`] for a scenario in the plane or in space ([`Scenario::load_any`]).
pub fn load_any(input: &ScenarioArgs) -> Result<(Scenario, Built), ScenarioError> {
    let limits = input.limits()?;
    let sets = overrides(input)?;
    let (scenario, built, warnings) =
        Scenario::load_any(&Source::argument(&input.scenario), &sets, &limits)?;
    report_warnings(input, warnings)?;
    Ok((scenario, built))
}

/// Prints each warning on standard error (none with `--quiet`); with `--strict` the first is
/// an error instead. A standard error that cannot take them does not stop the command.
pub fn report_warnings(input: &ScenarioArgs, warnings: Vec<Warning>) -> Result<(), ScenarioError> {
    if input.strict {
        return warnings
            .into_iter()
            .next()
            .map_or(Ok(()), |w| Err(w.into_error()));
    }
    if !input.quiet {
        let mut stderr = io::stderr().lock();
        for warning in &warnings {
            let _ = writeln!(stderr, "warning: {warning}");
        }
    }
    Ok(())
}
