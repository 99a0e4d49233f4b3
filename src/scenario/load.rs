//! The one way in: a scenario read from a file, standard input or a text, the `--set`
//! overrides applied, typed, checked and built within the limits, with its plausibility
//! warnings. The command line and the Python package both read scenarios through
//! [`Scenario::load`] (or [`Scenario::read_document`], for a sweep's base document), so that
//! they read the same scenarios with the same errors and the same warnings.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build::Built;
use super::error::ScenarioError;
use super::limits::Limits;
use super::plausible::{with_likely_mistake, Warning};
use super::spec::Scenario;
use crate::input_limits::{read_text, InputLimit, Records};
use crate::simulation::Simulation;

/// How errors name standard input.
const STANDARD_INPUT: &str = "standard input";

/// Where a scenario is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'a> {
    /// Standard input (named "standard input" in messages); its relative paths are read from the
    /// working folder.
    Stdin,
    /// The file at this path, named as given in messages; its relative paths are read from its
    /// folder.
    File(&'a str),
    /// A scenario's JSON text, named `label` in messages; its relative paths are read from the
    /// working folder.
    Text {
        /// The JSON text.
        text: &'a str,
        /// Its name in messages.
        label: &'a str,
    },
}

impl<'a> Source<'a> {
    /// A command line's scenario argument: `-` is standard input, anything else a file.
    pub fn argument(argument: &'a str) -> Self {
        if argument == "-" {
            Self::Stdin
        } else {
            Self::File(argument)
        }
    }

    /// The source as errors name it.
    pub fn name(&self) -> &'a str {
        match *self {
            Self::Stdin => STANDARD_INPUT,
            Self::File(file) => file,
            Self::Text { label, .. } => label,
        }
    }

    /// The scenario's text (a file or standard input read within the input limits of
    /// [`crate::input_limits`]) and the folder its relative paths are read from.
    pub fn read(&self) -> Result<(String, PathBuf), ScenarioError> {
        let read_error = |e: io::Error| ScenarioError::Read {
            file: self.name().into(),
            reason: InputLimit::of(&e).map_or_else(|| e.to_string(), |limit| limit.to_string()),
        };
        match *self {
            Self::Stdin => {
                let text = read_text(io::stdin().lock(), Records::Whole).map_err(read_error)?;
                Ok((text, PathBuf::from(".")))
            }
            Self::File(file) => {
                let path = Path::new(file);
                let text = File::open(path)
                    .and_then(|file| read_text(BufReader::new(file), Records::Whole))
                    .map_err(read_error)?;
                let base = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."))
                    .to_path_buf();
                Ok((text, base))
            }
            Self::Text { text, .. } => Ok((text.to_string(), PathBuf::from("."))),
        }
    }
}

impl Scenario {
    /// The scenario document of `source` with the overrides (KEY, VALUE text, as `--set` gives
    /// them) applied, not yet typed, and the folder its relative paths are read from. An empty
    /// source and text that is not JSON are errors naming the source.
    pub fn read_document(
        source: &Source,
        overrides: &[(String, String)],
    ) -> Result<(Value, PathBuf), ScenarioError> {
        let (text, base) = source.read()?;
        Ok((Self::file_document(source.name(), &text, overrides)?, base))
    }

    /// Reads the scenario of `source` ([`Scenario::read_document`]), types it and builds it
    /// within `limits` (an error that looks like a likely mistake says so), with its
    /// plausibility warnings: the scenario's own and the hands' paths'
    /// ([`Scenario::path_warnings`]).
    pub fn load(
        source: &Source,
        overrides: &[(String, String)],
        limits: &Limits,
    ) -> Result<(Scenario, Simulation, Vec<Warning>), ScenarioError> {
        let (document, base) = Self::read_document(source, overrides)?;
        let scenario = Scenario::from_value(document)?;
        let simulation = scenario
            .build_within(&base, limits)
            .map_err(with_likely_mistake)?;
        let mut warnings = scenario.warnings();
        warnings.extend(
            scenario
                .path_warnings(&simulation)
                .into_iter()
                .map(Warning::Reach),
        );
        Ok((scenario, simulation, warnings))
    }

    /// [`Scenario::load`] for a scenario in the plane or in space ([`Scenario::is_space`]):
    /// the scenario, its build ([`Built::Plane`] or [`Built::Space`]) and its warnings.
    /// `Scenario::load` refuses a scenario in space; this is the way in for both.
    pub fn load_any(
        source: &Source,
        overrides: &[(String, String)],
        limits: &Limits,
    ) -> Result<(Scenario, Built, Vec<Warning>), ScenarioError> {
        let (document, base) = Self::read_document(source, overrides)?;
        let scenario = Scenario::from_value(document)?;
        let built = scenario
            .build_any(&base, limits)
            .map_err(with_likely_mistake)?;
        let mut warnings = scenario.warnings();
        let reach = match &built {
            Built::Plane(simulation) => scenario.path_warnings(simulation),
            Built::Space(simulation) => scenario.space_path_warnings(simulation),
        };
        warnings.extend(reach.into_iter().map(Warning::Reach));
        Ok((scenario, built, warnings))
    }
}
