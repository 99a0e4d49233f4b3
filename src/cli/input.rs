//! The scenario a command reads: a file or standard input, with the `--set` overrides, the
//! `--max-rows` and `--max-duration` limits, and its plausibility warnings (`--quiet`,
//! `--strict`).

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};

use super::args::ScenarioArgs;
use diabolo::input_limits::{read_text, InputLimit, Records};
use diabolo::scenario::plausible::with_likely_mistake;
use diabolo::scenario::{overrides, Scenario, ScenarioError, Warning};
use diabolo::simulation::run::Simulation;

/// How errors name standard input (`-`).
const STANDARD_INPUT: &str = "standard input";

/// The scenario file as errors name it.
fn file_name(input: &ScenarioArgs) -> &str {
    if input.scenario == "-" {
        STANDARD_INPUT
    } else {
        &input.scenario
    }
}

/// Reads the scenario document and applies the overrides: the document and its folder.
pub fn read_document(input: &ScenarioArgs) -> Result<(serde_json::Value, PathBuf), ScenarioError> {
    let file = file_name(input);
    let read_error = |e: io::Error| ScenarioError::Read {
        file: file.into(),
        reason: InputLimit::of(&e).map_or_else(|| e.to_string(), |limit| limit.to_string()),
    };
    let (text, base) = if input.scenario == "-" {
        let text = read_text(io::stdin().lock(), Records::Whole).map_err(read_error)?;
        (text, PathBuf::from("."))
    } else {
        let path = Path::new(&input.scenario);
        let text = File::open(path)
            .and_then(|file| read_text(BufReader::new(file), Records::Whole))
            .map_err(read_error)?;
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
    Ok((Scenario::file_document(file, &text, &sets)?, base))
}

/// Reads, overrides, types and builds the scenario, and reports its plausibility warnings.
pub fn load(input: &ScenarioArgs) -> Result<(Scenario, Simulation), ScenarioError> {
    let limits = input.limits()?;
    let (document, base) = read_document(input)?;
    let scenario = Scenario::from_value(document)?;
    let simulation = scenario
        .build_within(&base, &limits)
        .map_err(with_likely_mistake)?;
    let mut warnings = scenario.warnings();
    warnings.extend(
        scenario
            .path_warnings(&simulation)
            .into_iter()
            .map(Warning::Reach),
    );
    report_warnings(input, warnings)?;
    Ok((scenario, simulation))
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
